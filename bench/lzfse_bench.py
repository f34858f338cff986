"""LZFSE decoding: adhocbuild's decoder against Apple's C decoder (bench.py --only lzfse).

The streams are made by Apple's encoder (PyPI `lzfse`) from generated data: text of a few words
(many bvx2 blocks), BGRA pixels like an icon's (bvx2), runs of zeros, incompressible bytes (stored
blocks) and a 3 KB text (an LZVN block). Each is decoded by `lzfse-decode-bench` (the LZFSE module,
built -c release) and by Apple's C decoder, `lzfse_decode_buffer` called through ctypes from the
PyPI package's own library into a buffer of the right size; the PyPI `lzfse.decompress()` call is
shown too (it guesses its output size and decodes again when the guess is short). Times are the best
of BENCH_LZFSE_ROUNDS decodes (default 30) in each of 3 interleaved rounds; MB/s counts output bytes.
Every output is checked against the bytes first compressed.
"""
import ctypes
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Tests", "Oracles"))


def inputs():
    rng = random.Random(19)
    words = [b"alpha", b"beta", b"gamma", b"delta", b"epsilon", b"zeta", b"eta", b"theta"]
    from lzfse_streams import pixels  # the oracle script's icon-like BGRA generator
    yield "text 6 MB", b" ".join(rng.choice(words) for _ in range(1_000_000))
    yield "BGRA 1024x1024", pixels(1024, 1024, 3)
    yield "zeros 8 MB", bytes(8 << 20)
    yield "random 4 MB", rng.randbytes(4 << 20)
    yield "LZVN 3 KB", bytes(rng.choice(b"abcd ") for _ in range(3000))


def lzfse(bin_dir, rounds):
    try:
        import lzfse as apple
    except ImportError:
        sys.exit("bench: the PyPI lzfse package is missing (make deps installs it)")
    out = os.path.join(HERE, "out", "lzfse")
    os.makedirs(out, exist_ok=True)
    tool = os.path.join(bin_dir, "lzfse-decode-bench")
    library = ctypes.CDLL(apple.__file__)
    library.lzfse_decode_buffer.restype = ctypes.c_size_t
    library.lzfse_decode_buffer.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    library.lzfse_decode_scratch_size.restype = ctypes.c_size_t
    scratch = ctypes.create_string_buffer(library.lzfse_decode_scratch_size())

    cases = []
    for index, (label, raw) in enumerate(inputs()):
        path = os.path.join(out, f"case{index}.lzfse")
        stream = apple.compress(raw)
        with open(path, "wb") as f:
            f.write(stream)
        decoded = os.path.join(out, f"case{index}.out")
        subprocess.run([tool, "--decode", path, decoded], check=True)
        with open(decoded, "rb") as f:
            if f.read() != raw:
                sys.exit(f"bench: adhocbuild decoded {label} wrongly")
        os.remove(decoded)
        cases.append((label, raw, stream, path))

    def apple_c(raw, stream):
        target = ctypes.create_string_buffer(len(raw) + 1)
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            size = library.lzfse_decode_buffer(target, len(raw) + 1, stream, len(stream), scratch)
            best = min(best, time.perf_counter() - start)
        if target.raw[:size] != raw:
            sys.exit("bench: Apple's decoder decoded wrongly")
        return best

    def apple_python(raw, stream):
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            apple.decompress(stream)
            best = min(best, time.perf_counter() - start)
        return best

    ours, c, python = {}, {}, {}
    for _ in range(3):
        lines = subprocess.run([tool, str(rounds)] + [p for *_, p in cases], capture_output=True, text=True, check=True).stdout
        for (label, *_), line in zip(cases, lines.splitlines()):
            ours[label] = min(ours.get(label, float("inf")), float(line.split()[-1]))
        for label, raw, stream, _ in cases:
            c[label] = min(c.get(label, float("inf")), apple_c(raw, stream))
            python[label] = min(python.get(label, float("inf")), apple_python(raw, stream))

    print(f"LZFSE decoding: best of {rounds} decodes x 3 rounds, MB/s of output (Apple's encoder made every stream)\n")
    print(f"{'stream':<16} {'in KB':>8} {'out KB':>8} {'adhocbuild':>11} {'Apple C':>9} {'lzfse.decompress':>17} {'adhocbuild / C':>15}")
    ratios = []
    for label, raw, stream, _ in cases:
        rate = lambda seconds: len(raw) / seconds / 1e6
        ratio = c[label] / ours[label]
        ratios.append(ratio)
        print(f"{label:<16} {len(stream) / 1024:>8.0f} {len(raw) / 1024:>8.0f} {rate(ours[label]):>11.0f} {rate(c[label]):>9.0f} "
              f"{rate(python[label]):>17.0f} {ratio:>14.2f}x")
    print(f"\nadhocbuild's speed as a share of Apple's C decoder: {min(ratios):.2f}x at worst (goal: at least 0.67x, within 1.5x)")
