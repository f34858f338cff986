"""LZFSE decoding: adhocbuild's decoder against Apple's C decoder (bench.py --only lzfse).

The streams are made by Apple's encoder (PyPI `lzfse`) from generated data: text of a few words
(many bvx2 blocks), BGRA pixels like an icon's (bvx2), runs of zeros, incompressible bytes (stored
blocks) and a 3 KB text (an LZVN block). Each is decoded by `lzfse-decode-bench` (the Compression module,
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


def icon_step(bin_dir, runs):
    """The icon step's share of `release`. The Xcode 12.5 fixture app keeps its icon only in
    Assets.car (LZFSE); it is released once with its own icon (the catalog read and the icon
    decoded) and once with `--icon` giving the same picture as a PNG, in turns after `sync`; the
    difference is what reading the catalog costs a release."""
    import codesign_bench
    root = os.path.dirname(HERE)
    fixtures = os.environ.get("ADHOCBUILD_FIXTURES") or os.path.join(os.path.dirname(root), "shared", "fixtures", "real")
    ipa = os.path.join(fixtures, "ipa", "ipa-server_Test_dev-xcode12.ipa")
    print()
    if not os.path.exists(ipa):
        print(f"icon step of release: skipped, the fixture {ipa} is not there (it comes with ../shared/fixtures)")
        return
    adhocbuild = os.path.join(bin_dir, "adhocbuild")
    out = os.path.join(HERE, "out", "icon")
    subprocess.run(["rm", "-rf", out], check=True)
    os.makedirs(out)
    subprocess.run(["unzip", "-q", ipa, "-d", os.path.join(out, "unzipped")], check=True)
    app = os.path.join(out, "unzipped", "Payload", "Test.app")
    _, _, profile = codesign_bench.make_identity(out)
    environments = os.path.join(out, "environments")
    os.makedirs(environments)
    with open(os.path.join(environments, "Base.plist"), "w") as f:
        f.write(codesign_bench.ENVIRONMENT.format("<key>CFBundleIdentifier</key><string>com.example.bench</string>"))
    with open(os.path.join(environments, "Bench.plist"), "w") as f:
        f.write(codesign_bench.ENVIRONMENT.format("<key>CFBundleDisplayName</key><string>Bench</string>"))
    subprocess.run([adhocbuild, "icon", "extract", app, "-o", os.path.join(out, "icons")], check=True, capture_output=True)
    dist = os.path.join(out, "dist")
    base = [adhocbuild, "release", "--env", "Bench", "--app", app, "--environments", environments, "--build-number", "7",
            "--base-url", "https://builds.example.com/", "--out", dist, "--ci", "none", "--profile", profile,
            "--allow-broken-signature"]
    variants = [("Assets.car", base), ("--icon PNG", base + ["--icon", os.path.join(out, "icons", "icon.png")])]
    samples = {name: [] for name, _ in variants}
    for _ in range(runs):
        for name, command in variants:
            subprocess.run(["rm", "-rf", dist], check=True)
            subprocess.run(["sync"], check=True)
            start = time.perf_counter()
            result = subprocess.run(command, capture_output=True, text=True)
            samples[name].append(time.perf_counter() - start)
            if result.returncode != 0 or "no icon for" in result.stderr or "warning: icon:" in result.stderr:
                sys.exit(f"bench: release with the icon from {name} failed or warned about the icon:\n{result.stderr}")
    subprocess.run(["rm", "-rf", dist], check=True)
    catalog, png = min(samples["Assets.car"]), min(samples["--icon PNG"])
    print(f"icon step of release: the Xcode 12.5 fixture app (icon 180x180 in Assets.car, LZFSE), min of {runs} releases")
    print(f"{'icon from':<12} {'min s':>8}")
    for name, _ in variants:
        print(f"{name:<12} {min(samples[name]):>8.3f}")
    print(f"reading the catalog and decoding the icon adds {1000 * (catalog - png):.1f} ms, "
          f"{100 * max(0.0, catalog - png) / catalog:.1f}% of the release")
