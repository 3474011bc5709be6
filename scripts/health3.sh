#!/usr/bin/env bash
# Load run of Airflow 3's GET /api/v2/monitor/health (issue #21: at least
# 0.9 × a bare Go server's throughput): the real airlite binary in edition
# 3 and the bare server of the load script (TestBareServer in
# bench_test.go) answering the bytes airlite answered, hit by wrk in
# alternating rounds (airlite, bare, airlite, bare, ...), each round's
# ratio airlite r/s over the bare r/s of the round next to it.
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

work=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

bin=${AIRLITE_BIN:-}
if [ -z "$bin" ]; then
	go build -o "$work/airlite" .
	bin=$work/airlite
fi
bare=${BARE_TEST:-}
if [ -z "$bare" ]; then
	go test -c -o "$work/bare.test" .
	bare=$work/bare.test
fi

wait_file() { # file: wait up to 10 s for it to exist
	for _ in $(seq 100); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	echo "health3: $1 never appeared" >&2
	exit 1
}

# As a client suite starts it: the scheduler on (its heartbeat is in the
# answer), the access log to a file.
"$bin" --edition 3 --addr 127.0.0.1:0 --snapshot off --ready-file "$work/airlite.url" >/dev/null 2>"$work/airlite.log" &
pids+=($!)
wait_file "$work/airlite.url"
AIR=$(cat "$work/airlite.url")

cap=$work/capture
mkdir -p "$cap"
curl -fsS -D "$cap/health.headers" -o "$cap/health.body" "$AIR$PATH_"
echo "GET $PATH_ health" >"$cap/manifest"
AIRLITE_BARE_DIR=$cap AIRLITE_BARE_ADDR=127.0.0.1:0 AIRLITE_BARE_READY=$work/bare.url \
	"$bare" -test.run '^TestBareServer$' >/dev/null 2>"$work/bare.log" &
pids+=($!)
wait_file "$work/bare.url"
BARE=$(cat "$work/bare.url")

rps() { wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" "$1" | awk '/^Requests\/sec:/ { print $2 }'; }

echo "health3: $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), binary $bin," \
	"wrk -t$THREADS -c$CONNS -d$DURATION, load average $(cut -d' ' -f1-3 /proc/loadavg)"
ratios=()
for round in $(seq "$ROUNDS"); do
	a=$(rps "$AIR$PATH_")
	b=$(rps "$BARE$PATH_")
	r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')
	ratios+=("$r")
	printf 'round %d: airlite %s r/s, bare %s r/s, ratio %s\n' "$round" "$a" "$b" "$r"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END {
	printf "ratio median %s, range %s-%s (%d rounds)\n", v[int((NR + 1) / 2)], v[1], v[NR], NR }'
