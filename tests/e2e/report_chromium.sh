#!/usr/bin/env bash
# kvctl report as a user reads it: the demo job run on the simulators, its HTML report rendered by
# headless Chromium, the rendered DOM checked (every chart drawn with points and labelled axes, or
# saying "no data"), and a screenshot kept next to the build's bin/ (report-screenshot.png).
# Fails without Chromium (deploy/setup.sh installs it; a test installs nothing).
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
export KV_DATASET_MIRROR="$KV_DEMO_DATASETS"
screenshot="$KV_BIN/../report-screenshot.png"

browser="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$browser" ] ||
  fail "no chromium or chromium-browser on PATH (deploy/setup.sh installs the Debian package chromium)"

code=0
"$kvctl" run "$KV_SOURCE/deploy/examples/demo-sim.json" --profiles "$KV_SOURCE/deploy/profiles" \
  --out "$WORK/results" >"$WORK/run.out" 2>"$WORK/run.err" || code=$?
exit_ok "$code" "$(cat "$WORK/run.out")" ||
  { cat "$WORK/run.err" "$WORK/run.out" >&2; fail "kvctl run failed"; }

out="$("$kvctl" report "$WORK/results" --html "$WORK/report.html" 2>"$WORK/report.err")" ||
  { cat "$WORK/report.err" >&2; fail "kvctl report failed"; }
[ "$out" = "$WORK/report.html" ] || fail "kvctl report printed '$out', not the file's path"
[ -s "$WORK/report.html" ] || fail "no report written"
! grep -Eq 'https?://|<script' "$WORK/report.html" || fail "the report is not self-contained"

chromium_run() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$WORK/chromium-profile" "$@" 2>>"$WORK/chromium.err"
}
chromium_run --dump-dom "file://$WORK/report.html" >"$WORK/dom.html" ||
  { tail -20 "$WORK/chromium.err" >&2; fail "chromium --dump-dom failed"; }
dom="$(cat "$WORK/dom.html")"
expect_contains "$dom" "kvbench report: demo-sim"
expect_contains "$dom" 'class="verdict verdict-'
for tier in GPU CPU_RAM NVME; do expect_contains "$dom" "data-series=\"$tier"; done

# One record per chart: everything from its <svg class="chart" to its </svg>.
charts="$(tr '\n' ' ' <"$WORK/dom.html" | sed 's|<svg class="chart"|\n&|g' | grep '^<svg class="chart"' |
  sed 's|</svg>.*|</svg>|')"
count="$(printf '%s\n' "$charts" | grep -c '^<svg' || true)"
# TTFT vs concurrency, 2 x per round, 2 x hit rate, 2 x KV usage, 2 x throughput.
[ "$count" -eq 9 ] || fail "expected 9 charts in the rendered DOM, found $count"
drawn=0
while IFS= read -r chart; do
  points="$(printf '%s' "$chart" | sed -E 's/^<svg class="chart" data-points="([0-9]+)".*/\1/')"
  title="$(printf '%s' "$chart" | sed -E 's/.*class="chart-title"[^>]*>([^<]*)<.*/\1/')"
  # The demo samples often enough (sampling.period_s 4, scaled) for every series to have points.
  [ "$points" -gt 0 ] || fail "chart '$title' has no data points"
  grep -q '<circle\|<rect' <<<"$chart" || fail "chart '$title' draws no marks"
  drawn=$((drawn + 1))
  for axis in x-label y-label; do
    grep -Eq "class=\"axis-label $axis\"[^>]*>[^<]*\([^)<]+\)<" <<<"$chart" ||
      fail "chart '$title' has no $axis with a unit"
  done
done <<<"$charts"

rm -f "$screenshot"
chromium_run --hide-scrollbars --window-size=1400,5000 --screenshot="$screenshot" \
  "file://$WORK/report.html" >/dev/null ||
  { tail -20 "$WORK/chromium.err" >&2; fail "chromium --screenshot failed"; }
[ -f "$screenshot" ] || fail "no screenshot at $screenshot"
size="$(stat -c %s "$screenshot")"
[ "$size" -gt 50000 ] || fail "screenshot $screenshot is only $size bytes"
echo "screenshot: $(cd "$(dirname "$screenshot")" && pwd)/$(basename "$screenshot") ($size bytes)"
echo "PASS ($drawn of $count charts drawn)"
