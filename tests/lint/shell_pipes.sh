#!/usr/bin/env bash
# lint.shell_pipes: no test or deploy script under `set -o pipefail` pipes into a grep that quits
# at its first match (`grep -q`, `grep -m`). When grep exits early, the writer on the left gets
# SIGPIPE and the pipeline fails although the line was found: a test that fails at random, more
# often the longer the text (e2e.installed_tree failed in CI this way on a 4 KB kvctl output).
# Match a variable with a here-string instead: grep -Eq PATTERN <<<"$text".
#
# How it works: one pass. A single grep reads every script (in sorted order) and prints
# FILE:LINE of each offending line; no process per script.
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"
mapfile -t scripts < <(find tests deploy .ci -name '*.sh' -not -path '*/node_modules/*' -o -name run -path '.ci/*' |
  sort)
problems=0
while IFS= read -r hit; do  # FILE:LINE
  echo "$hit: a pipe into an early-exiting grep (use a here-string)" >&2
  problems=$((problems + 1))
done < <(grep -HnE '\|[[:space:]]*grep([[:space:]]+-[[:alnum:]]+)*[[:space:]]+(-[[:alpha:]]*[qm]|--quiet|--max-count)' \
  "${scripts[@]}" </dev/null | cut -d: -f1,2)
[ "$problems" -eq 0 ] || { echo "lint.shell_pipes: $problems problem(s)" >&2; exit 1; }
echo "lint.shell_pipes: no pipe into an early-exiting grep"
