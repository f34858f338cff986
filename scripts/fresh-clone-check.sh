#!/usr/bin/env bash
# Part of `make test`: the fuzz replay as a user's fresh clone runs it. Clones this repository
# (its committed HEAD plus any uncommitted changes to tracked files) into an empty temporary folder,
# where no ../shared, no .build and no earlier output exist, and checks that:
#   1. `scripts/fuzz.sh --replay` passes there, seeding every harness from the repository alone and
#      saying that the fixtures were not found;
#   2. with ADHOCBUILD_REQUIRE_FIXTURES=1 the same replay fails at once, naming the missing folder.
# Set KEEP_FRESH_CLONE=1 to keep the folder for a look afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
tmp="$(mktemp -d)"
[ "${KEEP_FRESH_CLONE:-}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
clone="$tmp/empty/adhocbuild"
mkdir -p "$tmp/empty"

fail() { echo "fresh-clone-check: $*" >&2; exit 1; }

git clone -q --no-hardlinks "$root" "$clone"
# Tracked files as they are in the working tree now (git stash create makes a commit without
# touching the tree; it prints nothing when there is nothing uncommitted).
if work="$(git stash create)" && [ -n "$work" ]; then
    git -C "$clone" fetch -q "$root" "$work"
    git -C "$clone" checkout -q --detach FETCH_HEAD
fi
[ ! -e "$tmp/empty/shared" ] || fail "$tmp/empty/shared exists; the clone must have no fixtures beside it"

log="$tmp/replay.log"
echo "fresh-clone-check: replaying every fuzz seed in a clone at $clone (no fixtures beside it)"
status=0
(cd "$clone" && env -u ADHOCBUILD_FIXTURES -u ADHOCBUILD_FUZZ_SEEDS ADHOCBUILD_REQUIRE_FIXTURES=0 ./scripts/fuzz.sh --replay) \
    > "$log" 2>&1 || status=$?
sed 's/^/  | /' "$log"
[ "$status" = 0 ] || fail "the replay in a fresh clone failed (exit $status)"
grep -q "^fixtures: none at $tmp/empty/shared/fixtures/real" "$log" || fail "the replay did not say that the fixtures were missing"
for harness in $(ls "$clone/Fuzz/Sources" | grep -vx FuzzDriver); do
    grep -qE "^$harness +[1-9][0-9]* inputs replayed, no finding" "$log" || fail "the $harness harness replayed no input"
done

status=0
(cd "$clone" && env -u ADHOCBUILD_FIXTURES ADHOCBUILD_REQUIRE_FIXTURES=1 ./scripts/fuzz.sh --replay) > "$log" 2>&1 || status=$?
[ "$status" = 2 ] || { cat "$log"; fail "with ADHOCBUILD_REQUIRE_FIXTURES=1 and no fixtures the replay exited $status, not 2"; }
grep -q "the real fixtures are required (ADHOCBUILD_REQUIRE_FIXTURES=1) but $tmp/empty/shared/fixtures/real/SOURCES.md is missing" "$log" \
    || { cat "$log"; fail "the missing fixtures were not named"; }
echo "fresh-clone-check: the replay passes in a fresh clone without fixtures, and refuses to run when they are required"
