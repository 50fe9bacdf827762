#!/usr/bin/env bash
# kvctl run cancelled (SIGINT, as Ctrl-C) after a scenario failed: the job ends FAILED with that
# scenario's error and exit 5, as the controller ends the same job (controller/core/job_outcome.h);
# what finished is kept, the running scenario and the rest are CANCELLED. A scenario this machine
# cannot run fails when its turn comes, with the scheduler's reason.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
unset KV_DATASET_MIRROR KV_PROFILES_DIR KV_DATASET_CACHE

# Profiles without the cache server's: no CPU_RAM scenario can run here.
mkdir -p "$WORK/profiles"
cp "$KV_SOURCE/deploy/profiles/sim-vllm.json" "$WORK/profiles/"
python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$WORK/spec.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name="cancel-after-failure", tiers=["GPU", "CPU_RAM"], concurrency=[2, 4], sessions=8)
spec["engine_overrides"]["sim_time_scale"] = 0.3
json.dump(spec, open(sys.argv[2], "w"))
PY
# 00-gpu-c2 succeeds, 01-cpu-ram-c2 fails, Ctrl-C during 02-gpu-c4's replay, 03-cpu-ram-c4 never starts.
cd "$WORK"
"$kvctl" run spec.json --out results --profiles profiles >out.txt 2>err.txt &
pid=$!
PIDS+=("$pid")
replaying() { grep -Eq '^02-gpu-c4 +replay' out.txt; }
wait_until 120 replaying || { cat out.txt err.txt >&2; fail "02-gpu-c4 never reached its replay"; }
kill -INT "$pid"
code=0
wait "$pid" || code=$?
[ "$code" = 5 ] || { cat out.txt err.txt >&2; fail "exit $code, expected 5 (failed)"; }
expect_contains "$(cat err.txt)" 'scenario 01-cpu-ram-c2 failed: no agent can run it: needs profile sim-lmcache'

job_json="$(ls "$WORK"/results/cancel-after-failure-*/job.json)"
python3 - "$job_json" <<'PY' || fail "job.json: $(cat "$job_json")"
import json, sys
job = json.load(open(sys.argv[1]))
states = {s["scenario"]["scenario_id"]: s["state"] for s in job["scenarios"]}
assert job["state"] == "JOB_STATE_FAILED", job["state"]
assert job["error"].startswith("scenario 01-cpu-ram-c2 failed: "), job["error"]
assert states == {
    "00-gpu-c2": "SCENARIO_STATE_SUCCEEDED",
    "01-cpu-ram-c2": "SCENARIO_STATE_FAILED",
    "02-gpu-c4": "SCENARIO_STATE_CANCELLED",
    "03-cpu-ram-c4": "SCENARIO_STATE_CANCELLED",
}, states
cancelled = [s for s in job["scenarios"] if s["state"] == "SCENARIO_STATE_CANCELLED"]
assert all("interrupted (SIGINT)" in s.get("error", "") for s in cancelled), cancelled
PY
[ -s "$(dirname "$job_json")/00-gpu-c2/result.json" ] || fail "the finished scenario's result.json is gone"
echo "PASS"
