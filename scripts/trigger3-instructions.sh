#!/usr/bin/env bash
# Instructions per trigger, v2 against experimental, one client at a time
# (issue #21: the v2 trigger within 1.15 × the experimental one). Time
# with one client swings as wide as the gap on this shared machine;
# callgrind counts the instructions the server process runs, whatever
# else the machine does.
#
#   scripts/trigger3-instructions.sh                      # this tree
#   REV=cd1e3b7 scripts/trigger3-instructions.sh          # and a commit beside it
#   STW=1 REV=141de78 scripts/trigger3-instructions.sh    # the collector stopping the world
#   GOGC=off PHASES=200 scripts/trigger3-instructions.sh  # the handlers alone, no collector
#
# The real binary runs under callgrind in edition 2 or 3 (scheduler and
# snapshot off, as scripts/trigger3.sh), and curl sends WARM triggers on
# one keep-alive connection, then N more; the counters are zeroed between
# the two and dumped after, so a count is the server's N triggers only:
# handler, store write, answer and collector, neither the start-up nor
# the client. GODEBUG=asyncpreemptoff=1: callgrind aborts on the signals
# of Go's asynchronous preemption.
#
# The handlers, the store and the HTTP code count the same within 0.1 %
# from run to run; the collector (and the scheduler's idle spinning) is
# the spread. Its cycles fall at about the same triggers each run, so
# the window of N triggers holds eight or nine of them (about 120
# triggers apart at 1,000) depending on where it starts, and a cycle is
# 3-5 % of a count. A count at one WARM is that phase's, not the
# collector's average: with the same binaries the ratio at WARM=200
# alone was 1.09-1.17 (mostly above 1.12), at 275-320 1.05-1.10. So
# each repetition runs every WARM in PHASES (spread over about one
# cycle) for each build and edition, and the figures are means over all
# of them, the same phases for both sides.
#
# The collector's own timing adds a few per cent more to a count (its
# concurrent marking, assists and idle workers follow the clock): the
# experimental trigger's mean over the phases moved by 1.7-2.7 %
# between two builds of the same experimental code in one run. When that
# code is the same in both builds, its counts of both may be pooled.
# STW=1 runs the collector with GODEBUG=gcstoptheworld=1: every cycle
# marks with the world stopped, at the heap size that starts it, so one
# binary's count repeats within 0.4 % at one warm-up (two builds still
# differ at one warm-up, their heaps growing slightly differently; the
# phases' means were 0.5 % apart). It is the steadier figure to compare
# builds by; the default collector is the one the server runs.
# GOMAXPROCS stays the machine's (2 here): at 1 the experimental
# trigger's collector costs more and the ratio is lower, which is not
# how the server runs. About 30 s a count; the defaults make 14 counts
# a build. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
for c in valgrind callgrind_control curl; do
	command -v "$c" >/dev/null || { echo "trigger3-instructions: needs $c (apt-get install -y valgrind curl)" >&2; exit 1; }
done

REPS=${REPS:-1}
PHASES=${PHASES:-200 220 240 260 280 300 320}
godebug=asyncpreemptoff=1
if [ "${STW:-}" = 1 ]; then
	godebug=$godebug,gcstoptheworld=1
fi
N=${N:-1000}

NAME=trigger3-instructions
# shellcheck source=scripts/loadlib.sh
. scripts/loadlib.sh
mkdir -p "$work/dags"
cp fixtures/3.2.1/example_bash_operator.yaml "$work/dags/"

builds=(this)
go build -o "$work/this" .
if [ -n "${REV:-}" ]; then
	mkdir "$work/src"
	git archive "$REV" | tar -x -C "$work/src"
	(cd "$work/src" && go build -o "$work/$REV" .)
	builds+=("$REV")
fi

# requests FILE EDITION FROM COUNT: a curl config of COUNT triggers, each
# a new run id and date (the same bodies as scripts/trigger3.sh).
requests() {
	local path date_field id_field
	if [ "$2" = 3 ]; then
		path=/api/v2/dags/example_bash_operator/dagRuns date_field=logical_date id_field=dag_run_id
	else
		path=/api/experimental/dags/example_bash_operator/dag_runs date_field=execution_date id_field=run_id
	fi
	awk -v url="$URL$path" -v from="$3" -v count="$4" -v df="$date_field" -v idf="$id_field" 'BEGIN {
		for (i = from; i < from + count; i++) {
			if (i > from) print "next"
			printf "url = \"%s\"\nheader = \"Content-Type: application/json\"\noutput = \"/dev/null\"\n", url
			printf "data = \"{\\\"conf\\\": {\\\"key\\\": \\\"value\\\"}, \\\"%s\\\": \\\"%s\\\", \\\"%s\\\": \\\"ins_%d\\\"}\"\n",
				df, strftime("%Y-%m-%dT%H:%M:%S+00:00", 1893456000 + i, 1), idf, i
		}
	}' >"$1"
}

# count BINARY EDITION WARM: the server's instructions for N triggers
# after WARM.
count() {
	rm -f "$work/url" "$work"/cg.*
	GODEBUG=$godebug valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
		"$1" --edition "$2" --addr 127.0.0.1:0 --snapshot off --scheduler off --max-runs-per-dag 1000000 \
		--dags "$work/dags" --ready-file "$work/url" >/dev/null 2>"$work/server.log" &
	local pid=$!
	for _ in $(seq 1200); do [ -s "$work/url" ] && break; sleep 0.1; done
	if [ ! -s "$work/url" ]; then
		echo "$NAME: $1 (edition $2) did not start in 120 s" >&2
		kill "$pid" 2>/dev/null || true
		return 1
	fi
	URL=$(cat "$work/url")
	requests "$work/warm" "$2" 0 "$3"
	requests "$work/measured" "$2" "$3" "$N"
	curl -sf --config "$work/warm"
	# A zero or dump that callgrind did not confirm would count the
	# start-up and the warm-up too (one count of a loaded run did).
	control --zero "$pid" || return 1
	curl -sf --config "$work/measured"
	control --dump "$pid" || return 1
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	# The dump after the zero: the one file whose name has a dump number.
	sed -n 's/^totals: //p' "$work"/cg.out.*
}

# control ACTION PID: callgrind_control's ACTION, tried until it says OK.
control() {
	for _ in 1 2 3 4 5; do
		callgrind_control "$1" "$2" 2>&1 | grep -q 'OK' && return 0
		sleep 1
	done
	echo "$NAME: callgrind_control $1 $2 never said OK" >&2
	return 1
}

echo "$NAME: $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD), warm-ups $PHASES, $N measured triggers, GOGC=${GOGC:-default}, GODEBUG=$godebug, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "build rep warm v2 experimental ratio"
for r in $(seq "$REPS"); do
	for w in $PHASES; do
		for b in "${builds[@]}"; do
			v2=$(count "$work/$b" 3 "$w")
			exp=$(count "$work/$b" 2 "$w")
			awk -v b="$b" -v r="$r" -v w="$w" -v v="$((v2 / N))" -v e="$((exp / N))" 'BEGIN { printf "%s %d %d %d %d %.3f\n", b, r, w, v, e, v / e }'
		done
	done
done | tee "$work/counts"

for b in "${builds[@]}"; do
	awk -v b="$b" '$1 == b { v += $4; e += $5; n++; r = $6
		lo = (n == 1 || r < lo) ? r : lo; hi = (n == 1 || r > hi) ? r : hi }
	END { printf "%s: v2 %d, experimental %d instructions a trigger (means of %d counts each): %.3f × (single pairs %.3f-%.3f)\n", b, v / n, e / n, n, v / e, lo, hi }' "$work/counts"
done
echo "$NAME: done, load average $(cut -d' ' -f1-3 /proc/loadavg)"
