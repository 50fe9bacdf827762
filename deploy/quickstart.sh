#!/usr/bin/env bash
# The README's first command: sets up, builds, and runs the demo job end to end on the simulated
# engine (kvsim-vllm replicas, one kvsim-lmcache, Caddy in front, kv-runner replaying the tau2
# airline conversations shipped in deploy/examples/datasets): deploy/examples/demo-capacity.json,
# each tier's capacity at a TTFT p95 SLO by a concurrency search with repeats, printed first with
# its interval, then the tier comparisons.
# Results: ./kvbench-results/<job>/ (KV_RESULTS_DIR to put them elsewhere); extra arguments go to
# `kvctl run`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/deploy/setup.sh" demo
# Only the programs the demo runs (the `demo` target): kvctl, kv-runner and the two simulators.
KV_TARGETS=demo "$root/deploy/build.sh"
exec "$root/build/bin/kvctl" run "$root/deploy/examples/demo-capacity.json" \
  --out "${KV_RESULTS_DIR:-kvbench-results}" "$@"
