#!/usr/bin/env bash
# Rogue agents against a real controller in secure mode (mTLS, tokens), each refused
# with a line that says why on each side (the controller names the handshakes gRPC refuses from
# gRPC core's lines, and counts them in /metrics):
#  - a CA-signed agent certificate used to register under another agent's id;
#  - a certificate of another CA (the controller closes the TLS handshake);
#  - an agent that does not trust the controller's CA;
#  - a plaintext agent against the TLS port.
# The real agent, with its own certificate and id, connects.
source "$(dirname "$0")/lib.sh"
examples="$KV_SOURCE/deploy/examples"
"$examples/make-test-ca.sh" "$WORK/pki" example-token > /dev/null 2>&1 || fail "make-test-ca.sh failed"
"$examples/make-test-ca.sh" "$WORK/rogue" rogue-token > /dev/null 2>&1 || fail "the rogue CA failed"
export ROGUE="$WORK/rogue"

jq --arg dir "$WORK/controller" '.listen_address = "127.0.0.1:0" | .data_dir = $dir
  | .metrics_listen = "127.0.0.1:0"' "$WORK/pki/controller.json" > "$WORK/controller.json"
"$KV_BIN/kv-controller" --config "$WORK/controller.json" 2> "$WORK/controller.log" &
PIDS+=($!)
wait_until 20 grep -qs "controller started listen=" "$WORK/controller.log" ||
  { cat "$WORK/controller.log" >&2; fail "the controller did not start"; }
address="$(sed -n 's/.*controller started listen=\([^ ]*\).*/\1/p' "$WORK/controller.log")"

# agent NAME JQ_FILTER: an agent from the generated config changed by JQ_FILTER (which may read
# $ENV.ROGUE), logging to $WORK/NAME.log.
agent() {
  jq --arg address "$address" --arg work "$WORK/$1" --arg profiles "$KV_SOURCE/deploy/profiles" \
    ".controller_address = \$address | .work_dir = \$work | .profiles_dir = \$profiles
     | .metrics_listen = \"127.0.0.1:0\" | del(.dataset_cache_dir, .nvme_cache_dir) | $2" \
    "$WORK/pki/agent.json" > "$WORK/$1.json"
  "$KV_BIN/kv-agent" --config "$WORK/$1.json" 2> "$WORK/$1.log" &
  PIDS+=($!)
}
# expect_line LOG TEXT: LOG gets a line holding TEXT within 20 s.
expect_line() {
  wait_until 20 grep -qF -- "$2" "$WORK/$1" || fail "$1 has no line \"$2\": $(tail -5 "$WORK/$1")"
}

agent impostor '.agent_id = "gpu-node-7"'
agent other_ca '.tls.cert_path = "\($ENV.ROGUE)/agent.pem" | .tls.key_path = "\($ENV.ROGUE)/agent.key"'
agent distrust '.tls.ca_cert_path = "\($ENV.ROGUE)/ca.pem"'
agent plaintext '.insecure = true | del(.tls)'
agent local '.'

expect_line impostor.log "the controller refused this agent"
expect_line impostor.log "agent_id \"gpu-node-7\" is not a name of this agent's client certificate (local-agent)"
expect_line controller.log "refused an agent registering under a name its certificate does not carry agent_id=gpu-node-7 certificate_names=local-agent"
expect_line other_ca.log "it most likely refused this agent's certificate (signed by a CA it does not trust"
expect_line distrust.log "this agent does not trust the controller's certificate"
expect_line plaintext.log "if it serves TLS, this agent (\"insecure\": true) cannot talk to it"
expect_line controller.log "refused a TLS connection: the client's certificate is not signed by a CA this server trusts"
expect_line controller.log "cause=untrusted_certificate"
expect_line controller.log "refused a TLS connection: the client closed the connection during the TLS handshake (a gRPC client that does not trust this server's certificate does so"
expect_line controller.log "cause=closed_during_handshake"
expect_line controller.log "refused a TLS connection: the client does not speak TLS"
expect_line controller.log "cause=not_tls"
metrics_url="$(sed -n 's/.*metrics url=\([^ ]*\).*/\1/p' "$WORK/controller.log")"
refusals_counted() {
  local text
  text="$(curl -fsS "$metrics_url")" || return 1
  for cause in untrusted_certificate closed_during_handshake not_tls; do
    grep -Eq "^kvbench_controller_link\{counter=\"tls_refused_$cause\"\} [1-9]" <<<"$text" || return 1
  done
}
wait_until 20 refusals_counted || fail "the controller's /metrics does not count the refusals: $(curl -s "$metrics_url" | grep tls_refused)"
for name in other_ca distrust plaintext; do
  expect_contains "$(cat "$WORK/$name.log")" "this will not succeed until the certificates or the config change"
done

export KV_CONTROLLER="$address" KV_CA_CERT="$WORK/pki/ca.pem" KV_TOKEN=example-token
connected() { grep -q "local-agent .*connected" <<<"$("$KV_BIN/kvctl" agents 2>/dev/null)"; }
wait_until 20 connected || fail "the real agent is not connected: $("$KV_BIN/kvctl" agents 2>&1)"
agents="$("$KV_BIN/kvctl" agents --output json)"
[ "$(jq 'length' <<<"$agents")" = 1 ] || fail "a rogue agent registered: $agents"
# Refusals are not retried in a hurry: one line each, not one per 100 ms.
for name in impostor other_ca distrust plaintext; do
  lines="$(grep -c "controller=" "$WORK/$name.log" || true)"
  [ "$lines" -le 2 ] || fail "$name logged its refusal $lines times: $(tail -3 "$WORK/$name.log")"
done
# Nor does the controller repeat itself: one line per cause per 10 s, however often agents retry.
for cause in untrusted_certificate closed_during_handshake not_tls; do
  lines="$(grep -c "cause=$cause" "$WORK/controller.log" || true)"
  [ "$lines" -le 3 ] || fail "the controller logged cause=$cause $lines times"
done
echo "PASS"
