#!/usr/bin/env bash
# kv-runner's replay client against the HTTP ceiling: a Caddy null target (a static SSE body of
# 20 events, 16 content tokens, answered at once) driven in turn by kv-runner, by `wrk` (the
# ceiling: it reads bytes and parses no stream) and by a Python aiohttp streaming client
# (aiohttp_sse_client.py, the usual Python benchmark client), at each --users level, --runs times
# each, interleaved in short slices so that a neighbour's load hits all three alike. wrk and
# aiohttp POST a body of the replay's mean size. Prints one row per run, then per level the
# min/median requests/s and kv-runner's min/median share of wrk's rate and multiple of aiohttp's
# (a run's ratios pair kv-runner with the wrk and aiohttp slices between its own).
#
#   tests/bench/runner_http_ceiling.sh [--users N]... [--runs N] [--nice N] [--shared-cores]
#                                      [--runner BIN] [-- RUNNER_ARGS]
#
# The target runs on CPU 1 (GOMAXPROCS=1) and each client on CPU 0, as a benchmark client runs
# beside the server it measures, not on its cores: a client then reaches wrk's rate when it keeps
# up with the target, and falls short by what it cannot keep up with. On 2 cores shared by both
# (--shared-cores, the old layout) every µs of client CPU is taken from the target, so the share
# of wrk measures the difference in CPU per request (kv-runner ~35 µs, wrk ~22 µs) and moves with
# whatever else the host schedules; report those figures beside the pinned ones.
#
# --nice runs the target and the three clients at that niceness: on a machine others keep busy
# (compilers), a negative one gives them the cores first, as on a quiet machine.
# kv-runner's rate is its records' completed requests ÷ (last end − first scheduled send); wrk's
# and aiohttp's their own count over their own run time.
# Not a test: run by hand on a quiet machine after building kv-runner, and report the figures
# with the machine's load (printed first and last). Needs caddy, wrk and python3-aiohttp
# (deploy/setup.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
runner="$root/build/bin/kv-runner"
users_levels=()
runs=3
nice=0
shared_cores=0
runner_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --users) users_levels+=("$2"); shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --nice) nice=$2; shift 2 ;;
    --shared-cores) shared_cores=1; shift ;;
    --runner) runner=$2; shift 2 ;;
    --) shift; runner_args=("$@"); break ;;
    *) echo "usage: $0 [--users N]... [--runs N] [--nice N] [--shared-cores] [--runner BIN]" \
         "[-- RUNNER_ARGS]" >&2
       exit 2 ;;
  esac
done
[ "${#users_levels[@]}" -gt 0 ] || users_levels=(64 256)
python3=/usr/bin/python3  # Debian's, which has python3-aiohttp
for tool in caddy wrk "$python3" "$runner"; do
  command -v "$tool" >/dev/null || { echo "runner_http_ceiling: $tool not found" >&2; exit 1; }
done
"$python3" -c 'import aiohttp' 2>/dev/null ||
  { echo "runner_http_ceiling: python3-aiohttp missing (deploy/setup.sh)" >&2; exit 1; }

# A run is kSlices rounds of kv-runner, wrk and aiohttp in turn, each slice about 3 s: kv-runner
# replays kRequestsPerSlice requests, wrk and aiohttp run kSeconds. A client's rate in the run is
# its requests over its seconds summed over the slices, so a disturbance of some seconds (a
# neighbour, the Go GC of the target) falls on all three alike instead of on one client's run.
kSlices=6
kRequestsPerSlice=40000
kRounds=10
kSeconds=3
# A run whose hypervisor steal time (host CPU taken from this VM, /proc/stat) exceeds this share
# of the cores is repeated, at most kMaxRetries times.
kMaxStealPct=1.0
kMaxRetries=4
ticks_per_s=$(getconf CLK_TCK)
steal_ticks() { awk '/^cpu / {print $9; exit}' /proc/stat; }

work="$(mktemp -d)"
caddy_pid=""
cleanup() {
  [ -n "$caddy_pid" ] && kill "$caddy_pid" 2>/dev/null && wait "$caddy_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

port="$("$python3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port"
# The target's stream and config, the dataset, and a body of the replay's mean size.
"$python3" - "$work" "$port" "$kRequestsPerSlice" "$kRounds" <<'EOF'
import json, sys
work, port, requests, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def event(delta, finish):
    return "data: " + json.dumps({"id": "chatcmpl-null", "object": "chat.completion.chunk",
        "created": 0, "model": "null", "choices": [{"index": 0, "delta": delta,
        "logprobs": None, "finish_reason": finish}]}, separators=(",", ":")) + "\n\n"
stream = event({"role": "assistant", "content": ""}, None)
stream += event({"content": "tok "}, None) * 16
stream += event({}, "length")
stream += "data: " + json.dumps({"id": "chatcmpl-null", "object": "chat.completion.chunk",
    "created": 0, "model": "null", "choices": [], "usage": {"prompt_tokens": 32,
    "completion_tokens": 16, "total_tokens": 48}}, separators=(",", ":")) + "\n\n"
stream += "data: [DONE]\n\n"
config = {"admin": {"disabled": True}, "logging": {"logs": {"default": {"level": "ERROR"}}},
          "apps": {"http": {"servers": {"null": {"listen": [f"127.0.0.1:{port}"],
              "automatic_https": {"disable": True},
              "routes": [{"handle": [{"handler": "static_response", "status_code": 200,
                  "headers": {"Content-Type": ["text/event-stream"]}, "body": stream}]}]}}}}}
json.dump(config, open(f"{work}/caddy.json", "w"))
sizes = []
with open(f"{work}/dataset.jsonl", "w") as out:
    for c in range(requests // rounds):
        messages = []
        for t in range(rounds):
            messages.append({"role": "user", "content": f"conversation {c} question {t}"})
            messages.append({"role": "assistant", "content": f"answer {t}"})
        out.write(json.dumps({"messages": messages}) + "\n")
messages = []
for t in range(rounds // 2):
    messages.append({"role": "user", "content": f"conversation 0 question {t}"})
    messages.append({"role": "assistant", "content": f"answer {t}"})
messages.append({"role": "user", "content": "conversation 0 question 5"})
body = json.dumps({"model": "null", "messages": messages, "stream": True,
                   "stream_options": {"include_usage": True}, "max_tokens": 16})
open(f"{work}/body.json", "w").write(body)
open(f"{work}/post.lua", "w").write(
    'wrk.method = "POST"\n'
    'wrk.headers["Content-Type"] = "application/json"\n'
    'wrk.headers["x-user-id"] = "wrk"\n'
    f'wrk.body = {json.dumps(body)}\n')
EOF
target_cpu=() client_cpu=() wrk_threads=2
if [ "$shared_cores" = 0 ]; then
  [ "$(nproc)" -ge 2 ] || { echo "runner_http_ceiling: pinning needs 2 cores (or --shared-cores)" >&2; exit 1; }
  target_cpu=(env GOMAXPROCS=1 taskset -c 1) client_cpu=(taskset -c 0) wrk_threads=1
fi
at_nice=(nice -n "$nice")
"${target_cpu[@]}" "${at_nice[@]}" caddy run --config "$work/caddy.json" >"$work/caddy.log" 2>&1 &
caddy_pid=$!
for _ in $(seq 100); do
  curl -fs -o /dev/null -X POST "$url/v1/chat/completions" && break
  sleep 0.1
done

run_runner() {  # users -> "requests seconds"
  local users=$1 dir="$work/runner-$1"
  mkdir -p "$dir"
  "${client_cpu[@]}" "${at_nice[@]}" "$runner" --base-url "$url" --model null --num-users "$users" --num-rounds "$kRounds" \
    --dataset openai-messages --dataset-path "$work/dataset.jsonl" \
    --sessions $((kRequestsPerSlice / kRounds)) --warmup 0 --no-count-prompts \
    --output "$dir/records.jsonl" --summary "$dir/summary.json" "${runner_args[@]}" \
    >"$dir/log" 2>&1 || { echo "kv-runner failed:" >&2; tail -5 "$dir/log" >&2; exit 1; }
  "$python3" - "$dir/records.jsonl" <<'EOF'
import json, sys
ok = failed = 0
first, last = float("inf"), 0.0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("error") or r.get("http_status") != 200:
        failed += 1
        continue
    ok += 1
    first, last = min(first, r["scheduled_s"]), max(last, r["end_s"])
if failed:
    print(f"kv-runner: {failed} failed requests", file=sys.stderr)
print(f"{ok} {last - first:.6f}")
EOF
}
run_wrk() {  # users -> "requests seconds"
  "${client_cpu[@]}" "${at_nice[@]}" wrk -t"$wrk_threads" -c"$1" -d"${kSeconds}s" -s "$work/post.lua" \
    "$url/v1/chat/completions" | awk '/ requests in / {sub(/s,$/, "", $4); print $1, $4}'
}
run_aiohttp() {  # users -> "requests seconds"
  "${client_cpu[@]}" "${at_nice[@]}" "$python3" "$root/tests/bench/aiohttp_sse_client.py" \
    "$url/v1/chat/completions" "$1" "$kSeconds" "$work/body.json" |
    sed -n 's/^requests=\([0-9]*\) .*seconds=\([0-9.]*\).*/\1 \2/p'
}
rate() {  # "requests seconds" lines -> requests/s over their sums
  awk '{n += $1; t += $2} END {if (t <= 0) exit 1; printf "%.0f\n", n / t}'
}

echo "runner_http_ceiling: Caddy $(caddy version | cut -d' ' -f1) static SSE (20 events), \
runner ${runner_args[*]:-(no extra flags)}, nice $nice, $(nproc) cores, \
$([ "$shared_cores" = 1 ] && echo "target and clients share them" || echo "target on CPU 1, clients on CPU 0"); \
load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%6s %4s %12s %12s %12s %8s %10s %8s\n" users run kv-runner wrk aiohttp "% wrk" "x aiohttp" steal
summary=()
for users in "${users_levels[@]}"; do
  r_all=() w_all=() a_all=() pct_all=() x_all=()
  for run in $(seq "$runs"); do
    # A run the hypervisor took cores from (steal time) measures the host, not the clients:
    # it is run again, up to kMaxRetries times, and the row says how often and why.
    retried=""
    for try in $(seq 0 "$kMaxRetries"); do
      s0=$(steal_ticks) t0=$(date +%s.%N)
      : >"$work/r" && : >"$work/w" && : >"$work/a"
      for _ in $(seq "$kSlices"); do
        run_runner "$users" >>"$work/r"
        run_wrk "$users" >>"$work/w"
        run_aiohttp "$users" >>"$work/a"
      done
      r=$(rate <"$work/r") w=$(rate <"$work/w") a=$(rate <"$work/a")
      steal=$("$python3" -c "print(f'{100*($(steal_ticks)-$s0)/$ticks_per_s/$(nproc)/($(date +%s.%N)-$t0):.1f}')")
      "$python3" -c "import sys; sys.exit(0 if $steal <= $kMaxStealPct else 1)" && break
      retried="$retried ${steal}%"
    done
    pct=$("$python3" -c "print(f'{100*$r/$w:.1f}')")
    x=$("$python3" -c "print(f'{$r/$a:.2f}')")
    printf "%6d %4d %12d %12d %12d %7s%% %9sx %7s%%%s\n" "$users" "$run" "$r" "$w" "$a" "$pct" \
      "$x" "$steal" "${retried:+  (retried after steal$retried)}"
    r_all+=("$r") w_all+=("$w") a_all+=("$a") pct_all+=("$pct") x_all+=("$x")
  done
  summary+=("$("$python3" - "$users" "${r_all[*]}" "${w_all[*]}" "${a_all[*]}" "${pct_all[*]}" \
    "${x_all[*]}" <<'EOF'
import statistics, sys
users = sys.argv[1]
r, w, a, pct, x = ([float(v) for v in s.split()] for s in sys.argv[2:7])
f = lambda v: f"{min(v):,.0f}/{statistics.median(v):,.0f}"
print(f"users={users} kv-runner={f(r)} wrk={f(w)} aiohttp={f(a)} "
      f"%wrk={min(pct):.1f}/{statistics.median(pct):.1f} "
      f"x_aiohttp={min(x):.2f}/{statistics.median(x):.2f}  (min/median req/s)")
EOF
)")
done
printf '%s\n' "${summary[@]}"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
