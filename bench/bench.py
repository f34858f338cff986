#!/usr/bin/env python3
"""Benchmarks adhocbuild against its peers in one run and prints medians, ratios and peak memory.

Plist conversion: a deterministic ~50 MB XML plist and its binary form (bench/gen_plist.py),
converted XML->binary and binary->XML by adhocbuild, plistutil (libplist), Python's plistlib
and Foundation's PropertyListSerialization (bench/FoundationPlistBench). Each command runs
BENCH_RUNS times (default 3; plistutil's quadratic XML->binary runs once unless
BENCH_SLOW_RUNS is set); wall time and peak resident memory come from /usr/bin/time.
Every output is checked to load equal in plistlib, so a fast wrong answer does not count.
Then the same generator's plists at everyday sizes (SIZES_MB) are converted XML->binary
beside plistlib and binary->XML beside plistutil, each pair interleaved over more rounds for
smaller files, and the ratios are printed by size (`--only plist-sizes` runs just that table).

Packaging: a generated app-like tree (bench/gen_app.py) packaged at level 6 by adhocbuild, zip
and Python's zipfile; then adhocbuild -6 against zip -6 on trees of other shapes
(bench/gen_shapes.py: mixed content, many small files, a few huge ones, incompressible data,
deep folders, and mixed content around real machine code: the toolchain's swift-frontend, since
the generated machine code deflates unlike real code), speed ratio and size difference side by side; then storing (--level 0, with and
without the check after writing) against reading the tree (cat > /dev/null), copying it (cat >
one file) and piping it (cat | wc -c), interleaved, and once more from a cold page cache when
run as root. Every archive is read back with zipfile.

LZFSE decoding (bench/lzfse_bench.py): adhocbuild's decoder against Apple's C decoder on streams of
every block kind, in MB/s with the ratio; then the icon step's share of `release` for an app whose
icon is only in Assets.car (the Xcode 12.5 fixture, when ../shared/fixtures is there).

Code signatures (bench/codesign_bench.py): `codesign verify` on a ~200 MB signed app of ~6,400
files, as a folder beside `openssl dgst -sha256` over its files in two processes and as an ipa
beside `unzip -tq` (in turns, peer/verify ratios, both sides' CPU and peak memory: issue 30), what
starting alone costs each, and against the hashing limit measured with `openssl speed` in the same run.

Releases (bench/release_bench.py): `release` of that app's ipa and of the .app (environment, build
number, re-sign, verify, page) against `package` of the .app, in turns (issue 32's goals: at most
0.5x and 1.3x of package).

Publishing (bench/publish_bench.py): `publish` of a ~200 MB release (an ipa of incompressible data and
its page) to a SeaweedFS started for the run on 127.0.0.1, against `aws s3 cp --recursive` of the same
folder (awscli's defaults, 10 threads), in turns, with adhocbuild's peak memory (issue 34's goals: at
least as fast as the AWS CLI, under 150 MB). Skipped with a message when weed or aws is missing.
"""
import argparse
import os
import plistlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import codesign_bench
import lzfse_bench
import publish_bench
import release_bench

HERE = os.path.dirname(os.path.abspath(__file__))
# Everyday plist sizes (MB of XML, roughly) benchmarked beside the large file.
SIZES_MB = [1, 3, 6, 12, 20]


def run_once(command):
    """Runs `command` once; returns (wall seconds timed here to the microsecond, peak RSS in bytes
    from /usr/bin/time — a child's own rusage would carry Python's size from before the exec)."""
    with tempfile.NamedTemporaryFile(mode="r") as report:
        start = time.perf_counter()
        result = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name] + command,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - start
        if result.returncode != 0:
            sys.exit(f"bench: {' '.join(command)} failed: {result.stderr.decode(errors='replace')}")
        kilobytes = report.read().split()[-1]
    return seconds, int(kilobytes) * 1024


def measure(command, runs):
    """Runs `command` `runs` times; returns (median seconds, max peak RSS in bytes)."""
    samples = [run_once(command) for _ in range(runs)]
    return statistics.median(s for s, _ in samples), max(p for _, p in samples)


def measure_interleaved(commands, runs, before=None):
    """Runs each of `commands` in turn, `runs` rounds, so that a busy moment (or the writeback
    of an earlier run's output) falls on all of them alike; returns [(median seconds, peak)].
    `before` runs ahead of every command, untimed."""
    samples = [[] for _ in commands]
    for _ in range(runs):
        for index, command in enumerate(commands):
            if before:
                before()
            samples[index].append(run_once(command))
    return [(statistics.median(s for s, _ in runs_of), max(p for _, p in runs_of)) for runs_of in samples]


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
    """Packages a generated app-like tree with adhocbuild, zip -6, libarchive's bsdtar (zip format,
    level 6) and Python's zipfile."""
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
    target = os.path.join(out, "result.ipa")
    print(f"packaging: {total / 1e6:.1f} MB app-like tree (a 105 MB binary, ~2,000 resources, symlinked frameworks)\n")

    # Compressing at level 6.
    peers = [
        ("adhocbuild -6", [adhocbuild, "package", app, "-o", target, "-q"]),
        ("zip -6 -qry -X", ["sh", "-c", f"cd '{out}' && rm -f '{target}' && '{zip_tool}' -qry -X -6 '{target}' Payload"]),
        ("Python zipfile -6", python_zip_command(app, target)),
    ]
    bsdtar = shutil.which("bsdtar")
    if bsdtar:
        peers.insert(2, ("bsdtar --format zip -6", ["sh", "-c", f"cd '{out}' && rm -f '{target}' && '{bsdtar}' --format zip "
                                                   f"--options zip:compression-level=6 -cf '{target}' Payload"]))
    print(f"level 6, median of {runs} runs")
    print(f"{'tool':<24} {'median s':>9} {'MB/s':>8} {'ipa MB':>8} {'peak MB':>8} {'adhocbuild -6 is':>18}")
    results = []
    for name, command in peers:
        seconds, peak = measure(command, runs)
        # The plain zipfile script skips links to folders (os.walk lists them as folders).
        check_ipa(target, app, name, count=not name.startswith("Python"))
        results.append((name, seconds, peak, os.path.getsize(target)))
    ours = results[0]
    for name, seconds, peak, size in results:
        ratio = "" if name == "adhocbuild -6" else f"{seconds / ours[1]:.2f}x faster"
        print(f"{name:<24} {seconds:>9.3f} {total / seconds / 1e6:>8.1f} {size / 1e6:>8.1f} {peak / 1e6:>8.0f} {ratio:>18}")
    zip_result = results[1]
    print(f"adhocbuild -6 vs zip -6: {zip_result[1] / ours[1]:.2f}x the speed, archive {100 * (ours[3] / zip_result[3] - 1):+.2f}% in size")
    if bsdtar:
        tar_result = results[2]
        print(f"adhocbuild -6 vs bsdtar --format zip -6: {tar_result[1] / ours[1]:.2f}x the speed, archive "
              f"{100 * (ours[3] / tar_result[3] - 1):+.2f}% in size")
    else:
        print("bsdtar (libarchive-tools) is not installed: `make deps` installs it")
    print()
    shapes(adhocbuild, zip_tool, runs, default=(total, ours[1], zip_result[1], ours[3], zip_result[3]))

    # Storing, against what merely reading (or copying) the same files costs. Each takes a
    # fraction of a second, so they run interleaved over more rounds.
    files = f"find '{app}' -type f -print0 | xargs -0"
    copy = os.path.join(out, "copy.bin")
    baselines = [
        ("adhocbuild -0 (store)", [adhocbuild, "package", app, "-o", target, "-q", "--level", "0"]),
        ("adhocbuild -0 no verify", [adhocbuild, "package", app, "-o", target, "-q", "--level", "0", "--no-verify"]),
        # Every byte read into memory (GNU cat reads it all, even towards /dev/null).
        ("reading: cat > /dev/null", ["sh", "-c", f"{files} cat > /dev/null"]),
        # What any storing tool must at least do: read every byte and write it once.
        ("copying: cat > one file", ["sh", "-c", f"{files} cat > '{copy}'"]),
        # The measure used before: every byte through a pipe to a second process.
        ("piping: cat | wc -c", ["sh", "-c", f"{files} cat | wc -c > /dev/null"]),
    ]
    def settle():
        """Untimed: the previous outputs removed and every dirty page written back, so no command
        pays for an earlier one's writeback or for replacing its output."""
        for path in (target, copy):
            if os.path.exists(path):
                os.remove(path)
        os.sync()

    store_rounds = max(runs, 15)
    warm = dict(zip([name for name, _ in baselines],
                    measure_interleaved([command for _, command in baselines], store_rounds, before=settle)))
    run_once(baselines[0][1])
    check_ipa(target, app, "adhocbuild -0")
    stored_size = os.path.getsize(target)
    cold = None
    if can_drop_caches():
        cold_names = ["adhocbuild -0 (store)", "reading: cat > /dev/null", "copying: cat > one file"]
        cold_commands = [command for name, command in baselines if name in cold_names]
        cold = dict(zip(cold_names, measure_interleaved(cold_commands, max(runs, 5), before=drop_caches)))
    if os.path.exists(copy):
        os.remove(copy)
    print(f"level 0 (store), median of {store_rounds} interleaved runs with the files in the page cache"
          + (f"; cold: after dropping the caches, {max(runs, 5)} runs" if cold else ""))
    print(f"{'command':<26} {'median s':>9} {'MB/s':>8} {'ipa MB':>8} {'peak MB':>8} {'cold s':>8} {'cold MB/s':>10}")
    for name, _ in baselines:
        seconds, peak = warm[name]
        size = stored_size / 1e6 if name.startswith("adhocbuild") else 0
        cold_text = f"{cold[name][0]:>8.3f} {total / cold[name][0] / 1e6:>10.1f}" if cold and name in cold else ""
        print(f"{name:<26} {seconds:>9.3f} {total / seconds / 1e6:>8.1f} {size:>8.1f} {peak / 1e6:>8.0f} {cold_text}")
    store = warm["adhocbuild -0 (store)"][0]
    read = warm["reading: cat > /dev/null"][0]
    print(f"store at {100 * read / store:.0f}% of the speed of reading the tree "
          f"({100 * read / warm['adhocbuild -0 no verify'][0]:.0f}% without the verification pass); "
          f"copying it with cat runs at {100 * read / warm['copying: cat > one file'][0]:.0f}%, "
          f"so store is at {100 * warm['copying: cat > one file'][0] / store:.0f}% of the speed of a plain copy; "
          f"{100 * warm['piping: cat | wc -c'][0] / store:.0f}% of the speed of reading through a pipe")
    if cold:
        print(f"cold cache: store at {100 * cold['reading: cat > /dev/null'][0] / cold['adhocbuild -0 (store)'][0]:.0f}% "
              f"of the speed of reading the tree, copying with cat at "
              f"{100 * cold['reading: cat > /dev/null'][0] / cold['copying: cat > one file'][0]:.0f}%")
    else:
        print("cold cache: not measured (dropping the page cache needs root: /proc/sys/vm/drop_caches)")


SHAPES = [
    ("mixed", "binary, small text, PNGs, gzipped assets, large text"),
    ("small", "~20,000 files of 40 bytes to 4 KB"),
    ("huge", "three files: machine code, log text, sparse records"),
    ("incompressible", "random bytes and gzipped files"),
    ("deep", "folders 48 deep, small plists"),
    ("realcode", "mixed, its binary real code (swift-frontend)"),
]


def shapes(adhocbuild, zip_tool, runs, default):
    """adhocbuild -6 against zip -6 on trees of other shapes (bench/gen_shapes.py), each pair run
    interleaved, with the default tree's figures from above in the first row."""
    rows = [("default", "the tree above") + default]
    for shape, description in SHAPES:
        out = os.path.join(HERE, "out", "shapes", shape)
        app = os.path.join(out, "Payload", "Bench.app")
        if not os.path.exists(os.path.join(app, "Info.plist")):  # written last
            subprocess.run([sys.executable, os.path.join(HERE, "gen_shapes.py"), shape, os.path.join(out, "Payload")],
                           check=True, stdout=subprocess.DEVNULL)
        total = sum(os.path.getsize(os.path.join(folder, name))
                    for folder, _, files in os.walk(app) for name in files
                    if not os.path.islink(os.path.join(folder, name)))
        ours_ipa, zip_ipa = os.path.join(out, "ours.ipa"), os.path.join(out, "zip.ipa")
        commands = [
            [adhocbuild, "package", app, "-o", ours_ipa, "-q"],
            ["sh", "-c", f"cd '{out}' && rm -f '{zip_ipa}' && '{zip_tool}' -qry -X -6 '{zip_ipa}' Payload"],
        ]
        (ours_s, _), (zip_s, _) = measure_interleaved(commands, runs)
        check_ipa(ours_ipa, app, f"adhocbuild -6 on the {shape} tree")
        check_ipa(zip_ipa, app, f"zip -6 on the {shape} tree")
        rows.append((shape, description, total, ours_s, zip_s, os.path.getsize(ours_ipa), os.path.getsize(zip_ipa)))
    load = os.getloadavg()[0]
    print(f"tree shapes at level 6: adhocbuild -6 against zip -qry -X -6, median of {runs} interleaved runs "
          f"(load average {load:.1f} on {os.cpu_count()} cores at the end)")
    print(f"{'shape':<15} {'MB':>6} {'adhocbuild s':>12} {'zip s':>8} {'speed':>7} {'ipa MB':>8} {'zip MB':>8} {'size':>8}  what")
    for shape, description, total, ours_s, zip_s, ours_size, zip_size in rows:
        print(f"{shape:<15} {total / 1e6:>6.1f} {ours_s:>12.3f} {zip_s:>8.3f} {zip_s / ours_s:>6.2f}x "
              f"{ours_size / 1e6:>8.2f} {zip_size / 1e6:>8.2f} {100 * (ours_size / zip_size - 1):>+7.2f}%  {description}")
    print()


def can_drop_caches():
    return os.access("/proc/sys/vm/drop_caches", os.W_OK)


def drop_caches():
    """Writes back and drops the page cache, so the next command reads from the disk."""
    for path in (os.path.join(HERE, "out", "app", "result.ipa"), os.path.join(HERE, "out", "app", "copy.bin")):
        if os.path.exists(path):
            os.remove(path)
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def check_ipa(path, app, name, count=True):
    """A fast wrong archive does not count: Python's zipfile must read every entry back intact."""
    code = ("import sys, zipfile\n"
            "with zipfile.ZipFile(sys.argv[1]) as z:\n"
            "    bad = z.testzip()\n"
            "    assert bad is None, bad\n"
            "    print(sum(1 for i in z.infolist() if not i.is_dir()))")
    result = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"bench: {name} wrote an archive zipfile cannot read: {result.stderr.strip()}")
    if not count:
        return
    expected = sum(len(files) + sum(1 for d in dirs if os.path.islink(os.path.join(folder, d)))
                   for folder, dirs, files in os.walk(app))
    if int(result.stdout) != expected:
        sys.exit(f"bench: {name} wrote {result.stdout.strip()} files, the tree has {expected}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--size-mb", type=float, default=50)
    parser.add_argument("--only", choices=["plist", "plist-sizes", "package", "codesign", "lzfse", "release", "publish"], help="run one part")
    args = parser.parse_args()
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    slow_runs = int(os.environ.get("BENCH_SLOW_RUNS", "1"))
    if args.only in (None, "lzfse"):
        lzfse_bench.lzfse(args.bin_dir, int(os.environ.get("BENCH_LZFSE_ROUNDS", "30")))
        lzfse_bench.icon_step(args.bin_dir, int(os.environ.get("BENCH_ICON_RUNS", "9")))
        print()
    if args.only == "lzfse":
        return
    if args.only in (None, "codesign"):
        codesign_bench.codesign(args.bin_dir, int(os.environ.get("BENCH_CODESIGN_RUNS", "7")))
        codesign_bench.sign(args.bin_dir, int(os.environ.get("BENCH_CODESIGN_RUNS", "7")))
        print()
    if args.only == "codesign":
        return
    if args.only in (None, "release"):
        release_bench.release(args.bin_dir, int(os.environ.get("BENCH_RELEASE_RUNS", "5")))
        print()
    if args.only == "release":
        return
    if args.only in (None, "publish"):
        publish_bench.publish(args.bin_dir, int(os.environ.get("BENCH_PUBLISH_RUNS", "5")))
        print()
    if args.only == "publish":
        return
    if args.only not in ("plist", "plist-sizes"):
        packaging(args.bin_dir, runs)
        print()
    if args.only == "package":
        return
    out = os.path.join(HERE, "out")
    os.makedirs(out, exist_ok=True)
    adhocbuild = os.path.join(args.bin_dir, "adhocbuild")
    plistutil = shutil.which("plistutil")
    if args.only == "plist-sizes":
        plist_by_size(adhocbuild, plistutil, out, runs, None, None)
        return
    xml = os.path.join(out, "large.xml.plist")
    binary = os.path.join(out, "large.binary.plist")
    if not (os.path.exists(xml) and os.path.exists(binary)):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_plist.py"), out, str(args.size_mb), "1"], check=True)
    foundation = os.path.join(args.bin_dir, "foundation-plist-bench")
    with open(xml, "rb") as f:
        reference = plistlib.load(f)

    directions = [
        ("XML -> binary", xml, "bin", "binary", "FMT_BINARY"),
        ("binary -> XML", binary, "xml", "xml", "FMT_XML"),
    ]
    print(f"plist conversion: {os.path.getsize(xml) / 1e6:.1f} MB XML, {os.path.getsize(binary) / 1e6:.1f} MB binary, "
          f"median of {runs} runs, 2 cores\n")
    print(f"{'direction':<15} {'tool':<28} {'median s':>9} {'peak MB':>8} {'x input':>8} {'adhocbuild is':>15}")
    large_results = {}
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
        large_results[ours_format] = {name: seconds for name, seconds, _, _ in results}

    plist_by_size(adhocbuild, plistutil, out, runs, large_results, os.path.getsize(xml))


def runs_for_size(size_mb, runs):
    """More rounds for small files, whose runs are short and noisier: about 36 MB of XML per
    command in all, never fewer than `runs` or 5 (plistutil's own time varies by a fifth from
    run to run, so three rounds swing a ratio by as much) nor more than 15."""
    return max(runs, 5, min(15, round(36 / size_mb)))


def plist_by_size(adhocbuild, plistutil, out, runs, large_results, large_size):
    """XML->binary against plistlib and binary->XML against plistutil at everyday sizes, each
    pair interleaved; the large file's row repeats the medians of the table above."""
    print(f"plist conversion by size: adhocbuild against plistlib (XML -> binary) and plistutil "
          f"(binary -> XML), medians of interleaved runs\n")
    print(f"{'XML MB':>7} {'runs':>5} {'XML->binary s':>14} {'plistlib s':>11} {'ratio':>7}   "
          f"{'binary->XML s':>14} {'plistutil s':>12} {'ratio':>7}")
    for size_mb in SIZES_MB:
        folder = os.path.join(out, f"plist-{size_mb}mb")
        xml = os.path.join(folder, "large.xml.plist")
        binary = os.path.join(folder, "large.binary.plist")
        if not (os.path.exists(xml) and os.path.exists(binary)):
            subprocess.run([sys.executable, os.path.join(HERE, "gen_plist.py"), folder, str(size_mb), "1"],
                           check=True, stdout=subprocess.DEVNULL)
        with open(xml, "rb") as f:
            reference = plistlib.load(f)
        count = runs_for_size(size_mb, runs)
        to_binary = os.path.join(folder, "result.bin")
        to_xml = os.path.join(folder, "result.xml")
        (ours_binary, _), (theirs_binary, _) = measure_interleaved([
            [adhocbuild, "plist", "convert", xml, "--to", "binary", "-o", to_binary],
            plistlib_command(xml, to_binary, "FMT_BINARY"),
        ], count)
        if not same_as(reference, to_binary):
            sys.exit(f"bench: a different plist for XML -> binary at {size_mb} MB")
        commands = [[adhocbuild, "plist", "convert", binary, "--to", "xml", "-o", to_xml]]
        if plistutil:
            commands.append([plistutil, "-i", binary, "-f", "xml", "-o", to_xml])
        timings = measure_interleaved(commands, count)
        if not same_as(reference, to_xml):
            sys.exit(f"bench: a different plist for binary -> XML at {size_mb} MB")
        ours_xml = timings[0][0]
        theirs_xml = timings[1][0] if plistutil else None
        print_size_row(os.path.getsize(xml), count, ours_binary, theirs_binary, ours_xml, theirs_xml)
    if large_results:
        print_size_row(large_size, runs, large_results["binary"]["adhocbuild"], large_results["binary"]["Python plistlib"],
                       large_results["xml"]["adhocbuild"], large_results["xml"].get("plistutil (libplist)"))
    print()


def print_size_row(xml_size, count, ours_binary, theirs_binary, ours_xml, theirs_xml):
    xml_ratio = f"{theirs_xml / ours_xml:6.1f}x" if theirs_xml else "      -"
    theirs = f"{theirs_xml:12.3f}" if theirs_xml else f"{'-':>12}"
    print(f"{xml_size / 1e6:>7.1f} {count:>5} {ours_binary:>14.3f} {theirs_binary:>11.3f} "
          f"{theirs_binary / ours_binary:>6.1f}x   {ours_xml:>14.3f} {theirs} {xml_ratio}")


if __name__ == "__main__":
    main()
