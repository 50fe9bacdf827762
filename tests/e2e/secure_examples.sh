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

# The checked-in examples are what the script writes for /tmp/kvbench-secure, but for the
# agent's relative folders (relative to deploy/examples, as the daemons read them), which the
# copy names absolutely: the repository's profiles and the demo's datasets.
source_dir="$(realpath "$KV_SOURCE")"
for role in controller agent; do
  sed -e "s|$pki|/tmp/kvbench-secure|g" \
    -e "s|\"$source_dir/deploy/profiles\"|\"../profiles\"|" \
    -e "s|\"$source_dir/deploy/examples/datasets\"|\"datasets\"|" "$pki/$role.json" |
    diff - "$examples/$role-secure.json" ||
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
# Its profiles are the repository's and its datasets the demo's (a mirror, so the
# agent never goes to the internet for them), wherever the DIR copy is and whatever the working
# directory.
for config in "$examples/agent-secure.json:$KV_SOURCE" "$pki/agent.json:$source_dir"; do
  effective="$(cd / && "$KV_BIN/kv-agent" --config "${config%%:*}" --validate_config)" ||
    fail "${config%%:*} is invalid"
  expect_contains "$effective" "\"profiles_dir\": \"${config#*:}/deploy/profiles\""
  expect_contains "$effective" "\"dataset_mirror\": \"${config#*:}/deploy/examples/datasets\""
done

# A profiles folder that does not exist is refused by --validate_config, as a start refuses it,
# naming the field and the path (the secure example named one and passed).
sed "s|\"$source_dir/deploy/profiles\"|\"$WORK/no-profiles\"|" "$pki/agent.json" \
  >"$WORK/agent-no-profiles.json"
if "$KV_BIN/kv-agent" --config "$WORK/agent-no-profiles.json" --validate_config \
    >/dev/null 2>"$WORK/refused"; then
  fail "a profiles_dir that does not exist was accepted"
fi
expect_contains "$(cat "$WORK/refused")" \
  "kv-agent: profiles_dir $WORK/no-profiles: cannot read the profiles directory $WORK/no-profiles"

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
