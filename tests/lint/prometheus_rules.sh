#!/usr/bin/env bash
# lint.prometheus_rules: the monitoring files under deploy/ work.
#   1. deploy/prometheus/kvbench-rules.yml is a valid Prometheus 2.x rule file (promtool check
#      rules) and passes its unit tests, kvbench-rules.test.yml (promtool test rules), which test
#      every recording rule's output and every alert both firing and not firing;
#   2. deploy/prometheus/prometheus.yml is a valid config whose rule_files resolve (promtool check
#      config);
#   3. deploy/grafana/kvbench-dashboard.json is JSON with a uid and a title, a Prometheus
#      datasource variable, and every panel (rows aside) has that datasource, a target with an
#      expr, a unit and a description.
# Needs promtool and jq (deploy/setup.sh installs the 'prometheus' and 'jq' packages).
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v promtool >/dev/null && promtool --version >/dev/null 2>&1 ||
  fail "promtool is not installed or does not run (deploy/setup.sh installs the 'prometheus' package)"
command -v jq >/dev/null || fail "jq is not installed (deploy/setup.sh installs it)"

rules_dir=deploy/prometheus
rules=kvbench-rules.yml
tests=kvbench-rules.test.yml
dashboard=deploy/grafana/kvbench-dashboard.json

# --- 1 and 2: promtool, from the rules' folder (the test file and config name them relatively).
run_promtool() {  # WHAT ARGS...
  local what=$1 output; shift
  if ! output="$(cd "$rules_dir" && promtool "$@" 2>&1)"; then
    printf '%s\n' "$output" >&2
    fail "promtool $* failed in $rules_dir ($what)"
  fi
  printf '%s\n' "$output"
}
run_promtool "rule syntax" check rules "$rules"
run_promtool "rule unit tests" test rules "$tests"
run_promtool "scrape config" check config prometheus.yml

# promtool does not measure coverage: every recording rule must be an expr of a test, every alert
# an alertname tested both with no alert (exp_alerts: []) and firing.
problems=0
problem() { echo "$1" >&2; problems=$((problems + 1)); }
test_text="$(cat "$rules_dir/$tests")"
records="$(sed -nE 's/^[[:space:]]*- record:[[:space:]]*([^[:space:]#]+).*/\1/p' "$rules_dir/$rules")"
alerts="$(sed -nE 's/^[[:space:]]*- alert:[[:space:]]*([^[:space:]#]+).*/\1/p' "$rules_dir/$rules")"
[ -n "$records" ] && [ -n "$alerts" ] || fail "found no recording rule or no alert in $rules_dir/$rules"
while read -r name; do
  grep -Eq "^[[:space:]]*- expr:[[:space:]]*['\"]?$name([{[:space:]'\"]|$)" <<<"$test_text" ||
    problem "$rules_dir/$tests: no promql_expr_test of recording rule $name"
done <<<"$records"
# "alertname firing|silent" for each alert_rule_test: silent when exp_alerts is [] or absent.
alert_tests="$(awk '
  /^[[:space:]]*alertname:/ { if (name != "") print name, kind; name = $2; kind = "silent"; next }
  name != "" && /^[[:space:]]*exp_alerts:[[:space:]]*$/ { kind = "firing" }
  /^[[:space:]]*- (eval_time|name|series|expr):/ { if (name != "") print name, kind; name = "" }
  END { if (name != "") print name, kind }' "$rules_dir/$tests")"
while read -r name; do
  grep -Eq "^$name firing$" <<<"$alert_tests" ||
    problem "$rules_dir/$tests: no test where alert $name fires"
  grep -Eq "^$name silent$" <<<"$alert_tests" ||
    problem "$rules_dir/$tests: no test where alert $name does not fire (exp_alerts: [])"
done <<<"$alerts"

# --- 3: the dashboard.
jq empty "$dashboard" 2>/dev/null || fail "$dashboard is not valid JSON ($(jq empty "$dashboard" 2>&1))"
dashboard_problems="$(jq -r '
  (if (.uid // "") == "" then "no uid" else empty end),
  (if (.title // "") == "" then "no title" else empty end),
  (if ([.templating.list[]? | select(.name == "datasource" and .type == "datasource"
        and .query == "prometheus")] | length) == 0
   then "no datasource variable (name datasource, type datasource, query prometheus)" else empty end),
  ([.panels[]? | ., (.panels[]?)] | map(select(.type != "row"))
   | if length == 0 then "no panels" else empty end,
     (.[] | (.title // "untitled") as $t
      | (if (.datasource.uid // "") != "${datasource}" then "panel \"\($t)\": datasource is not ${datasource}" else empty end),
        (if ([.targets[]? | select((.expr // "") != "")] | length) == 0 then "panel \"\($t)\": no target with an expr" else empty end),
        (if ([.targets[]? | select((.datasource.uid // "${datasource}") != "${datasource}")] | length) > 0 then "panel \"\($t)\": a target with another datasource" else empty end),
        (if (.fieldConfig.defaults.unit // "") == "" then "panel \"\($t)\": no unit (fieldConfig.defaults.unit)" else empty end),
        (if (.description // "") == "" then "panel \"\($t)\": no description" else empty end)))
  ' "$dashboard")" || fail "jq could not check $dashboard (above)"
while IFS= read -r line; do
  if [ -n "$line" ]; then problem "$dashboard: $line"; fi
done <<<"$dashboard_problems"
panels="$(jq '[.panels[]? | ., (.panels[]?)] | map(select(.type != "row")) | length' "$dashboard")" ||
  fail "jq could not count the panels of $dashboard"

[ "$problems" -eq 0 ] || fail "$problems problem(s) in the Prometheus rules or the Grafana dashboard (above)"
echo "PASS (rules, their tests and the config by promtool; $panels dashboard panels)"
