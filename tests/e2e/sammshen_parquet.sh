#!/usr/bin/env bash
# The sammshen rows of tests/data/datasets as Parquet written by an independent writer
# (@dsnp/parquetjs from npm, run by node; snappy pages, nested repeated groups) read back by
# kvbench's own reader into exactly the rows and the virtual users the JSONL gives. Skips (77)
# only where node/npm or the npm registry are not there.
source "$(dirname "$0")/lib.sh"
jsonl="$KV_TEST_DATASETS/tau2_airline_gpt-4.1_lmcache_format.jsonl"
command -v node >/dev/null && command -v npm >/dev/null || { echo "SKIP: node and npm are needed"; exit 77; }
# Installed once per build dir (the registry is the only network this needs).
npm_dir="$KV_BIN/../npm-parquet-writer"
if [ ! -d "$npm_dir/node_modules/@dsnp/parquetjs" ]; then
  mkdir -p "$npm_dir"
  timeout 300 npm install --prefix "$npm_dir" --silent --no-audit --no-fund @dsnp/parquetjs@1.8.8 \
    >"$WORK/npm.log" 2>&1 || { cat "$WORK/npm.log"; echo "SKIP: npm install @dsnp/parquetjs failed"; exit 77; }
fi
cp "$KV_SOURCE/tests/tools/write_sammshen_parquet.mjs" "$npm_dir/"
node "$npm_dir/write_sammshen_parquet.mjs" "$jsonl" "$WORK/sammshen.parquet" ||
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
