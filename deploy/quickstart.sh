#!/usr/bin/env bash
# The README's first command: sets up, builds, and runs the demo job on the simulated engine.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/deploy/setup.sh"
"$root/deploy/build.sh"
exec "$root/build/bin/kvctl" plan "$root/deploy/examples/demo-sim.json"
