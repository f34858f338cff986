#!/usr/bin/env python3
"""Seeds for the macho and codesign-blob fuzz harnesses (called by scripts/fuzz.sh).

  fuzz_codesign_seeds.py fixtures OUT IPA...  every Mach-O in the ipas (macho-*) and each blob of
                                              their embedded signatures (blob-*)
  fuzz_codesign_seeds.py made OUT             a tiny arm64 executable signed with a hand-made super
                                              blob (CodeDirectory, requirements, entitlements, empty
                                              CMS), thin, fat32 and fat64, and its blobs
"""
import hashlib
import os
import struct
import sys
import zipfile


def blobs(image):
    """(type, bytes) of each blob of a thin image's embedded signature."""
    ncmds = struct.unpack("<I", image[16:20])[0]
    at = 32 if struct.unpack("<I", image[:4])[0] == 0xFEEDFACF else 28
    for _ in range(ncmds):
        cmd, size = struct.unpack("<II", image[at:at + 8])
        if cmd == 0x1D:
            offset, length = struct.unpack("<II", image[at + 8:at + 16])
            sig = image[offset:offset + length]
            yield 0xFFFFFFFF, sig[:struct.unpack(">I", sig[4:8])[0]]
            for i in range(struct.unpack(">I", sig[8:12])[0]):
                kind, start = struct.unpack(">II", sig[12 + 8 * i:20 + 8 * i])
                yield kind, sig[start:start + struct.unpack(">I", sig[start + 4:start + 8])[0]]
        at += size


def slices(data):
    magic = struct.unpack(">I", data[:4])[0]
    if magic in (0xCAFEBABE, 0xCAFEBABF):
        wide = magic == 0xCAFEBABF
        for i in range(struct.unpack(">I", data[4:8])[0]):
            if wide:
                offset, size = struct.unpack(">QQ", data[16 + 32 * i:32 + 32 * i])
            else:
                offset, size = struct.unpack(">II", data[16 + 20 * i:24 + 20 * i])
            yield data[offset:offset + size]
    else:
        yield data


def write_all(out, name, data):
    with open(os.path.join(out, "macho-" + name), "wb") as f:
        f.write(data)
    for n, image in enumerate(slices(data)):
        for kind, blob in blobs(image):
            with open(os.path.join(out, "blob-%s-%d-%x" % (name, n, kind)), "wb") as f:
                f.write(blob)


def blob(magic, payload):
    return struct.pack(">II", magic, 8 + len(payload)) + payload


def made(out):
    identifier = b"com.example.fuzz\0"
    # designated => identifier "com.example"
    requirement = struct.pack(">IIIII", 0xFADE0C00, 32, 1, 2, 11) + b"com.example\0"
    requirements = struct.pack(">III", 0xFADE0C01, 20 + len(requirement), 1) + struct.pack(">II", 3, 20) + requirement
    entitlements = blob(0xFADE7171, b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict>\n'
                        b'\t<key>get-task-allow</key>\n\t<true/>\n</dict>\n</plist>\n')
    der = blob(0xFADE7172, bytes([0x31, 0x15, 0x30, 0x13, 0x0C, 0x0E]) + b"get-task-allow" + bytes([0x01, 0x01, 0x01]))
    # Header: 32 bytes; LC_SEGMENT_64 __TEXT (72) and LC_CODE_SIGNATURE (16).
    code_end = 0x1000
    commands = struct.pack("<II16sQQQQiiII", 0x19, 72, b"__TEXT", 0x100000000, code_end, 0, code_end, 5, 5, 0, 0)
    sig_offset = code_end
    body = lambda sig_size: (struct.pack("<IiiIIIII", 0xFEEDFACF, 0x0100000C, 0, 2, 2, 88, 0x200085, 0)
                             + commands + struct.pack("<IIII", 0x1D, 16, sig_offset, sig_size))
    code = body(0)
    code = code + b"\0" * (code_end - len(code))
    special_count = 7
    special_hashes = [b"\0" * 32] * special_count
    special_hashes[1] = hashlib.sha256(requirements).digest()
    special_hashes[4] = hashlib.sha256(entitlements).digest()
    special_hashes[6] = hashlib.sha256(der).digest()
    header_size = 88
    hash_offset = header_size + len(identifier) + special_count * 32

    def directory(code_bytes):
        pages = [hashlib.sha256(code_bytes[i:i + 4096]).digest() for i in range(0, len(code_bytes), 4096)]
        fixed = struct.pack(">9I4B4I4Q", 0xFADE0C02, header_size + len(identifier) + (special_count + len(pages)) * 32,
                            0x20400, 0, hash_offset, header_size, special_count, len(pages), len(code_bytes), 32, 2, 0, 12,
                            0, 0, 0, 0, 0, 0, code_end, 1)
        return fixed + identifier + b"".join(reversed(special_hashes)) + b"".join(pages)

    def superblob(cd):
        entries = [(0, cd), (2, requirements), (5, entitlements), (7, der), (0x10000, blob(0xFADE0B01, b""))]
        offset = 12 + 8 * len(entries)
        index, data = b"", b""
        for kind, content in entries:
            index += struct.pack(">II", kind, offset + len(data))
            data += content
        return struct.pack(">III", 0xFADE0CC0, offset + len(data), len(entries)) + index + data

    size = len(superblob(directory(code)))
    code = body(size) + code[len(body(size)):]
    thin = code + superblob(directory(code))
    write_all(out, "made-thin", thin)
    for wide in (False, True):
        if wide:
            header = struct.pack(">II", 0xCAFEBABF, 1) + struct.pack(">iiQQII", 0x0100000C, 0, 0x4000, len(thin), 14, 0)
        else:
            header = struct.pack(">II", 0xCAFEBABE, 1) + struct.pack(">iiIII", 0x0100000C, 0, 0x4000, len(thin), 14)
        write_all(out, "made-fat64" if wide else "made-fat32", header + b"\0" * (0x4000 - len(header)) + thin)


def main():
    mode, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if mode == "made":
        made(out)
        return
    for path in sys.argv[3:]:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                data = z.read(info) if not info.is_dir() else b""
                if len(data) >= 4 and struct.unpack(">I", data[:4])[0] in (0xCAFEBABE, 0xCAFEBABF, 0xCFFAEDFE, 0xCEFAEDFE):
                    name = os.path.basename(path)[:-4] + "-" + os.path.basename(info.filename)
                    write_all(out, name, data)


main()
