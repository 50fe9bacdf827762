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
#
# How it works: one pass. A single awk program reads every source file and CMakeLists.txt under
# common/, agent/ and controller/ once: it checks each `#include "agent/..."`/`"controller/..."`
# line as it goes, notes which folder defines each library (add_library/add_executable) and
# collects each target_link_libraries call (multi-line calls joined); at the end it checks the
# calls against those folders. No per-file or per-line processes, so it runs in well under a
# second.
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"

# Agent headers the kvctl app layer may include: "header|why".
kvctl_agent_headers=(
  "agent/local/local_run_config.h|kvctl run starts the one agent kv-agent starts (Agent::Create) with its flags as the config and the in-process transport to its embedded controller; kvctl plan finds routing, datasets and the dataset ceiling as the run will (the facade: agent.h, dataset_ceiling.h)"
  "agent/local/local_preflight.h|kvctl doctor runs the preflight kvctl run's agent runs at its start and prints it as kv-agent --preflight does (the facade: preflight_printer.h)"
  "agent/datasets/registry/dataset_pull.h|kvctl dataset lists and pulls the agent's registry datasets into the cache the agent reads (the facade: the registry, cache, fetcher and resolver)"
  "agent/link/link_transport.h|kvctl run's in-process AgentLink (in_process_agent_bridge.h) is a transport of the agent's ControllerLink"
  "agent/scenario/request_chunks.h|kvctl diff reads a local run's requests.jsonl as the agent reads it to send it to the controller"
)
# Agent libraries the kvctl app layer may link: "library|why".
kvctl_agent_libraries=(
  "kv_local_run|kvctl run's agent (the one agent, kv_agent_lib, with kvctl run's config and seams), kvctl doctor's preflight and DatasetCeiling (the headers above)"
  "kv_dataset_registry|kvctl dataset: the agent's dataset registry, cache and fetcher"
)
kvctl_targets="kv_kvctl_lib kvctl"

# Every file the rules read, in a stable order: the sources (#include lines) and the CMakeLists.
mapfile -t files < <(find common agent controller -type f \( -name '*.h' -o -name '*.cc' \
  -o -name '*.cpp' -o -name '*.hpp' -o -name CMakeLists.txt \) | sort)

# The allowlists go to awk as space-separated keys (the part before each "|").
awk -v kvctl_headers="${kvctl_agent_headers[*]%%|*}" \
  -v kvctl_libraries="${kvctl_agent_libraries[*]%%|*}" \
  -v kvctl_targets="$kvctl_targets" '
  function as_set(words, set,   list, n, i) {
    n = split(words, list, " ")
    for (i = 1; i <= n; i++) set[list[i]] = 1
  }
  function violation(message) {
    print message > "/dev/stderr"
    violations++
  }
  BEGIN {
    as_set(kvctl_headers, kvctl_header_ok)
    as_set(kvctl_libraries, kvctl_library_ok)
    as_set(kvctl_targets, is_kvctl_target)
    allowlist = "not in the kvctl allowlist of tests/lint/dependency_rules.sh"
  }
  FNR == 1 {
    top = FILENAME; sub(/\/.*/, "", top)  # common, agent or controller
    is_cmake = (FILENAME ~ /(^|\/)CMakeLists\.txt$/)
    in_link_call = 0
  }

  # --- includes: `#include "agent/..."` or `#include "controller/..."` in a source file.
  !is_cmake && /^[[:space:]]*#[[:space:]]*include[[:space:]]*"(agent|controller)\// {
    rest = $0; sub(/^[^"]*"/, "", rest)          # after the opening quote
    if (!index(rest, "\"")) next                  # no closing quote: not an include
    included = substr(rest, 1, index(rest, "\"") - 1)
    to = included; sub(/\/.*/, "", to)
    where = FILENAME ":" FNR
    if ((top == "common" && (to == "agent" || to == "controller")) ||
        (top == "agent" && to == "controller"))
      violation(where ": " top "/ includes \"" included "\" (" top "/ may not include " to "/)")
    else if (top == "controller" && to == "agent") {
      if (FILENAME ~ /^controller\/kvctl\//) {
        if (!(included in kvctl_header_ok))
          violation(where ": kvctl includes \"" included "\", " allowlist)
      } else
        violation(where ": controller/ includes \"" included "\" (only controller/kvctl/ may, from its allowlist)")
    }
    next
  }

  # --- CMake: which folder defines each library (the name right after the parenthesis).
  is_cmake && /^[[:space:]]*add_(library|executable)\(/ {
    name = $0; sub(/^[[:space:]]*add_(library|executable)\(/, "", name)
    if (match(name, /^[A-Za-z0-9_.-]+/)) library_folder[substr(name, 1, RLENGTH)] = top
  }
  # One target_link_libraries call, from its line to the first line with a ")", joined.
  is_cmake && !in_link_call && /^[[:space:]]*target_link_libraries\(/ {
    in_link_call = 1; call_line = FNR; call_text = ""
  }
  is_cmake && in_link_call {
    call_text = call_text " " $0
    if (index($0, ")")) {
      in_link_call = 0
      sub(/^[[:space:]]*target_link_libraries\(/, "", call_text); sub(/\).*/, "", call_text)
      calls++
      call_where[calls] = FILENAME ":" call_line
      call_from[calls] = top
      call_words[calls] = call_text  # TARGET LIBRARY...
    }
  }

  # The links, once every library folder is known.
  END {
    for (c = 1; c <= calls; c++) {
      n = split(call_words[c], words, " ")
      target = words[1]; from = call_from[c]; where = call_where[c]
      for (i = 2; i <= n; i++) {
        library = words[i]
        if (!(library in library_folder)) continue  # PUBLIC, absl::..., a system library
        to = library_folder[library]
        if ((from == "common" && (to == "agent" || to == "controller")) ||
            (from == "agent" && to == "controller"))
          violation(where ": " target " (" from "/) links " library " (" to "/)")
        else if (from == "controller" && to == "agent") {
          if (target in is_kvctl_target) {
            if (!(library in kvctl_library_ok))
              violation(where ": " target " links " library " (agent/), " allowlist)
          } else
            violation(where ": " target " (controller/) links " library " (agent/); only kvctl may, from its allowlist")
        }
      }
    }
    if (violations > 0) {
      print "FAIL: " violations " dependency rule violation(s) (rules: tests/lint/dependency_rules.sh)" > "/dev/stderr"
      exit 1
    }
    print "PASS"
  }
' "${files[@]}" </dev/null
