#!/usr/bin/env bash
# Python stubs of kvbench's API (proto/kvbench/v1/) for a scheduler's client, from Debian's tools
# alone: protoc (protobuf-compiler) for the messages and grpc_python_plugin
# (protobuf-compiler-grpc) for the services; at run time python3-grpcio and python3-protobuf.
# Usage: gen_stubs.sh OUT_DIR   (then put OUT_DIR on PYTHONPATH: `import kvbench.v1...`)
set -euo pipefail
out="${1:?usage: gen_stubs.sh OUT_DIR}"
proto_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../proto" && pwd)"
plugin="$(command -v grpc_python_plugin || true)"
[ -n "$plugin" ] || { echo "gen_stubs.sh: no grpc_python_plugin: apt install protobuf-compiler-grpc" >&2; exit 3; }
mkdir -p "$out"
protoc -I "$proto_root" --python_out="$out" --grpc_out="$out" --plugin=protoc-gen-grpc="$plugin" \
  "$proto_root"/kvbench/v1/*.proto
# Packages for Python 3's import of kvbench.v1.*_pb2.
touch "$out/kvbench/__init__.py" "$out/kvbench/v1/__init__.py"
