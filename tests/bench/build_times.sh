#!/usr/bin/env bash
# How long kvbench takes to build, as a new user and CI meet it. By hand, not in CI:
# it clones HEAD into a temporary folder and builds it from nothing, each measurement with its own
# empty ccache (CCACHE_DIR), so nothing this machine built before helps. Prints one line a figure.
#
#   tests/bench/build_times.sh [quickstart] [ci] [proto] [event_loop]   (default: all four)
#
#   quickstart  deploy/quickstart.sh on a clean clone, until `kvctl run` prints the demo's first
#               scenario result (set-up here installs nothing: the packages are already on this
#               machine; the README says how long apt takes on a fresh one)
#   ci          .ci/run on a clean clone: both trees built, both suites run
#   proto       after `ci`: a field added to kvbench/v1/result.proto, both trees rebuilt
#   event_loop  after `ci`: common/loop/event_loop.h touched, the normal tree rebuilt
#
# Leave the machine otherwise idle: the figures are wall-clock times on its cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
what=("$@")
[ "${#what[@]}" -gt 0 ] || what=(quickstart ci proto event_loop)
work="$(mktemp -d /tmp/kvbench-build-times.XXXXXX)"
echo "build_times: work folder $work, HEAD $(git -C "$root" rev-parse --short HEAD), $(nproc) cores"

wants() { [[ " ${what[*]} " == *" $1 "* ]]; }
seconds_since() { echo $(($(date +%s) - $1)); }
report() { printf '%-58s %6d s  (%d min %02d s)\n' "$1" "$2" $(($2 / 60)) $(($2 % 60)); }
fresh_clone() {  # NAME: a clean clone of HEAD in $work/NAME with an empty ccache beside it
  git clone --quiet --no-hardlinks "$root" "$work/$1"
  mkdir -p "$work/$1-ccache"
}

if wants quickstart; then
  fresh_clone quickstart
  start=$(date +%s)
  # The demo's first scenario line (kvctl run prints one per finished scenario) ends the clock;
  # the rest of the demo then runs to its end.
  (cd "$work/quickstart" && CCACHE_DIR="$work/quickstart-ccache" KV_RESULTS_DIR="$work/results" \
    deploy/quickstart.sh) 2>&1 | tee "$work/quickstart.log" | while IFS= read -r line; do
      if [[ "${line,,}" == *" succeeded"* ]] && [ ! -e "$work/first" ]; then
        touch "$work/first"
        report "quickstart: clone to the demo's first result" "$(seconds_since "$start")"
      fi
    done
  report "quickstart: clone to the demo's end" "$(seconds_since "$start")"
fi

if wants ci; then
  fresh_clone ci
  start=$(date +%s)
  (cd "$work/ci" && CCACHE_DIR="$work/ci-ccache" CI=true bash .ci/run) > "$work/ci.log" 2>&1 ||
    { tail -40 "$work/ci.log"; echo "build_times: .ci/run failed (log: $work/ci.log)"; exit 1; }
  report ".ci/run on a clean clone, empty ccache" "$(seconds_since "$start")"
  grep -E "tests passed|Total Test time" "$work/ci.log" | sed 's/^/  /'
fi

if wants proto; then
  [ -d "$work/ci/build" ] || { echo "build_times: proto needs ci first" >&2; exit 2; }
  sed -i 's|^message ScenarioResult {|message ScenarioResult {\n  optional int32 build_times_probe = 9999;|' \
    "$work/ci/proto/kvbench/v1/result.proto"
  start=$(date +%s)
  (cd "$work/ci" && export CCACHE_DIR="$work/ci-ccache" && deploy/build.sh &&
    KV_SANITIZE=1 deploy/build.sh) > "$work/proto.log" 2>&1
  report "a .proto edited: both trees rebuilt" "$(seconds_since "$start")"
  git -C "$work/ci" checkout -- proto/kvbench/v1/result.proto
fi

if wants event_loop; then
  [ -d "$work/ci/build" ] || { echo "build_times: event_loop needs ci first" >&2; exit 2; }
  (cd "$work/ci" && CCACHE_DIR="$work/ci-ccache" deploy/build.sh) > /dev/null 2>&1
  touch "$work/ci/common/loop/event_loop.h"
  start=$(date +%s)
  (cd "$work/ci" && CCACHE_DIR="$work/ci-ccache" CCACHE_DISABLE=1 deploy/build.sh) \
    > "$work/event_loop.log" 2>&1
  report "common/loop/event_loop.h touched: normal tree rebuilt" "$(seconds_since "$start")"
fi
echo "build_times: done (logs in $work)"
