#!/usr/bin/env bash
# The preflight of a real node through the real binaries: `kv-agent --preflight` on an
# NVMe dir that is tmpfs (a link into /dev/shm, as an operator's symlink would be) FAILs naming
# it and exits 5; on a disk it passes; a taken metrics port FAILs naming its holder. Then a real
# controller and agent: `kvctl agents` says the node cannot run NVME and why, and of a submitted
# GPU + NVME job the GPU scenario runs there while the NVME one is never placed, waiting with the
# failed check as its reason.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
[ -d /dev/shm ] || { echo "SKIP: no /dev/shm (tmpfs) on this machine"; exit 0; }

# The simulators' profiles alone: no real vLLM or LMCache here, whose absence would FAIL too.
mkdir -p "$WORK/profiles"
cp "$KV_SOURCE/deploy/profiles/sim-vllm.json" "$KV_SOURCE/deploy/profiles/sim-lmcache.json" \
  "$WORK/profiles/"
shm="$(mktemp -d /dev/shm/kvbench-preflight-XXXXXX)"
cleanup_shm() { rm -rf "$shm"; cleanup; }
trap cleanup_shm EXIT
ln -s "$shm" "$WORK/nvme"

# agent_config FILE ID NVME_DIR METRICS [CONTROLLER]
agent_config() {
  cat > "$1" <<JSON
{"agent_id": "$2", "controller_address": "${5:-127.0.0.1:7070}", "insecure": true,
 "work_dir": "$WORK/$2-work", "profiles_dir": "$WORK/profiles", "nvme_cache_dir": "$3",
 "dataset_cache_dir": "$WORK/$2-datasets", "dataset_mirror": "$KV_DEMO_DATASETS",
 "metrics_listen": "$4", "heartbeat_interval_s": 1}
JSON
}

# --- kv-agent --preflight on tmpfs: FAIL naming the dir and the file system, exit 5.
agent_config "$WORK/shm.json" shm-agent "$WORK/nvme" 127.0.0.1:0
code=0
"$KV_BIN/kv-agent" --preflight --config "$WORK/shm.json" >"$WORK/shm.out" 2>"$WORK/shm.err" ||
  code=$?
out="$(cat "$WORK/shm.out")"
[ "$code" = 5 ] || { echo "$out"; cat "$WORK/shm.err"; fail "kv-agent --preflight exited $code, want 5"; }
expect_contains "$out" "STATUS  CHECK"
expect_contains "$out" "FAIL    nvme.block_device    nvme_cache_dir $WORK/nvme (-> $shm) is on tmpfs"
expect_contains "$out" "→ set nvme_cache_dir to a folder on a local NVMe block device"
expect_contains "$out" "[keeps off this node: NVME]"
expect_contains "$out" "OK      binary.sim-vllm      $KV_BIN/kvsim-vllm: vllm "
expect_contains "$out" "gpu.nvidia"
expect_contains "$out" "preflight: 1 FAIL,"
expect_contains "$(cat "$WORK/shm.err")" "kv-agent: preflight: 1 check FAILs: nvme.block_device"
[ -d "$WORK/shm-agent-work" ] && fail "--preflight must not lay out the work dir"

# --- On a disk (unless this machine's temp folder is itself in RAM): no FAIL, exit 0.
case "$(stat -f -c %T "$WORK")" in
  tmpfs | ramfs | overlayfs)
    echo "note: $WORK is on $(stat -f -c %T "$WORK"); the passing preflight is not checked" >&2 ;;
  *)
    agent_config "$WORK/disk.json" disk-agent "$WORK/nvme-disk" 127.0.0.1:0
    "$KV_BIN/kv-agent" --preflight --config "$WORK/disk.json" >"$WORK/disk.out" 2>&1 ||
      { cat "$WORK/disk.out"; fail "kv-agent --preflight on a disk failed"; }
    grep -q "^FAIL " "$WORK/disk.out" && { cat "$WORK/disk.out"; fail "a check FAILs on a disk"; }
    expect_contains "$(cat "$WORK/disk.out")" "nvme.o_direct        an O_DIRECT write of" ;;
esac

# --- A real controller and the tmpfs agent.
start_controller '"heartbeat_timeout_s": 30'
agent_config "$WORK/shm.json" shm-agent "$WORK/nvme" 127.0.0.1:0 "$address"
"$KV_BIN/kv-agent" --config "$WORK/shm.json" 2>"$WORK/shm-agent.log" &
PIDS+=($!)
connected() { grep -qw connected <<<"$("$kvctl" agents 2>/dev/null)"; }
wait_until 30 connected || { cat "$WORK/shm-agent.log" >&2; fail "the agent did not connect"; }
expect_contains "$(cat "$WORK/shm-agent.log")" "preflight check=nvme.block_device status=FAIL"

# The running agent holds its metrics port: a preflight that would listen there FAILs, naming it.
metrics="$(sed -n 's/.*metrics url=http:\/\/\([^/]*\)\/metrics.*/\1/p' "$WORK/shm-agent.log" | head -1)"
[ -n "$metrics" ] || fail "no metrics url in the agent's log"
agent_config "$WORK/taken.json" taken-agent "$WORK/nvme" "$metrics"
code=0
taken="$("$KV_BIN/kv-agent" --preflight --config "$WORK/taken.json" 2>/dev/null)" || code=$?
[ "$code" = 5 ] || fail "a taken metrics port exited $code, want 5"
expect_contains "$taken" "FAIL    ports"
expect_contains "$taken" "cannot bind $metrics: Address already in use"

# kvctl agents: the node cannot run NVME, and why.
agents="$("$kvctl" agents)"
expect_contains "$agents" "CANNOT_RUN"
expect_contains "$agents" "shm-agent cannot run NVME: preflight nvme.block_device FAILs: nvme_cache_dir $WORK/nvme (-> $shm) is on tmpfs"
expect_contains "$agents" "  → set nvme_cache_dir to a folder on a local NVMe block device"
[ "$("$kvctl" agents --output json | jq -r '.[0].capabilities.preflight[] |
  select(.name == "nvme.block_device") | "\(.status) \(.tiers | join(","))"')" = "PREFLIGHT_FAIL NVME" ] ||
  fail "kvctl agents --output json does not carry the failing check"

# A GPU + NVME job: GPU runs on the agent, NVME is never placed there and says why it waits.
jq '.name = "preflight" | .tiers = ["GPU", "NVME"] | .concurrency = [2] | .sessions = 4 |
    .replicas = 1 | .engine_overrides.sim_time_scale = 0.05' \
  "$KV_SOURCE/deploy/examples/demo-sim.json" > "$WORK/job.json"
job="$("$kvctl" submit "$WORK/job.json" | sed -n 's/^job \([^:]*\):.*/\1/p' | head -1)"
[ -n "$job" ] || fail "kvctl submit printed no job id"
scenario() { "$kvctl" status "$job" --output json | jq -c --arg tier "$1" '.scenarios[] | select(.scenario.tier == $tier)'; }
gpu_done() { [ "$(scenario GPU | jq -r '.state')" = SCENARIO_STATE_SUCCEEDED ]; }
wait_until 120 gpu_done || { scenario GPU >&2; tail -20 "$WORK/shm-agent.log" >&2; fail "the GPU scenario did not succeed"; }
[ "$(scenario GPU | jq -r '.agent_id')" = shm-agent ] || fail "the GPU scenario ran elsewhere: $(scenario GPU)"
nvme="$(scenario NVME)"
[ "$(jq -r '.state' <<<"$nvme")" = SCENARIO_STATE_PENDING ] || fail "the NVME scenario is not waiting: $nvme"
[ -z "$(jq -r '.agent_id // ""' <<<"$nvme")" ] || fail "the NVME scenario was placed: $nvme"
expect_contains "$(jq -r '.error' <<<"$nvme")" "waiting: needs a preflight that passes for NVME; shm-agent: nvme.block_device FAILs: nvme_cache_dir $WORK/nvme"
nvme_id="$(jq -r '.scenario.scenario_id' <<<"$nvme")"
grep -q "scenario=$nvme_id" "$WORK/shm-agent.log" && fail "the agent was assigned $nvme_id"
[ -z "$(ls -A "$shm")" ] || fail "something wrote into the tmpfs pool dir: $(ls -A "$shm")"
"$kvctl" cancel "$job" --reason "preflight e2e done" >/dev/null
echo "PASS"
