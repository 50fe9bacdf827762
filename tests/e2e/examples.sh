#!/usr/bin/env bash
# Every example shipped under deploy/examples is valid for the binary that reads it.
source "$(dirname "$0")/lib.sh"
examples="$KV_SOURCE/deploy/examples"
for spec in "$examples"/demo-*.json; do
  "$KV_BIN/kvctl" plan "$spec" >/dev/null || fail "$spec is not a valid job spec"
done
for config in "$examples"/agent-*.json; do
  "$KV_BIN/kv-agent" --config "$config" --validate_config >/dev/null || fail "$config is invalid"
done
for config in "$examples"/controller-*.json; do
  "$KV_BIN/kv-controller" --config "$config" --validate_config >/dev/null ||
    fail "$config is invalid"
done
echo "PASS"
