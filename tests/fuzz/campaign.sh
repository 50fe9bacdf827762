#!/usr/bin/env bash
# A fuzz campaign beyond CI: every standalone fuzz target over its seed corpus plus
# RUNS seeded mutations (default 10 million each), all targets at once. Not part of
# deploy/test.sh (ctest runs each target for 2 s). Prints one line per target and exits non-zero
# if any target crashed; a crash leaves the target's output in $OUT/<target>.log.
#   tests/fuzz/campaign.sh [RUNS] [SEED] [TARGET...]   (KV_BUILD_DIR: the build, default build/)
# With TARGETs (e.g. event_spool dataset_loader), only those run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${KV_BUILD_DIR:-$root/build}/bin"
runs="${1:-10000000}"
seed="${2:-1}"
out="${OUT:-$(mktemp -d /tmp/kvbench-fuzz-XXXXXX)}"
corpus="$root/tests/fuzz/corpus"
declare -A inputs=(
  [prometheus_exposition]="$corpus/prometheus"
  [parquet_reader]="$root/tests/data/parquet-testing/data"
  [job_spec]="$corpus/job_spec"
  [sse_parser]="$corpus/sse"
  [request_record]="$corpus/request_record"
  [dataset_loader]="$corpus/dataset"
  [agent_config]="$corpus/daemon_config"
  [controller_config]="$corpus/daemon_config"
  [event_spool]="$corpus/event_spool"
)
targets=("${@:3}")
[ "${#targets[@]}" -gt 0 ] || targets=("${!inputs[@]}")
pids=()
for target in "${targets[@]}"; do
  [ -n "${inputs[$target]:-}" ] || { echo "no fuzz target $target" >&2; exit 2; }
  [ -x "$bin/kv_fuzz_$target" ] || { echo "no $bin/kv_fuzz_$target: build first" >&2; exit 2; }
  ( start=$(date +%s)
    if "$bin/kv_fuzz_$target" --runs="$runs" --seconds=86400 --seed="$seed" "${inputs[$target]}" \
        > "$out/$target.log" 2>&1; then
      echo "$target: $(tail -n 1 "$out/$target.log") [$(( $(date +%s) - start )) s]"
    else
      echo "$target: CRASHED, see $out/$target.log"
      exit 1
    fi ) &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit "$status"
