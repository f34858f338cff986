#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer harnesses in Fuzz/ with AddressSanitizer and runs each for
# FUZZ_SECONDS (default 60), seeded from what the repository holds (the examples, the templates,
# the environments, an ipa and a profile made from the example app, the LZFSE streams in
# Fuzz/Seeds/lzfse, the unit tests' malformed-input corpora, Fuzz/Regressions) and, when they are
# there, the real fixtures in ../shared/fixtures/real.
# Without the fixtures the seeds come from the repository alone and the script says so; with
# ADHOCBUILD_REQUIRE_FIXTURES=1 (as CI sets) a missing fixtures folder is an error instead.
# Everything it writes goes under .build/fuzz/ (corpus/, seeds/, logs/, artifacts/), so a fresh
# clone needs nothing that no step makes. Crashes, leaks and inputs slower than a second are saved
# under .build/fuzz/artifacts/<harness>/; once fixed, the minimised input goes into
# Fuzz/Regressions/<harness>/.
# Usage: scripts/fuzz.sh [--replay] [HARNESS...]   (default: all)
#   --replay  run every seed and every regression input once through its harness instead of
#             fuzzing, failing on any crash, leak or slow input (`make test` does this).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
work="$root/.build/fuzz"
replay=0
if [ "${1:-}" = "--replay" ]; then replay=1; shift; fi
seconds="${FUZZ_SECONDS:-60}"
fixtures="${ADHOCBUILD_FIXTURES:-$(dirname "$root")/shared/fixtures/real}"
runtime="$(dirname "$(dirname "$(command -v swift)")")/lib/swift/clang/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a"
harnesses=("$@")
# Every harness by default: each folder of Fuzz/Sources but FuzzDriver (Fuzz/Package.swift reads the same).
[ ${#harnesses[@]} -gt 0 ] || mapfile -t harnesses < <(ls "$root/Fuzz/Sources" | grep -vx FuzzDriver)
flags=(-c debug -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table
       -Xlinker "$runtime" -Xlinker -lstdc++)
for name in "${harnesses[@]}"; do
    swift build --package-path Fuzz "${flags[@]}" --product "fuzz-$name" 2>&1 | grep -E "error|Build of product" || true
done
bin="$(swift build --package-path Fuzz "${flags[@]}" --show-bin-path)"

seed() {  # seed NAME FILES...
    local dir="$work/corpus/$1"; shift
    mkdir -p "$dir"
    for file in "$@"; do [ -f "$file" ] && cp -f "$file" "$dir/" || true; done
}

# The real fixtures, when they are there.
if [ -f "$fixtures/SOURCES.md" ]; then
    seed binary-plist "$fixtures"/plist-binary/*
    seed xml-plist "$fixtures"/plist-xml/*
    seed openstep-plist "$fixtures"/pbxproj/*
    seed profile "$fixtures"/mobileprovision/*
    seed png "$fixtures"/png-cgbi/* "$fixtures"/png-plain/*
    seed ipa "$fixtures"/ipa/*
    seed car "$fixtures"/car/*.car
    # Cross-format: an Apple-built app whose icon set (in Assets.car and CFBundleIconName) is named '../zzzz'.
    mkdir -p "$work/generated/icon-paths"
    python3 - "$fixtures/ipa/ipa-server_Test_dev-xcode12.ipa" "$work/generated/icon-paths/catalog-named-as-a-path.ipa" <<'PYTHON'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as out:
    for item in z.infolist():
        data = z.read(item)
        if item.filename in ("Payload/Test.app/Assets.car", "Payload/Test.app/Info.plist"):
            data = data.replace(b"AppIcon", b"../zzzz")
        out.writestr(item, data)
PYTHON
    seed icon-paths "$work/generated/icon-paths/catalog-named-as-a-path.ipa"
    # Certificates of the fixture profiles, whose names CI channels carry.
    seed ci-values "$fixtures"/mobileprovision/*
    # The Mach-O binaries of the fixture ipas, and each blob of their signatures.
    mkdir -p "$work/generated/fixture-code"
    python3 scripts/fuzz_codesign_seeds.py fixtures "$work/generated/fixture-code" "$fixtures"/ipa/*.ipa
    seed macho "$work"/generated/fixture-code/macho-*
    seed codesign-blob "$work"/generated/fixture-code/blob-* "$fixtures"/plist-xml/*CodeResources*
elif [ "${ADHOCBUILD_REQUIRE_FIXTURES:-}" = 1 ]; then
    echo "fuzz.sh: the real fixtures are required (ADHOCBUILD_REQUIRE_FIXTURES=1) but $fixtures/SOURCES.md is missing" >&2
    exit 2
else
    echo "fixtures: none at $fixtures; seeding from the repository alone (set ADHOCBUILD_FIXTURES to add them)"
fi

# What the repository holds.
app=examples/ShoutOut/ShoutOut.app
seed binary-plist "$app/Info.plist"
seed xml-plist examples/plist/*.plist environments/*.plist
seed openstep-plist examples/ShoutOut/ShoutOut.xcodeproj/project.pbxproj
seed png "$app"/*.png
# The example app's unsigned Mach-O executable and dylib (make-app.py writes them).
seed macho "$app/ShoutOut" "$app/Frameworks/ShoutKit.framework/ShoutKit"
seed template templates/*.mustache
# LZFSE streams of every block kind, made once by Apple's encoder (Tests/Oracles/lzfse_streams.py --seeds).
seed lzfse Fuzz/Seeds/lzfse/*
# Signer names that try to add CI outputs, service messages and workflow commands of their own, as
# text and in a certificate whose common name holds line ends.
seed ci-values Fuzz/Seeds/ci-values/*
# Device lists as devices import reads them: the portal's file, Xcode's .deviceids and a store.
seed device-list Fuzz/Seeds/device-list/*
mkdir -p "$work/corpus/json-plist" "$work/corpus/expander" "$work/generated/icon-paths"
printf '{"a": [1, 2.5, "x", true, {"b": null}], "big": 18446744073709551615}' > "$work/corpus/json-plist/seed.json"
printf '$(PRODUCT_NAME:rfc1034identifier:lower).$(A:default=$(B))$$' > "$work/corpus/expander/seed.txt"
# A profile and ipas made from the example app (deflated, stored, and with the profile inside).
scripts/make-example-profile.sh "$work/generated/example.mobileprovision" > /dev/null
seed profile "$work/generated/example.mobileprovision"
python3 - "$app" "$work/generated" "$work/generated/example.mobileprovision" <<'PYTHON'
import os, stat, sys, zipfile
app, out, profile = sys.argv[1:4]
def write(name, method, extra=None):
    with zipfile.ZipFile(os.path.join(out, name), "w", method) as z:
        z.writestr("Payload/", b"")
        for folder, dirs, files in os.walk(app):
            dirs.sort()
            for entry in sorted(dirs + files):
                path = os.path.join(folder, entry)
                name = "Payload/ShoutOut.app/" + os.path.relpath(path, app)
                if os.path.islink(path):
                    info = zipfile.ZipInfo(name)
                    info.external_attr = (stat.S_IFLNK | 0o755) << 16
                    z.writestr(info, os.readlink(path))
                elif os.path.isdir(path):
                    if entry in dirs: z.writestr(name + "/", b"")
                else:
                    z.write(path, name)
        if extra: z.write(extra, "Payload/ShoutOut.app/embedded.mobileprovision")
write("example-deflated.ipa", zipfile.ZIP_DEFLATED)
write("example-stored.ipa", zipfile.ZIP_STORED)
write("example-with-profile.ipa", zipfile.ZIP_DEFLATED, profile)
# Cross-format: icon files whose names (in the archive and in CFBundleIconFiles) are paths and control characters.
import plistlib
with zipfile.ZipFile(os.path.join(out, "example-deflated.ipa")) as z, \
        zipfile.ZipFile(os.path.join(out, "icon-paths", "icon-files-named-as-paths.ipa"), "w", zipfile.ZIP_DEFLATED) as hostile:
    icon = z.read("Payload/ShoutOut.app/AppIcon60x60@3x.png")
    names = ["../../esc/x.png", "/abs.png", "Icon\x1b[2J\x07.png", "..", "a/../../b.png", "sub/dir/icon.png"]
    for item in z.infolist():
        data = z.read(item)
        if item.filename == "Payload/ShoutOut.app/Info.plist":
            info = plistlib.loads(data)
            info["CFBundleIconFiles"] = names
            info["CFBundleIcons"] = {"CFBundlePrimaryIcon": {"CFBundleIconFiles": names, "CFBundleIconName": "../../esc"}}
            data = plistlib.dumps(info, fmt=plistlib.FMT_BINARY)
        hostile.writestr(item, data)
    # The archive itself may not climb out (the reader refuses it whole); the names that stay inside are there.
    for name in names:
        if not name.startswith("/") and ".." not in name.split("/"):
            hostile.writestr("Payload/ShoutOut.app/" + name, icon)
PYTHON
seed ipa "$work"/generated/*.ipa
seed icon-paths "$work"/generated/example-deflated.ipa "$work"/generated/icon-paths/*.ipa
# A tiny signed Mach-O (thin, fat32, fat64) and its blobs, written here from nothing.
mkdir -p "$work/generated/made-code"
python3 scripts/fuzz_codesign_seeds.py made "$work/generated/made-code"
seed macho "$work"/generated/made-code/macho-*
seed codesign-blob "$work"/generated/made-code/blob-*
for dir in Fuzz/Regressions/*/; do seed "$(basename "$dir")" "$dir"*; done
# The malformed-input corpora of the unit tests (written by `make test`, or here when missing).
if [ ! -d "$work/seeds" ]; then
    ADHOCBUILD_FUZZ_SEEDS="$work/seeds" swift test --disable-xctest --filter 'MalformedInput|OpenStepPlistReaderTests|JSONPlistTests|MachOReaderTests|RequirementTests|HostileCatalogTests' \
        > "$work/seeds-export.log" 2>&1 || echo "warning: exporting the malformed corpora failed; see $work/seeds-export.log" >&2
fi
for dir in "$work"/seeds/*/; do [ -d "$dir" ] && seed "$(basename "$dir")" "$dir"*; done
for name in "${harnesses[@]}"; do
    if [ -z "$(ls -A "$work/corpus/$name" 2>/dev/null)" ]; then
        echo "fuzz.sh: no seed for the $name harness in $work/corpus/$name" >&2
        exit 2
    fi
done

if [ "$replay" = 1 ]; then
    failed=0
    for name in "${harnesses[@]}"; do
        inputs=("$work/corpus/$name"/*)
        log="$work/logs/$name-replay.log"
        mkdir -p "$work/logs"
        # A replay looks for crashes and hangs in known inputs: 10 s each, so that a large real input
        # (an Assets.car's pixels under AddressSanitizer) on a busy agent is not called a hang.
        if "$bin/fuzz-$name" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}" > "$log" 2>&1; then
            printf '%-16s %5d inputs replayed, no finding\n' "$name" "${#inputs[@]}"
        else
            failed=1
            printf '%-16s FAILED: see %s\n' "$name" "$log"
            grep -m1 -E 'ERROR|Running:.*' "$log" | tail -1 || true
        fi
    done
    exit "$failed"
fi

printf '\n%-16s %10s %10s %8s %8s  %s\n' harness runs exec/s cov ft findings
for name in "${harnesses[@]}"; do
    artifacts="$work/artifacts/$name"
    mkdir -p "$artifacts"
    log="$work/logs/$name.log"
    mkdir -p "$work/logs"
    status=0
    "$bin/fuzz-$name" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$work/corpus/$name" > "$log" 2>&1 || status=$?
    # The last status line (libFuzzer separates the run count and the event with a tab).
    done_line="$(grep -E '^#[0-9]+[[:space:]].*cov: ' "$log" | tail -1 || true)"
    runs="$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')"
    speed="$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')"
    cov="$(echo "$done_line" | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+' || echo '?')"
    ft="$(echo "$done_line" | grep -oE 'ft: [0-9]+' | grep -oE '[0-9]+' || echo '?')"
    findings="$(ls "$artifacts" | wc -l)"
    printf '%-16s %10s %10s %8s %8s  %s\n' "$name" "$runs" "$speed" "$cov" "$ft" \
        "$([ "$status" = 0 ] && echo "$findings saved" || echo "FAILED (exit $status): see $log")"
done
