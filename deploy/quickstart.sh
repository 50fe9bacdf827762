#!/usr/bin/env bash
# The README's first command: sets up, builds, and runs the demo job end to end on the simulated
# engine (kvsim-vllm replicas, one kvsim-lmcache, Caddy in front, kv-runner replaying the tau2
# airline conversations shipped in deploy/examples/datasets), then prints the tier comparison.
# Results: ./kvbench-results/<job>/ (KV_RESULTS_DIR to put them elsewhere); extra arguments go to
# `kvctl run`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/deploy/setup.sh" demo
# Only the programs the demo runs (the `demo` target): kvctl, kv-runner and the two simulators.
KV_TARGETS=demo "$root/deploy/build.sh"
exec "$root/build/bin/kvctl" run "$root/deploy/examples/demo-sim.json" \
  --out "${KV_RESULTS_DIR:-kvbench-results}" "$@"
