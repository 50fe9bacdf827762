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
# Relative paths in a daemon config are relative to the config file, whatever the working
# directory: the loopback pair's agent finds the shipped profiles and the demo's datasets.
effective="$(cd / && "$KV_BIN/kv-agent" --config "$examples/agent-local.json" --validate_config)"
expect_contains "$effective" "\"profiles_dir\": \"$KV_SOURCE/deploy/profiles\""
expect_contains "$effective" "\"dataset_mirror\": \"$KV_SOURCE/deploy/examples/datasets\""
for config in "$examples"/controller-*.json; do
  "$KV_BIN/kv-controller" --config "$config" --validate_config >/dev/null ||
    fail "$config is invalid"
done
echo "PASS"
