#!/usr/bin/env bash
# lint.namespaces: namespaces follow folders (issue #17), as a test. For every .h/.cc under
# agent/, controller/ and common/:
#   a. each namespace a file opens under kvbench is `kvbench` or `kvbench::A::B...` whose parts
#      (`internal` and `*_internal` parts dropped) name, in order, folders of the file's path:
#      the top folder (`agent`, `controller`; common/ has no top namespace) and the folders below
#      it. agent/sim/lmcache/x.cc may open kvbench::sim::lmcache or kvbench::agent::sim, not
#      kvbench::results; agent/tiers/x.cc may open kvbench::agent::tiers;
#   b. no namespace other than the root `kvbench` (parts `*internal` dropped) is opened both by
#      a file under agent/ and by one under controller/: the two sides of the wall do not share
#      a namespace;
#   c. the exceptions that must stay are allowlisted below, each with its reason.
# Namespaces are read from `namespace NAME {` lines and closed by clang-format's
# `}  // namespace NAME` comments (or a bare `}` right after a one-line block, which clang-format
# leaves without the comment), so nested blocks count too. Each violation is printed as
# `path: namespace X: why`; exit 1 when there is one.
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"

# Exceptions to rule a: "path-prefix|namespace|why". Keep it short.
allowed=(
  "common/prometheus/|kvbench::prometheus_text|kvbench::prometheus would hide prometheus-cpp's ::prometheus inside namespace kvbench"
  "agent/sampler/metric_catalog.h|kvbench::sampler::keys|a scope for the catalog's metric-key constants (sampler::keys::kX), not a module"
  "controller/store/sqlite_schema.h|kvbench::controller::sql|a scope for the store's SQL statement constants (sql::kInsertJob), not a module"
)

violations=0
violation() { echo "$1" >&2; violations=$((violations + 1)); }
allowlisted() {  # PATH NAMESPACE
  local entry prefix rest
  for entry in "${allowed[@]}"; do
    prefix="${entry%%|*}"
    rest="${entry#*|}"
    [[ "$1" == "$prefix"* && "${rest%%|*}" == "$2" ]] && return 0
  done
  return 1
}
# NAMESPACE without its internal parts: kvbench::x::foo_internal -> kvbench::x.
strip_internal() {
  local out="" part
  IFS=':' read -ra parts <<<"${1//::/:}"
  for part in "${parts[@]}"; do
    [[ "$part" == internal || "$part" == *_internal ]] && continue
    out="${out:+$out::}$part"
  done
  echo "$out"
}
# Whether the parts after kvbench:: are a subsequence of the folders on PATH (common/ dropped).
follows_folders() {  # PATH NAMESPACE
  local dir folders ns_parts i=0 part
  dir="$(dirname "$1")"
  IFS='/' read -ra folders <<<"$dir"
  [ "${folders[0]}" = common ] && folders=("${folders[@]:1}")
  local rest="${2#kvbench}"
  rest="${rest#::}"
  [ -z "$rest" ] && return 0
  IFS=':' read -ra ns_parts <<<"${rest//::/:}"
  for part in "${ns_parts[@]}"; do
    while [ "$i" -lt "${#folders[@]}" ] && [ "${folders[$i]}" != "$part" ]; do i=$((i + 1)); done
    [ "$i" -lt "${#folders[@]}" ] || return 1
    i=$((i + 1))
  done
  return 0
}

# "path namespace" for every named namespace block a file opens (nested blocks joined with ::).
opened="$(find agent controller common -type f \( -name '*.h' -o -name '*.cc' \) | sort |
  xargs awk '
    FNR == 1 { depth = 0 }
    /^[[:space:]]*namespace[[:space:]]+[A-Za-z_][A-Za-z0-9_:]*[[:space:]]*\{/ {
      name = $0
      sub(/^[[:space:]]*namespace[[:space:]]+/, "", name)
      sub(/[[:space:]]*\{.*$/, "", name)
      stack[++depth] = name
      opened_at[depth] = FNR
      full = stack[1]
      for (i = 2; i <= depth; i++) full = full "::" stack[i]
      print FILENAME, full
      next
    }
    /^[[:space:]]*namespace[[:space:]]*\{/ { stack[++depth] = ""; opened_at[depth] = FNR; next }
    /^[[:space:]]*}[[:space:]]*\/\/[[:space:]]*namespace/ { if (depth > 0) depth--; next }
    # clang-format leaves a namespace of one line (a forward declaration) without the comment.
    /^}[[:space:]]*$/ { if (depth > 0 && FNR - opened_at[depth] <= 2) depth-- }
  ' | awk '$2 == "kvbench" || $2 ~ /^kvbench::/' | sort -u)"

declare -A agent_side controller_side
while read -r path ns; do
  [ -n "$path" ] || continue
  bare="$(strip_internal "$ns")"
  # Anonymous blocks inside kvbench::x add an empty part: kvbench::x:: -> kvbench::x.
  bare="${bare%::}"
  if ! follows_folders "$path" "$bare" && ! allowlisted "$path" "$bare"; then
    violation "$path: namespace $ns: its parts name no folders of the file's path (in order)"
  fi
  [ "$bare" = kvbench ] && continue
  case "$path" in
    agent/*) agent_side[$bare]="${agent_side[$bare]:-$path}" ;;
    controller/*) controller_side[$bare]="${controller_side[$bare]:-$path}" ;;
  esac
done <<<"$opened"

for ns in "${!agent_side[@]}"; do
  if [ -n "${controller_side[$ns]:-}" ]; then
    violation "${agent_side[$ns]}: namespace $ns: also opened by ${controller_side[$ns]} (one namespace on both sides of the agent/controller wall)"
  fi
done

if [ "$violations" -gt 0 ]; then
  echo "FAIL: $violations namespace violation(s)" >&2
  exit 1
fi
echo "PASS ($(wc -l <<<"$opened") namespace blocks)"
