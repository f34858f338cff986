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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--size-mb", type=float, default=50)
    args = parser.parse_args()
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    slow_runs = int(os.environ.get("BENCH_SLOW_RUNS", "1"))
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
