#!/usr/bin/env bash
# The Debian packages (cmake/KvPackaging.cmake) as deploy/package.sh makes them, from this build
# (cpack builds nothing; the tests' build is already up to date): the four packages, their
# dependencies, what each carries (programs, units naming /usr/bin, conffiles, copyright), their
# maintainer scripts, and lintian with no error or warning beyond the justified overrides.
# Installing them on a fresh Debian 12 is deploy/package-install-test.sh (by hand: it downloads).
source "$(dirname "$0")/lib.sh"
: "${KV_BUILD_DIR:?KV_BUILD_DIR must point at the build folder}"
command -v dpkg-deb >/dev/null && command -v lintian >/dev/null ||
  fail "dpkg-deb and lintian are needed (deploy/setup.sh installs them)"
(cd "$KV_BUILD_DIR" && cpack -G DEB --config CPackConfig.cmake -B "$WORK/debs") >"$WORK/cpack.log" 2>&1 ||
  { cat "$WORK/cpack.log" >&2; fail "cpack failed"; }
version="$(sed -n 's/^kvbench (\([^)]*\)).*/\1/p;q' "$KV_SOURCE/deploy/debian/changelog")"
arch="$(dpkg --print-architecture)"
deb() { echo "$WORK/debs/kvbench-$1_${version}_$arch.deb"; }
for package in agent controller cli sim; do
  [ -s "$(deb "$package")" ] || fail "no kvbench-$package package: $(ls "$WORK/debs")"
done
[ "$(ls "$WORK/debs"/*.deb | wc -l)" = 4 ] || fail "not 4 packages: $(ls "$WORK/debs")"

# field PACKAGE FIELD: the control field of kvbench-PACKAGE.
field() { dpkg-deb -f "$(deb "$1")" "$2"; }
# contents PACKAGE: kvbench-PACKAGE's paths, one a line ("./usr/bin/kvctl"), and its file modes.
contents() { dpkg-deb -c "$(deb "$1")" | awk '{ print $1, $6 }'; }
expect_path() {  # expect_path PACKAGE MODE PATH
  grep -qxF -e "$2 $3" <<<"$(contents "$1")" || fail "kvbench-$1 has no $3 ($2):
$(contents "$1")"
}

# --- Dependencies: the shared libraries' Debian packages, and what each program runs.
for package in agent controller cli sim; do
  depends="$(field "$package" Depends)"
  expect_contains "$depends" "libc6 (>= "
  expect_contains "$depends" "libstdc++6 (>= "
  expect_contains "$depends" "libabsl20220623"
  [ "$(field "$package" Version)" = "$version" ] || fail "kvbench-$package's version is not $version"
  [ "$(field "$package" Architecture)" = "$arch" ] || fail "kvbench-$package is not $arch"
  [ -n "$(field "$package" Maintainer)" ] || fail "kvbench-$package has no Maintainer"
done
for package in agent controller cli; do expect_contains "$(field "$package" Depends)" "libgrpc++1.51"; done
expect_contains "$(field agent Depends)" "adduser"
expect_contains "$(field agent Depends)" "kvbench-cli (= $version)"
expect_contains "$(field agent Recommends)" "caddy"
expect_contains "$(field controller Depends)" "adduser"
expect_contains "$(field controller Depends)" "libsqlite3-0"
expect_contains "$(field cli Recommends)" "kvbench-sim (= $version)"
expect_contains "$(field cli Recommends)" "caddy"
expect_contains "$(field sim Depends)" "libzmq5"

# --- What each carries: one owner per file.
expect_path agent -rwxr-xr-x ./usr/bin/kv-agent
expect_path agent -rw-r--r-- ./lib/systemd/system/kv-agent.service
expect_path agent -rw-r--r-- ./etc/kvbench/agent.json
expect_path controller -rwxr-xr-x ./usr/bin/kv-controller
expect_path controller -rw-r--r-- ./lib/systemd/system/kv-controller.service
expect_path controller -rw-r--r-- ./etc/kvbench/controller.json
expect_path cli -rwxr-xr-x ./usr/bin/kvctl
expect_path cli -rwxr-xr-x ./usr/bin/kv-runner
expect_path cli -rw-r--r-- ./usr/share/kvbench/profiles/sim-vllm.json
expect_path cli -rw-r--r-- ./usr/share/kvbench/datasets/tau2_airline_gpt-4.1_results.json
expect_path cli -rw-r--r-- ./usr/share/kvbench/examples/demo-sim.json
expect_path sim -rwxr-xr-x ./usr/bin/kvsim-vllm
expect_path sim -rwxr-xr-x ./usr/bin/kvsim-lmcache
for package in agent controller cli sim; do
  expect_path "$package" -rw-r--r-- "./usr/share/doc/kvbench-$package/copyright"
  expect_path "$package" -rw-r--r-- "./usr/share/doc/kvbench-$package/changelog.Debian.gz"
  expect_path "$package" -rw-r--r-- "./usr/share/lintian/overrides/kvbench-$package"
done
all="$(for package in agent controller cli sim; do contents "$package"; done | awk '$1 !~ /^d/ { print $2 }' | sort)"
[ -z "$(uniq -d <<<"$all")" ] || fail "files in two packages: $(uniq -d <<<"$all")"
# Stripped programs (cpack installs with --strip): no symbol table.
mkdir -p "$WORK/unpacked"
for package in agent controller cli sim; do dpkg-deb -x "$(deb "$package")" "$WORK/unpacked"; done
for program in kv-agent kv-controller kvctl kv-runner kvsim-vllm kvsim-lmcache; do
  readelf -S "$WORK/unpacked/usr/bin/$program" >"$WORK/sections"
  ! grep -q '\.symtab' "$WORK/sections" || fail "$program is not stripped"
done

# --- The units name /usr/bin and the packaged configs; systemd accepts them.
for unit in kv-agent kv-controller; do
  package="${unit#kv-}"
  file="$WORK/unpacked/lib/systemd/system/$unit.service"
  grep -qx "ExecStart=/usr/bin/$unit --config /etc/kvbench/$package.json" "$file" ||
    fail "$unit.service does not start /usr/bin/$unit with /etc/kvbench/$package.json: $(grep -n Exec "$file")"
  grep -qx 'User=kvbench' "$file" || fail "$unit.service does not run as kvbench"
  # The packaged config is valid as the unit's ExecStartPre checks it (with /usr/share/kvbench,
  # which must exist, read from the unpacked packages), its folders under /var/lib/kvbench (the
  # units' StateDirectory).
  config="$WORK/unpacked/etc/kvbench/$package.json"
  expect_contains "$(cat "$config")" '"/var/lib/kvbench/'
  sed "s|\"/usr/share/kvbench/|\"$WORK/unpacked/usr/share/kvbench/|" "$config" >"$WORK/$package.json"
  out="$("$KV_BIN/$unit" --config "$WORK/$package.json" --validate_config 2>&1)" ||
    fail "$unit --validate_config refuses the packaged $package.json: $out"
done
expect_contains "$(cat "$WORK/unpacked/etc/kvbench/agent.json")" '"/usr/share/kvbench/profiles"'
for package in agent controller; do
  mkdir -p "$WORK/$package.control"
  dpkg-deb -e "$(deb "$package")" "$WORK/$package.control"
  control="$WORK/$package.control"
  [ "$(cat "$control/conffiles")" = "/etc/kvbench/$package.json" ] ||
    fail "kvbench-$package's conffiles: $(cat "$control/conffiles")"
  for script in postinst prerm postrm; do
    [ -x "$control/$script" ] || fail "kvbench-$package has no executable $script"
    sh -n "$control/$script" || fail "kvbench-$package's $script is not valid sh"
  done
  expect_contains "$(cat "$control/postinst")" "adduser --system"
  expect_contains "$(cat "$control/postinst")" "deb-systemd-helper enable 'kv-$package.service'"
  expect_contains "$(cat "$control/postinst")" "deb-systemd-invoke \"\$action\" 'kv-$package.service'"
  expect_contains "$(cat "$control/prerm")" "deb-systemd-invoke stop 'kv-$package.service'"
  expect_contains "$(cat "$control/postrm")" "deluser --system --quiet kvbench"
done

# --- lintian: no error, no warning, beyond the overrides (deploy/debian/*.lintian-overrides).
lintian --fail-on error,warning "$WORK/debs"/*.deb >"$WORK/lintian.log" 2>&1 ||
  { cat "$WORK/lintian.log" >&2; fail "lintian: errors or warnings"; }
echo "PASS"
