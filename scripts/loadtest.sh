#!/usr/bin/env bash
# Load run: the real airlite binary and a bare Go server that serves the
# same bytes, side by side on this machine, hit by wrk endpoint by endpoint.
# Prints req/s, p50 and p99 for both and the ratios airlite/bare.
#
#   scripts/loadtest.sh                 # 50 connections, 2 threads, 10 s each
#   DURATION=3s CONNS=20 scripts/loadtest.sh
#   ONLY="test trigger" scripts/loadtest.sh   # just these rows
#   ONLY=trigger_full FULL_RUNS=60000 scripts/loadtest.sh   # trigger cost vs a DAG's run count
#   ONLY="list_runs_10k v1_list_runs v1_trigger" LIST_RUNS=10000 scripts/loadtest.sh
#
# Rows named v1_* are the stable API (/api/v1), each beside its
# experimental twin: the v1 run listings (a page of 100 of list_many's
# LIST_RUNS runs) beside list_runs_10k (the experimental listing of all of
# them), v1_task_instance beside task_instance, v1_trigger beside trigger.
#
# The bare server is TestBareServer in bench_test.go, run from the test
# binary (airlite is one Go package: a second main package is not allowed).
# Traffic goes to 127.0.0.1 only. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
CONNS=${CONNS:-50}
THREADS=${THREADS:-2}
ONLY=${ONLY:-}
DATE=2026-01-01T00:00:00+00:00

if ! command -v wrk >/dev/null 2>&1; then
	echo "loadtest: installing wrk" >&2
	SUDO=""
	if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
	$SUDO apt-get update -qq >&2
	$SUDO apt-get install -y -qq wrk >&2
fi

NAME=loadtest
# shellcheck source=scripts/loadlib.sh
. scripts/loadlib.sh

go build -o "$work/airlite" .
go test -c -o "$work/bare.test" .

# The embedded examples, plus two identical DAGs for the rows that compare
# a trigger on a DAG with FULL_RUNS runs against one on a DAG with none,
# and list_many, filled with LIST_RUNS runs for the listing rows.
FULL_RUNS=${FULL_RUNS:-60000}
LIST_RUNS=${LIST_RUNS:-10000}
mkdir -p "$work/dags"
cp fixtures/2.10.3/*.yaml "$work/dags/" # edition 2, the default
for d in trigger_empty trigger_full list_many; do
	printf 'dag_id: %s\nschedule_interval: null\ntasks:\n  - {task_id: a, operator: EmptyOperator}\n  - {task_id: b, operator: EmptyOperator, upstream: [a]}\n' \
		"$d" >"$work/dags/$d.yaml"
done

# airlite as a client suite starts it; the access log (info, JSON) goes to
# a file, as stderr would in a real deployment. The run limit is on (and
# high), so that every trigger checks it, as with the default limit.
"$work/airlite" --addr 127.0.0.1:0 --snapshot off --scheduler off --max-runs-per-dag 1000000 \
	--dags "$work/dags" --ready-file "$work/airlite.url" >/dev/null 2>"$work/airlite.log" &
pids+=($!)
wait_file "$work/airlite.url"
AIR=$(cat "$work/airlite.url")

api=/api/experimental
v1=/api/v1
trigger=$api/dags/example_bash_operator/dag_runs
v1trigger=$v1/dags/example_bash_operator/dagRuns
cap=$work/capture
mkdir -p "$cap"
: >"$cap/manifest"

# State: ten runs of example_bash_operator, the first at $DATE.
for i in 0 1 2 3 4 5 6 7 8; do
	curl -fsS -o /dev/null -X POST "$AIR$trigger" -H 'Content-Type: application/json' \
		-d "{\"execution_date\": \"2025-0$((i + 1))-01T00:00:00+00:00\"}"
done
curl -fsS -D "$cap/trigger.headers" -o "$cap/trigger.body" -X POST "$AIR$trigger" \
	-H 'Content-Type: application/json' -d "{\"conf\": {\"key\": \"value\"}, \"execution_date\": \"$DATE\"}"
echo "POST $trigger trigger" >>"$cap/manifest"

# fill.lua: triggers with other dates and run ids than trigger.lua's; each
# round of the fill loop passes its number in FILL_ROUND.
cat >"$work/fill.lua" <<'LUA'
local n = 0
local count = 0
local round = tonumber(os.getenv("FILL_ROUND"))
function setup(thread)
	count = count + 1
	thread:set("tid", count)
end
function request()
	n = n + 1
	local date = os.date("!%Y-%m-%dT%H:%M:%S+00:00", 946684800 + round * 100000000 + n * 64 + tid)
	local body = string.format('{"execution_date": "%s", "run_id": "fill_%d_%d_%d"}', date, round, tid, n)
	return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
LUA

# list_many: at least LIST_RUNS runs (queued: the scheduler is off), in
# rounds of 2 s of fill.lua (rounds 1001 on, apart from trigger_full's).
listed=0
for round in $(seq 1001 1100); do
	[ "$listed" -ge "$LIST_RUNS" ] && break
	n=$(FILL_ROUND=$round wrk -t"$THREADS" -c"$CONNS" -d2s -s "$work/fill.lua" "$AIR$api/dags/list_many/dag_runs" |
		awk '/requests in/ { print $1 }')
	listed=$((listed + n))
done
curl -fsS -D "$cap/v1_trigger.headers" -o "$cap/v1_trigger.body" -X POST "$AIR$v1trigger" \
	-H 'Content-Type: application/json' -d '{"conf": {"key": "value"}, "logical_date": "2025-12-01T00:00:00+00:00"}'
echo "POST $v1trigger v1_trigger" >>"$cap/manifest"
# ...and gone again, so that list_runs still lists ten runs.
curl -fsS -o /dev/null -X DELETE "$AIR$v1trigger/manual__2025-12-01T00:00:00+00:00"

endpoints=(
	"test $api/test"
	"pools $api/pools"
	"run_state $api/dags/example_bash_operator/dag_runs/$DATE"
	"task_instance $api/dags/example_bash_operator/dag_runs/$DATE/tasks/runme_0"
	"list_runs $trigger"
	"latest_runs $api/latest_runs"
	"v1_task_instance $v1/dags/example_bash_operator/dagRuns/manual__$DATE/taskInstances/runme_0"
	"list_runs_10k $api/dags/list_many/dag_runs"
	"v1_list_runs $v1/dags/list_many/dagRuns?limit=100"
	"v1_list_runs_desc $v1/dags/list_many/dagRuns?limit=100&order_by=-execution_date"
	"v1_list_runs_state $v1/dags/list_many/dagRuns?limit=100&state=queued"
	"v1_list_runs_all $v1/dags/~/dagRuns?limit=100"
)
for e in "${endpoints[@]}"; do
	read -r name path <<<"$e"
	curl -fsS -D "$cap/$name.headers" -o "$cap/$name.body" "$AIR$path"
	echo "GET $path $name" >>"$cap/manifest"
done

AIRLITE_BARE_DIR=$cap AIRLITE_BARE_ADDR=127.0.0.1:0 AIRLITE_BARE_READY=$work/bare.url \
	"$work/bare.test" -test.run '^TestBareServer$' >/dev/null 2>"$work/bare.log" &
pids+=($!)
wait_file "$work/bare.url"
BARE=$(cat "$work/bare.url")

# The trigger body: a unique run_id and execution_date per request.
cat >"$work/trigger.lua" <<'LUA'
local n = 0
local count = 0
function setup(thread)
	count = count + 1
	thread:set("tid", count)
end
function request()
	n = n + 1
	local date = os.date("!%Y-%m-%dT%H:%M:%S+00:00", 1893456000 + n * 64 + tid)
	local body = string.format('{"conf": {"key": "value"}, "execution_date": "%s", "run_id": "load_%d_%d"}', date, tid, n)
	return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
LUA


# v1trigger.lua: trigger.lua's requests in the stable API's form, with
# other dates and run ids.
cat >"$work/v1trigger.lua" <<'LUA'
local n = 0
local count = 0
function setup(thread)
	count = count + 1
	thread:set("tid", count)
end
function request()
	n = n + 1
	local date = os.date("!%Y-%m-%dT%H:%M:%S+00:00", 2114380800 + n * 64 + tid)
	local body = string.format('{"conf": {"key": "value"}, "logical_date": "%s", "dag_run_id": "v1load_%d_%d"}', date, tid, n)
	return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
LUA

# wrk_run URL [LUA]: "req/s p50_ms p99_ms non2xx"
wrk_run() {
	local out
	if [ $# -gt 1 ]; then
		out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$2" "$1")
	else
		out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "$1")
	fi
	awk '
		function ms(v) {
			if (v ~ /us$/) return substr(v, 1, length(v) - 2) / 1000
			if (v ~ /ms$/) return substr(v, 1, length(v) - 2) + 0
			if (v ~ /s$/) return substr(v, 1, length(v) - 1) * 1000
			return v
		}
		$1 == "50%" { p50 = ms($2) }
		$1 == "99%" { p99 = ms($2) }
		/^Requests\/sec:/ { rps = $2 }
		/Non-2xx or 3xx responses:/ { bad = $NF }
		END { printf "%s %.2f %.2f %d\n", rps, p50, p99, bad }
	' <<<"$out"
}

echo "airlite load run: $(date -u +%Y-%m-%d) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
	"$(nproc) cores, wrk -t$THREADS -c$CONNS -d$DURATION --latency, airlite $AIR, bare $BARE"
printf '%-14s %11s %11s %6s | %9s %9s | %9s %9s %6s | %s\n' endpoint "airlite r/s" "bare r/s" ratio \
	"a p50 ms" "b p50 ms" "a p99 ms" "b p99 ms" "p99 x" "non-2xx a/b"
wanted() { # name: is this row asked for
	[ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]
}
report() { # name air_result bare_result
	read -r ar ap50 ap99 abad <<<"$2"
	read -r br bp50 bp99 bbad <<<"$3"
	awk -v n="$1" -v ar="$ar" -v br="$br" -v ap50="$ap50" -v bp50="$bp50" -v ap99="$ap99" -v bp99="$bp99" \
		-v bad="$abad/$bbad" 'BEGIN {
		printf "%-14s %11.0f %11.0f %6.2f | %9.2f %9.2f | %9.2f %9.2f %6.2f | %s\n",
			n, ar, br, ar / br, ap50, bp50, ap99, bp99, (bp99 > 0 ? ap99 / bp99 : 0), bad }'
}
for e in "${endpoints[@]}"; do
	read -r name path <<<"$e"
	wanted "$name" || continue
	a=$(wrk_run "$AIR$path")
	b=$(wrk_run "$BARE$path")
	report "$name" "$a" "$b"
done
# The trigger runs last: it adds tens of thousands of runs to the DAG.
if wanted trigger; then
	a=$(wrk_run "$AIR$trigger" "$work/trigger.lua")
	b=$(wrk_run "$BARE$trigger" "$work/trigger.lua")
	report trigger "$a" "$b"
fi
if wanted v1_trigger; then
	a=$(wrk_run "$AIR$v1trigger" "$work/v1trigger.lua")
	b=$(wrk_run "$BARE$v1trigger" "$work/v1trigger.lua")
	report v1_trigger "$a" "$b"
fi
# A trigger's cost must not grow with its DAG's runs: the same trigger on
# a DAG with no runs, then on one filled with at least FULL_RUNS runs
# first (in rounds of 2 s; the last round may add more).
if wanted trigger_full; then
	sent=0
	for round in $(seq 1 100); do
		[ "$sent" -ge "$FULL_RUNS" ] && break
		n=$(FILL_ROUND=$round wrk -t"$THREADS" -c"$CONNS" -d2s -s "$work/fill.lua" "$AIR$api/dags/trigger_full/dag_runs" |
			awk '/requests in/ { print $1 }')
		sent=$((sent + n))
	done
	have=$(curl -fsS "$AIR$api/dags/trigger_full/dag_runs" | grep -o '"run_id"' | wc -l)
	echo "trigger_full holds $have runs before its row"
	e=$(wrk_run "$AIR$api/dags/trigger_empty/dag_runs" "$work/trigger.lua")
	f=$(wrk_run "$AIR$api/dags/trigger_full/dag_runs" "$work/trigger.lua")
	b=$(wrk_run "$BARE$trigger" "$work/trigger.lua")
	report trigger_empty "$e" "$b"
	report trigger_full "$f" "$b"
	awk -v e="${e%% *}" -v f="${f%% *}" 'BEGIN { printf "trigger_full / trigger_empty: %.2f\n", f / e }'
fi
