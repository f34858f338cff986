#!/usr/bin/env bash
# The demo behind `make demo`: the main job on the bundled example. It releases the prebuilt
# examples/ShoutOut/ShoutOut.app for the Staging environment, as a CI step would, into build/demo/dist.
set -euo pipefail
adhocbuild="${1:?usage: demo.sh PATH_TO_ADHOCBUILD}"
cd "$(dirname "$0")/.."
out=build/demo
rm -rf "$out" && mkdir -p "$out"

step() { if [ -t 1 ]; then printf '\n\033[1m== %s\033[0m\n' "$*"; else printf '\n== %s\n' "$*"; fi; }
run() { printf '$ adhocbuild %s\n' "$*"; "$adhocbuild" "$@"; }

step "The environments (Base, Debug, Staging, QA inherits Staging, Release) are complete and consistent"
run env list
run env check

step "What changes between Staging and Release"
run env diff Staging Release

step "The example app as Xcode built it, with its share extension (unsigned: this toolchain cannot link for iOS)"
python3 examples/ShoutOut/make-app.py --with-share-extension "$out/ShoutOut.app"

step "A signing identity and profiles for the Staging ids (made with openssl; real ones come from Apple)"
export ADHOCBUILD_DEMO_PASSWORD=demo
scripts/make-demo-identity.sh "$out/signing" com.example.shoutout.staging

step "Release: environment (the extension follows the app's id), build number from the CI counter, re-sign, package, verify, page, index"
cat > "$out/notes.txt" <<'NOTES'
Shouts load twice as fast on slow networks.

- Reactions: long-press a shout to react
- Dark mode fixes on the timeline
- Details: https://example.com/shoutout/changelog
NOTES
BUILD_NUMBER=42 run release --env Staging --app "$out/ShoutOut.app" --from-ci \
    --sign-identity "$out/signing/demo.p12" --sign-password-env ADHOCBUILD_DEMO_PASSWORD \
    --sign-profile "$out/signing/ShoutOut.mobileprovision" \
    --sign-profile com.example.shoutout.staging.share="$out/signing/ShoutOutShare.mobileprovision" \
    --notes "$out/notes.txt" --base-url https://localhost:8443/ --out "$out/dist" --ci none

step "What went out"
run inspect "$out/dist/Staging/latest/ShoutOut.ipa"
run codesign verify "$out/dist/Staging/latest/ShoutOut.ipa"
find "$out/dist" -maxdepth 3 -not -name '.*' | sort

cat <<DONE

Done. The install page is $out/dist/Staging/latest/index.html (open it in a browser to look),
and the index of builds is $out/dist/index.html. Served over HTTPS at https://localhost:8443/
(the README has an nginx configuration for it), an iPhone installs from:
  https://localhost:8443/Staging/1.4.0-42/index.html
DONE
