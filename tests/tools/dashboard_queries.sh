#!/usr/bin/env bash
# dashboard_queries.sh [--allow-empty TITLE]... PROMETHEUS_URL DASHBOARD_JSON
#
# Runs every panel target's PromQL `expr` of a Grafana dashboard (deploy/grafana/
# kvbench-dashboard.json) as an instant query against a real Prometheus, with the dashboard's
# variables $schedule, $agent, $tier and $concurrency (also as ${var} and ${var:format}) set to
# `.*` (Grafana's "All"), and prints `panel TITLE: N series` for each. Exits 1 naming each panel
# whose query errors or returns no series, unless --allow-empty names it (a panel that is empty
# when all is well; an error still fails it).
#
# For the rule-derived panel ("TTFT p95, offload vs GPU"), Prometheus must load
# deploy/prometheus/kvbench-rules.yml and have evaluated it once after scraping the controller.
# Needs curl and jq (deploy/setup.sh installs both).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
usage() { echo "usage: $0 [--allow-empty TITLE]... PROMETHEUS_URL DASHBOARD_JSON" >&2; exit 2; }

allow_empty=()
while [ $# -gt 0 ]; do
  case "$1" in
    --allow-empty) [ $# -ge 2 ] || usage; allow_empty+=("$2"); shift 2 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || usage
prometheus_url="${1%/}"
dashboard="$2"
for tool in curl jq; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (deploy/setup.sh installs it)"
done
[ -r "$dashboard" ] || fail "cannot read $dashboard"

may_be_empty() {  # TITLE
  local title
  for title in "${allow_empty[@]:-}"; do [ "$title" = "$1" ] && return 0; done
  return 1
}

# One JSON object per target with an expr: {title, ref, expr, targets (of its panel)}; panels
# inside rows included.
targets="$(jq -c '[.panels[]? | ., (.panels[]?)] | .[] | select(.targets != null)
  | .title as $title | (.targets | length) as $count
  | .targets[] | select((.expr // "") != "")
  | {title: $title, ref: (.refId // "?"), expr: .expr, count: $count}' "$dashboard")" ||
  fail "$dashboard is not a dashboard jq can read"
[ -n "$targets" ] || fail "$dashboard has no panel target with an expr"

bad=()
while IFS= read -r target; do
  title="$(jq -r .title <<<"$target")"
  expr="$(jq -r .expr <<<"$target")"
  if [ "$(jq -r .count <<<"$target")" -gt 1 ]; then title="$title ($(jq -r .ref <<<"$target"))"; fi
  # Grafana's variables as "All" (.*); its interval macros, should a panel use them, as 5m.
  query="$(sed -E -e 's/\$\{(schedule|agent|tier|concurrency)(:[A-Za-z]+)?\}/.*/g' \
    -e 's/\$(schedule|agent|tier|concurrency)\b/.*/g' \
    -e 's/\[\[(schedule|agent|tier|concurrency)\]\]/.*/g' \
    -e 's/\$\{?__(rate_interval|interval|range)\}?/5m/g' <<<"$expr")"
  if ! response="$(curl -sS --max-time 30 "$prometheus_url/api/v1/query" \
      --data-urlencode "query=$query" 2>&1)"; then
    echo "panel $title: curl failed: $response" >&2
    bad+=("$title")
    continue
  fi
  status="$(jq -r '.status // "no status"' <<<"$response" 2>/dev/null || echo "not JSON")"
  if [ "$status" != success ]; then
    error="$(jq -r '"\(.errorType // "?"): \(.error // "?")"' <<<"$response" 2>/dev/null ||
      echo "$response")"
    echo "panel $title: query failed ($error): $query" >&2
    bad+=("$title")
    continue
  fi
  # A vector or matrix counts its series; a scalar or string is one value.
  series="$(jq -r 'if (.data.resultType == "vector" or .data.resultType == "matrix")
    then (.data.result | length) else 1 end' <<<"$response")"
  echo "panel $title: $series series"
  if [ "$series" -eq 0 ]; then
    if may_be_empty "${title% (*)}" || may_be_empty "$title"; then
      echo "  (empty allowed by --allow-empty)"
    else
      echo "panel $title: no series for: $query" >&2
      bad+=("$title")
    fi
  fi
done <<<"$targets"

if [ "${#bad[@]}" -gt 0 ]; then
  fail "${#bad[@]} panel(s) with a failing or empty query: $(printf '"%s" ' "${bad[@]}")"
fi
echo "PASS ($(wc -l <<<"$targets") panel queries)"
