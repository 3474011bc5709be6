#!/usr/bin/env bash
# Airflow 3's /api/v2 against airlite --edition 3: a token, a run without a
# logical date, its task instances and a log, a variable.
set -euo pipefail
AIRLITE_BIN=${AIRLITE_BIN:-airlite}
dir=$(mktemp -d)
echo 'ann:secret' > "$dir/users"
"$AIRLITE_BIN" --edition 3 --auth-backend simple_auth_manager --users "$dir/users" \
  --addr 127.0.0.1:0 --ready-file "$dir/url" --snapshot off 2>/dev/null &
pid=$!
trap 'kill "$pid"; wait "$pid" || true; rm -rf "$dir"' EXIT
for _ in $(seq 1000); do [ -s "$dir/url" ] && break; sleep 0.01; done
url=$(cat "$dir/url")

# 1. A token from the simple auth manager (201 {"access_token": "..."}).
token=$(curl -sf -X POST "$url/auth/token" -H 'Content-Type: application/json' \
  -d '{"username": "ann", "password": "secret"}' | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
api() { curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$@"; }

# 2. Trigger a run: logical_date is required, and may be null.
run_id=$(api -X POST "$url/api/v2/dags/example_bash_operator/dagRuns" \
  -d '{"logical_date": null, "conf": {"key": "value"}}' | sed -E 's/.*"dag_run_id":"([^"]+)".*/\1/')
echo "triggered $run_id"

# 3. Poll the run until it ends.
run_url="$url/api/v2/dags/example_bash_operator/dagRuns/$run_id"
for _ in $(seq 600); do
  state=$(api "$run_url" | sed -E 's/.*"state":"([a-z_]+)".*/\1/')
  case $state in success|failed) break ;; esac
  sleep 0.1
done
echo "run $run_id: $state"
[ "$state" = success ]

# 4. Its task instances, and the log of one try: structured lines as JSON
#    ({"content": [{"event": ...}, ...], "continuation_token": ...}).
api "$run_url/taskInstances" | grep -o '"task_id":"[a-z_0-9]*","dag_id":"example_bash_operator"' | sort
api "$run_url/taskInstances/runme_0/logs/1" | grep -o '"event":"example_bash_operator__runme_0__[^"]*"'

# 5. A variable: create it, read it back.
api -X POST "$url/api/v2/variables" -d '{"key": "env", "value": "staging"}' >/dev/null
api "$url/api/v2/variables/env" | grep -q '"value":"staging"'
echo "variable env = staging"
