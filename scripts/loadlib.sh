# Shared by the load scripts (loadtest.sh, health3.sh, trigger3.sh):
# source it after setting NAME (the script's name, for messages).
# It makes $work, a temporary folder, and the pids array: each server a
# script starts goes into pids, and both are cleaned up at exit.

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

# wait_file FILE: wait up to 10 s for it to exist and hold something.
wait_file() {
	for _ in $(seq 100); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	echo "$NAME: $1 never appeared" >&2
	exit 1
}

# airlite_bin: the binary to measure, $AIRLITE_BIN or a build of this tree.
airlite_bin() {
	if [ -n "${AIRLITE_BIN:-}" ]; then
		echo "$AIRLITE_BIN"
		return
	fi
	go build -o "$work/airlite" . && echo "$work/airlite"
}
