#!/usr/bin/env bash
# The secure example pair as a user makes it: deploy/examples/make-test-ca.sh writes a test CA,
# certificates, a kvctl token and the two configs, and the real daemons accept those configs.
source "$(dirname "$0")/lib.sh"
examples="$KV_SOURCE/deploy/examples"
token=kvbench-example-token
pki="$WORK/pki"

digest="$("$examples/make-test-ca.sh" "$pki" "$token" 2>"$WORK/stderr")" ||
  fail "make-test-ca.sh failed: $(cat "$WORK/stderr")"
[ "$digest" = "$(printf %s "$token" | sha256sum | cut -d' ' -f1)" ] ||
  fail "printed digest $digest is not the token's SHA-256"
expect_contains "$(cat "$examples/controller-secure.json")" "\"$digest\""
[ "$(cat "$pki/token.txt")" = "$token" ] || fail "token.txt does not hold the token"

for key in ca.key controller.key agent.key token.txt; do
  [ "$(stat -c %a "$pki/$key")" = 600 ] || fail "$key is mode $(stat -c %a "$pki/$key"), not 600"
done
openssl verify -CAfile "$pki/ca.pem" "$pki/controller.pem" "$pki/agent.pem" >/dev/null ||
  fail "the certificates do not verify against ca.pem"
expect_contains "$(openssl x509 -in "$pki/controller.pem" -noout -ext subjectAltName)" \
  "DNS:localhost, IP Address:127.0.0.1"
expect_contains "$(openssl x509 -in "$pki/agent.pem" -noout -ext extendedKeyUsage)" \
  "TLS Web Client Authentication"

# The checked-in examples are what the script writes for /tmp/kvbench-secure.
for role in controller agent; do
  sed "s|$pki|/tmp/kvbench-secure|g" "$pki/$role.json" | diff - "$examples/$role-secure.json" ||
    fail "$pki/$role.json differs from deploy/examples/$role-secure.json beyond its dir"
done

"$KV_BIN/kv-controller" --config "$pki/controller.json" --validate_config >"$WORK/controller.out" ||
  fail "the generated controller config is invalid"
expect_contains "$(cat "$WORK/controller.out")" "\"cert_path\": \"$pki/controller.pem\""
"$KV_BIN/kv-agent" --config "$pki/agent.json" --validate_config >"$WORK/agent.out" ||
  fail "the generated agent config is invalid"
expect_contains "$(cat "$WORK/agent.out")" "\"key_path\": \"$pki/agent.key\""
"$KV_BIN/kv-controller" --config "$examples/controller-secure.json" --validate_config >/dev/null ||
  fail "deploy/examples/controller-secure.json is invalid"
"$KV_BIN/kv-agent" --config "$examples/agent-secure.json" --validate_config >/dev/null ||
  fail "deploy/examples/agent-secure.json is invalid"

# A token pasted where its digest belongs is refused.
sed "s|$digest|$token|" "$pki/controller.json" >"$WORK/token-not-hash.json"
if "$KV_BIN/kv-controller" --config "$WORK/token-not-hash.json" --validate_config \
    >/dev/null 2>"$WORK/refused"; then
  fail "a raw token in token_sha256 was accepted"
fi
expect_contains "$(cat "$WORK/refused")" "token_sha256[0]"

# Idempotent: a second run reuses everything, keeping the token; --force makes all anew.
before="$(cat "$pki"/*.pem "$pki"/*.key)"
again="$("$examples/make-test-ca.sh" "$pki" 2>/dev/null)" || fail "the second run failed"
[ "$again" = "$digest" ] || fail "the second run changed the token"
[ "$(cat "$pki"/*.pem "$pki"/*.key)" = "$before" ] || fail "the second run changed the PKI"
forced="$("$examples/make-test-ca.sh" --force "$pki" 2>/dev/null)" || fail "--force failed"
[ "$forced" != "$digest" ] || fail "--force kept the token"
[ "$(cat "$pki"/*.pem "$pki"/*.key)" != "$before" ] || fail "--force kept the PKI"
openssl verify -CAfile "$pki/ca.pem" "$pki/controller.pem" "$pki/agent.pem" >/dev/null ||
  fail "the certificates made by --force do not verify"
expect_contains "$(cat "$pki/controller.json")" "\"$forced\""

# Usage errors exit 2 with the usage text.
if "$examples/make-test-ca.sh" >/dev/null 2>"$WORK/usage"; then fail "no DIR was accepted"; fi
expect_contains "$(cat "$WORK/usage")" "Usage: make-test-ca.sh [--force] DIR [TOKEN]"
echo "PASS"
