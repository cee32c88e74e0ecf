# Shared helpers for scripts/*.sh. Source it; do not run it.
# Everything the scripts create lives inside the repository: .deps/ (tools, sources, caches) and build/.

VL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VL_DEPS="$VL_ROOT/.deps"
# A .deps that is a link (a git worktree sharing another checkout's) is named by its real path, so the
# env.sh that deps.sh writes stays right for every checkout that shares it.
[ -L "$VL_DEPS" ] && VL_DEPS="$(cd "$VL_DEPS" && pwd -P)"

vl_log()  { printf '\033[1;34m[%s]\033[0m %s\n' "${VL_TAG:-vramlens}" "$*"; }
vl_warn() { printf '\033[1;33m[%s] warning:\033[0m %s\n' "${VL_TAG:-vramlens}" "$*" >&2; }
vl_die()  { printf '\033[1;31m[%s] error:\033[0m %s\n' "${VL_TAG:-vramlens}" "$*" >&2; exit 1; }

# Run a command as root: directly when we are root, through sudo otherwise.
vl_as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else vl_die "need root for: $* (install sudo or run as root)"; fi
}

# The environment written by scripts/deps.sh (toolchain choice, dependency paths).
vl_load_env() {
  [ -f "$VL_DEPS/env.sh" ] || vl_die "$VL_DEPS/env.sh missing: run scripts/deps.sh first"
  # shellcheck source=/dev/null
  . "$VL_DEPS/env.sh"
}

# ---- steps: a runner prints one line per named step and a summary line at the end ----------
# Usage:  vl_step NAME command args...   (a failing step stops the run: the summary says which)
#         vl_steps_done                   (prints the summary; call last)
VL_STEPS_OK=()
VL_STEPS_T0=$(date +%s)
vl_step() {
  local name=$1; shift
  local t0; t0=$(date +%s)
  printf '\n\033[1;36m==> step %s\033[0m  (%s)\n' "$name" "$*"
  if "$@"; then
    VL_STEPS_OK+=("$name:$(( $(date +%s) - t0 ))s")
    printf '\033[1;32m<== step %s passed (%ss)\033[0m\n' "$name" "$(( $(date +%s) - t0 ))"
  else
    local rc=$?
    printf '\033[1;31m<== step %s FAILED (exit %s)\033[0m\n' "$name" "$rc"
    printf '%s: FAILED at step "%s" after %d passed step(s) [%s] in %ss\n' \
      "${VL_RUNNER:-vramlens}" "$name" "${#VL_STEPS_OK[@]}" "${VL_STEPS_OK[*]}" "$(( $(date +%s) - VL_STEPS_T0 ))"
    printf 'steps: %d passed, 1 failed\n' "${#VL_STEPS_OK[@]}"
    exit "$rc"
  fi
}
vl_steps_done() {
  printf '\n%s: OK, %d step(s) passed [%s] in %ss\n' \
    "${VL_RUNNER:-vramlens}" "${#VL_STEPS_OK[@]}" "${VL_STEPS_OK[*]}" "$(( $(date +%s) - VL_STEPS_T0 ))"
  printf 'steps: %d passed, 0 failed\n' "${#VL_STEPS_OK[@]}"   # the plain closing line CI reads
}

# ---- the checkout before and after a run: tests must not write into it ----------------------
# vl_tree_state: each changed or untracked path (ignored ones aside), as `git status --porcelain`
# prints it, with a hash of its content ("-" when deleted). Run inside the checkout.
vl_tree_state() {
  git status --porcelain=v1 --untracked-files=all | while IFS= read -r line; do
    printf '%s %s\n' "$line" "$(git hash-object -- "${line:3}" 2>/dev/null || echo -)"
  done
}
# vl_tree_unchanged BEFORE: succeeds when vl_tree_state still prints BEFORE; otherwise lists the
# paths that changed since and fails.
vl_tree_unchanged() {
  local before=$1 after
  after=$(vl_tree_state)
  if [ "$after" = "$before" ]; then
    if [ -z "$after" ]; then echo "git status --porcelain: empty"
    else echo "the checkout had local changes before the run; the run changed nothing more"; fi
    return 0
  fi
  echo "the run changed the checkout (a test wrote a tracked file or left a file behind):"
  diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed -n 's/^[<>] \(...\)\(.*\) [^ ]*$/  \2/p' | sort -u
  echo "tests write only to temporary folders or build/; generated files are written by scripts/gen-docs.sh"
  return 1
}
