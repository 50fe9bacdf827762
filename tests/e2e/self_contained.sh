#!/usr/bin/env bash
# The repository is self-contained (DESIGN.md "Layout"): no file of the project names a folder
# beside the clone or a path of one machine, so a user with only the repository can build, test
# and run the demo. Checks every file of the source tree but the build folders and the shipped
# data (tests/data, deploy/examples/datasets: third-party files kept byte for byte).
source "$(dirname "$0")/lib.sh"
cd "$KV_SOURCE"
if [ -d .git ] && command -v git >/dev/null; then
  files="$(git ls-files --cached --others --exclude-standard)"
else
  files="$(find . -type f -not -path './build*' -not -path './.git/*' | sed 's|^\./||')"
fi
files="$(echo "$files" | grep -vE '^(tests/data|deploy/examples/datasets)/' | grep -vx 'tests/e2e/self_contained.sh')"
[ "$(echo "$files" | wc -l)" -gt 100 ] || fail "found only $(echo "$files" | wc -l) files under $KV_SOURCE"
# A folder beside the checkout, a workplace's shared folder, a home directory.
# (Assembled from parts, so this line does not name what it forbids.)
up='\.\.'; shared='shar''ed'; work='wo''rk'; home='ho''me'; root='ro''ot'; users='Use''rs'
pattern="$up/$shared|/$work/|KV_SHARED|/$home/[a-z]|/$root/|/$users/"
hits="$(echo "$files" | tr '\n' '\0' | xargs -0 grep -nIE "$pattern" -- 2>/dev/null || true)"
[ -z "$hits" ] || fail "paths outside the repository:
$hits"
# Every data folder says where its files come from and under which license.
for folder in deploy/examples/datasets tests/data tests/data/datasets/lmcache-agent-trace \
  tests/data/parquet-testing; do
  grep -qiE '^(README|LICENSE)' <<<"$(ls "$folder")" || fail "$folder has no README or LICENSE"
done
grep -q "LICENSE-tau2-bench.txt" deploy/examples/datasets/README.md || fail "tau2 license not named"
[ -s deploy/examples/datasets/LICENSE-tau2-bench.txt ] || fail "no tau2 license"
[ -s tests/data/parquet-testing/LICENSE.txt ] || fail "no parquet-testing license"
size_kb="$(du -sk tests/data deploy/examples/datasets | awk '{ s += $1 } END { print s }')"
[ "$size_kb" -lt 10240 ] || fail "shipped data is ${size_kb} KB, over 10 MB"
echo "PASS"
