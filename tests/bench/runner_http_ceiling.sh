#!/usr/bin/env bash
# kv-runner's replay client against the HTTP ceiling: a Caddy null target (a static SSE body of
# 20 events, 16 content tokens, answered at once) driven in turn by kv-runner, by `wrk` (the
# ceiling: it reads bytes and parses no stream) and by a Python aiohttp streaming client
# (aiohttp_sse_client.py, the usual Python benchmark client), at each --users level, --runs times
# each, interleaved so that a neighbour's load hits all three alike. wrk and aiohttp POST a body of
# the replay's mean size. Prints one row per run, then per level the min/median requests/s and
# kv-runner's min/median share of wrk's rate and multiple of aiohttp's (a run's ratios pair
# kv-runner with the wrk and aiohttp runs next to it).
#
#   tests/bench/runner_http_ceiling.sh [--users N]... [--runs N] [--nice N] [--runner BIN]
#                                      [-- RUNNER_ARGS]
#
# --nice runs the target and the three clients at that niceness: on a machine others keep busy
# (compilers), a negative one gives them the cores first, as on a quiet machine.
# kv-runner's rate is its records' completed requests ÷ (last end − first scheduled send).
# Not a test: run by hand on a quiet machine after building kv-runner, and report the figures
# with the machine's load (printed first and last). Needs caddy, wrk and python3-aiohttp
# (deploy/setup.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
runner="$root/build/bin/kv-runner"
users_levels=()
runs=3
nice=0
runner_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --users) users_levels+=("$2"); shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --nice) nice=$2; shift 2 ;;
    --runner) runner=$2; shift 2 ;;
    --) shift; runner_args=("$@"); break ;;
    *) echo "usage: $0 [--users N]... [--runs N] [--nice N] [--runner BIN] [-- RUNNER_ARGS]" >&2
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

# Each client runs about this long: kv-runner gets as many users' rounds as that takes at
# kRequestsPerRun requests; wrk and aiohttp run for kSeconds.
kRequestsPerRun=80000
kRounds=10
kSeconds=5

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
"$python3" - "$work" "$port" "$kRequestsPerRun" "$kRounds" <<'EOF'
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
at_nice=(nice -n "$nice")
"${at_nice[@]}" caddy run --config "$work/caddy.json" >"$work/caddy.log" 2>&1 &
caddy_pid=$!
for _ in $(seq 100); do
  curl -fs -o /dev/null -X POST "$url/v1/chat/completions" && break
  sleep 0.1
done

run_runner() {  # users -> requests/s
  local users=$1 dir="$work/runner-$1"
  mkdir -p "$dir"
  "${at_nice[@]}" "$runner" --base-url "$url" --model null --num-users "$users" --num-rounds "$kRounds" \
    --dataset openai-messages --dataset-path "$work/dataset.jsonl" \
    --sessions $((kRequestsPerRun / kRounds)) --warmup 0 --no-count-prompts \
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
print(f"{ok / (last - first):.0f}")
EOF
}
run_wrk() {
  "${at_nice[@]}" wrk -t2 -c"$1" -d"${kSeconds}s" -s "$work/post.lua" "$url/v1/chat/completions" |
    awk '/Requests\/sec/ {printf "%.0f\n", $2}'
}
run_aiohttp() {
  "${at_nice[@]}" "$python3" "$root/tests/bench/aiohttp_sse_client.py" "$url/v1/chat/completions" "$1" "$kSeconds" \
    "$work/body.json" | sed -n 's/.*requests_per_s=\([0-9]*\).*/\1/p'
}

echo "runner_http_ceiling: Caddy $(caddy version | cut -d' ' -f1) static SSE (20 events), \
runner ${runner_args[*]:-(no extra flags)}, nice $nice, $(nproc) cores; \
load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%6s %4s %12s %12s %12s %8s %10s\n" users run kv-runner wrk aiohttp "% wrk" "x aiohttp"
summary=()
for users in "${users_levels[@]}"; do
  r_all=() w_all=() a_all=() pct_all=() x_all=()
  for run in $(seq "$runs"); do
    r=$(run_runner "$users")
    w=$(run_wrk "$users")
    a=$(run_aiohttp "$users")
    pct=$("$python3" -c "print(f'{100*$r/$w:.1f}')")
    x=$("$python3" -c "print(f'{$r/$a:.2f}')")
    printf "%6d %4d %12d %12d %12d %7s%% %9sx\n" "$users" "$run" "$r" "$w" "$a" "$pct" "$x"
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
