#!/usr/bin/env bash
# Installs what kvbench needs on Debian 12, and nothing when it is all there. Idempotent and
# quiet: prints a line only when it installs something. Runs as root (or with sudo when available).
#   deploy/setup.sh demo   what the build and the demo need (deploy/quickstart.sh)
#   deploy/setup.sh        that and what the tests and benchmarks need (deploy/test.sh)
#   deploy/setup.sh package  the build and what makes and checks the .deb packages
#                            (deploy/package.sh, deploy/package-install-test.sh)
set -euo pipefail
purpose="${1:-test}"
case "$purpose" in
  demo | test | package) ;;
  *) echo "setup: unknown purpose '$purpose' (demo, test or package)" >&2; exit 2 ;;
esac

# The build and the demo: the toolchain, the libraries, Caddy.
DEMO_PACKAGES=(
  # toolchain
  cmake ninja-build g++ pkg-config ccache git
  # libraries fixed by the design
  libgrpc++-dev libgrpc-dev protobuf-compiler-grpc protobuf-compiler libprotobuf-dev
  libabsl-dev libboost-dev nlohmann-json3-dev prometheus-cpp-dev libcurl4-openssl-dev
  catch2 libsqlite3-dev cppzmq-dev libzmq3-dev libcli11-dev
  # the controller's PostgreSQL store (controller/store/postgres_database.h): libpq
  libpq-dev
  # page codecs of the native Parquet reader (common/parquet): SNAPPY and ZSTD (zlib comes with
  # the libraries above)
  libsnappy-dev libzstd-dev zlib1g-dev
  # libcrypto for bearer-token digests
  libssl-dev
  # the test CA and certificates of the secure controller/agent pair (deploy/examples)
  openssl
  # IANA time zones of schedules (absl::LoadTimeZone reads /usr/share/zoneinfo)
  tzdata
  # the load balancer in front of 2+ replicas (agent/tiers)
  caddy
)
# The packages' build and checks (deploy/package.sh): dpkg-shlibdeps, lintian, and debootstrap for
# a fresh Debian 12 root the packages install into, booted with its own systemd by systemd-nspawn
# (systemd-container) (deploy/package-install-test.sh).
PACKAGE_PACKAGES=(dpkg-dev lintian debootstrap systemd-container)
# The tests and benchmarks, on top.
TEST_PACKAGES=(
  # used by the end-to-end tests (jq: to recompute figures from result.json and requests.jsonl)
  curl jq
  # Prometheus 2.42 + promtool: e2e.prometheus_crosscheck checks our rate math against PromQL on
  # its own instance (a host with systemd also gets the package's service on :9090)
  prometheus
  # used by the benchmarks (tests/bench): wrk, and aiohttp for the runner roofline's Python client
  wrk python3-aiohttp
  # headless browser of e2e.report_chromium: renders kvctl report's HTML, checks its DOM, screenshots it
  chromium
  # systemd-analyze: e2e.installed_tree verifies the installed units and their hardening
  systemd
  # the Python scheduler client's runtime (deploy/examples/python-client; e2e.python_client)
  python3-grpcio python3-protobuf
  # the llm-d Benchmark Report's published JSON Schema, checked by a real validator
  # (e2e.llmd_export; tests/data/llmd-benchmark-report)
  python3-jsonschema
  # libfaketime: e2e.schedule_missed_record runs a controller 8 days in the past, then today
  faketime
  # the .deb packages of e2e.debian_packages: dpkg-shlibdeps for their dependencies, lintian
  dpkg-dev lintian
  # a real PostgreSQL server the store tests and e2e.controller_cluster_postgresql start in a temp
  # folder (initdb + postgres as an unprivileged user; the package's own cluster is not used)
  postgresql
)

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=("${DEMO_PACKAGES[@]}")
[ "$purpose" = test ] && packages+=("${TEST_PACKAGES[@]}")
[ "$purpose" = package ] && packages+=("${PACKAGE_PACKAGES[@]}")
missing=()
for package in "${packages[@]}"; do
  if [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$package")
  fi
done
# node and npm run the independent Parquet writer of e2e.sammshen_parquet. Checked by command, not
# by package: a NodeSource nodejs (which bundles npm and conflicts with Debian's npm) serves too.
if [ "$purpose" = test ]; then
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
fi

if [ "${#missing[@]}" -gt 0 ]; then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root to install: ${missing[*]}" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$purpose" = test ] || exit 0

# The writer's npm packages, exactly as package-lock.json pins them (versions and integrity
# hashes), into the clone's tests/tools/parquet-writer/node_modules (git-ignored). Reinstalled only
# when the lock file changed; a failed install fails set-up (and so the test command).
writer="$root/tests/tools/parquet-writer"
stamp="$writer/node_modules/.kvbench-installed-lock"
if ! cmp -s "$writer/package-lock.json" "$stamp"; then
  echo "setup: installing the Parquet writer's npm packages (tests/tools/parquet-writer)"
  npm ci --prefix "$writer" --no-audit --no-fund --loglevel=error >/dev/null ||
    { echo "setup: npm ci in $writer failed" >&2; exit 1; }
  cp "$writer/package-lock.json" "$stamp"
fi
