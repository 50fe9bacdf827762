#!/usr/bin/env bash
# lint.test_labels: every ctest test carries a layer label (cmake/KvTests.cmake), and only the
# layers' labels exist, so `deploy/test.sh -L unit|component|cluster|e2e|fuzz|lint` selects a
# layer and no test is left out of all of them.
set -euo pipefail
: "${KV_BUILD_DIR:?KV_BUILD_DIR must point at the build folder}"
fail() { echo "FAIL: $*" >&2; exit 1; }
listing="$(ctest --test-dir "$KV_BUILD_DIR" -N)"
total="$(sed -nE 's/^Total Tests: ([0-9]+)$/\1/p' <<<"$listing")"
[ "${total:-0}" -gt 0 ] || fail "ctest lists no test in $KV_BUILD_DIR"
# -LE . leaves exactly the tests with no label.
unlabelled="$(ctest --test-dir "$KV_BUILD_DIR" -N -LE '.' | sed -nE 's/^ *Test +#[0-9]+: //p')"
[ -z "$unlabelled" ] || fail "tests without a label (cmake/KvTests.cmake says how they get one):
$unlabelled"
labels="$(ctest --test-dir "$KV_BUILD_DIR" -N --print-labels | sed -nE 's/^ +([^ ]+)$/\1/p')"
for label in $labels; do
  case "$label" in unit | component | cluster | e2e | fuzz | lint) ;;
    *) fail "label '$label' is not a layer (unit, component, cluster, e2e, fuzz, lint)" ;;
  esac
done
# Each test has one layer: the layers' counts add up to the total.
sum=0
for label in unit component cluster e2e fuzz lint; do
  count="$(ctest --test-dir "$KV_BUILD_DIR" -N -L "^$label\$" | sed -nE 's/^Total Tests: ([0-9]+)$/\1/p')"
  echo "$label: $count"
  sum=$((sum + count))
done
[ "$sum" -eq "$total" ] || fail "the layers hold $sum tests, ctest lists $total: a test has two labels"
echo "PASS ($total tests)"
