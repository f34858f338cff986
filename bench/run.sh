#!/usr/bin/env bash
# `make bench`: adhocbuild against its peers, side by side in one run. See bench/bench.py.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:?usage: run.sh SWIFT_RELEASE_BIN_DIR [--only plist|plist-sizes|package|codesign|lzfse|release|publish]}"; shift
exec python3 bench/bench.py --bin-dir "$bin" "$@"
