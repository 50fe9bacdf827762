#!/usr/bin/env bash
# lint.readme_api: the README's API section ("## The API") has a row for every RPC of the
# Controller service (proto/kvbench/v1/controller_service.proto) and no row for one it lacks, so a
# new RPC cannot ship without its errors and retry rule written down for the clients that call it.
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"
proto=proto/kvbench/v1/controller_service.proto
# The service block's RPC names.
rpcs="$(sed -n '/^service Controller {/,/^}/p' "$proto" | sed -n 's/^ *rpc \([A-Za-z]*\)(.*/\1/p' | sort -u)"
[ -n "$rpcs" ] || { echo "FAIL: no rpc found in $proto's service Controller" >&2; exit 1; }
# The table rows of the README's API section: the backticked names of each row's first cell.
section="$(sed -n '/^## The API$/,/^## /p' README.md)"
[ -n "$section" ] || { echo "FAIL: README.md has no '## The API' section" >&2; exit 1; }
documented="$(printf '%s\n' "$section" | sed -n 's/^| \([^|]*\) |.*/\1/p' | grep -oE '`[A-Za-z]+`' |
  tr -d '`' | sort -u)"
problems=0
for rpc in $rpcs; do
  grep -qx "$rpc" <<<"$documented" ||
    { echo "README.md's API table has no row for $rpc ($proto)" >&2; problems=$((problems + 1)); }
done
for name in $documented; do
  grep -qx "$name" <<<"$rpcs" ||
    { echo "README.md's API table names $name, which $proto's Controller lacks" >&2; problems=$((problems + 1)); }
done
[ "$problems" -eq 0 ] || { echo "FAIL: $problems problem(s) in README.md's API section" >&2; exit 1; }
echo "README.md's API table covers the $(printf '%s\n' "$rpcs" | wc -l) RPCs of $proto"
