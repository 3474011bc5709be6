#!/usr/bin/env bash
# Load run of Airflow 3's GET /api/v2/monitor/health (issue #21: at least
# 0.9 × a bare Go server's throughput): the real airlite binary in edition
# 3 and the bare server of the load script (TestBareServer in
# bench_test.go) answering the bytes airlite answered, hit by wrk in
# alternating rounds (airlite, bare, airlite, bare, ...), each round's
# ratio airlite r/s over the bare r/s of the round next to it; and each
# round's CPU ratio, the bare server's CPU per request over airlite's
# (both from /proc), which other processes of a shared machine sway less.
#
#   scripts/health3.sh                       # 5 rounds of 5 s, 50 connections
#   ROUNDS=7 DURATION=3s scripts/health3.sh
#   AIRLITE_BIN=/tmp/before/airlite scripts/health3.sh   # another build
#   BARE_TEST=/tmp/bare.test scripts/health3.sh           # a test binary built before
#
# Traffic goes to 127.0.0.1 only. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-5s}
CONNS=${CONNS:-50}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-5}
PATH_=/api/v2/monitor/health

command -v wrk >/dev/null || { echo "health3: needs wrk (apt-get install -y wrk)" >&2; exit 1; }

NAME=health3
# shellcheck source=scripts/loadlib.sh
. scripts/loadlib.sh
bin=$(airlite_bin)
bare=${BARE_TEST:-}
if [ -z "$bare" ]; then
	go test -c -o "$work/bare.test" .
	bare=$work/bare.test
fi

# As a client suite starts it: the scheduler on (its heartbeat is in the
# answer), the access log to a file.
"$bin" --edition 3 --addr 127.0.0.1:0 --snapshot off --ready-file "$work/airlite.url" >/dev/null 2>"$work/airlite.log" &
air_pid=$!
pids+=("$air_pid")
wait_file "$work/airlite.url"
AIR=$(cat "$work/airlite.url")

cap=$work/capture
mkdir -p "$cap"
curl -fsS -D "$cap/health.headers" -o "$cap/health.body" "$AIR$PATH_"
echo "GET $PATH_ health" >"$cap/manifest"
AIRLITE_BARE_DIR=$cap AIRLITE_BARE_ADDR=127.0.0.1:0 AIRLITE_BARE_READY=$work/bare.url \
	"$bare" -test.run '^TestBareServer$' >/dev/null 2>"$work/bare.log" &
bare_pid=$!
pids+=("$bare_pid")
wait_file "$work/bare.url"
BARE=$(cat "$work/bare.url")

# cpu PID: the process's user and system CPU so far, in clock ticks.
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# load URL PID: one wrk run; prints its requests per second and the
# server's CPU microseconds per request (ticks of CLK_TCK), which the
# other processes on a shared machine disturb less than the throughput.
tick_us=$((1000000 / $(getconf CLK_TCK)))
load() {
	local before after out
	before=$(cpu "$2")
	out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" "$1")
	after=$(cpu "$2")
	awk -v used=$(((after - before) * tick_us)) '
		/requests in/ { n = $1 }
		/^Requests\/sec:/ { r = $2 }
		END { printf "%s %.2f\n", r, used / n }' <<<"$out"
}

echo "health3: $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), binary $bin," \
	"wrk -t$THREADS -c$CONNS -d$DURATION, load average $(cut -d' ' -f1-3 /proc/loadavg)"
ratios=() cpu_ratios=()
for round in $(seq "$ROUNDS"); do
	read -r a a_us < <(load "$AIR$PATH_" "$air_pid")
	read -r b b_us < <(load "$BARE$PATH_" "$bare_pid")
	r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')
	c=$(awk -v a="$a_us" -v b="$b_us" 'BEGIN { printf "%.2f", b / a }')
	ratios+=("$r") cpu_ratios+=("$c")
	printf 'round %d: airlite %s r/s %s CPU-µs/req, bare %s r/s %s CPU-µs/req, ratio %s, CPU ratio %s\n' \
		"$round" "$a" "$a_us" "$b" "$b_us" "$r" "$c"
done
median() { sort -n | awk -v what="$1" '{ v[NR] = $1 } END {
	printf "%s median %s, range %s-%s (%d rounds)\n", what, v[int((NR + 1) / 2)], v[1], v[NR], NR }'; }
printf '%s\n' "${ratios[@]}" | median ratio
printf '%s\n' "${cpu_ratios[@]}" | median "CPU ratio (bare CPU per request over airlite's)"
