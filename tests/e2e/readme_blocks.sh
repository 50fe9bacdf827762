#!/usr/bin/env bash
# The README's commands do what it says, run in order as a reader runs them:
# every ```sh block of README.md and of the docs/ pages it leads to (PAGES below, in reading
# order), top to bottom, in one bash (its exports, background jobs and their pids carry from line
# to line and from page to page as in a terminal), from a copy of the repository's root on
# loopback, with the build's programs. A block fails the test when a command in it fails (unless
# listed below as refused on purpose, or a run that exits 8 with host_saturated, as lib.sh's
# exit_ok allows) or when a line of output the page shows (after "$ " prompts; "..." stands for
# anything) is not printed; a few blocks get checks of what their prose promises (promised
# below). Failures name the block's file, line and section, and the failing command's line.
#
# What differs from a reader's machine, and only that: the fixed ports of the examples
# (FIXED_PORTS) are free ports picked here, and /tmp/ and /mnt/nvme/ are folders
# of this test, in the commands and in the copied deploy/examples configs alike.
#
# Blocks that start a daemon in the foreground (the page shows it alone; a reader stops it with
# Ctrl-C) are started in the background, checked to be serving, and stopped with SIGTERM.
# The pages whose blocks run, in this order; a docs/ page with a ```sh block that is not listed
# fails the test (add it where a reader would come to it).
PAGES=(README.md docs/kvctl.md docs/kv-agent.md docs/kv-controller.md docs/nightly-runs.md
  docs/regressions.md docs/kv-runner.md docs/kvsim-vllm.md docs/kvsim-lmcache.md)
# Each block is named "SECTION|FIRST LINE": the heading above it and its first line.
# Blocks skipped, each with why and what covers it instead (an entry that matches no block fails):
SKIPPED=(
  "Quick start|deploy/quickstart.sh   # installs what is missing, builds, runs the demo job|builds for ~8 minutes, then the 5-minute demo; deploy/test.sh is this test suite. The demo's search is e2e.capacity_search's, the demo spec runs from the installed tree in e2e.installed_tree, the quick start's description and headline are checked by e2e.readme_claims"
  "On a history of runs|build/bin/kvctl diff kvbench-results/demo-sim-A kvbench-results/demo-sim-D \\|the run folders and job ids stand for a history of runs (four demo runs and a schedule's fires, minutes); e2e.regression_alerts runs each of these commands (diff --baseline-also, baseline set, status, alerts, alerts redeliver, history) on such a history"
)
# Foreground daemons: SECTION|FIRST LINE|the log line that says it serves.
DAEMONS=(
  "Config|build/bin/kv-agent --config deploy/examples/agent-local.json|metrics url="
  "kvsim-vllm|build/bin/kvsim-vllm serve meta-llama/Llama-3.1-8B-Instruct --host 127.0.0.1 --port 8000 \\|Starting vLLM API server on "
  "kvsim-lmcache|build/bin/kvsim-lmcache server --host 127.0.0.1 --port 5555 --http-port 8080 \\|LMCache cache server is running"
)
# Commands that exit non-zero on purpose (the page shows the refusal): COMMAND TEXT|EXIT CODE.
REFUSED=(
  "build/bin/kvctl plan /tmp/r20.json|2"
)
# Seconds a block may take (default 60): those that run the demo sweep (~50 s on 2 cores).
SLOW=(
  "Talking to a controller|build/bin/kv-controller --config deploy/examples/controller-local.json & controller=\$!|300"
  "Plan and run a job here|\$ build/bin/kvctl run deploy/examples/demo-sim.json|300"
  "From scratch on loopback|build/bin/kv-controller --config deploy/examples/controller-local.json &|240"
  "Replicated: three controllers on PostgreSQL|PGBIN=\"\$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)\"|240"
)
source "$(dirname "$0")/lib.sh"
for page in "$KV_SOURCE"/docs/*.md; do
  grep -qx '```sh' "$page" || continue
  case " ${PAGES[*]} " in *" docs/$(basename "$page") "*) ;;
    *) fail "docs/$(basename "$page") has \`\`\`sh blocks but is not in PAGES (add it in reading order)" ;;
  esac
done

# --- The blocks: BLOCKS/N.{cmd,expected,meta}. cmd keeps the page's line numbers (an output
# line becomes an empty one, a prompt loses its "$ "); meta is
# "FILE<TAB>LINE<TAB>SECTION<TAB>FIRST LINE".
mkdir -p "$WORK/blocks" "$WORK/repo" "$WORK/tmp" "$WORK/mnt" "$WORK/home"
python3 - "$KV_SOURCE" "$WORK/blocks" "${PAGES[@]}" <<'PY'
import pathlib, sys
root, out, pages = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
n = 0
for page in pages:
    lines = (root / page).read_text().split("\n")
    section, i, fenced = "", 0, False
    while i < len(lines):
        line = lines[i]
        if line.startswith("```") and line.strip() != "```sh":
            fenced = not fenced
        elif line.startswith("#") and not fenced:
            section = line.lstrip("#").strip()
        if line.strip() != "```sh":
            i += 1
            continue
        start = i + 1
        end = lines.index("```", start)
        body = lines[start:end]
        prompted = any(l.startswith("$ ") for l in body)
        cmd, expected, continued = [], [], False
        for l in body:
            if not prompted or continued:
                cmd.append(l)
            elif l.startswith("$ "):
                cmd.append(l[2:])
            else:
                cmd.append("")
                expected.append(l)
            continued = prompted and (l.startswith("$ ") or continued) and l.endswith("\\")
        n += 1
        first = next(l for l in body if l.strip())
        (out / f"{n}.cmd").write_text("\n".join(cmd) + "\n")
        (out / f"{n}.expected").write_text("".join(e + "\n" for e in expected))
        (out / f"{n}.meta").write_text(f"{page}\t{start + 1}\t{section}\t{first}\n")
        i = end + 1
PY
count="$(find "$WORK/blocks" -name '*.meta' | wc -l)"
[ "$count" -gt 5 ] || fail "found only $count \`\`\`sh blocks in ${PAGES[*]}"

# --- Free ports for the examples' fixed ones, and a copy of the repository's root.
FIXED_PORTS=(7070 7071 7072 7073 9464 9465 8000 5555 8080)
read -r -a free_ports < <(python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])' "${#FIXED_PORTS[@]}")
machine=(-e "s|/tmp/|$WORK/tmp/|g" -e "s|/mnt/nvme/|$WORK/mnt/nvme/|g")
for i in "${!FIXED_PORTS[@]}"; do machine+=(-e "s/\b${FIXED_PORTS[$i]}\b/${free_ports[$i]}/g"); done
# A reader's /tmp is world-traversable: so is this test's, for the PostgreSQL server user of
# "Replicated: three controllers on PostgreSQL" (the server refuses to run as root).
chmod o+x "$WORK" "$WORK/tmp"
repo="$WORK/repo"
mkdir -p "$repo/build" "$repo/deploy/examples" "$repo/tests"
ln -s "$KV_BIN" "$repo/build/bin"
ln -s "$KV_SOURCE/deploy/profiles" "$repo/deploy/profiles"
ln -s "$KV_SOURCE/deploy/examples/datasets" "$repo/deploy/examples/datasets"
ln -s "$KV_SOURCE/tests/data" "$repo/tests/data"
for file in "$KV_SOURCE"/deploy/examples/*.json "$KV_SOURCE"/deploy/examples/*.sh; do
  sed "${machine[@]}" "$file" >"$repo/deploy/examples/$(basename "$file")"
  chmod --reference="$file" "$repo/deploy/examples/$(basename "$file")"
done

# --- What runs inside the reader's shell (written into it with declare -f).

# key N: "SECTION|FIRST LINE" of block N, as the tables above name it.
key() { IFS=$'\t' read -r _ _ section first <"$BLOCKS/$1.meta"; printf '%s|%s' "$section" "$first"; }
# where N: how a failure names block N.
where() { IFS=$'\t' read -r file line section _ <"$BLOCKS/$1.meta"; printf '%s:%s (section "%s")' "$file" "$line" "$section"; }
# lookup TABLE_NAME KEY: the last field of the table's entry for KEY.
lookup() {
  local -n table=$1
  local entry
  for entry in "${table[@]}"; do
    [ "${entry%|*}" = "$2" ] && { printf '%s' "${entry##*|}"; return 0; }
  done
  return 1
}
harness_fail() {  # N MESSAGE
  trap - ERR
  printf 'FAIL: the block at %s: %s\n--- its output (%s):\n' "$(where "$1")" "$2" "$WORK/out.$1" \
    >"$WORK/failure"
  tail -n 40 "$WORK/out.$1" >>"$WORK/failure" 2>/dev/null
  exit 1
}
block_begin() {  # N OFFSET (the page's line = script line + OFFSET)
  local budget
  budget="$(lookup SLOW "$(key "$1")")" || budget=60
  printf '%s %s %s\n' "$1" "$(date +%s)" "$budget" >"$WORK/current"
  BLOCK=$1 OFFSET=$2
  : >"$WORK/errors.$1"
  exec >"$WORK/out.$1" 2>&1
  trap 'printf "%s\t%s\t%s\n" "$?" "$((LINENO + OFFSET))" "$BASH_COMMAND" >>"$WORK/errors.$BLOCK"' ERR
}
# expected_failure RC COMMAND: the page shows this refusal, or a run whose host was saturated.
expected_failure() {
  local entry
  for entry in "${REFUSED[@]}"; do
    [[ "$2" == *"${entry%|*}"* && "$1" = "${entry##*|}" ]] && return 0
  done
  case "$2" in
    *"kvctl run "* | *"kvctl submit "*"--watch"* | *"kvctl watch "*)
      exit_ok "$1" "$(cat "$WORK/out.$BLOCK")" && return 0 ;;
  esac
  return 1
}
block_end() {  # N
  trap - ERR
  exec >&3 2>&4
  local rc line command problems=""
  while IFS=$'\t' read -r rc line command; do
    expected_failure "$rc" "$command" 2>>"$WORK/session.notes" && continue
    problems+="line $line exited $rc: $command"$'\n'
  done <"$WORK/errors.$1"
  [ -z "$problems" ] || harness_fail "$1" "$problems"
  local expected="$BLOCKS/$1.expected" shown
  if [ -s "$expected" ]; then
    case "$(key "$1")" in
      "Plan and run a job here|\$ build/bin/kvctl run deploy/examples/demo-sim.json") shown=run ;;
      *) shown=lines ;;
    esac
    python3 "$WORK/shown.py" "$shown" "$expected" "$WORK/out.$1" >"$WORK/mismatch" ||
      harness_fail "$1" "$(cat "$WORK/mismatch")"
  fi
  promised "$1" || harness_fail "$1" "$(cat "$WORK/mismatch")"
  echo "ok $(where "$1"): $(($(date +%s) - $(cut -d' ' -f2 "$WORK/current"))) s"
}
# promised N: what a block's prose says it leaves behind, beyond exit codes and shown lines.
promised() {
  local csv
  case "$(key "$1")" in
    "Talking to a controller|build/bin/kv-controller --config deploy/examples/controller-local.json & controller=\$!")
      [ "$(head -c 12 results.csv)" = scenario_id, ] &&
        [ "$(cut -d, -f1,6 results.csv | grep -c -- '-c[0-9]*,succeeded$')" = 6 ] ||
        { echo "results.csv is not the demo's 6 scenarios, succeeded: $(cut -d, -f1-6 results.csv)" \
          >"$WORK/mismatch"; return 1; } ;;
    "A run's files|\$ build/bin/kvctl report kvbench-results --html report.html    # the newest job in the folder")
      grep -q '<html' report.html || { echo "report.html is not a page" >"$WORK/mismatch"; return 1; } ;;
    "A secure pair|deploy/examples/make-test-ca.sh /tmp/kvbench-secure kvbench-example-token")
      grep -Eq '^local-agent .* connected ' "$WORK/out.$1" ||
        { echo "kvctl agents did not list local-agent connected" >"$WORK/mismatch"; return 1; } ;;
    "From scratch on loopback|build/bin/kv-controller --config deploy/examples/controller-local.json &")
      [ "$(head -c 11 requests.csv)" = scenario_id ] && [ "$(wc -l <requests.csv)" -gt 10 ] ||
        { echo "requests.csv holds no request rows" >"$WORK/mismatch"; return 1; }
      grep -q '<svg' history.html || { echo "history.html has no chart" >"$WORK/mismatch"; return 1; } ;;
    "Against a kvsim-vllm|build/bin/kvsim-vllm serve meta-llama/Llama-3.1-8B-Instruct --host 127.0.0.1 --port 8000 \\")
      [ "$(jq -s '[.[] | select(.http_status == 200)] | length' requests.jsonl)" = 40 ] ||
        { echo "requests.jsonl does not hold 8 users x 5 rounds answered 200" >"$WORK/mismatch"; return 1; }
      jq -e '.sessions_complete == 8' summary.json >/dev/null ||
        { echo "summary.json: $(jq -c 'del(.planned_users)' summary.json)" >"$WORK/mismatch"; return 1; } ;;
  esac
  return 0
}
# daemon_block N READY: the block's one command in the background until READY is in its log,
# then SIGTERM (a reader's Ctrl-C): it must have served and must exit 0. In a subshell, so that
# the reader's shell keeps no job of it (a reader's `kill %1` later means the next block's job).
daemon_block() {
  (
    printf '%s %s 60\n' "$1" "$(date +%s)" >"$WORK/current"
    command="$(sed '/^#/d' "$BLOCKS/$1.cmd")"
    deadline=$((SECONDS + 30))
    eval "exec $command" >"$WORK/out.$1" 2>&1 &
    pid=$!
    until grep -qsF -- "$2" "$WORK/out.$1"; do
      kill -0 "$pid" 2>/dev/null || { wait "$pid"; harness_fail "$1" "it exited ($?) before serving"; }
      [ "$SECONDS" -lt "$deadline" ] || harness_fail "$1" "no \"$2\" in 30 s"
      sleep 0.05
    done
    kill -TERM "$pid"
    wait "$pid" || harness_fail "$1" "it exited $? on SIGTERM"
    echo "ok $(where "$1"): served, stopped"
  ) || exit 1
}

# shown.py MODE EXPECTED ACTUAL: the page's shown lines are printed, in order.
#   lines: each line, spaces squeezed, is a line of the output; "..." in it stands for anything
#          and a line of "..." alone for any lines.
#   run:   `kvctl run`'s figures move from run to run (its sessions' timing, least_conn's ties),
#          so each kind of line is checked for what does not: the job line but its id; a progress
#          line's scenario and phase; the table header's columns in order; a row's concurrency,
#          tier and sessions; a verdict line (invalid with host_saturated also passes, as
#          lib.sh's expect_verdict); a reason or note by its name; the rest as lines.
cat >"$WORK/shown.py" <<'PY'
import re, sys
mode, expected, actual = sys.argv[1], open(sys.argv[2]).read().splitlines(), open(sys.argv[3]).read().splitlines()
squeeze = lambda s: re.sub(r" +", " ", s.strip())
out = [squeeze(l) for l in actual]
def glob(line):
    return re.compile("^" + ".*".join(re.escape(p) for p in squeeze(line).split("...")) + "$")
def run_pattern(line):
    s = squeeze(line)
    if re.match(r"^job demo-sim-\S+: ", s):
        return re.compile("^job demo-sim-[0-9T]+-[0-9a-f]+: " + re.escape(s.split(": ", 1)[1]) + "$")
    m = re.match(r"^(\d\d-[a-z-]+-c\d+) (\w+)", s)
    if m:
        return re.compile("^" + re.escape(m.group(1)) + " " + re.escape(m.group(2)) + r"\b")
    if s.startswith("CONCURRENCY "):
        return re.compile("^" + " ".join(re.escape(c) for c in s.split()) .replace(" ", "( .*)? ") + "$")
    m = re.match(r"^(\d+) (GPU|CPU_RAM|NVME) (\d+/\d+) ", s)
    if m:
        return re.compile("^" + re.escape(" ".join(m.groups())) + " ")
    m = re.match(r"^comparison (c\d+): (\w+)$", s)
    if m:
        return re.compile("^comparison " + m.group(1) + ": (" + m.group(2) + "|invalid)$")
    m = re.match(r"^((note )?[a-z_]+): ", s)
    if m and line.startswith("  "):
        return re.compile("^" + re.escape(m.group(1)) + ": ")
    return glob(line)
at = 0
for line in expected:
    if squeeze(line) == "...":
        continue
    pattern = run_pattern(line) if mode == "run" else glob(line)
    found = next((i for i in range(at, len(out)) if pattern.match(out[i])), None)
    if found is None:
        print(f"the page shows this line, not printed (after output line {at}):\n  {line}")
        sys.exit(1)
    at = found + 1
PY

# --- The reader's shell: every block in order, each between block_begin and block_end.
mapfile -t REFUSED < <(printf '%s\n' "${REFUSED[@]}" | sed "${machine[@]}")
session="$WORK/session.sh"
{
  echo "exec 3>&1 4>&2"
  declare -p SKIPPED DAEMONS REFUSED SLOW
  declare -f fail exit_ok key where lookup harness_fail block_begin expected_failure block_end \
    promised daemon_block
  echo "BLOCKS='$WORK/blocks' WORK='$WORK'"
  echo "cd '$repo'"
} >"$session"
used_skips=()
for ((n = 1; n <= count; n++)); do
  IFS=$'\t' read -r file line _ _ <"$WORK/blocks/$n.meta"
  block_key="$(BLOCKS="$WORK/blocks" key "$n")"
  if reason="$(lookup SKIPPED "$block_key")"; then
    used_skips+=("$block_key")
    printf 'echo %q\n' "skipped $file:$line: $reason" >>"$session"
    continue
  fi
  if ready="$(lookup DAEMONS "$block_key")"; then
    sed -i "${machine[@]}" "$WORK/blocks/$n.cmd"
    printf 'daemon_block %s %q\n' "$n" "$ready" >>"$session"
    continue
  fi
  start=$(($(wc -l <"$session") + 2))
  echo "block_begin $n $((line - start))" >>"$session"
  sed "${machine[@]}" "$WORK/blocks/$n.cmd" >>"$session"
  echo "block_end $n" >>"$session"
done
for entry in "${SKIPPED[@]}"; do
  case " ${used_skips[*]} " in *" ${entry%|*} "*) ;;
    *) fail "SKIPPED names no block of ${PAGES[*]} (edit the list): ${entry%|*}" ;;
  esac
done

# Its own process group, so that everything it started goes with it; a clean environment.
stop_session() {  # the group: the shell, and what its blocks left running (Nightly runs' pair)
  [ -n "${session_group:-}" ] || return 0
  kill -TERM -- "-$session_group" 2>/dev/null || true
  wait_until 30 eval '! kill -0 -- "-$session_group" 2>/dev/null' ||
    kill -KILL -- "-$session_group" 2>/dev/null || true
}
trap 'stop_session; cleanup' EXIT
setsid env -u KV_CONTROLLER -u KV_INSECURE -u KV_TOKEN -u KV_CA_CERT -u KV_DATASET_MIRROR \
  -u KV_DATASET_CACHE -u XDG_CACHE_HOME HOME="$WORK/home" \
  bash --norc --noprofile "$session" >"$WORK/session.log" 2>&1 &
session_pid=$!
session_group=$session_pid  # setsid of a background command (no job control) does not fork
# Done, or the block running now is past its time.
over() {
  kill -0 "$session_pid" 2>/dev/null || return 0
  local block started budget
  read -r block started budget <"$WORK/current" 2>/dev/null || return 1
  [ "$(($(date +%s) - started))" -le "$budget" ] && return 1
  late="$block"
}
late=""
wait_until 540 over || late="$(cut -d' ' -f1 "$WORK/current")"
cat "$WORK/session.log"
if [ -n "$late" ]; then
  tail -n 40 "$WORK/out.$late" >&2
  fail "the block at $(BLOCKS="$WORK/blocks" where "$late") did not end within its time (the SLOW list)"
fi
wait "$session_pid" && rc=0 || rc=$?
[ -s "$WORK/failure" ] && { cat "$WORK/failure" >&2; exit 1; }
[ "$rc" = 0 ] || fail "the reader's shell exited $rc: $(tail -n 5 "$WORK/session.log")"
[ -s "$WORK/session.notes" ] && cat "$WORK/session.notes"
echo "PASS ($count blocks: $(grep -c '^ok ' "$WORK/session.log") run, ${#used_skips[@]} skipped)"
