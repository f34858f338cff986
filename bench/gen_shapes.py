#!/usr/bin/env python3
"""Writes deterministic trees of other shapes than bench/gen_app.py's, for the packaging benchmark.

Usage: gen_shapes.py SHAPE OUT_DIR [SEED]
Writes OUT_DIR/Bench.app (with an Info.plist, so it packages as an app) in one of these shapes:

  mixed           a 24 MB binary, ~1,500 small text files (plists, strings, JSON), ~300 real
                  PNGs (zlib-compressed pixels), gzip-compressed assets, and a few large text
                  files (JavaScript-like bundles and logs) that span several 1 MiB chunks
  small           ~20,000 files of 40 bytes to 4 KB (text and binary) in 400 folders
  huge            three large files: 48 MB of machine-code-like bytes, 32 MB of log-like text,
                  16 MB of sparse records
  incompressible  random bytes: a 48 MB file, 400 files of 1-200 KB, and gzip-compressed files
  deep            folders nested 48 deep in several branches, long names, a small file in each
  realcode        mixed's resources around 48 MB of real machine code: the toolchain's own
                  swift-frontend (x86-64 or arm64 as the machine is), where the other shapes'
                  machine code is made up. Not the same bytes on every machine (the toolchain's
                  version decides), but both tools see the same bytes in one run
"""
import gzip
import os
import random
import shutil
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_app import MachineCode  # noqa: E402

WORDS = ("shout out friends reaction voice message timeline profile settings share "
         "account follow unfollow notification badge avatar upload download camera gallery").split()


def write(path, body, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(body)
    os.chmod(path, mode)


def info_plist(app):
    write(os.path.join(app, "Info.plist"), (
        "<plist version=\"1.0\"><dict><key>CFBundleExecutable</key><string>Bench</string>"
        "<key>CFBundleIdentifier</key><string>com.example.bench</string>"
        "<key>CFBundleVersion</key><string>1</string><key>CFBundleShortVersionString</key><string>1.0</string>"
        "</dict></plist>\n").encode())


def strings_file(rng, lines):
    return "".join(f"\"{rng.choice(WORDS)}_{j}\" = \"{' '.join(rng.choices(WORDS, k=rng.randint(2, 9)))}\";\n"
                   for j in range(lines)).encode()


def plist_file(rng, keys):
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n" + "".join(
        f"\t<key>{rng.choice(WORDS)}{j}</key>\n\t<string>{rng.choice(WORDS)}-{rng.randint(0, 999)}</string>\n"
        for j in range(keys)) + "</dict>\n</plist>\n").encode()


def json_file(rng, keys):
    return ("{" + ",".join(f"\"{rng.choice(WORDS)}{j}\": {rng.randint(0, 10**6)}" for j in range(keys)) + "}").encode()


def javascript(rng, size):
    """Minified-script-like text: identifiers, calls and literals with much repetition."""
    names = [rng.choice(WORDS) + rng.choice(["", "s", "Id", "List", "View", "Model"]) + str(rng.randint(0, 99))
             for _ in range(600)]
    parts = []
    total = 0
    while total < size:
        a, b, c = rng.choice(names), rng.choice(names), rng.choice(names)
        piece = rng.choice([
            f"function {a}({b},{c}){{return {b}.{c}({rng.randint(0, 999)})}}",
            f"var {a}={b}&&{b}.{c}||\"{rng.choice(WORDS)}\";",
            f"{a}.prototype.{b}=function(e){{this.{c}=e;}};",
            f"if({a}>{rng.randint(0, 9999)}){{{b}.push({c});}}else{{{c}=null}}",
        ])
        parts.append(piece)
        total += len(piece)
    return "".join(parts).encode()[:size]


def log_text(rng, size):
    """Log-like lines: timestamps, levels, words, numbers."""
    out = []
    total = 0
    second = 1_700_000_000
    while total < size:
        second += rng.randint(0, 3)
        line = (f"{second}.{rng.randint(0, 999):03d} {rng.choice(['INFO', 'DEBUG', 'WARN'])} "
                f"[{rng.choice(WORDS)}] {' '.join(rng.choices(WORDS, k=rng.randint(3, 12)))} id={rng.randint(0, 10**8)}\n")
        out.append(line)
        total += len(line)
    return "".join(out).encode()[:size]


def tiled(blocks, rng, size):
    """`size` bytes of the given distinct blocks in random order (more than deflate's window
    apart, so the tiling compresses like fresh data, and quick to make)."""
    out = bytearray()
    while len(out) < size:
        out += rng.choice(blocks)
    return bytes(out[:size])


def png(rng, width, height):
    """A real PNG: a gradient with noise, zlib-compressed at level 9 as image tools do."""
    phase = rng.randint(0, 255)
    noise = rng.randbytes(4 * width * 8)
    raw = bytearray()
    for y in range(height):
        gradient = bytes(v for x in range(width) for v in ((x + phase) & 0xFF, (y * 2) & 0xFF, (x ^ y) & 0xFF, 255))
        start = rng.randrange(0, len(noise) - 4 * width + 1)
        raw.append(1)  # filter: Sub
        raw += bytes(g ^ (n & 0x0F) for g, n in zip(gradient, noise[start:start + 4 * width]))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")


def mixed(app, rng):
    code = MachineCode(rng)
    write(os.path.join(app, "Bench"), code.bytes(24 << 20), 0o755)
    mixed_resources(app, rng)


def mixed_resources(app, rng):
    """Everything of the mixed tree but its binary."""
    for i in range(1500):
        folder = os.path.join(app, f"Resources{i % 12}")
        kind = i % 3
        if kind == 0:
            write(os.path.join(folder, f"Item{i}.plist"), plist_file(rng, rng.randint(3, 80)))
        elif kind == 1:
            write(os.path.join(folder, f"{['en', 'de', 'fr', 'ja'][i % 4]}.lproj", f"Strings{i}.strings"),
                  strings_file(rng, rng.randint(5, 120)))
        else:
            write(os.path.join(folder, f"data{i}.json"), json_file(rng, rng.randint(3, 300)))
    for i in range(300):
        side = rng.choice([20, 29, 40, 60, 76, 83, 120, 180])
        write(os.path.join(app, "Images", f"Icon{i}@{rng.choice([2, 3])}x.png"), png(rng, side, side))
    for i in range(40):
        body = gzip.compress(json_file(rng, rng.randint(200, 4000)), 9, mtime=0)
        write(os.path.join(app, "Assets", f"pack{i}.json.gz"), body)
    js_blocks = [javascript(rng, 1 << 20) for _ in range(3)]
    for i, size in enumerate([3_500_000, 1_800_000, 600_000, 250_000]):
        write(os.path.join(app, "Web", f"bundle{i}.js"), tiled(js_blocks, rng, size))
    write(os.path.join(app, "Logs", "events.log"), log_text(rng, 2_500_000))


def small(app, rng):
    code = MachineCode(rng, blocks=1)
    sample = code.bytes(1 << 20)
    for i in range(20_000):
        folder = os.path.join(app, f"Group{i % 40}", f"Set{i % 10}")
        kind = i % 4
        if kind == 0:
            body = strings_file(rng, rng.randint(1, 30))
        elif kind == 1:
            body = json_file(rng, rng.randint(1, 60))
        elif kind == 2:
            start = rng.randint(0, len(sample) - 4096)
            body = sample[start:start + rng.randint(40, 4096)]
        else:
            body = plist_file(rng, rng.randint(1, 20))
        write(os.path.join(folder, f"f{i}.{['strings', 'json', 'bin', 'plist'][kind]}"), body)


def huge(app, rng):
    code = MachineCode(rng)
    with open(os.path.join(app, "Bench"), "wb") as f:
        for _ in range(12):
            f.write(code.bytes(4 << 20))
    os.chmod(os.path.join(app, "Bench"), 0o755)
    logs = [log_text(rng, 1 << 20) for _ in range(4)]
    write(os.path.join(app, "Data", "history.log"), tiled(logs, rng, 32 << 20))
    records = []
    for _ in range(4):
        block = bytearray(1 << 20)
        for offset in range(0, len(block), 64):
            if rng.random() < 0.3:
                block[offset:offset + 16] = rng.randbytes(16)
        records.append(bytes(block))
    write(os.path.join(app, "Data", "records.db"), tiled(records, rng, 16 << 20))


def incompressible(app, rng):
    write(os.path.join(app, "Bench"), rng.randbytes(48 << 20), 0o755)
    for i in range(400):
        write(os.path.join(app, "Media", f"clip{i}.bin"), rng.randbytes(rng.randint(1_000, 200_000)))
    for i in range(40):
        write(os.path.join(app, "Packed", f"data{i}.gz"), gzip.compress(log_text(rng, 200_000), 6, mtime=0))


def deep(app, rng):
    for branch in range(60):
        path = app
        for depth in range(48):
            path = os.path.join(path, f"{rng.choice(WORDS)}_{branch}_{depth}.bundle")
            if depth % 2 == 0:
                write(os.path.join(path, f"{rng.choice(WORDS)}Configuration{depth}.plist"), plist_file(rng, rng.randint(1, 10)))


def toolchain_machine_code():
    """The path of the toolchain's swift-frontend, real compiler output of a known kind and size."""
    for candidate in (shutil.which("swift-frontend"), shutil.which("swift")):
        if candidate:
            frontend = os.path.join(os.path.dirname(os.path.realpath(candidate)), "swift-frontend")
            if os.path.isfile(frontend):
                return frontend
    sys.exit("gen_shapes: no swift-frontend on PATH (the realcode shape takes its machine code from the toolchain)")


def realcode(app, rng):
    with open(toolchain_machine_code(), "rb") as f:
        body = f.read(48 << 20)
    write(os.path.join(app, "Bench"), body, 0o755)
    mixed_resources(app, rng)


SHAPES = {"mixed": mixed, "small": small, "huge": huge, "incompressible": incompressible, "deep": deep, "realcode": realcode}


def main():
    shape, out = sys.argv[1], sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    app = os.path.join(out, "Bench.app")
    os.makedirs(app, exist_ok=True)
    SHAPES[shape](app, rng)
    info_plist(app)
    total = sum(os.path.getsize(os.path.join(folder, name)) for folder, _, files in os.walk(app) for name in files)
    print(f"{app}: {shape}, {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
