#!/usr/bin/env bash
# Start airlite for a CI job, run a DAG to the end, stop it.
set -euo pipefail
AIRLITE_BIN=${AIRLITE_BIN:-airlite}
ready=$(mktemp -u)
"$AIRLITE_BIN" --addr 127.0.0.1:0 --ready-file "$ready" --snapshot off 2>/dev/null &
pid=$!
trap 'kill "$pid"; wait "$pid" || true; rm -f "$ready"' EXIT
for _ in $(seq 1000); do [ -s "$ready" ] && break; sleep 0.01; done
url=$(cat "$ready")

run_id=$(curl -sf -X POST "$url/api/experimental/dags/example_bash_operator/dag_runs" \
  -H 'Content-Type: application/json' -d '{"conf": {"key": "value"}}' |
  sed -E 's/.*"run_id": "([^"]+)".*/\1/')
curl -sf "$url/_airlite/dags/example_bash_operator/dag_runs/$run_id/wait?timeout=60s" |
  grep -q '"state":"success"'
echo "example_bash_operator run $run_id succeeded"
