#!/usr/bin/env python3
"""Writes a deterministic app with a valid ad-hoc seal, made with hashlib, for `codesign verify`.

Usage: gen_signed_app.py OUT_DIR [BINARY_MB] [RESOURCES_MB] [SEED] [BIG_MB]
  (defaults 60, 140, 7, 0: a ~200 MB app; the Swift tests use a ~2 MB variant, and one with a
  single BIG_MB resource `Assets/Big.car` besides)

OUT_DIR/Bench.app holds:
- `Bench`: a thin arm64 MH_EXECUTE of ~BINARY_MB MB (__TEXT, __LINKEDIT, LC_CODE_SIGNATURE) whose
  signature is a SuperBlob with a SHA-256 CodeDirectory (version 0x20400, flags adhoc, execSeg),
  an empty requirement set, a SHA-1 alternate CodeDirectory and an empty CMS wrapper; both
  CodeDirectories hash every 4 KiB page up to the signature and bind Info.plist, the requirements
  and CodeResources in their special slots.
- thousands of resources of mixed sizes (~RESOURCES_MB MB in all), shaped like a real app's (one
  of 180 MB held 6,700 files): mostly small files (images, nibs, strings), some medium ones, a few
  of a megabyte or more and two over 8 MB, some under `.lproj` folders (optional seals). The
  default 60 + 140 MB app holds about 6,400 files.
- `Info.plist` and `_CodeSignature/CodeResources` with files (SHA-1), files2 (hash and hash2),
  rules and rules2 as Xcode 9 to 11 write them.

Prints one line: the app's path and size, and the bytes the seal makes a verifier hash, per kind:
`size N files N sealed-sha1 N sealed-sha256 N pages-sha1 N pages-sha256 N page-size 4096` (files2 seals with a
hash2 are checked by SHA-256 only, as codesign does; the pages are every page of each CodeDirectory).
"""
import hashlib
import os
import plistlib
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_app import MachineCode  # noqa: E402

PAGE = 4096
IDENTIFIER = "com.example.bench"

RULES = {
    "^.*": True,
    "^.*\\.lproj/": {"optional": True, "weight": 1000.0},
    "^.*\\.lproj/locversion.plist$": {"omit": True, "weight": 1100.0},
    "^Base\\.lproj/": {"weight": 1010.0},
    "^version.plist$": True,
}
RULES2 = {
    ".*\\.dSYM($|/)": {"weight": 11.0},
    "^(.*/)?\\.DS_Store$": {"omit": True, "weight": 2000.0},
    "^.*": True,
    "^.*\\.lproj/": {"optional": True, "weight": 1000.0},
    "^.*\\.lproj/locversion.plist$": {"omit": True, "weight": 1100.0},
    "^Base\\.lproj/": {"weight": 1010.0},
    "^Info\\.plist$": {"omit": True, "weight": 20.0},
    "^PkgInfo$": {"omit": True, "weight": 20.0},
    "^embedded\\.provisionprofile$": {"weight": 20.0},
    "^version\\.plist$": {"weight": 20.0},
}


def resource_sizes(rng, total):
    """Mixed sizes summing to about `total`: 97% of the files small (0.2-16 KB), 2.8% medium
    (16-400 KB), the rest 0.5-3 MB, and two files over 8 MB when the total allows."""
    sizes = []
    if total >= 40 << 20:
        sizes += [9 << 20, 12 << 20]
    remaining = total - sum(sizes)
    while remaining > 0:
        roll = rng.random()
        if roll < 0.97:
            size = rng.randint(200, 16 << 10)
        elif roll < 0.998:
            size = rng.randint(16 << 10, 400 << 10)
        else:
            size = rng.randint(512 << 10, 3 << 20)
        size = min(size, remaining)
        sizes.append(size)
        remaining -= size
    return sizes


def write_resources(app, rng, code, total):
    folders = ["Assets", "Fonts", "Sounds", "Storyboards/Main.storyboardc", "en.lproj", "Base.lproj", "de.lproj",
               "Data/Models", "Data/Fixtures", "Images"]
    paths = []
    for i, size in enumerate(resource_sizes(rng, total)):
        folder = folders[i % len(folders)] + ("" if i % 3 else f"/Group{i % 17}")
        os.makedirs(os.path.join(app, folder), exist_ok=True)
        relative = f"{folder}/res{i:05d}" + [".png", ".nib", ".json", ".strings", ".car"][i % 5]
        # Half machine-code-like bytes (deflate to about half), half random (incompressible).
        body = code.bytes(size) if i % 2 else rng.randbytes(size)
        with open(os.path.join(app, relative), "wb") as f:
            f.write(body)
        paths.append(relative)
    return paths


def digest(path, name):
    h = hashlib.new(name)
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.digest()


def code_resources(app, paths):
    """Xcode's CodeResources for `paths`, and the bytes a verifier hashes per kind."""
    files, files2 = {}, {}
    sealed = {"sha1": 0, "sha256": 0}
    for relative in sorted(paths + ["Info.plist"]):
        full = os.path.join(app, relative)
        sha1, sha256 = digest(full, "sha1"), digest(full, "sha256")
        optional = ".lproj/" in relative
        files[relative] = {"hash": sha1, "optional": True} if optional else sha1
        if relative == "Info.plist":
            continue  # omitted by rules2
        seal = {"hash": sha1, "hash2": sha256}
        if optional:
            seal["optional"] = True
        files2[relative] = seal
        sealed["sha256"] += os.path.getsize(full)
    data = plistlib.dumps({"files": files, "files2": files2, "rules": RULES, "rules2": RULES2}, fmt=plistlib.FMT_XML)
    return data, sealed


def blob(magic, payload):
    return struct.pack(">II", magic, 8 + len(payload)) + payload


def code_directory(kind, code, special):
    """A version 0x20400 CodeDirectory of `kind` (sha1 or sha256) over `code`, with `special`
    (slots 1.. in order) hashed; flags adhoc, execSeg over __TEXT (the main executable)."""
    hash_size, hash_type = (20, 1) if kind == "sha1" else (32, 2)
    identifier = IDENTIFIER.encode() + b"\0"
    header_size = 88
    special_hashes = [hashlib.new(kind, s).digest() for s in special]
    pages = [hashlib.new(kind, code[i:i + PAGE]).digest() for i in range(0, len(code), PAGE)]
    hash_offset = header_size + len(identifier) + len(special_hashes) * hash_size
    length = hash_offset + len(pages) * hash_size
    text_end = struct.unpack("<Q", code[32 + 48:32 + 56])[0]  # __TEXT's filesize
    fixed = struct.pack(">9I4B4I4Q", 0xFADE0C02, length, 0x20400, 0x2, hash_offset, header_size, len(special_hashes),
                        len(pages), len(code), hash_size, hash_type, 0, 12, 0, 0, 0, 0, 0, 0, text_end, 1)
    return fixed + identifier + b"".join(reversed(special_hashes)) + b"".join(pages)


def superblob(entries):
    offset = 12 + 8 * len(entries)
    index, data = b"", b""
    for kind, content in entries:
        index += struct.pack(">II", kind, offset + len(data))
        data += content
    return struct.pack(">III", 0xFADE0CC0, offset + len(data), len(entries)) + index + data


def write_executable(path, machine, size, info, resources):
    """A thin arm64 executable of about `size` bytes, signed ad hoc over `info` and `resources`."""
    requirements = struct.pack(">III", 0xFADE0C01, 12, 0)
    special = [info, requirements, resources]
    text_size = (size * 9 // 10) // PAGE * PAGE
    linkedit_data = size - text_size
    code_limit = text_size + linkedit_data
    pages = (code_limit + PAGE - 1) // PAGE
    cd_sizes = [88 + len(IDENTIFIER) + 1 + 3 * h + pages * h for h in (32, 20)]
    signature_size = 12 + 8 * 4 + sum(cd_sizes) + len(requirements) + 8
    signature_size = (signature_size + 15) // 16 * 16
    commands = (struct.pack("<II16sQQQQiiII", 0x19, 72, b"__TEXT", 0x100000000, text_size, 0, text_size, 5, 5, 0, 0)
                + struct.pack("<II16sQQQQiiII", 0x19, 72, b"__LINKEDIT", 0x100000000 + text_size,
                              (linkedit_data + signature_size + PAGE - 1) // PAGE * PAGE, text_size,
                              linkedit_data + signature_size, 1, 1, 0, 0)
                + struct.pack("<IIII", 0x1D, 16, code_limit, signature_size))
    header = struct.pack("<IiiIIIII", 0xFEEDFACF, 0x0100000C, 0, 2, 3, len(commands), 0x200085, 0) + commands
    code = header + b"\0" * (PAGE - len(header)) + machine.bytes(code_limit - PAGE)
    primary = code_directory("sha256", code, special)
    alternate = code_directory("sha1", code, special)
    signature = superblob([(0, primary), (2, requirements), (0x1000, alternate), (0x10000, blob(0xFADE0B01, b""))])
    assert len(signature) <= signature_size, (len(signature), signature_size)
    with open(path, "wb") as f:
        f.write(code)
        f.write(signature + b"\0" * (signature_size - len(signature)))
    os.chmod(path, 0o755)
    return {"sha256": pages * PAGE, "sha1": pages * PAGE}


def main():
    out = sys.argv[1]
    binary_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 60
    resources_mb = float(sys.argv[3]) if len(sys.argv) > 3 else 140
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 7)
    app = os.path.join(out, "Bench.app")
    os.makedirs(app, exist_ok=True)
    # Two distinct blocks of machine-code-like bytes, tiled (generating them is the slow part).
    code = MachineCode(rng, blocks=2, block_size=256 << 10)
    paths = write_resources(app, rng, code, int(resources_mb * (1 << 20)))
    big_mb = float(sys.argv[5]) if len(sys.argv) > 5 else 0
    if big_mb > 0:
        with open(os.path.join(app, "Assets", "Big.car"), "wb") as f:
            f.write(code.bytes(int(big_mb * (1 << 20))))
        paths.append("Assets/Big.car")
    info = plistlib.dumps({"CFBundleExecutable": "Bench", "CFBundleIdentifier": IDENTIFIER, "CFBundleVersion": "1",
                           "CFBundleShortVersionString": "1.0", "CFBundlePackageType": "APPL"}, fmt=plistlib.FMT_XML)
    with open(os.path.join(app, "Info.plist"), "wb") as f:
        f.write(info)
    resources, sealed = code_resources(app, paths)
    os.makedirs(os.path.join(app, "_CodeSignature"), exist_ok=True)
    with open(os.path.join(app, "_CodeSignature", "CodeResources"), "wb") as f:
        f.write(resources)
    pages = write_executable(os.path.join(app, "Bench"), code, int(binary_mb * (1 << 20)), info, resources)
    total = sum(os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(app) for n in names)
    print(f"{app} size {total} files {len(paths) + 3} sealed-sha1 {sealed['sha1']} sealed-sha256 {sealed['sha256']} "
          f"pages-sha1 {pages['sha1']} pages-sha256 {pages['sha256']} page-size {PAGE}")


if __name__ == "__main__":
    main()
