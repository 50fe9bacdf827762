#!/usr/bin/env bash
# The sammshen rows of tests/data/datasets as Parquet written by an independent writer
# (@dsnp/parquetjs from npm, run by node; snappy pages, nested repeated groups) read back by
# kvbench's own reader into exactly the rows and the virtual users the JSONL gives. deploy/setup.sh
# installs node, npm and the writer's pinned packages (tests/tools/parquet-writer); without them this
# fails: nothing else checks the reader against a writer that is not ours.
source "$(dirname "$0")/lib.sh"
jsonl="$KV_TEST_DATASETS/tau2_airline_gpt-4.1_lmcache_format.jsonl"
writer="$KV_SOURCE/tests/tools/parquet-writer"
command -v node >/dev/null || fail "node is not installed (deploy/setup.sh installs it)"
[ -f "$writer/node_modules/@dsnp/parquetjs/package.json" ] ||
  fail "the writer's npm packages are not in $writer/node_modules (deploy/setup.sh installs them)"
node "$writer/write_sammshen_parquet.mjs" "$jsonl" "$WORK/sammshen.parquet" ||
  fail "the JS writer failed"
[ "$(head -c 4 "$WORK/sammshen.parquet")" = "PAR1" ] || fail "not a Parquet file"

"$KV_BIN/kv-dataset-digest" sammshen "$jsonl" 5 >"$WORK/jsonl.txt" || fail "JSONL did not load"
"$KV_BIN/kv-dataset-digest" sammshen "$WORK/sammshen.parquet" 5 >"$WORK/parquet.txt" ||
  fail "Parquet did not load"
cmp "$WORK/jsonl.txt" "$WORK/parquet.txt" ||
  { diff "$WORK/jsonl.txt" "$WORK/parquet.txt" | head -20; fail "Parquet and JSONL differ"; }
grep -q '^user ' "$WORK/parquet.txt" || fail "no virtual users"
# A folder of shards reads the same as the one file.
mkdir -p "$WORK/shards" && cp "$WORK/sammshen.parquet" "$WORK/shards/train-00000-of-00001.parquet"
"$KV_BIN/kv-dataset-digest" sammshen "$WORK/shards" 5 | cmp - "$WORK/jsonl.txt" ||
  fail "a folder of shards reads differently"
echo "PASS ($(grep -c '^session ' "$WORK/parquet.txt") sessions, $(grep -c '^user ' "$WORK/parquet.txt") users)"
