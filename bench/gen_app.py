#!/usr/bin/env python3
"""Writes a deterministic app-like tree for the packaging benchmark.

Usage: gen_app.py OUT_DIR [BINARY_MB] [SEED]
OUT_DIR/Bench.app holds: a ~BINARY_MB MB main executable (0755) made of machine-code-like
semi-compressible data; about 2,000 small resources (plists, strings, compiled nibs, PNG-like
images, JSON); and two frameworks laid out with symlinks (Versions/Current -> A, top-level
links into it) as macOS-style bundles are.
"""
import os
import random
import sys


def semi_compressible(rng, size):
    """Machine-code-like bytes that deflate to about half: 4-byte "instructions" drawn from a
    skewed vocabulary, some with random immediates, and short repeated sequences."""
    vocabulary = [rng.randbytes(4) for _ in range(4096)]
    weights = [1.0 / (i + 1) for i in range(len(vocabulary))]
    sequences = [b"".join(rng.choices(vocabulary, weights, k=rng.randint(3, 12))) for _ in range(256)]
    out = bytearray()
    while len(out) < size:
        roll = rng.random()
        if roll < 0.15:
            out += rng.choice(sequences)
        elif roll < 0.75:
            out += b"".join(rng.choices(vocabulary, weights, k=16))
        else:
            out += rng.randbytes(8)
    return bytes(out[:size])


class MachineCode:
    """Produces machine-code-like bytes quickly: a few distinct megabytes are generated once and
    then tiled (deflate's 32 KB window cannot see the repetition, so ratio and speed hold)."""

    def __init__(self, rng, blocks=4, block_size=1 << 20):
        self.rng = rng
        self.blocks = [semi_compressible(rng, block_size) for _ in range(blocks)]

    def bytes(self, size):
        out = bytearray()
        while len(out) < size:
            out += self.rng.choice(self.blocks)
        return bytes(out[:size])


def main():
    out = sys.argv[1]
    binary_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 100
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    app = os.path.join(out, "Bench.app")
    os.makedirs(app, exist_ok=True)
    code = MachineCode(rng)
    exe = os.path.join(app, "Bench")
    with open(exe, "wb") as f:
        chunk = 4 * 1024 * 1024
        remaining = int(binary_mb * 1024 * 1024)
        while remaining > 0:
            n = min(chunk, remaining)
            f.write(code.bytes(n))
            remaining -= n
    os.chmod(exe, 0o755)
    words = "shout out friends reaction voice message timeline profile settings share".split()
    for i in range(2000):
        folder = os.path.join(app, f"Resources{i % 20}", f"Group{i % 7}")
        os.makedirs(folder, exist_ok=True)
        kind = i % 5
        if kind == 0:
            body = ("<?xml version=\"1.0\"?>\n<plist><dict>" + "".join(
                f"<key>{rng.choice(words)}{j}</key><string>{rng.choice(words)}</string>" for j in range(rng.randint(5, 60)))
                + "</dict></plist>\n").encode()
            name = f"Item{i}.plist"
        elif kind == 1:
            body = "".join(f"\"{rng.choice(words)}_{j}\" = \"{' '.join(rng.choices(words, k=5))}\";\n"
                           for j in range(rng.randint(10, 80))).encode()
            name = f"Localizable{i}.strings"
        elif kind == 2:
            body = code.bytes(rng.randint(2_000, 40_000))
            name = f"View{i}.nib"
        elif kind == 3:
            body = b"\x89PNG\r\n\x1a\n" + rng.randbytes(rng.randint(1_000, 60_000))
            name = f"Image{i}@2x.png"
        else:
            body = ("{" + ",".join(f"\"{rng.choice(words)}{j}\": {rng.randint(0, 10**6)}" for j in range(rng.randint(5, 200))) + "}").encode()
            name = f"data{i}.json"
        with open(os.path.join(folder, name), "wb") as f:
            f.write(body)
    for framework in ["Core", "UI"]:
        root = os.path.join(app, "Frameworks", f"{framework}.framework")
        version = os.path.join(root, "Versions", "A")
        os.makedirs(os.path.join(version, "Resources"), exist_ok=True)
        with open(os.path.join(version, framework), "wb") as f:
            f.write(code.bytes(3 * 1024 * 1024))
        os.chmod(os.path.join(version, framework), 0o755)
        with open(os.path.join(version, "Resources", "Info.plist"), "w") as f:
            f.write("<plist><dict><key>CFBundleIdentifier</key><string>com.example.%s</string></dict></plist>\n" % framework)
        os.symlink("A", os.path.join(root, "Versions", "Current"))
        os.symlink(f"Versions/Current/{framework}", os.path.join(root, framework))
        os.symlink("Versions/Current/Resources", os.path.join(root, "Resources"))
    with open(os.path.join(app, "Info.plist"), "w") as f:
        f.write("<plist version=\"1.0\"><dict><key>CFBundleExecutable</key><string>Bench</string>"
                "<key>CFBundleIdentifier</key><string>com.example.bench</string>"
                "<key>CFBundleVersion</key><string>1</string><key>CFBundleShortVersionString</key><string>1.0</string>"
                "</dict></plist>\n")
    total = 0
    for dirpath, _, files in os.walk(app):
        for name in files:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                total += os.path.getsize(path)
    print(f"{app}: {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
