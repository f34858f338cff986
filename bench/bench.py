#!/usr/bin/env python3
"""Benchmarks adhocbuild against its peers in one run and prints medians, ratios and peak memory.

Plist conversion: a deterministic ~50 MB XML plist and its binary form (bench/gen_plist.py),
converted XML->binary and binary->XML by adhocbuild, plistutil (libplist), Python's plistlib
and Foundation's PropertyListSerialization (bench/FoundationPlistBench). Each command runs
BENCH_RUNS times (default 3; plistutil's quadratic XML->binary runs once unless
BENCH_SLOW_RUNS is set); wall time and peak resident memory come from /usr/bin/time.
Every output is checked to load equal in plistlib, so a fast wrong answer does not count.
"""
import argparse
import os
import plistlib
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(command, runs):
    """Runs `command` `runs` times; returns (median seconds, max peak RSS in bytes)."""
    times, peaks = [], []
    for _ in range(runs):
        with tempfile.NamedTemporaryFile(mode="r") as report:
            result = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", report.name] + command,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if result.returncode != 0:
                sys.exit(f"bench: {' '.join(command)} failed: {result.stderr.decode(errors='replace')}")
            seconds, kilobytes = report.read().split()[-2:]
            times.append(float(seconds))
            peaks.append(int(kilobytes) * 1024)
    return statistics.median(times), max(peaks)


def plistlib_command(source, target, fmt):
    code = ("import plistlib,sys; v=plistlib.load(open(sys.argv[1],'rb')); "
            f"plistlib.dump(v, open(sys.argv[2],'wb'), fmt=plistlib.{fmt}, sort_keys=False)")
    return [sys.executable, "-c", code, source, target]


def same_as(reference, path):
    with open(path, "rb") as f:
        return plistlib.load(f) == reference


def python_zip_command(source, target):
    code = """
import os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED, compresslevel=6) as z:
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            z.write(path, os.path.relpath(path, os.path.dirname(root)))
"""
    return [sys.executable, "-c", code, source, target]


def packaging(bin_dir, runs):
    """Packages a generated app-like tree with adhocbuild, zip -6 and Python's zipfile."""
    out = os.path.join(HERE, "out", "app")
    payload = os.path.join(out, "Payload")
    app = os.path.join(payload, "Bench.app")
    if not os.path.exists(app):
        os.makedirs(payload, exist_ok=True)
        subprocess.run([sys.executable, os.path.join(HERE, "gen_app.py"), payload, "100", "7"], check=True)
    total = 0
    for folder, _, files in os.walk(app):
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                total += os.path.getsize(path)
    adhocbuild = os.path.join(bin_dir, "adhocbuild")
    zip_tool = shutil.which("zip")
    results = []
    target = os.path.join(out, "result.ipa")
    # Every byte through user space (cat > /dev/null can skip the copy entirely).
    read_all = ["sh", "-c", f"find '{app}' -type f -print0 | xargs -0 cat | wc -c > /dev/null"]
    peers = [
        ("adhocbuild -6", [adhocbuild, "package", app, "-o", target, "-q"]),
        ("adhocbuild -0 (store)", [adhocbuild, "package", app, "-o", target, "-q", "--level", "0"]),
        ("zip -6 -qry -X", ["sh", "-c", f"cd '{out}' && rm -f '{target}' && '{zip_tool}' -qry -X -6 '{target}' Payload"]),
        ("Python zipfile -6", python_zip_command(app, target)),
        ("reading the tree", read_all),
        ("adhocbuild -0 no verify", [adhocbuild, "package", app, "-o", target, "-q", "--level", "0", "--no-verify"]),
    ]
    print(f"packaging: {total / 1e6:.1f} MB app-like tree (a 105 MB binary, ~2,000 resources, symlinked frameworks), "
          f"median of {runs} runs\n")
    print(f"{'tool':<24} {'median s':>9} {'MB/s':>8} {'ipa MB':>8} {'peak MB':>8} {'adhocbuild -6 is':>18}")
    for name, command in peers:
        seconds, peak = measure(command, runs)
        size = os.path.getsize(target) if name != "reading the tree" and os.path.exists(target) else 0
        results.append((name, seconds, peak, size))
    ours = results[0]
    for name, seconds, peak, size in results:
        ratio = "" if name == "adhocbuild -6" else f"{seconds / ours[1]:.2f}x faster"
        print(f"{name:<24} {seconds:>9.2f} {total / seconds / 1e6:>8.1f} {size / 1e6 if size else 0:>8.1f} {peak / 1e6:>8.0f} {ratio:>18}")
    zip_result = results[2]
    store, read = results[1], results[4]
    print(f"\nadhocbuild -6 vs zip -6: {zip_result[1] / ours[1]:.2f}x the speed, archive {100 * (ours[3] / zip_result[3] - 1):+.2f}% in size; "
          f"store at {100 * read[1] / store[1]:.0f}% of the speed of reading the tree "
          f"({100 * read[1] / results[5][1]:.0f}% without the verification pass)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--size-mb", type=float, default=50)
    parser.add_argument("--only", choices=["plist", "package"], help="run one part")
    args = parser.parse_args()
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    slow_runs = int(os.environ.get("BENCH_SLOW_RUNS", "1"))
    if args.only != "plist":
        packaging(args.bin_dir, runs)
        print()
    if args.only == "package":
        return
    out = os.path.join(HERE, "out")
    os.makedirs(out, exist_ok=True)
    xml = os.path.join(out, "large.xml.plist")
    binary = os.path.join(out, "large.binary.plist")
    if not (os.path.exists(xml) and os.path.exists(binary)):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_plist.py"), out, str(args.size_mb), "1"], check=True)
    adhocbuild = os.path.join(args.bin_dir, "adhocbuild")
    foundation = os.path.join(args.bin_dir, "foundation-plist-bench")
    plistutil = shutil.which("plistutil")
    with open(xml, "rb") as f:
        reference = plistlib.load(f)

    directions = [
        ("XML -> binary", xml, "bin", "binary", "FMT_BINARY"),
        ("binary -> XML", binary, "xml", "xml", "FMT_XML"),
    ]
    print(f"plist conversion: {os.path.getsize(xml) / 1e6:.1f} MB XML, {os.path.getsize(binary) / 1e6:.1f} MB binary, "
          f"median of {runs} runs, 2 cores\n")
    print(f"{'direction':<15} {'tool':<28} {'median s':>9} {'peak MB':>8} {'x input':>8} {'adhocbuild is':>15}")
    for label, source, ext, ours_format, plistlib_format in directions:
        target = os.path.join(out, f"result.{ext}")
        peers = [
            ("adhocbuild", [adhocbuild, "plist", "convert", source, "--to", ours_format, "-o", target], runs),
            ("Foundation (Swift)", [foundation, source, target, ours_format], runs),
            ("Python plistlib", plistlib_command(source, target, plistlib_format), runs),
        ]
        if plistutil:
            slow = ours_format == "binary"
            peers.append(("plistutil (libplist)", [plistutil, "-i", source, "-f", ext, "-o", target],
                          slow_runs if slow else runs))
        results = []
        for name, command, count in peers:
            seconds, peak = measure(command, count)
            if not same_as(reference, target):
                sys.exit(f"bench: {name} produced a different plist for {label}")
            results.append((name, seconds, peak, count))
        ours = results[0][1]
        input_size = os.path.getsize(source)
        for name, seconds, peak, count in results:
            ratio = "" if name == "adhocbuild" else f"{seconds / ours:.1f}x faster"
            note = "" if count == runs else f" ({count} run)"
            print(f"{label:<15} {name + note:<28} {seconds:>9.2f} {peak / 1e6:>8.0f} {peak / input_size:>8.1f} {ratio:>15}")
        print()


if __name__ == "__main__":
    main()
