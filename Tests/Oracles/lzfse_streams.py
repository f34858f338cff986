#!/usr/bin/env python3
"""Writes LZFSE streams made by Apple's reference encoder (PyPI `lzfse`) for the decoder's tests.

Usage: lzfse_streams.py FOLDER            the test cases
       lzfse_streams.py --seeds FOLDER    the small streams committed as fuzz seeds (Fuzz/Seeds/lzfse)
For each case NAME writes FOLDER/NAME.raw (the bytes) and FOLDER/NAME.lzfse (Apple's stream). Cases
named `v1-*` are Apple's `bvx2` streams rewritten here with `bvx1` headers (the plain form of the
same fields, which Apple's encoder no longer writes), so the decoder's `bvx1` path is checked too.
"""
import os
import random
import struct
import sys

import lzfse


def pixels(width, height, seed):
    """BGRA rows like an icon's: gradients, a few flat shapes, an alpha edge, some noise."""
    rng = random.Random(seed)
    out = bytearray()
    for y in range(height):
        for x in range(width):
            inside = (x - width // 2) ** 2 + (y - height // 2) ** 2 < (width // 3) ** 2
            b, g, r = (x * 255 // width, y * 255 // height, 200) if inside else (30, 60, (x ^ y) & 0xFF)
            noise = rng.randrange(4)
            alpha = 255 if x > 2 and y > 2 and x < width - 3 and y < height - 3 else rng.randrange(256)
            out += bytes(((b + noise) & 0xFF, g, r, alpha))
    return bytes(out)


def cases():
    rng = random.Random(19)
    words = [b"alpha", b"beta", b"gamma", b"delta", b"epsilon", b"zeta", b"eta", b"theta"]
    text = b"The quick brown fox jumps over the lazy dog. " * 20000
    yield "empty", b""
    yield "one-byte", b"x"
    yield "random-tiny", bytes(rng.randrange(256) for _ in range(100))
    yield "random", os.urandom(300_000)
    yield "text", text
    for size in (9, 40, 200, 760, 3000, 4095):
        yield f"small-{size}", bytes(rng.choice(b"abcd ") for _ in range(size))
    yield "runs-small", b"a" * 1000 + b"ab" * 500 + b"abcdefg" * 200
    yield "words-large", b" ".join(rng.choice(words) for _ in range(1_000_000))
    yield "bgra", pixels(256, 256, 1)
    yield "mixed", b"".join(os.urandom(5000) + text[: rng.randrange(100, 20000)] for _ in range(40))
    yield "zeros", bytes(2_000_000)


def seeds():
    """Small streams of every block kind, for the fuzz harness and the corruption tests."""
    rng = random.Random(7)
    yield "stored", bytes(rng.randrange(256) for _ in range(64))
    yield "lzvn", b"hello hello hello hello hello, world! " * 20 + bytes(rng.choice(b"xyz") for _ in range(300))
    yield "bvx2-text", b" ".join(rng.choice([b"icon", b"asset", b"car", b"pixel", b"lzfse"]) for _ in range(2000))
    yield "bvx2-bgra", pixels(32, 32, 2)
    yield "bvx2-two-blocks", bytes(rng.choice(b"ACGT") for _ in range(50_000))


def frequency_code(value):
    """The (bits, length) of a frequency in bvx2's variable-length code."""
    if value < 2:
        return value << 1, 2
    if value < 4:
        return 1 | (value - 2) << 2, 3
    if value < 8:
        return 3 | (value - 4) << 3, 5
    if value < 24:
        return 7 | (value - 8) << 4, 8
    return 15 | (value - 24) << 4, 14


def read_frequencies(data):
    bits, count, values, at = 0, 0, [], 0
    table = {frequency_code(v): v for v in range(1048)}
    for _ in range(360):
        while count <= 24 and at < len(data):
            bits |= data[at] << count
            count += 8
            at += 1
        for length in (2, 3, 5, 8, 14):
            key = (bits & ((1 << length) - 1), length)
            if key in table:
                values.append(table[key])
                bits >>= length
                count -= length
                break
        else:
            raise ValueError("bad frequency code")
    return values


def to_version1(stream):
    """Rewrites every bvx2 header of `stream` as a bvx1 header."""
    out, at = bytearray(), 0
    while True:
        magic = stream[at:at + 4]
        if magic == b"bvx$":
            return bytes(out + magic)
        if magic == b"bvx-":
            (n,) = struct.unpack_from("<I", stream, at + 4)
            out += stream[at:at + 8 + n]
            at += 8 + n
        elif magic == b"bvxn":
            n, payload = struct.unpack_from("<II", stream, at + 4)
            out += stream[at:at + 12 + payload]
            at += 12 + payload
        elif magic == b"bvx2":
            raw, w0, w1, w2 = struct.unpack_from("<IQQQ", stream, at + 4)
            field = lambda w, o, n: (w >> o) & ((1 << n) - 1)
            size = field(w2, 0, 32)
            freqs = read_frequencies(stream[at + 32:at + size]) if size > 32 else [0] * 360
            lit_payload, lmd_payload = field(w0, 20, 20), field(w1, 40, 20)
            header = struct.pack("<4s6I", b"bvx1", raw, lit_payload + lmd_payload, field(w0, 0, 20), field(w0, 40, 20),
                                 lit_payload, lmd_payload)
            header += struct.pack("<i4H", field(w0, 60, 3) - 7, *(field(w1, 10 * i, 10) for i in range(4)))
            header += struct.pack("<i3H", field(w1, 60, 3) - 7, field(w2, 32, 10), field(w2, 42, 10), field(w2, 52, 10))
            header += struct.pack("<360H", *freqs) + b"\0\0"
            assert len(header) == 772
            out += header + stream[at + size:at + size + lit_payload + lmd_payload]
            at += size + lit_payload + lmd_payload
        else:
            raise ValueError(f"unknown block {magic!r}")


def main():
    if sys.argv[1] == "--seeds":
        folder = sys.argv[2]
        os.makedirs(folder, exist_ok=True)
        for name, raw in seeds():
            stream = lzfse.compress(raw)
            for label, data in ((name, stream), ("v1-" + name, to_version1(stream))):
                if label == name or name.startswith("bvx2"):
                    with open(os.path.join(folder, label + ".lzfse"), "wb") as f:
                        f.write(data)
        return
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    for name, raw in cases():
        stream = lzfse.compress(raw)
        assert not raw or lzfse.decompress(stream) == raw  # (its decompress refuses an empty result)
        versions = [(name, stream)]
        if name in ("text", "bgra", "words-large", "mixed"):
            versions.append(("v1-" + name, to_version1(stream)))
        for label, data in versions:
            with open(os.path.join(folder, label + ".raw"), "wb") as f:
                f.write(raw)
            with open(os.path.join(folder, label + ".lzfse"), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
