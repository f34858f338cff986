#!/usr/bin/env bash
# make check: the quick inner loop. Builds everything with its tests (so a change that breaks another
# module fails here), then runs the tests of the modules whose files changed: the working tree against
# HEAD (staged, unstaged and new files), or the last commit when the tree is clean. Installs nothing;
# `make test` stays the full run (lint, every test, fuzz replay, fresh clone, release binary).
#
#   scripts/check.sh            the modules changed, as above
#   scripts/check.sh REV        the modules changed since REV (a branch's work: scripts/check.sh main)
#   CHECK_DRY_RUN=1 ...         print the test filter and stop
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}

if [ $# -gt 0 ]; then
    changed=$(git diff --name-only "$1")
else
    changed=$( { git diff --name-only HEAD; git ls-files --others --exclude-standard; } | sort -u)
    [ -n "$changed" ] || changed=$(git diff --name-only HEAD~1 HEAD 2>/dev/null || true)
fi

# The test target of each source folder; a C shim's changes are tested by the module that uses it.
test_target() {
    case "$1" in
        Compression) echo CompressionTests ;;
        CLibXML2) echo PlistKitTests ;;
        CLibZip | CLinux) echo IPAKitTests ;;
        CZlib) echo "CompressionTests IPAKitTests" ;;
        CLibDeflate) echo "CompressionTests IPAKitTests AssetCatalogTests" ;;
        CLibCrypto | Crypto) echo "CryptoTests CodeSignTests ObjectStorageTests" ;;
        CLibCurl) echo ObjectStorageTests ;;
        CQRencode) echo ManifestTests ;;
        adhocbuild) echo CommandLineOptionsTests ;;
        *) [ -d "Tests/$1Tests" ] && echo "$1Tests" ;;
    esac
}

declare -A targets=()
suites=()
for file in $changed; do
    case "$file" in
        Sources/*/*)
            folder=${file#Sources/}
            for target in $(test_target "${folder%%/*}" || true); do targets[$target]=1; done
            ;;
        Tests/adhocbuildTests/*.swift)
            # The command-line tests start the binary and take minutes as a whole: run only the
            # suites in the files that changed (each file holds the suite it is named after).
            suites+=("$(basename "$file" .swift)")
            ;;
        Tests/TestSupport/* | Tests/Oracles/*) ;;
        Tests/*/*)
            folder=${file#Tests/}
            targets[${folder%%/*}]=1
            ;;
    esac
done

patterns=()
for target in "${!targets[@]}"; do patterns+=("^$target\\."); done
for suite in ${suites[@]+"${suites[@]}"}; do patterns+=("^adhocbuildTests\\.$suite/"); done
filter=$(IFS='|'; echo "${patterns[*]-}")

modules="${!targets[*]}"
echo "check: tests of ${modules:-no module}${suites[*]:+; command-line suites ${suites[*]}}"
[ -z "${CHECK_DRY_RUN:-}" ] || { echo "check: filter: ${filter:-none}"; exit 0; }

$swift build --build-tests
if [ -z "$filter" ]; then
    echo "check: built; no tests belong to what changed"
    exit 0
fi
$swift test --skip-build --disable-xctest --filter "$filter"
