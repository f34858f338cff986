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

step "A development profile for the example (made with openssl; real ones come from Apple)"
scripts/make-example-profile.sh "$out/ShoutOut.mobileprovision"

step "Release: environment, build number from the CI counter, package, verify, page, index"
cat > "$out/notes.txt" <<'NOTES'
Shouts load twice as fast on slow networks.

- Reactions: long-press a shout to react
- Dark mode fixes on the timeline
- Details: https://example.com/shoutout/changelog
NOTES
BUILD_NUMBER=42 run release --env Staging --app examples/ShoutOut/ShoutOut.app --from-ci \
    --profile "$out/ShoutOut.mobileprovision" --notes "$out/notes.txt" \
    --base-url https://localhost:8443/ --out "$out/dist" --ci none

step "What went out"
run inspect "$out/dist/Staging/latest/ShoutOut.ipa"
find "$out/dist" -maxdepth 3 -not -name '.*' | sort

cat <<DONE

Done. The install page is $out/dist/Staging/latest/index.html (open it in a browser to look),
and the index of builds is $out/dist/index.html. Served over HTTPS at https://localhost:8443/
(the README has an nginx configuration for it), an iPhone installs from:
  https://localhost:8443/Staging/1.4.0-42/
DONE
