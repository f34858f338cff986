#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer harnesses in Fuzz/ with AddressSanitizer and runs each for
# FUZZ_SECONDS (default 60), seeded from the real fixtures, the examples, the templates and the
# unit tests' malformed-input corpora.
# Crashes, leaks and inputs slower than a second are saved under fuzz/artifacts/<harness>/; once
# fixed, the minimised input goes into Fuzz/Regressions/<harness>/.
# Usage: scripts/fuzz.sh [--replay] [HARNESS...]   (default: all)
#   --replay  run every seed and every regression input once through its harness instead of
#             fuzzing, failing on any crash, leak or slow input (`make test` does this).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
replay=0
if [ "${1:-}" = "--replay" ]; then replay=1; shift; fi
seconds="${FUZZ_SECONDS:-60}"
fixtures="${ADHOCBUILD_FIXTURES:-$root/../shared/fixtures/real}"
runtime="$(dirname "$(dirname "$(command -v swift)")")/lib/swift/clang/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a"
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(binary-plist xml-plist openstep-plist json-plist profile png ipa template expander)
flags=(-c debug -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table
       -Xlinker "$runtime" -Xlinker -lstdc++)
for name in "${harnesses[@]}"; do
    swift build --package-path Fuzz "${flags[@]}" --product "fuzz-$name" 2>&1 | grep -E "error|Build of product" || true
done
bin="$(swift build --package-path Fuzz "${flags[@]}" --show-bin-path)"

seed() {  # seed NAME FILES...
    local dir="fuzz/corpus/$1"; shift
    mkdir -p "$dir"
    for file in "$@"; do [ -f "$file" ] && cp -f "$file" "$dir/" || true; done
}
seed binary-plist "$fixtures"/plist-binary/*
seed xml-plist "$fixtures"/plist-xml/* examples/plist/*.plist environments/*.plist
seed openstep-plist "$fixtures"/pbxproj/* examples/ShoutOut/ShoutOut.xcodeproj/project.pbxproj
seed profile "$fixtures"/mobileprovision/*
seed png "$fixtures"/png-cgbi/* "$fixtures"/png-plain/* examples/ShoutOut/ShoutOut.app/*.png
seed ipa "$fixtures"/ipa/*
seed template templates/*.mustache
mkdir -p fuzz/corpus/json-plist fuzz/corpus/expander
printf '{"a": [1, 2.5, "x", true, {"b": null}], "big": 18446744073709551615}' > fuzz/corpus/json-plist/seed.json
printf '$(PRODUCT_NAME:rfc1034identifier:lower).$(A:default=$(B))$$' > fuzz/corpus/expander/seed.txt
for dir in Fuzz/Regressions/*/; do seed "$(basename "$dir")" "$dir"*; done
# The malformed-input corpora of the unit tests (written by `make test`, or here when missing).
if [ ! -d fuzz/seeds ]; then
    ADHOCBUILD_FUZZ_SEEDS="$root/fuzz/seeds" swift test --disable-xctest --filter 'MalformedInput|OpenStepPlistReaderTests|JSONPlistTests' \
        > fuzz/seeds-export.log 2>&1 || echo "warning: exporting the malformed corpora failed; see fuzz/seeds-export.log" >&2
fi
for dir in fuzz/seeds/*/; do [ -d "$dir" ] && seed "$(basename "$dir")" "$dir"*; done

if [ "$replay" = 1 ]; then
    failed=0
    for name in "${harnesses[@]}"; do
        inputs=(fuzz/corpus/"$name"/*)
        log="fuzz/logs/$name-replay.log"
        mkdir -p fuzz/logs
        if "$bin/fuzz-$name" -timeout=1 -rss_limit_mb=2048 "${inputs[@]}" > "$log" 2>&1; then
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
    artifacts="fuzz/artifacts/$name"
    mkdir -p "$artifacts"
    log="fuzz/logs/$name.log"
    mkdir -p fuzz/logs
    status=0
    "$bin/fuzz-$name" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "fuzz/corpus/$name" > "$log" 2>&1 || status=$?
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
