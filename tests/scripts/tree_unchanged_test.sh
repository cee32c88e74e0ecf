#!/usr/bin/env bash
# The last step of scripts/test.sh (vl_tree_unchanged in scripts/lib.sh) fails when the run wrote
# into the checkout, and names what changed: a tracked file edited, a new file left behind, a file
# that was already modified before the run edited again. It passes when nothing changed, also on
# a checkout that had local changes to begin with. Registered with ctest (tests/CMakeLists.txt).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/scripts/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q .
git config user.email t@example.com && git config user.name t
mkdir docs && echo "table v1" > docs/accuracy.md && echo "# readme" > README.md && echo "/build/" > .gitignore
git add . && git commit -qm init

fail=0
expect() {  # expect pass|fail OUTPUT-SUBSTRING -- BEFORE
  local want=$1 text=$2 before=$3 out rc=0
  out=$(vl_tree_unchanged "$before") || rc=$?
  if { [ "$want" = pass ] && [ $rc -eq 0 ]; } || { [ "$want" = fail ] && [ $rc -ne 0 ]; }; then
    if [[ $out == *"$text"* ]]; then echo "ok: $want, says \"$text\""; return; fi
  fi
  echo "FAIL: wanted $want with \"$text\"; got status $rc:"; echo "$out"; fail=1
}

clean=$(vl_tree_state)
[ -z "$clean" ] || { echo "FAIL: a fresh repository has a state: $clean"; fail=1; }
expect pass "git status --porcelain: empty" "$clean"

mkdir build && echo x > build/out.txt                     # ignored: allowed
expect pass "git status --porcelain: empty" "$clean"

echo "table v2" > docs/accuracy.md                        # a test rewrote a tracked file
expect fail "  docs/accuracy.md" "$clean"
git checkout -q docs/accuracy.md

echo png > docs/shot.png                                  # a test left a file behind
expect fail "  docs/shot.png" "$clean"
rm docs/shot.png

echo "# my edit" >> README.md                             # a developer's local change before the run
dirty=$(vl_tree_state)
expect pass "changed nothing more" "$dirty"
echo "# written by a test" >> README.md                   # ... and a test writes the same file again
expect fail "  README.md" "$dirty"
exit $fail
