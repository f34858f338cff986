#!/usr/bin/env bash
# The demo behind `make demo`: what adhocbuild does today, on the bundled example.
# (Later issues grow this into the full release pipeline.)
set -euo pipefail
adhocbuild="${1:?usage: demo.sh PATH_TO_ADHOCBUILD}"
cd "$(dirname "$0")/.."
out=build/demo
rm -rf "$out" && mkdir -p "$out"
cp -R examples/ShoutOut "$out/ShoutOut"

step() { if [ -t 1 ]; then printf '\n\033[1m== %s\033[0m\n' "$*"; else printf '\n== %s\n' "$*"; fi; }
run() { printf '$ adhocbuild %s\n' "$*"; "$adhocbuild" "$@"; }

step "The environments: Base defaults, Debug, Staging, QA (inherits Staging) and Release"
run env list
run env check

step "What Staging resolves to, and where each value comes from"
run env show Staging --format text
run env show Staging --explain | grep -v '^Variables'

step "What changes between Staging and Release"
run env diff Staging Release

step "Apply Staging to the source tree before the build (like the seed script's 'set environment' step)"
run env apply Staging --project "$out/ShoutOut" --info-plist "$out/ShoutOut/ShoutOut/Info.plist"
run plist get "$out/ShoutOut/ShoutOut/Info.plist" CFBundleIdentifier

step "Versions in the project, then a CI bump of the build number (BUILD_NUMBER=42, as TeamCity sets it)"
run version show --project "$out/ShoutOut"
BUILD_NUMBER=42 run version bump build --from-ci --project "$out/ShoutOut"
diff examples/ShoutOut/ShoutOut.xcodeproj/project.pbxproj "$out/ShoutOut/ShoutOut.xcodeproj/project.pbxproj" || true

step "A built app: binary Info.plist, patched for QA, build number bumped in the app and its extension"
mkdir -p "$out/ShoutOut.app/PlugIns/ShareExtension.appex"
"$adhocbuild" plist convert examples/plist/Info.plist --to binary -o "$out/ShoutOut.app/Info.plist"
printf '<plist><dict><key>CFBundleVersion</key><string>41</string><key>CFBundleShortVersionString</key><string>1.4.0</string></dict></plist>' \
    > "$out/ShoutOut.app/PlugIns/ShareExtension.appex/Info.plist"
run env apply QA --app "$out/ShoutOut.app"
run version bump build "$out/ShoutOut.app"
run version show "$out/ShoutOut.app"

step "Package the app into an ipa (deflated on all cores, checked after writing), then look inside"
printf '#!/bin/sh\necho ShoutOut\n' > "$out/ShoutOut.app/ShoutOut" && chmod 755 "$out/ShoutOut.app/ShoutOut"
chmod 644 "$out/ShoutOut.app/Info.plist"
run package "$out/ShoutOut.app" -o "$out/ShoutOut.ipa"
run inspect "$out/ShoutOut.ipa"
echo "(verify is expected to fail here: the sample app has no provisioning profile)"
run verify "$out/ShoutOut.ipa" || true

step "The plist toolbox: merge with explanations, convert, lint"
run plist merge examples/plist/Info.plist examples/plist/Staging.plist -o "$out/Merged.plist" --explain
run plist convert "$out/Merged.plist" --to json -o "$out/Merged.json"
run plist lint examples/plist/*.plist "$out/ShoutOut.app/Info.plist" "$out/Merged.json" \
    "$out/ShoutOut/ShoutOut.xcodeproj/project.pbxproj"
echo
echo "Done: results are in $out/"
