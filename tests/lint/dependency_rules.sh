#!/usr/bin/env bash
# lint.dependency_rules: the layering rules of README "How it fits together", as a test.
#   - common/ includes and links neither agent/ nor controller/;
#   - agent/ never includes or links controller/;
#   - controller/ never includes or links agent/, EXCEPT the kvctl app layer (controller/kvctl/,
#     the targets kv_kvctl_lib and kvctl), which may use only the agent headers and libraries
#     allowlisted below, each with the reason it may;
#   - proto/ (generated kvbench/v1/*.pb.h) is free to all.
# Reads `#include "..."` lines and the CMakeLists' add_library/target_link_libraries; every
# violation is printed as FILE:LINE: what; exit 1 when there is one.
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"

# Agent headers the kvctl app layer may include: "header|why".
kvctl_agent_headers=(
  "agent/local/local_job_run.h|kvctl plan prints the routing and finds the datasets as kvctl run's embedded agent does"
  "agent/local/local_agent.h|kvctl run embeds the agent (DESIGN.md: an embedded controller and agent): the agent's real runner with the run's local choices"
  "agent/link/link_transport.h|kvctl run's in-process AgentLink (in_process_agent_bridge.h) is a transport of the embedded agent's ControllerLink"
  "agent/link/controller_link.h|kvctl run connects the embedded agent to the embedded JobManager through the agent's own ControllerLink"
  "agent/scenario/request_chunks.h|kvctl diff reads a local run's requests.jsonl as the agent reads it to send it to the controller"
  "agent/local/dataset_ceiling.h|kvctl plan and run refuse a job whose dataset gives no cell a user, before anything starts"
  "agent/datasets/dataset_resolver.h|kvctl dataset finds a dataset where kvctl run and the agent find it"
  "agent/datasets/registry/dataset_registry.h|kvctl dataset pull/list name the agent's dataset registry"
  "agent/datasets/registry/dataset_cache.h|kvctl dataset pull fills the cache the embedded agent reads"
  "agent/datasets/registry/dataset_fetcher.h|kvctl dataset pull fetches as the agent fetches"
  "agent/datasets/registry/curl_file_downloader.h|kvctl dataset pull downloads with the agent's downloader"
)
# Agent libraries the kvctl app layer may link: "library|why".
kvctl_agent_libraries=(
  "kv_local_run|the embedded agent of kvctl run (LocalAgent, with the agent's link), and DatasetCeiling (the headers above)"
  "kv_dataset_registry|kvctl dataset: the agent's dataset registry, cache and fetcher"
)
kvctl_targets=" kv_kvctl_lib kvctl "

violations=0
violation() { echo "$1" >&2; violations=$((violations + 1)); }
in_list() {  # NAME "entry|why"...: whether NAME is the key of one entry
  local name=$1; shift
  local entry
  for entry in "$@"; do [ "${entry%%|*}" = "$name" ] && return 0; done
  return 1
}

# --- includes
while IFS=: read -r file line text; do
  included="$(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' <<<"$text")"
  [ -n "$included" ] || continue
  from="${file%%/*}"
  to="${included%%/*}"
  case "$from:$to" in
    common:agent | common:controller | agent:controller)
      violation "$file:$line: $from/ includes \"$included\" ($from/ may not include $to/)" ;;
    controller:agent)
      if [[ "$file" == controller/kvctl/* ]]; then
        in_list "$included" "${kvctl_agent_headers[@]}" ||
          violation "$file:$line: kvctl includes \"$included\", not in the kvctl allowlist of tests/lint/dependency_rules.sh"
      else
        violation "$file:$line: controller/ includes \"$included\" (only controller/kvctl/ may, from its allowlist)"
      fi ;;
  esac
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(agent|controller)/' \
  --include='*.h' --include='*.cc' --include='*.cpp' --include='*.hpp' common agent controller || true)

# --- CMake: which folder defines each library, then what each folder's targets link.
declare -A library_folder
while IFS=: read -r file _ text; do
  name="$(sed -nE 's/^[[:space:]]*add_(library|executable)\(([A-Za-z0-9_.-]+).*/\2/p' <<<"$text")"
  [ -n "$name" ] && library_folder[$name]="${file%%/*}"
done < <(grep -rnE '^[[:space:]]*add_(library|executable)\(' --include=CMakeLists.txt \
  common agent controller || true)

# One line per target_link_libraries call: FILE:LINE TARGET LIBRARY... (multi-line calls joined).
link_calls() {
  local file
  while IFS= read -r file; do
    awk -v file="$file" '
      !open && /^[[:space:]]*target_link_libraries\(/ { open = 1; start = FNR; text = "" }
      open { text = text " " $0; if (index($0, ")")) { open = 0
        sub(/^[[:space:]]*target_link_libraries\(/, "", text); sub(/\).*/, "", text)
        gsub(/[[:space:]]+/, " ", text); print file ":" start " " text } }' "$file"
  done < <(find common agent controller -name CMakeLists.txt | sort)
}
while read -r where target libraries; do
  from="${where%%/*}"
  for library in $libraries; do
    to="${library_folder[$library]:-}"
    [ -n "$to" ] || continue
    case "$from:$to" in
      common:agent | common:controller | agent:controller)
        violation "$where: $target ($from/) links $library ($to/)" ;;
      controller:agent)
        if [[ "$kvctl_targets" == *" $target "* ]]; then
          in_list "$library" "${kvctl_agent_libraries[@]}" ||
            violation "$where: $target links $library (agent/), not in the kvctl allowlist of tests/lint/dependency_rules.sh"
        else
          violation "$where: $target (controller/) links $library (agent/); only kvctl may, from its allowlist"
        fi ;;
    esac
  done
done < <(link_calls)

if [ "$violations" -gt 0 ]; then
  echo "FAIL: $violations dependency rule violation(s) (rules: tests/lint/dependency_rules.sh)" >&2
  exit 1
fi
echo "PASS"
