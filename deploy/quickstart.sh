#!/usr/bin/env bash
# The README's first command: sets up, builds, and runs the demo job end to end on the simulated
# engine (kvsim-vllm replicas, one kvsim-lmcache, Caddy in front, kv-runner replaying the tau2
# airline conversations), then prints the tier comparison. Results: ./kvbench-results/<job>/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/deploy/setup.sh"
"$root/deploy/build.sh"
# The demo reads real recorded conversations in place; point KV_DATASET_MIRROR elsewhere to use
# your own copy.
if [ -z "${KV_DATASET_MIRROR:-}" ]; then
  for candidate in "${KV_SHARED_DIR:-}/datasets" "$root/../shared/datasets" /work/shared/datasets; do
    if [ -f "$candidate/tau2_airline_gpt-4.1_results.json" ]; then
      export KV_DATASET_MIRROR="$(cd "$candidate" && pwd)"
      break
    fi
  done
fi
exec "$root/build/bin/kvctl" run "$root/deploy/examples/demo-sim.json" \
  --profiles "$root/deploy/profiles" --out "${KV_RESULTS_DIR:-kvbench-results}" "$@"
