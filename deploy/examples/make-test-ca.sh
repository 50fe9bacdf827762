#!/usr/bin/env bash
# make-test-ca.sh: a throw-away PKI and kvctl token for trying kvbench with mTLS on one machine.
# Not for production: the CA key lies next to the certificates it signs.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: make-test-ca.sh [--force] DIR [TOKEN]

Makes, with openssl, everything the secure example pair needs (deploy/examples/*-secure.json):
  DIR/ca.pem, ca.key                  a test CA (10 years)
  DIR/controller.pem, controller.key  the controller's server certificate,
                                      SAN DNS:localhost, IP:127.0.0.1 (serverAuth)
  DIR/agent.pem, agent.key            an agent client certificate (clientAuth), CN local-agent:
                                      the agent_id it may register under
  DIR/token.txt                       the bearer token of kvctl: TOKEN, else a random one
  DIR/controller.json, agent.json     the secure example configs with DIR's paths and the
                                      token's SHA-256 (when the templates sit next to this script)
and prints the token's SHA-256, the value for the controller's "token_sha256":
  printf %s "$TOKEN" | sha256sum

Idempotent: files that exist are reused (a certificate only while it still verifies against
ca.pem); --force makes everything anew. Keys and token.txt are mode 0600.

The checked-in examples are what this writes for
  make-test-ca.sh /tmp/kvbench-secure kvbench-example-token
EOF
}

force=0
args=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --force) force=1 ;;
    -*) echo "make-test-ca.sh: unknown option $arg" >&2; usage >&2; exit 2 ;;
    *) args+=("$arg") ;;
  esac
done
if [ "${#args[@]}" -lt 1 ] || [ "${#args[@]}" -gt 2 ]; then usage >&2; exit 2; fi
command -v openssl >/dev/null || { echo "make-test-ca.sh: openssl is not installed" >&2; exit 1; }

template_dir="$(cd "$(dirname "$0")" && pwd)"
template_root="/tmp/kvbench-secure"   # the DIR the checked-in examples name
if [ ! -d "${args[0]}" ]; then mkdir -p "${args[0]}" && chmod 700 "${args[0]}"; fi
dir="$(cd "${args[0]}" && pwd)"
cd "$dir"
umask 077   # keys and the token are readable by their owner only

# make_key NAME: a P-256 private key in NAME.key unless it exists.
make_key() {
  if [ "$force" = 1 ] || [ ! -s "$1.key" ]; then
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null
    rm -f "$1.pem"   # a new key needs a new certificate
  fi
  chmod 600 "$1.key"
}

# make_cert NAME CN EXTENSIONS: NAME.pem for NAME.key signed by the CA, unless a valid one with
# that CN exists.
make_cert() {
  local name=$1 cn=$2 extensions=$3
  if [ "$force" = 0 ] && [ -s "$name.pem" ] &&
     openssl verify -CAfile ca.pem "$name.pem" >/dev/null 2>&1 &&
     [ "$(openssl x509 -in "$name.pem" -noout -subject -nameopt multiline |
          sed -n 's/^ *commonName *= *//p')" = "$cn" ]; then
    return
  fi
  printf '%s\n' "$extensions" > "$name.ext"
  openssl req -new -key "$name.key" -subj "/O=kvbench test/CN=$cn" -out "$name.csr"
  openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 825 \
    -sha256 -extfile "$name.ext" -out "$name.pem" 2>/dev/null
  rm -f "$name.csr" "$name.ext"
  chmod 644 "$name.pem"
}

make_key ca
if [ "$force" = 1 ] || [ ! -s ca.pem ]; then
  openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "/O=kvbench test/CN=kvbench test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out ca.pem
  chmod 644 ca.pem
  rm -f controller.pem agent.pem   # signed by the old CA
fi
make_key controller
make_cert controller kvbench-controller "basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1"
make_key agent
# The controller binds an agent to its certificate: agent.json's agent_id must be this CN.
make_cert agent local-agent "basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth"

if [ "${#args[@]}" = 2 ]; then
  token="${args[1]}"
  [ -n "$token" ] || { echo "make-test-ca.sh: TOKEN is empty" >&2; exit 2; }
elif [ "$force" = 0 ] && [ -s token.txt ]; then
  token="$(cat token.txt)"
else
  token="$(openssl rand -hex 32)"
fi
printf '%s' "$token" > token.txt
chmod 600 token.txt
digest="$(printf '%s' "$token" | sha256sum | cut -d' ' -f1)"
example_digest="$(printf '%s' kvbench-example-token | sha256sum | cut -d' ' -f1)"

# The example configs with this DIR and this token's digest in place of the checked-in ones. A
# relative folder in a template (the agent's profiles_dir and dataset_mirror: the repository's
# deploy/profiles and the demo's datasets) is relative to the template's folder, as the daemons
# read it; the copies in DIR name the same folders absolutely.
escape() { printf '%s' "$1" | sed 's/[&|\\]/\\&/g'; }
escaped_dir="$(escape "$dir")"
for role in controller agent; do
  template="$template_dir/$role-secure.json"
  [ -f "$template" ] || continue
  absolute=()
  for key in profiles_dir dataset_mirror; do
    value="$(sed -n "s|^ *\"$key\": \"\([^\"]*\)\".*|\1|p" "$template")"
    case "$value" in "" | /* | *://*) continue ;; esac
    absolute+=(-e "s|\"$key\": \"$(escape "$value")\"|\"$key\": \"$(escape "$(
      cd "$template_dir" && realpath -m "$value")")\"|")
  done
  sed -e "s|$template_root|$escaped_dir|g" -e "s|$example_digest|$digest|g" "${absolute[@]}" \
    "$template" > "$role.json"
  chmod 644 "$role.json"
done

echo "test CA and certificates in $dir; the kvctl token is in $dir/token.txt" >&2
echo "token_sha256 (for the controller config):" >&2
echo "$digest"
