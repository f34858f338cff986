#!/usr/bin/env bash
# The demo behind `make demo`: what adhocbuild does today, on the bundled example.
# (Later issues grow this into the full release pipeline.)
set -euo pipefail
adhocbuild="${1:?usage: demo.sh PATH_TO_ADHOCBUILD}"
cd "$(dirname "$0")/.."
out=build/demo
rm -rf "$out" && mkdir -p "$out"

step() { if [ -t 1 ]; then printf '\n\033[1m== %s\033[0m\n' "$*"; else printf '\n== %s\n' "$*"; fi; }

step "Merge the Staging overlay over the app's Info.plist, explaining where each value came from"
"$adhocbuild" plist merge examples/plist/Info.plist examples/plist/Staging.plist -o "$out/Info.plist" --explain

step "Bump the build number (CFBundleVersion keeps its string type)"
"$adhocbuild" plist set "$out/Info.plist" CFBundleVersion 42
"$adhocbuild" plist get "$out/Info.plist" CFBundleVersion

step "Convert to binary, as Xcode ships it, and read a nested key back"
"$adhocbuild" plist convert "$out/Info.plist" --to binary
head -c 8 "$out/Info.plist"; echo
"$adhocbuild" plist get "$out/Info.plist" CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconFiles:0

step "Print it, and export JSON for scripts"
"$adhocbuild" plist print "$out/Info.plist"
"$adhocbuild" plist convert "$out/Info.plist" --to json -o "$out/Info.json"
cat "$out/Info.json"

step "Lint everything"
"$adhocbuild" plist lint examples/plist/*.plist "$out/Info.plist" "$out/Info.json"
echo
echo "Done: results are in $out/"
