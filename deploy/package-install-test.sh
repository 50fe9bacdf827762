#!/usr/bin/env bash
# The Debian packages installed on a fresh Debian 12, by hand (not in CI: it downloads Debian's
# packages; about 2 minutes, 1 more the first time). As root:
#   deploy/package-install-test.sh            packages the build first (deploy/package.sh)
#   KV_PACKAGE_DIR=DIR deploy/...             installs DIR/kvbench-*.deb instead
# A Debian 12 root made by debootstrap from the Debian archive this host's apt uses (its tarball
# kept in KV_ROOTFS_CACHE, default /var/cache/kvbench-package-test: reruns skip debootstrap) is
# booted with its own systemd (systemd-nspawn --boot, sharing this host's network for apt), then
# in it: `apt install ./kvbench-*.deb`; the units start with the packaged configs and the agent
# registers with the controller; a reduced demo (GPU and NVME at 2 users) runs through the two
# daemons (kvctl submit --watch: the agent's scenario runs as kvbench under the unit's hardening)
# and alone from /usr/share/kvbench/examples (kvctl run); `apt remove`, in the middle of a
# scenario, leaves no kvbench process, and `apt purge` no user, state or config. Prints a
# transcript; KV_KEEP=1 keeps the root.
# Needs root, systemd-nspawn (systemd-container) and debootstrap (deploy/setup.sh package), and
# ports 7070, 9464 and 9465 free on loopback (the packaged configs' ports, in this host's network).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root (debootstrap, systemd-nspawn)"
command -v systemd-nspawn >/dev/null || fail "no systemd-nspawn: apt-get install systemd-container"
command -v debootstrap >/dev/null || fail "no debootstrap: deploy/setup.sh package"
for port in 7070 9464 9465; do
  ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || fail "port $port is taken on loopback"
done

# wait_until SECONDS COMMAND...: polls COMMAND until it succeeds; fails after SECONDS.
wait_until() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}
step() { printf '\n=== %s\n' "$*"; }

packages="${KV_PACKAGE_DIR:-}"
if [ -z "$packages" ]; then
  step "deploy/package.sh"
  packages="$("$root/deploy/package.sh" | tee >(cat >&2) | tail -1)"  # not /dev/stderr: a reopened log file
fi
debs=("$packages"/kvbench-*.deb)
[ "${#debs[@]}" = 4 ] || fail "expected 4 packages in $packages, got: ${debs[*]}"

work="$(mktemp -d /var/tmp/kvbench-package-test-XXXXXX)"
rootfs="$work/root"
machine="kvbench-$(basename "$work" | tr -dc 'a-zA-Z0-9' | tail -c 6)"
nspawn_pid=""
cleanup() {
  if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
    kill -TERM "$nspawn_pid" 2>/dev/null || true  # nspawn powers the container off
    nspawn_gone() { ! kill -0 "$nspawn_pid" 2>/dev/null; }
    wait_until 60 nspawn_gone || kill -KILL "$nspawn_pid" 2>/dev/null || true
    wait "$nspawn_pid" 2>/dev/null || true
  fi
  if [ "${KV_KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# --- A fresh Debian 12 root, from the archive this host's apt uses.
arch="$(dpkg --print-architecture)"
cache="${KV_ROOTFS_CACHE:-/var/cache/kvbench-package-test}"
tarball="$cache/bookworm-$arch-rootfs.tar.zst"
mirror="${KV_DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror="$(sed -n 's/^URIs: *\(http[^ ]*\/debian\/\?\)$/\1/p' /etc/apt/sources.list.d/debian.sources \
    2>/dev/null | head -1)"
  [ -n "$mirror" ] || mirror="$(sed -n 's/^deb \(http[^ ]*\/debian\/\?\) bookworm .*/\1/p' \
    /etc/apt/sources.list 2>/dev/null | head -1)"
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi
mkdir -p "$rootfs" "$cache"
if [ -s "$tarball" ]; then
  step "Debian 12 root from the cached $tarball"
  tar --zstd -xpf "$tarball" -C "$rootfs"
else
  step "debootstrap bookworm from $mirror (cached in $tarball)"
  started=$SECONDS
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,adduser,procps \
    bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap failed"; }
  echo "debootstrap: $((SECONDS - started)) s"
  tar --zstd -cpf "$tarball.tmp" -C "$rootfs" . && mv "$tarball.tmp" "$tarball"
fi
# The host's Debian sources (the same mirror and suites: bookworm, -updates, -security), if any.
if [ -s /etc/apt/sources.list.d/debian.sources ]; then
  cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/debian.sources"
  rm -f "$rootfs/etc/apt/sources.list"
fi
# The caddy package's own caddy.service (a web server on :80) would start in this host's network:
# policy-rc.d keeps it stopped (deb-systemd-invoke asks it); every other unit starts.
cat >"$rootfs/usr/sbin/policy-rc.d" <<'SH'
#!/bin/sh
case "$1" in caddy | caddy.service) exit 101 ;; esac
exit 0
SH
chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
mkdir -p "$rootfs/srv/kvbench-test/debs" "$rootfs/srv/kvbench-test/demo"
cp "${debs[@]}" "$rootfs/srv/kvbench-test/debs/"

# --- Boot it with its own systemd.
step "systemd-nspawn --boot (machine $machine)"
systemd-nspawn -D "$rootfs" --boot --register=no --keep-unit --console=passive \
  --machine="$machine" >"$work/nspawn.log" 2>&1 &
nspawn_pid=$!
leader=""
find_leader() { leader="$(pgrep -P "$nspawn_pid" -x systemd || true)"; [ -n "$leader" ]; }
wait_until 30 find_leader || { cat "$work/nspawn.log" >&2; fail "the container's systemd did not start"; }
# in_root COMMAND...: runs COMMAND in the container (its namespaces, root and environment).
in_root() {
  nsenter --target "$leader" --all --root --wd -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
# show COMMAND...: prints "# COMMAND" and runs it in the container.
show() { printf '# %s\n' "$*"; in_root bash -c "$*"; }
booted() {
  local state
  state="$(in_root systemctl is-system-running 2>/dev/null || true)"
  [ "$state" = running ] || [ "$state" = degraded ]
}
wait_until 90 booted || { cat "$work/nspawn.log" >&2; fail "the container did not finish booting"; }
show 'cat /etc/debian_version; systemctl is-system-running; ps -p 1 -o comm='

# --- apt install ./kvbench-*.deb
step "apt install ./kvbench-*.deb"
in_root apt-get update -q >"$work/apt-update.log" 2>&1 ||
  { cat "$work/apt-update.log" >&2; fail "apt-get update failed in the root"; }
printf '# %s\n' "cd /srv/kvbench-test/debs && apt-get install -y ./kvbench-*.deb"
in_root bash -c 'cd /srv/kvbench-test/debs && apt-get install -y ./kvbench-*.deb' >"$work/apt-install.log" 2>&1 ||
  { cat "$work/apt-install.log" >&2; fail "apt install ./kvbench-*.deb failed"; }
grep -E '^([0-9]+ upgraded|Setting up (kvbench|caddy))' "$work/apt-install.log" |
  sed 's/^/  /'
show "dpkg-query -W -f='\${Package} \${Version} \${Status}\n' 'kvbench-*' caddy"
show 'id kvbench; stat -c "%n %U:%G %a" /var/lib/kvbench; ls /etc/kvbench'

# --- The units start with the packaged configs; the agent registers.
step "the units"
units_active() { in_root systemctl is-active --quiet kv-agent kv-controller; }
wait_until 30 units_active || { show 'systemctl status --no-pager -l kv-agent kv-controller; journalctl --no-pager -n 40'; fail "the units are not active"; }
show 'systemctl is-enabled kv-agent kv-controller; systemctl is-active kv-agent kv-controller'
show 'ps -o user,pid,cmd -C kv-agent,kv-controller'
agent_connected() {
  in_root kvctl agents --controller 127.0.0.1:7070 --insecure >"$work/agents.txt" 2>&1 &&
    grep -qw connected "$work/agents.txt"
}
wait_until 60 agent_connected || { cat "$work/agents.txt" >&2; show 'journalctl --no-pager -u kv-agent -n 30'; fail "the agent did not register"; }
show 'kvctl agents --controller 127.0.0.1:7070 --insecure'

# --- The reduced demo: through the daemons, then kvctl run alone.
in_root bash -c 'sed -e "s/\"concurrency\": \[2, 16\]/\"concurrency\": [2]/" \
  -e "s/\"tiers\": \[\"GPU\", \"CPU_RAM\", \"NVME\"\]/\"tiers\": [\"GPU\", \"NVME\"]/" \
  /usr/share/kvbench/examples/demo-sim.json > /srv/kvbench-test/demo/small.json'
in_root grep -q '"concurrency": \[2\]' /srv/kvbench-test/demo/small.json || fail "the demo spec changed shape"
step "kvctl submit --watch: the reduced demo on the packaged agent and controller"
printf '# %s\n' "kvctl submit /srv/kvbench-test/demo/small.json --watch --controller 127.0.0.1:7070 --insecure"
in_root kvctl submit /srv/kvbench-test/demo/small.json --watch --controller 127.0.0.1:7070 --insecure \
  >"$work/submit.out" 2>&1 || { cat "$work/submit.out"; show 'journalctl --no-pager -u kv-agent -n 40'; fail "kvctl submit --watch failed"; }
cat "$work/submit.out"
for tier in GPU NVME; do
  grep -Eq "^ *2 +$tier +32/32 .* ok" "$work/submit.out" || fail "no ok row for $tier through the daemons"
done
show 'ls /var/lib/kvbench; ls /var/lib/kvbench/agent/scenarios/*/ | head -4'

step "kvctl run /usr/share/kvbench/examples (reduced): the demo alone, no daemon"
printf '# %s\n' "cd /srv/kvbench-test/demo && kvctl run small.json --out results"
in_root bash -c 'cd /srv/kvbench-test/demo && kvctl run small.json --out results' >"$work/run.out" 2>"$work/run.err" ||
  { cat "$work/run.out" "$work/run.err"; fail "kvctl run failed"; }
cat "$work/run.out"
for tier in GPU NVME; do
  grep -Eq "^ *2 +$tier +32/32 .* ok" "$work/run.out" || fail "no ok row for $tier in kvctl run"
done

# --- apt remove, with a scenario running: no kvbench process is left (prerm stops the agent,
# which stops the scenario's children; the unit's KillMode=mixed takes what would remain).
step "apt remove, a scenario running"
in_root kvctl submit /srv/kvbench-test/demo/small.json --controller 127.0.0.1:7070 --insecure >"$work/submit2.out" 2>&1 ||
  { cat "$work/submit2.out"; fail "kvctl submit failed"; }
replicas_up() { in_root pgrep -u kvbench -x kvsim-vllm >/dev/null; }
wait_until 60 replicas_up || fail "the second job's replicas did not start"
show 'ps -o user,pid,comm -u kvbench'
show 'apt-get remove -y -q kvbench-agent kvbench-controller kvbench-cli kvbench-sim 2>&1 | grep -E "^(Removing|[0-9]+ upgraded)"'
show 'systemctl is-active kv-agent kv-controller || true'
kvbench_processes() {
  in_root ps -eo user:12,pid,comm --no-headers |
    awk '$1 == "kvbench" || $3 ~ /^(kv-agent|kv-controller|kv-runner|kvctl|kvsim-vllm|kvsim-lm)/' || true
}
no_kvbench_process() { [ -z "$(kvbench_processes)" ]; }
wait_until 30 no_kvbench_process || fail "kvbench processes left after apt remove:
$(kvbench_processes)"
show 'ps -eo user,pid,comm'
echo "no kvbench process left"

step "apt purge"
show 'apt-get purge -y -q kvbench-agent kvbench-controller 2>&1 | grep -E "^(Purging|[0-9]+ upgraded)"'
show 'getent passwd kvbench || echo "no user kvbench"; ls -la /var/lib/kvbench /etc/kvbench 2>&1 || true'
! in_root getent passwd kvbench >/dev/null || fail "the user kvbench is left after purge"
! in_root test -e /var/lib/kvbench || fail "/var/lib/kvbench is left after purge"
! in_root test -e /etc/kvbench || fail "/etc/kvbench is left after purge"
echo
echo "PASS: installed, started, ran the demo, removed and purged on a fresh Debian 12"
