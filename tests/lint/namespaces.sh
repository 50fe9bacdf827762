#!/usr/bin/env bash
# lint.namespaces: namespaces follow folders, as a test. For every .h/.cc under
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
#
# How it works: one pass. A single awk program reads every file once, in sorted path order,
# tracks the namespace blocks it opens (nested blocks joined with ::), checks rule a for each
# distinct (file, namespace) as it is found and remembers the first agent/ and the first
# controller/ file opening each namespace; at the end it checks rule b. No per-file or per-line
# processes, so it runs in well under a second.
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"

# Exceptions to rule a: "path-prefix|namespace|why". Keep it short.
allowed=(
  "common/prometheus/|kvbench::prometheus_text|kvbench::prometheus would hide prometheus-cpp's ::prometheus inside namespace kvbench"
  "agent/sampler/metric_catalog.h|kvbench::sampler::keys|a scope for the catalog's metric-key constants (sampler::keys::kX), not a module"
  "controller/store/|kvbench::controller::sql|a scope for the store's SQL constants, schemas and statements alike (sql::kInsertJob), not a module"
)

mapfile -t files < <(find agent controller common -type f \( -name '*.h' -o -name '*.cc' \) | sort)

# The allowlist goes to awk as "path-prefix|namespace" entries, one per line.
allowed_entries=""
for entry in "${allowed[@]}"; do
  prefix="${entry%%|*}"
  rest="${entry#*|}"
  allowed_entries+="$prefix|${rest%%|*}"$'\n'
done

ALLOWED_NAMESPACES="$allowed_entries" awk '
  function violation(message) {
    print message > "/dev/stderr"
    violations++
  }
  # The parts of NAME split at "::" (as bash `IFS=: read -ra` splits it: no trailing empty part).
  function split_parts(name, parts,   n) {
    gsub(/::/, ":", name)
    n = split(name, parts, ":")
    if (n > 0 && parts[n] == "") n--
    return n
  }
  # NAMESPACE without its internal parts: kvbench::x::foo_internal -> kvbench::x.
  function strip_internal(ns,   parts, n, i, out) {
    n = split_parts(ns, parts)
    out = ""
    for (i = 1; i <= n; i++) {
      if (parts[i] == "internal" || parts[i] ~ /_internal$/) continue
      out = (out != "" ? out "::" : "") parts[i]
    }
    return out
  }
  # Whether the parts after kvbench:: are a subsequence of the folders on PATH (common/ dropped).
  function follows_folders(path, ns,   dir, folders, nf, first, parts, np, i, p) {
    dir = path; sub(/\/[^\/]*$/, "", dir)
    nf = split(dir, folders, "/")
    first = (folders[1] == "common") ? 2 : 1
    sub(/^kvbench/, "", ns); sub(/^::/, "", ns)
    if (ns == "") return 1
    np = split_parts(ns, parts)
    i = first
    for (p = 1; p <= np; p++) {
      while (i <= nf && folders[i] != parts[p]) i++
      if (i > nf) return 0
      i++
    }
    return 1
  }
  function allowlisted(path, ns,   i, prefix) {
    for (i = 1; i <= allowed_count; i++) {
      prefix = allowed_prefix[i]
      if (substr(path, 1, length(prefix)) == prefix && allowed_ns[i] == ns) return 1
    }
    return 0
  }
  # One (file, namespace) pair, checked once.
  function check(path, ns,   bare) {
    if ((path SUBSEP ns) in seen) return
    seen[path SUBSEP ns] = 1
    blocks++
    bare = strip_internal(ns)
    # Anonymous blocks inside kvbench::x add an empty part: kvbench::x:: -> kvbench::x.
    sub(/::$/, "", bare)
    if (!follows_folders(path, bare) && !allowlisted(path, bare))
      violation(path ": namespace " ns ": its parts name no folders of the file'"'"'s path (in order)")
    if (bare == "kvbench") return
    if (path ~ /^agent\// && !(bare in agent_side)) {
      agent_side[bare] = path
      agent_order[++agent_count] = bare
    }
    if (path ~ /^controller\// && !(bare in controller_side)) controller_side[bare] = path
  }
  BEGIN {
    n = split(ENVIRON["ALLOWED_NAMESPACES"], lines, "\n")
    for (i = 1; i <= n; i++) {
      if (lines[i] == "") continue
      bar = index(lines[i], "|")
      allowed_count++
      allowed_prefix[allowed_count] = substr(lines[i], 1, bar - 1)
      allowed_ns[allowed_count] = substr(lines[i], bar + 1)
    }
  }

  # --- the namespace blocks a file opens (the same reading as before the rewrite).
  FNR == 1 { depth = 0 }
  /^[[:space:]]*namespace[[:space:]]+[A-Za-z_][A-Za-z0-9_:]*[[:space:]]*\{/ {
    name = $0
    sub(/^[[:space:]]*namespace[[:space:]]+/, "", name)
    sub(/[[:space:]]*\{.*$/, "", name)
    stack[++depth] = name
    opened_at[depth] = FNR
    full = stack[1]
    for (i = 2; i <= depth; i++) full = full "::" stack[i]
    if (full == "kvbench" || full ~ /^kvbench::/) check(FILENAME, full)
    next
  }
  /^[[:space:]]*namespace[[:space:]]*\{/ { stack[++depth] = ""; opened_at[depth] = FNR; next }
  /^[[:space:]]*}[[:space:]]*\/\/[[:space:]]*namespace/ { if (depth > 0) depth--; next }
  # clang-format leaves a namespace of one line (a forward declaration) without the comment.
  /^}[[:space:]]*$/ { if (depth > 0 && FNR - opened_at[depth] <= 2) depth-- }

  # --- rule b, once every file is read.
  END {
    for (i = 1; i <= agent_count; i++) {
      ns = agent_order[i]
      if (ns in controller_side)
        violation(agent_side[ns] ": namespace " ns ": also opened by " controller_side[ns] " (one namespace on both sides of the agent/controller wall)")
    }
    if (violations > 0) {
      print "FAIL: " violations " namespace violation(s)" > "/dev/stderr"
      exit 1
    }
    print "PASS (" (blocks + 0) " namespace blocks)"
  }
' "${files[@]}" </dev/null
