# Shared helpers of the e2e scripts. They run the real binaries from $KV_BIN (set by CTest) and
# read fixtures from $KV_SOURCE; each test works in its own temp dir, removed on exit.
set -euo pipefail
: "${KV_BIN:?KV_BIN must point at build/bin}"
: "${KV_SOURCE:?KV_SOURCE must point at the source tree}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kvbench-e2e-XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_contains TEXT NEEDLE: fails showing TEXT when NEEDLE is not in it.
expect_contains() {
  case "$1" in *"$2"*) ;; *) printf 'FAIL: expected to find: %s\n--- in:\n%s\n' "$2" "$1" >&2; exit 1;; esac
}

# wait_until SECONDS COMMAND...: polls COMMAND until it succeeds, failing after SECONDS.
wait_until() {
  local limit=$1; shift
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}
