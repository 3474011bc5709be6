#!/usr/bin/env bash
# Load run of Airflow 3's trigger (issue #21: POST /api/v2/dags/{dag_id}/dagRuns
# within 1.15 × the experimental trigger): the real airlite binary twice, in
# edition 2 (POST /api/experimental/dags/{dag_id}/dag_runs) and in edition
# 3, the same DAG file in both, hit by wrk in alternating rounds
# (experimental, v2, experimental, v2, ...). Each round's ratio is the
# experimental r/s over the v2 r/s of the round next to it (v2's time per
# request over the experimental one's); its CPU ratio is v2's CPU per
# request over the experimental one's (from /proc), which other processes
# of a shared machine sway less.
#
#   scripts/trigger3.sh                       # 5 rounds of 5 s, 50 connections
#   ROUNDS=7 DURATION=3s CONNS=1 scripts/trigger3.sh   # one client at a time
#   AIRLITE_BIN=/tmp/before/airlite scripts/trigger3.sh   # another build
#
# Both servers run with the scheduler off (the runs stay queued: this
# measures the trigger, not bash) and no snapshot. Traffic goes to
# 127.0.0.1 only. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-5s}
CONNS=${CONNS:-50}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-5}
[ "$CONNS" -ge "$THREADS" ] || THREADS=$CONNS

command -v wrk >/dev/null || { echo "trigger3: needs wrk (apt-get install -y wrk)" >&2; exit 1; }

NAME=trigger3
# shellcheck source=scripts/loadlib.sh
. scripts/loadlib.sh
bin=$(airlite_bin)

# One DAG file for both editions: Airflow 3.2.1's example_bash_operator
# (seven tasks), so that both triggers store the same run and task rows.
mkdir -p "$work/dags"
cp fixtures/3.2.1/example_bash_operator.yaml "$work/dags/"

start() { # edition: start airlite, print its pid and url
	"$bin" --edition "$1" --addr 127.0.0.1:0 --snapshot off --scheduler off --max-runs-per-dag 1000000 \
		--dags "$work/dags" --ready-file "$work/$1.url" >/dev/null 2>"$work/$1.log" &
	pids+=($!)
	wait_file "$work/$1.url"
	echo "$! $(cat "$work/$1.url")"
}
read -r exp_pid EXP < <(start 2)
read -r v2_pid V2 < <(start 3)
# The pids array is a subshell's above: keep the real ones for cleanup.
pids=("$exp_pid" "$v2_pid")

exp_path=/api/experimental/dags/example_bash_operator/dag_runs
v2_path=/api/v2/dags/example_bash_operator/dagRuns

# Each request a new run id and date (the run limit and the duplicate
# checks read them); the two bodies are each API's form of one trigger.
lua() { # file date_field id_field base round
	cat >"$1" <<LUA
local n = 0
local count = 0
function setup(thread)
	count = count + 1
	thread:set("tid", count)
end
function request()
	n = n + 1
	local date = os.date("!%Y-%m-%dT%H:%M:%S+00:00", $4 + n * 64 + tid)
	local body = string.format('{"conf": {"key": "value"}, "$2": "%s", "$3": "load_$5_%d_%d"}', date, tid, n)
	return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
LUA
}

# cpu PID: the process's user and system CPU so far, in clock ticks.
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
tick_us=$((1000000 / $(getconf CLK_TCK)))
# load URL LUA PID: one wrk run; prints its requests per second, the
# server's CPU microseconds per request and the count of non-2xx answers.
load() {
	local before after out
	before=$(cpu "$3")
	out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" -s "$2" "$1")
	after=$(cpu "$3")
	awk -v used=$(((after - before) * tick_us)) '
		/requests in/ { n = $1 }
		/^Requests\/sec:/ { r = $2 }
		/Non-2xx or 3xx responses:/ { bad = $NF }
		END { printf "%s %.2f %d\n", r, used / n, bad }' <<<"$out"
}

echo "trigger3: $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), binary $bin," \
	"wrk -t$THREADS -c$CONNS -d$DURATION, load average $(cut -d' ' -f1-3 /proc/loadavg)"
ratios=() cpu_ratios=()
for round in $(seq "$ROUNDS"); do
	# A round's bodies: run ids and dates no other round used (the base
	# moves by three years a round, far more than a round's requests reach).
	lua "$work/exp.lua" execution_date run_id $((1893456000 + round * 100000000)) "$round"
	lua "$work/v2.lua" logical_date dag_run_id $((1893456000 + round * 100000000)) "$round"
	read -r e e_us e_bad < <(load "$EXP$exp_path" "$work/exp.lua" "$exp_pid")
	read -r v v_us v_bad < <(load "$V2$v2_path" "$work/v2.lua" "$v2_pid")
	if [ "$e_bad" != 0 ] || [ "$v_bad" != 0 ]; then
		echo "trigger3: round $round had non-2xx answers (experimental $e_bad, v2 $v_bad)" >&2
		exit 1
	fi
	r=$(awk -v e="$e" -v v="$v" 'BEGIN { printf "%.2f", e / v }')
	c=$(awk -v e="$e_us" -v v="$v_us" 'BEGIN { printf "%.2f", v / e }')
	ratios+=("$r") cpu_ratios+=("$c")
	printf 'round %d: experimental %s r/s %s CPU-µs/req, v2 %s r/s %s CPU-µs/req, ratio %s, CPU ratio %s\n' \
		"$round" "$e" "$e_us" "$v" "$v_us" "$r" "$c"
done
median() { sort -n | awk -v what="$1" '{ v[NR] = $1 } END {
	printf "%s median %s, range %s-%s (%d rounds)\n", what, v[int((NR + 1) / 2)], v[1], v[NR], NR }'; }
printf '%s\n' "${ratios[@]}" | median "ratio (v2 time per request over the experimental one's)"
printf '%s\n' "${cpu_ratios[@]}" | median "CPU ratio (v2 CPU per request over the experimental one's)"
