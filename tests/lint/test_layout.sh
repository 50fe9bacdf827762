#!/usr/bin/env bash
# lint.test_layout: tests mirror the product's folders (issue #17). Every source file under
# tests/unit/ and tests/component/ (the *_test.cc files and the helpers beside them) and every
# fuzz target (*_fuzz.cc) under tests/fuzz/ lives in tests/<layer>/<folder>/, where <folder> is a
# folder of the product (agent/..., controller/..., common/...), the one holding the code it
# mainly tests: tests/unit/agent/results/percentiles_test.cc tests agent/results/percentiles.*.
# tests/cluster, e2e, bench, lint, support, fakes, tools and data, the fuzz corpora and the
# shared standalone_fuzz_driver.cc and fuzz_temp_dir.h are free. Offenders are printed as
# `path: why`; exit 1 when there is one.
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"

offenders=0
checked=0
while read -r path; do
  checked=$((checked + 1))
  rest="${path#tests/*/}"  # agent/results/percentiles_test.cc
  folder="$(dirname "$rest")"
  case "$folder" in
    agent | agent/* | controller | controller/* | common/*)
      [ -d "$folder" ] && continue
      echo "$path: $folder/ is not a folder of the product" >&2 ;;
    *) echo "$path: not in tests/<layer>/<product folder>/ (agent/..., controller/..., common/...)" >&2 ;;
  esac
  offenders=$((offenders + 1))
done < <({
  find tests/unit tests/component -type f \( -name '*.cc' -o -name '*.h' \)
  find tests/fuzz -type f -name '*_fuzz.cc'
} | sort)

[ "$checked" -gt 0 ] || { echo "FAIL: no test sources found under tests/" >&2; exit 1; }
if [ "$offenders" -gt 0 ]; then
  echo "FAIL: $offenders test source(s) outside a mirrored product folder" >&2
  exit 1
fi
echo "PASS ($checked test sources)"
