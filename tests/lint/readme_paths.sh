#!/usr/bin/env bash
# lint.readme_paths: the README names the tree as it is.
#   1. every backticked path into the tree (`agent/...`, `controller/...`, `tests/...`, ...)
#      exists (a glob must match something);
#   2. the layout block of "How it fits together" names every folder directly under agent/,
#      controller/, common/ and tests/, each under its own top folder's entry, and promises
#      nothing for "later".
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"
readme=README.md
problems=0
problem() { echo "$1" >&2; problems=$((problems + 1)); }

# 1. Backticked paths.
while read -r path; do
  path="${path%%[ :,]*}"
  path="${path%.}"
  # shellcheck disable=SC2086  # a glob in the README is expanded on purpose
  compgen -G "$path" >/dev/null || problem "README.md names \`$path\`, which does not exist"
done < <(grep -oE '`[^`]+`' "$readme" | tr -d '`' |
  grep -E '^(agent|controller|common|tests|proto|deploy|cmake)/' | sort -u)

# 2. The layout block: the first ``` block after "## How it fits together".
block="$(awk '/^## How it fits together/ { s = 1 } s && /^```/ { if (b) exit; b = 1; next } b' "$readme")"
[ -n "$block" ] || problem "README.md has no layout block under \"How it fits together\""
grep -qi 'later' <<<"$block" && problem "the layout block promises something for later"
# The text of one top folder's entry: from its line ("agent/ ...") to the next top-level line.
entry() { awk -v top="$1/" 'index($0, top) == 1 { s = 1; print; next } s && /^[^ ]/ { exit } s' <<<"$block"; }
for top in agent controller common tests; do
  text="$(entry "$top")"
  [ -n "$text" ] || { problem "the layout block has no entry for $top/"; continue; }
  for dir in "$top"/*/; do
    name="$(basename "$dir")"
    grep -qE "(^|[ (,])$name/" <<<"$text" ||
      problem "the layout block's $top/ entry does not name $top/$name/"
  done
done

[ "$problems" -eq 0 ] || { echo "FAIL: $problems problem(s) in README.md" >&2; exit 1; }
echo "PASS"
