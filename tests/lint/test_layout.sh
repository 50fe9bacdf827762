#!/usr/bin/env bash
# lint.test_layout: tests mirror the product's folders. Every source file under
# tests/unit/ and tests/component/ (the *_test.cc files and the helpers beside them) and every
# fuzz target (*_fuzz.cc) under tests/fuzz/ lives in tests/<layer>/<folder>/, where <folder> is a
# folder of the product (agent/..., controller/..., common/...), the one holding the code it
# mainly tests: tests/unit/agent/results/percentiles_test.cc tests agent/results/percentiles.*.
# tests/cluster, e2e, bench, lint, support, fakes, tools and data, the fuzz corpora and the
# shared standalone_fuzz_driver.cc and fuzz_temp_dir.h are free, and so are the tests of
# tests/support itself (tests/<layer>/support/: the harness is not a product folder). Offenders are printed as
# `path: why`; exit 1 when there is one.
#
# How it works: one pass. One find lists the product's folders, one the test sources (sorted);
# a single awk program checks every source's folder against the folder list. No per-file
# processes.
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"

# One awk program over the sorted list of test sources (fed at the bottom).
awk '
  BEGIN {
    list_folders = "find agent controller common -type d"
    while ((list_folders | getline folder) > 0) product_folder[folder] = 1
    close(list_folders)
  }
  {
    path = $0
    checked++
    rest = path; sub(/^tests\/[^\/]*\//, "", rest)  # agent/results/percentiles_test.cc
    folder = rest
    if (!sub(/\/[^\/]*$/, "", folder)) folder = "."  # dirname
    if (folder == "support") next  # tests of the test harness (tests/support)
    if (folder == "agent" || folder ~ /^agent\// || folder == "controller" ||
        folder ~ /^controller\// || folder ~ /^common\//) {
      if (folder in product_folder) next
      print path ": " folder "/ is not a folder of the product" > "/dev/stderr"
    } else
      print path ": not in tests/<layer>/<product folder>/ (agent/..., controller/..., common/...)" > "/dev/stderr"
    offenders++
  }
  END {
    if (checked == 0) { print "FAIL: no test sources found under tests/" > "/dev/stderr"; exit 1 }
    if (offenders > 0) {
      print "FAIL: " offenders " test source(s) outside a mirrored product folder" > "/dev/stderr"
      exit 1
    }
    print "PASS (" checked " test sources)"
  }' < <({
  find tests/unit tests/component -type f \( -name '*.cc' -o -name '*.h' \)
  find tests/fuzz -type f -name '*_fuzz.cc'
} | sort)
