#!/usr/bin/env bash
# Hostile input against the real binaries. Every case ends with the documented exit
# code (2: bad input) and a message naming what is wrong, within a bound: no crash (before, 1e999
# and a token with a CR aborted with rc 134), no hang (a FIFO as a dataset blocked forever), no
# unbounded read (/dev/zero reached 16.8 GB), no flag injected through the spec.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
demo="$KV_SOURCE/deploy/examples/demo-sim.json"
export KV_CONTROLLER=127.0.0.1:1  # submit validates before it dials: nothing listens there

# expect_refused WANT_RC PATTERN CMD...: CMD exits WANT_RC within 20 s, its stderr holding PATTERN
# (a fixed string).
expect_refused() {
  local want="$1" pattern="$2"
  shift 2
  local code=0
  timeout 20 "$@" > "$WORK/out.txt" 2> "$WORK/err.txt" || code=$?
  [ "$code" = "$want" ] ||
    fail "$* exited $code, want $want: $(head -c 600 "$WORK/err.txt")"
  grep -qF -- "$pattern" "$WORK/err.txt" ||
    fail "$*: stderr lacks \"$pattern\": $(head -c 600 "$WORK/err.txt")"
}

# spec NAME JQ_FILTER: the demo spec changed by JQ_FILTER, as $WORK/NAME.json.
spec() { jq "$2" "$demo" > "$WORK/$1.json"; }
# raw NAME TEXT: a spec file with TEXT put in as it is (numbers jq cannot write).
raw() { sed "s/\"sessions\": 32/$2/" "$demo" > "$WORK/$1.json"; }

# --- numbers beyond a double, in every reader of a spec
raw overflow '"sessions": 1e999'
for command in plan run submit; do
  expect_refused 2 "sessions: 1e999 is out of range" "$kvctl" "$command" "$WORK/overflow.json"
done
raw overflow_neg '"sessions": 32, "cpu_pool_gb": -1e400'
expect_refused 2 "cpu_pool_gb: -1e400 is out of range" "$kvctl" plan "$WORK/overflow_neg.json"

# --- duplicate keys, lenient enum spellings, a huge list of problems
raw duplicate '"sessions": 32, "sessions": 8'
expect_refused 2 "sessions: duplicate key" "$kvctl" plan "$WORK/duplicate.json"
spec gpu '.tiers = ["gpu", "CPU_RAM"]'
expect_refused 2 'tiers[0]: "gpu" is not one of GPU, CPU_RAM, NVME' "$kvctl" plan "$WORK/gpu.json"
spec numeric '.tiers = [1]'
expect_refused 2 "tiers[0]: 1 is not one of GPU, CPU_RAM, NVME" "$kvctl" plan "$WORK/numeric.json"
python3 - "$demo" "$WORK/many.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["concurrency"] = ["x"] * 51819
json.dump(spec, open(sys.argv[2], "w"))
PY
expect_refused 2 "... and 51799 more" "$kvctl" plan "$WORK/many.json"
[ "$(wc -l < "$WORK/err.txt")" -lt 40 ] || fail "51,819 problems printed $(wc -l < "$WORK/err.txt") lines"

# --- flags through the model, and a model that names a file
spec flag '.model = "--help"'
expect_refused 2 "may not start with '-'" "$kvctl" plan "$WORK/flag.json"
spec trust '.model = "org/--trust-remote-code"'
expect_refused 2 "model: \"org/--trust-remote-code\" is neither a model id" "$kvctl" run "$WORK/trust.json"
spec shell '.model = "../../../../bin/sh"'
expect_refused 2 "is neither a model id" "$kvctl" submit "$WORK/shell.json"
# An absolute path is a checkpoint, run only under a model root: the scenario fails, naming it.
spec path '.model = "/bin/sh" | .tiers = ["GPU"] | .concurrency = [2] | .sessions = 2'
expect_refused 5 "model /bin/sh is a path, and this agent takes model ids only" \
  "$kvctl" run "$WORK/path.json" --out "$WORK/path"

# --- a sampling period that spun an agent core
spec spin '.sampling.period_s = 1e-9'
expect_refused 2 "sampling.period_s: 1e-09 is out of range: must be between 0.1 and 3600 s" \
  "$kvctl" plan "$WORK/spin.json"

# --- tokens gRPC would abort on, and one too long for its metadata
for token in $'tok\r' $'tok\nX-Injected: 1' $'t\xc3\xa9' ; do
  KV_TOKEN="$token" expect_refused 2 'the token ($KV_TOKEN) has a' "$kvctl" jobs
done
expect_refused 2 "the token (--token) is 102400 bytes; at most 4096" \
  "$kvctl" jobs --token "$(head -c 102400 /dev/zero | tr '\0' a)"

# --- daemon configs: numbers, folders of the system
cat > "$WORK/agent-overflow.json" <<'JSON'
{"work_dir": "/var/lib/kvbench-test", "profiles_dir": "/p", "heartbeat_interval_s": 1e999}
JSON
expect_refused 2 "heartbeat_interval_s: 1e999 is out of range" \
  "$KV_BIN/kv-agent" --config "$WORK/agent-overflow.json" --validate_config
cat > "$WORK/agent-root.json" <<'JSON'
{"work_dir": "/", "profiles_dir": "/p", "model_roots": ["/"]}
JSON
expect_refused 2 'work_dir: "/" is a system folder' \
  "$KV_BIN/kv-agent" --config "$WORK/agent-root.json" --validate_config
grep -qF 'model_roots[0]: "/" would let a job load any file' "$WORK/err.txt" ||
  fail "model_roots / accepted: $(cat "$WORK/err.txt")"
# Symlinks are followed: a work_dir linking to /tmp (or /) passed the lexical check, and the agent
# then made /tmp mode 0700.
ln -s /tmp "$WORK/link-to-tmp"
ln -s / "$WORK/link-to-root"
for link in link-to-tmp link-to-root; do
  cat > "$WORK/agent-$link.json" <<JSON
{"work_dir": "$WORK/$link", "profiles_dir": "/p"}
JSON
  expect_refused 2 "work_dir: \"$WORK/$link\" resolves to \"/" \
    "$KV_BIN/kv-agent" --config "$WORK/agent-$link.json" --validate_config
  grep -qF '", a system folder' "$WORK/err.txt" || fail "$link: $(cat "$WORK/err.txt")"
  # and at start, before anything is made or chmod-ed there
  expect_refused 2 "work_dir: \"$WORK/$link\" resolves to" \
    "$KV_BIN/kv-agent" --config "$WORK/agent-$link.json"
done
[ "$(stat -c %a /tmp)" = 1777 ] || fail "/tmp's mode changed to $(stat -c %a /tmp)"
cat > "$WORK/controller-etc.json" <<'JSON'
{"listen_address": "127.0.0.1:0", "data_dir": "/etc", "insecure": true}
JSON
expect_refused 2 'data_dir: "/etc" is a system folder' \
  "$KV_BIN/kv-controller" --config "$WORK/controller-etc.json" --validate_config
cat > "$WORK/controller-overflow.json" <<'JSON'
{"listen_address": "127.0.0.1:0", "data_dir": "/var/lib/kv-test", "insecure": true,
 "max_scenario_attempts": 1e999}
JSON
# A document kvbench cannot read is reported alone (its fields were never read).
expect_refused 2 "max_scenario_attempts: 1e999 is out of range" \
  "$KV_BIN/kv-controller" --config "$WORK/controller-overflow.json" --validate_config
grep -qF "controller-overflow.json: 1 problem" "$WORK/err.txt" ||
  fail "more than the overflow reported: $(cat "$WORK/err.txt")"

# --- dataset files that are not files, and counts below one
runner="$KV_BIN/kv-runner"
expect_refused 2 "/dev/zero is not a regular file (a character device)" \
  "$runner" inspect --dataset tau2-bench-v1 --dataset-path /dev/zero
mkfifo "$WORK/fifo"
expect_refused 2 "is not a regular file (a FIFO)" \
  "$runner" inspect --dataset tau2-bench-v1 --dataset-path "$WORK/fifo"
# A schedule's time zone is an IANA name, never a path: a FIFO named as the zone hung kvctl's local
# check (and, sent past it, the controller's event loop) in the open of the "zone file".
expect_refused 2 "time_zone: \"$WORK/fifo\" is not an IANA time zone name" \
  "$kvctl" schedule create hostile --spec "$demo" --cron "0 2 * * *" --time-zone "$WORK/fifo"
expect_refused 2 "is not an IANA time zone name" \
  "$kvctl" schedule create hostile --spec "$demo" --cron "0 2 * * *" --time-zone "../../$WORK/fifo"
mkdir "$WORK/folder"
expect_refused 2 "folder is a directory" \
  "$runner" inspect --dataset tau2-bench-v1 --dataset-path "$WORK/folder"
for rounds in 0 -5; do
  expect_refused 2 "--min-chunk-rounds" "$runner" inspect --dataset tau2-bench-v1 \
    --dataset-path "$WORK/folder" --min-chunk-rounds "$rounds"
done

# --- result files kvctl reads back
ok_dir="$WORK/ok"
spec small '.tiers = ["GPU"] | .concurrency = [2] | .sessions = 2'
"$kvctl" run "$WORK/small.json" --out "$ok_dir" > /dev/null 2>&1 || fail "the small run failed"
job_dir="$(ls -d "$ok_dir"/demo-sim-*)"
sed -i 's/"concurrency": *2/"concurrency": 1e999/' "$job_dir/job.json"
for command in results compare; do
  expect_refused 2 "1e999 is out of range" "$kvctl" "$command" "$job_dir"
done
expect_refused 2 "1e999 is out of range" "$kvctl" report "$job_dir" --html "$WORK/report.html"
[ ! -e "$WORK/report.html" ] || fail "a report was written from an unreadable job"
echo "PASS"
