#!/usr/bin/env bash
# kvctl export --format llmd-br-0.2.1 on a short real run (the demo at concurrency 2, GPU and
# CPU_RAM, 8 users, 2 repeats): one report per scenario and repeat, each valid under the
# published llm-d Benchmark Report v0.2.1 JSON Schema (tests/data/llmd-benchmark-report/, checked
# with python3-jsonschema, which also accepts the schema's own example and rejects a broken one),
# with the units base.py allows each field, and every number in it equal to the result.json (or
# job.json) value it maps from, field by field (docs/kvctl.md's table): no number goes unchecked;
# every time-series point is its result.json series' (t_s, value), dated from the result's
# replay_start_unix_ms. A result.json without that anchor (an older agent's) exports no series.
source "$(dirname "$0")/lib.sh"
data="$KV_SOURCE/tests/data/llmd-benchmark-report"

run_demo_variant llmd '.tiers = ["GPU", "CPU_RAM"] | .concurrency = [2] | .sessions = 8
  | .repeats = 2'
code="$(cat "$WORK/llmd.code")"
exit_ok "$code" "$(cat "$WORK/llmd.out")" || fail "kvctl run exited $code: $(tail -5 "$WORK/llmd.err")"
job_dir="$(cat "$WORK/llmd.dir")"
job_id="$(jq -r .job_id "$job_dir/job.json")"
scenarios="$(jq '[.scenarios[] | select(.state == "SCENARIO_STATE_SUCCEEDED")] | length' "$job_dir/job.json")"
[ "$scenarios" = 4 ] || fail "expected 4 scenarios (2 tiers x 2 repeats), got $scenarios"

# An unknown format: exit 2, naming the one there is.
set +e
err="$("$KV_BIN/kvctl" export "$WORK/llmd" --format llmd-br-9 2>&1 >/dev/null)"
rc=$?
set -e
[ "$rc" = 2 ] || fail "an unknown --format exited $rc, not 2"
expect_contains "$err" "unknown --format 'llmd-br-9': the formats are llmd-br-0.2.1"

# One file per report; stdout: an array of them; --scenario: the one object.
"$KV_BIN/kvctl" export "$WORK/llmd" --format llmd-br-0.2.1 --out-dir "$WORK/br" > "$WORK/paths"
[ "$(grep -c . "$WORK/paths")" = 4 ] || fail "--out-dir wrote $(grep -c . "$WORK/paths") files, not 4"
"$KV_BIN/kvctl" export "$job_dir" --format llmd-br-0.2.1 > "$WORK/all.json"
[ "$(jq 'length' "$WORK/all.json")" = 4 ] || fail "stdout is not an array of 4 reports"
[ "$(jq '[.[].run.uid] | unique | length' "$WORK/all.json")" = 4 ] || fail "run.uid repeats"
[ "$(jq -r '[.[].run.eid] | unique | .[]' "$WORK/all.json")" = "$job_id" ] || fail "run.eid is not the job"
first="$(jq -r '.scenarios[0].scenario.scenario_id' "$job_dir/job.json")"
"$KV_BIN/kvctl" export "$WORK/llmd" --format llmd-br-0.2.1 --scenario "$first" --out "$WORK/one.json" > /dev/null
[ "$(jq -r .version "$WORK/one.json")" = 0.2.1 ] || fail "--scenario did not write one report"

# The schema, its example, a broken copy and our reports, through a real validator.
/usr/bin/python3 - "$data" "$WORK/br" <<'PY' || fail "JSON Schema validation failed"
import copy, datetime, glob, json, os, sys
import jsonschema

data, reports = sys.argv[1], sys.argv[2]
schema = json.load(open(os.path.join(data, "br_v0_2_1_json_schema.json")))
# Pydantic's schema: draft 2020-12 ($defs); no "$schema" key, so name the draft.
jsonschema.Draft202012Validator.check_schema(schema)
formats = jsonschema.FormatChecker()

@formats.checks("date-time", raises=ValueError)
def date_time(value):  # RFC 3339 (python3-jsonschema checks it only with rfc3339-validator)
    datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return "T" in value

validator = jsonschema.Draft202012Validator(schema, format_checker=formats)
def errors(document):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
            for e in validator.iter_errors(document)]

# Upstream's example: accepted as upstream accepts it. YAML when python3-yaml is there, else the
# JSON converted from it once (Python's JSON: YAML's .inf is Infinity).
try:
    import yaml
    example = yaml.safe_load(open(os.path.join(data, "br_v0_2_1_example.yaml")))
    assert example == json.load(open(os.path.join(data, "br_v0_2_1_example.json"))), \
        "br_v0_2_1_example.json differs from the YAML"
except ImportError:
    example = json.load(open(os.path.join(data, "br_v0_2_1_example.json")))
assert errors(example) == [], errors(example)
for broken, why in [({k: v for k, v in example.items() if k != "run"}, "no run"),
                    (dict(example, extra_top_level=1), "an unknown top-level key")]:
    assert errors(broken), f"the validator accepted an example with {why}"
bad_units = copy.deepcopy(example)
bad_units["results"]["request_performance"]["aggregate"]["latency"]["time_to_first_token"]["units"] = "furlongs"
assert errors(bad_units), "the validator accepted units outside the schema's enum"
bad_time = copy.deepcopy(example)
bad_time["run"]["time"]["start"] = "yesterday"
assert errors(bad_time), "the validator accepted a date-time that is not one"

# base.py's unit families per field (the JSON Schema has only the enum).
family = {
    "time_to_first_token": {"ms", "s"}, "request_latency": {"ms", "s"},
    "time_per_output_token": {"ms/token", "s/token"}, "inter_token_latency": {"ms/token", "s/token"},
    "normalized_time_per_output_token": {"ms/token", "s/token"},
    "input_token_rate": {"tokens/s"}, "output_token_rate": {"tokens/s"},
    "total_token_rate": {"tokens/s"}, "request_rate": {"queries/s"},
    "input_length": {"count"}, "output_length": {"count"},
    "kv_cache_usage": {"percent", "fraction"}, "cache_hit_rate": {"percent", "fraction"},
    "cpu_cache_usage": {"percent", "fraction"}, "gpu_utilization": {"percent", "fraction"},
    "cpu_utilization": {"percent", "fraction"}, "power_consumption": {"Watts"},
    "preemptions": {"count", "pixels"},
}
def check_units(node, path):
    if isinstance(node, dict):
        if "units" in node and ("mean" in node or "series" in node):  # Statistics, TimeSeriesData
            name = path[-1]
            assert name in family, f"{'/'.join(path)}: no unit rule for {name}"
            assert node["units"] in family[name], f"{'/'.join(path)}: units {node['units']}"
        for key, value in node.items():
            if key != "kvbench":
                check_units(value, path + [key])
    elif isinstance(node, list):
        for i, value in enumerate(node):
            check_units(value, path + [str(i)])

files = sorted(glob.glob(os.path.join(reports, "*.json")))
assert len(files) == 4, files
for name in files:
    report = json.load(open(name))
    assert errors(report) == [], (name, errors(report))
    check_units(report["results"], ["results"])
print(f"schema: upstream example valid, 4 broken copies rejected, {len(files)} reports valid")
PY

# Field by field: every number of each report against result.json and job.json. The jq program
# lists [path, expected] pairs, checks each, and fails on any number of the report it did not
# list (the kvbench blocks copied whole are compared whole, and their numbers are covered so).
check="$(cat <<'JQ'
def n: if type == "string" then tonumber else . end;
def iso: n as $ms | ($ms / 1000 | floor | strftime("%Y-%m-%dT%H:%M:%S"))
  + "." + ("00" + ($ms % 1000 | tostring))[-3:] + "Z";
# A result.json series as TimeSeriesData: each point at $start (replay_start_unix_ms) + t_s.
def dated($start; $units): . as $s | {units: $units, series: [range(0; $s.t_s | length) as $i
  | {ts: ($start + ($s.t_s[$i] * 1000 | round) | iso), value: $s.value[$i]}]};
def units_of: {local_hit_rate: "fraction", external_hit_rate: "fraction"}[.name];
$r[0] as $r | $j[0] as $j | . as $b
| ($r.replay_start_unix_ms | n) as $t0
| ($r.simulated_latency // $r.latency) as $l
| ($l.requests_completed | n) as $done | (($r.sessions.failed_requests // "0") | n) as $failed
| ($j.scenarios[] | select(.scenario.scenario_id == $r.scenario_id)) as $s
| ($b.results.observability.components
   | map((.component_label) + "/" + (.replica_id // ""))) as $labels
| def comp($key): ["results", "observability", "components", ($labels | index($key))];
  ["results", "request_performance", "aggregate"] as $a
| [ [["run", "time", "start"], ($r.start_unix_ms | iso)],
    [["run", "time", "end"], ($r.end_unix_ms | iso)],
    [["results", "observability", "kvbench", "replay_start"], ($r.replay_start_unix_ms | iso)],
    [comp("vllm/") + ["time_series"], ($r.series // [] | map(select(.name == "kv_cache_usage")
       | {kv_cache_usage: dated($t0; "fraction")}) | add)],
    [["results", "observability", "kvbench", "time_series"],
     ($r.series // [] | map(select(.name != "kv_cache_usage") | {(.name): dated($t0; units_of)}) | add)],
    [["scenario", "stack", 0, "standardized", "replicas"], $j.spec.replicas],
    [["scenario", "stack", 0, "standardized", "accelerator", "count"],
     ($j.spec.replicas * ($j.spec.tensor_parallel_size // 1))],
    [["scenario", "stack", 0, "standardized", "accelerator", "parallelism", "tp"],
     ($j.spec.tensor_parallel_size // 1)],
    [["scenario", "stack", 0, "standardized", "tool_version"],
     ($r.versions[] | select(.component == "vllm") | .version)],
    [["scenario", "stack", 0, "native", "config", "num_gpu_blocks"], ($r.engine.num_gpu_blocks | n)],
    [["scenario", "stack", 0, "native", "config", "block_size"], $r.engine.block_size],
    [["scenario", "stack", 0, "native", "config", "engine_overrides"], $j.spec.engine_overrides],
    [["scenario", "load", "standardized", "stage"], ($s.scenario.index // 0)],
    [["scenario", "load", "standardized", "concurrency"], $r.concurrency],
    [["scenario", "load", "standardized", "input_seq_len", "value"],
     (($l.prompt_tokens_total | n) / $done)],
    [["scenario", "load", "standardized", "output_seq_len", "value"], $j.spec.osl],
    [["scenario", "load", "standardized", "multi_turn", "max_turns", "value"], $j.spec.num_rounds],
    [["scenario", "load", "native", "config", "num_rounds"], $j.spec.num_rounds],
    [["scenario", "load", "native", "config", "isl"], ($j.spec.isl // 0)],
    [["scenario", "load", "native", "config", "osl"], $j.spec.osl],
    [["scenario", "load", "native", "config", "sessions"], $s.scenario.sessions],
    [["scenario", "load", "native", "config", "concurrency"], $s.scenario.concurrency],
    [["scenario", "load", "native", "config", "repeat"], $s.scenario.repeat],
    [$a + ["requests", "total"], ($done + $failed)],
    [$a + ["requests", "failures"], $failed],
    [$a + ["requests", "input_length", "mean"], (($l.prompt_tokens_total | n) / $done)],
    [$a + ["requests", "output_length", "mean"], (($l.output_tokens_total | n) / $done)],
    [$a + ["latency", "time_to_first_token", "mean"], $l.ttft_mean_s],
    [$a + ["latency", "time_to_first_token", "p50"], $l.ttft_p50_s],
    [$a + ["latency", "time_to_first_token", "p90"], $l.ttft_p90_s],
    [$a + ["latency", "time_to_first_token", "p95"], $l.ttft_p95_s],
    [$a + ["latency", "time_to_first_token", "p99"], $l.ttft_p99_s],
    [$a + ["latency", "time_per_output_token", "mean"], $l.tpot_mean_s],
    [$a + ["throughput", "input_token_rate", "mean"], $l.input_tokens_per_s],
    [$a + ["throughput", "output_token_rate", "mean"], $l.output_tokens_per_s],
    [$a + ["throughput", "total_token_rate", "mean"], ($l.input_tokens_per_s + $l.output_tokens_per_s)],
    [$a + ["throughput", "request_rate", "mean"], $l.requests_per_s],
    [["results", "session_performance", "sessions", "total"], $r.sessions.total],
    [["results", "session_performance", "sessions", "succeeded"], $r.sessions.complete],
    [["results", "session_performance", "sessions", "failed"], ($r.sessions.error // 0)],
    [["results", "session_performance", "sessions", "total_events"], ($done + $failed)],
    [["results", "session_performance", "sessions", "total_events_completed"], $done],
    [comp("vllm/") + ["aggregate", "kv_cache_usage", "mean"], $r.engine.kv_cache_usage_mean],
    [comp("vllm/") + ["aggregate", "kv_cache_usage", "max"], $r.engine.kv_cache_usage_max],
    [comp("vllm/") + ["aggregate", "cache_hit_rate", "mean"], $r.engine.local_hit_rate],
    [comp("vllm/") + ["aggregate", "preemptions", "mean"], ($r.engine.num_preemptions | n)],
    [comp("vllm/replica-0") + ["aggregate", "cpu_utilization", "mean"],
     $r.telemetry.process_cpu_pct_mean["replica-0"]],
    [comp("vllm/replica-1") + ["aggregate", "cpu_utilization", "mean"],
     $r.telemetry.process_cpu_pct_mean["replica-1"]],
    [comp("caddy/") + ["aggregate", "cpu_utilization", "mean"],
     $r.telemetry.process_cpu_pct_mean["caddy"]],
    [["results", "observability", "kvbench", "concurrency"], $r.concurrency],
    [["results", "observability", "kvbench", "repeat"], $s.scenario.repeat],
    [["results", "observability", "kvbench", "attempt"], $s.attempt],
    [["results", "observability", "kvbench", "sim_time_scale"], $r.sim_time_scale],
    [["results", "observability", "kvbench", "engine"], $r.engine],
    [["results", "observability", "kvbench", "telemetry"], $r.telemetry],
    [["results", "observability", "kvbench", "host_load"], $r.host_load],
    [["results", "observability", "kvbench", "sessions"], $r.sessions],
    [["results", "observability", "kvbench", "validity"],
     ($j.validity[] | select(.comparison_group == $s.scenario.comparison_group))]
  ] + (if $r.tier != "GPU" then [
    [["scenario", "stack", 1, "standardized", "cpu_pool_gb"], $j.spec.cpu_pool_gb],
    [["scenario", "stack", 0, "native", "config", "kv_connector"], $r.kv_connector],
    [comp("lmcache/") + ["aggregate", "cache_hit_rate", "mean"], $r.lmcache.hit_rate],
    [comp("lmcache/") + ["aggregate", "cpu_cache_usage", "mean"], $r.lmcache.l1_usage_ratio_mean],
    [comp("lmcache/") + ["aggregate", "cpu_utilization", "mean"],
     $r.telemetry.process_cpu_pct_mean["cache-server"]],
    [["results", "observability", "kvbench", "external_hit_rate"], $r.engine.external_hit_rate],
    [["results", "observability", "kvbench", "offload_served_tokens"],
     ($r.engine.external_hit_tokens | n)],
    [["results", "observability", "kvbench", "offload_served_pct_of_prompt"],
     (($r.engine.external_hit_tokens | n) / ($r.latency.prompt_tokens_total | n) * 100)],
    [["results", "observability", "kvbench", "lmcache"], $r.lmcache]
  ] else [] end) + (if $r.tier == "NVME" then [
    [["scenario", "stack", 1, "standardized", "nvme_pool_gb"], $j.spec.nvme_pool_gb],
    [["results", "observability", "kvbench", "disk"], $r.disk]
  ] else [] end)
| . as $expected
| [ $expected[] | .[0] as $path | .[1] as $source | ($b | getpath($path)) as $value
    | select($value != $source)
    | "\($path | map(tostring) | join(".")): report \($value | tojson), source \($source | tojson)" ]
  as $wrong
| ($expected | map(.[0])) as $checked
| [ $b | paths(type == "number")
    | select(. as $p | any($checked[]; . as $c | $p[0:($c | length)] == $c) | not)
    | map(tostring) | join(".") ] as $unchecked
| if ($wrong | length) > 0 or ($unchecked | length) > 0 then
    ($wrong + ($unchecked | map("unchecked number: " + .)) | join("\n") + "\n" | halt_error(1))
  else true end
JQ
)"
for report in "$WORK"/br/*.json; do
  scenario="$(jq -r '.results.observability.kvbench.scenario_id' "$report")"
  result="$job_dir/$scenario/result.json"
  [ -f "$result" ] || fail "no $result for $report"
  jq -e --slurpfile r "$result" --slurpfile j "$job_dir/job.json" "$check" "$report" > /dev/null ||
    fail "$report does not map back to $result"
done
# The series are there to check (the demo's replay spans several scrapes), each point between
# the scenario's start and end, and only the replicas together carry them.
points="$(jq -s '[.[].results.observability | (.components[].time_series.kv_cache_usage.series[]?),
  (.kvbench.time_series.local_hit_rate.series[]?)] | length' "$WORK"/br/*.json)"
[ "$points" -gt 0 ] || fail "no kv_cache_usage or local_hit_rate points in any report"
jq -e -s 'all(.[]; .run.time as $t | [.results.observability | .kvbench.replay_start,
  (.. | objects | select(has("series")) | .series[].ts)] | all(. >= $t.start and . <= $t.end))' \
  "$WORK"/br/*.json > /dev/null || fail "a time-series point or replay_start outside run.time"
jq -e -s 'all(.[]; [.results.observability.components[] | select(has("time_series"))
  | .component_label + "/" + (.replica_id // "")] | . == [] or . == ["vllm/"])' \
  "$WORK"/br/*.json > /dev/null || fail "time series on a component other than the replicas'"

# An older agent's result.json (no replay_start_unix_ms): no series, no start invented, said once.
old="$WORK/old/$job_id"
for scenario_dir in "$job_dir"/*/; do
  [ -f "$scenario_dir/result.json" ] || continue
  mkdir -p "$old/$(basename "$scenario_dir")"
  jq 'del(.replay_start_unix_ms)' "$scenario_dir/result.json" \
    > "$old/$(basename "$scenario_dir")/result.json"
done
cp "$job_dir/job.json" "$old/job.json"
"$KV_BIN/kvctl" export "$old" --format llmd-br-0.2.1 > "$WORK/old.json" 2> "$WORK/old.err" ||
  fail "export of the older results failed: $(cat "$WORK/old.err")"
[ "$(grep -c 'time series left out' "$WORK/old.err")" = 1 ] ||
  fail "not one line about the undated series: $(cat "$WORK/old.err")"
expect_contains "$(cat "$WORK/old.err")" \
  "result.json has no replay_start_unix_ms (an older agent's), so its series cannot be dated"
[ "$(jq '[.. | objects | select(has("time_series") or has("replay_start"))] | length' \
  "$WORK/old.json")" = 0 ] || fail "an undated result exported time series"
[ "$(jq 'length' "$WORK/old.json")" = 4 ] || fail "the older results did not give 4 reports"

echo "ok: $scenarios reports valid under the llm-d BR v0.2.1 schema, every number from result.json," \
  "$points series points dated from replay_start_unix_ms"
