package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Error kinds. The API answers each with a status and {"error": message};
// the store's kinds (memstore_errors.go) are answered as storeKinds says.
var (
	errBadRequest = errors.New("bad request") // 400
	// errAirflow is an AirflowException Airflow answers with a JSON 500.
	errAirflow = errors.New("airflow exception")
	// errCrash is input on which Airflow raises an unhandled exception (an
	// HTML 500); airlite answers 500 too, in JSON, saying what was wrong.
	errCrash = errors.New("airflow crashes on this input")
	// errConflict is a row that cannot be created because its key is
	// taken (Airflow's AlreadyExists, 409).
	errConflict = errors.New("already exists")
)

// Limits on what a request may store, so that no client can grow the
// store without bound through one field. Airflow has none of these (its
// database columns have sizes); each answers a 400 that names the limit.
const (
	maxConfBytes            = 64 << 10 // a run's conf, serialized compactly
	maxPoolNameChars        = 256      // Airflow 2's own check, applied to 1.10 too
	maxPoolDescriptionBytes = 4 << 10
	maxRunIDChars           = 250 // Airflow's ID_LEN, the run_id column's size
)

// apiError carries Airflow's message text and an error kind.
type apiError struct {
	kind error
	msg  string
	data map[string]any // more fields for an admin answer (answerError)
}

func (e *apiError) Error() string { return e.msg }
func (e *apiError) Unwrap() error { return e.kind }

func newAPIError(kind error, format string, args ...any) error {
	return &apiError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// airflowAPI is the logic behind the experimental API's endpoints, one
// method per endpoint, free of HTTP so that tests can call it directly.
// It reads the wire and renders answers; what a request does is the
// operations' (the server's one value, shared with /api/v1, the admin
// endpoints and the status page).
type airflowAPI struct {
	ops *operations
	// phrases is this API's phrasebook under the edition, made once.
	phrases phrasebook
}

// newAirflowAPI is the experimental API over ops.
func newAirflowAPI(ops *operations) *airflowAPI {
	return &airflowAPI{ops: ops, phrases: expPhrases(ops.rules())}
}

// rules is the row of the rules table that the methods read.
func (a *airflowAPI) rules() *editionRules { return a.ops.rules() }

// dagDefinition applies Airflow's check_and_get_dag: the DagModel row, then
// the loaded definition.
func (a *airflowAPI) dagDefinition(dagID string) (*DagRow, error) {
	row, err := a.ops.dagDefinition(dagID)
	return row, a.phrase(err)
}

func badDateError(raw string) error {
	return newAPIError(errBadRequest,
		"Given execution date, %s, could not be identified as a date. Example date format: 2015-11-16T14:34:15+00:00", raw)
}

func (a *airflowAPI) parseDate(raw string) (time.Time, error) {
	t, err := parseAirflowDate(raw, a.ops.now())
	if err != nil {
		return time.Time{}, badDateError(raw)
	}
	return t, nil
}

// runAt finds the run of a DAG at a requested date, with Airflow's message.
func (a *airflowAPI) runAt(dagID string, date time.Time) (*DagRun, error) {
	run, err := a.ops.runAt(dagID, date)
	return run, a.phrase(err)
}

// decodeObject reads a request body as a JSON object, keeping each value
// raw so that presence, null and type can be told apart as Python does.
func decodeObject(body []byte) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, newAPIError(errBadRequest, "request body is empty: send a JSON object")
	}
	// Flask refuses a body that does not decode as UTF-8 with a 400;
	// Go's decoder would quietly replace the bad bytes.
	if !json.Valid(trimmed) || !utf8.Valid(trimmed) {
		return nil, newAPIError(errBadRequest, "request body is not valid JSON")
	}
	if trimmed[0] != '{' {
		return nil, newAPIError(errCrash, "request body must be a JSON object, got %s", jsonKind(trimmed))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return nil, newAPIError(errBadRequest, "request body is not valid JSON: %v", err)
	}
	return fields, nil
}

// jsonKind names the JSON type of a raw value.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// isFalsy is Python truthiness of a decoded JSON value.
func isFalsy(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	if len(s) < 2 {
		return len(s) == 1 && s[0] == '0' // the only one-byte falsy value
	}
	// raw is valid JSON (a field of a decoded body): its first byte says
	// its type, and an empty object or array is its brackets alone. A
	// trigger used to decode conf just to see that it was not empty.
	switch s[0] {
	case 'n':
		return string(s) == "null"
	case 'f':
		return string(s) == "false"
	case 't':
		return false
	case '"':
		return len(s) == 2
	case '{', '[':
		return len(bytes.TrimSpace(s[1:len(s)-1])) == 0
	}
	f, err := strconv.ParseFloat(string(s), 64)
	return err == nil && f == 0
}

// parseFlag is Airflow's to_boolean of replace_microseconds: a string is
// true when its lower case is one of the true-like words (the rules'
// flagTrue); null is false in Airflow 2; anything else makes Airflow call
// .lower() on a non-string and crash.
func (a *airflowAPI) parseFlag(raw json.RawMessage) (bool, error) {
	rules := a.rules()
	if isNull(raw) && rules.nullFlagFalse {
		return false, nil
	}
	var s string
	// json.Unmarshal takes null into a string without error: 1.10 crashes
	// on None.lower(), so null must not pass here.
	if err := json.Unmarshal(raw, &s); err != nil || isNull(raw) {
		return false, newAPIError(errCrash, "replace_microseconds must be a string such as \"true\" or \"false\", got %s", jsonKind(raw))
	}
	return slices.Contains(rules.flagTrue, strings.ToLower(s)), nil
}

// runIDPatterns are Airflow 2's [scheduler] allowed_run_id_pattern default
// and its built-in pattern.
const (
	allowedRunIDPattern = `^[A-Za-z0-9_.~:+-]+$`
	builtinRunIDPattern = `^(?:manual|scheduled|dataset_triggered)__(?:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00)$`
)

var (
	allowedRunIDRe = regexp.MustCompile(allowedRunIDPattern)
	builtinRunIDRe = regexp.MustCompile(builtinRunIDPattern)
)

// runTypeOf infers a run's type from its run_id prefix, as Airflow does.
func runTypeOf(runID string) string {
	for _, t := range []string{"manual", "scheduled", "backfill", "dataset_triggered"} {
		if strings.HasPrefix(runID, t+"__") {
			return t
		}
	}
	return "manual"
}

// triggerKeys are the fields Airflow's trigger_dag looks for, in the order
// it tests them with Python's `in`.
var triggerKeys = []string{"run_id", "conf", "execution_date", "replace_microseconds"}

// decodeTriggerBody reads a trigger body as Airflow's trigger_dag does: it
// tests `key in data` for each of triggerKeys on whatever JSON the body
// holds, then reads data[key] for the keys found. On an object that is a
// field lookup. On a string `in` finds a substring and on an array an
// element equal to the key; a key found there cannot be looked up (Python
// raises TypeError, a 500), and a string or array without any of the keys
// is a trigger with every default. On a number, a boolean or null, `in`
// itself raises TypeError.
func decodeTriggerBody(body []byte) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] == '{' || !json.Valid(trimmed) || !utf8.Valid(trimmed) {
		return decodeObject(body)
	}
	switch trimmed[0] {
	case '"':
		var s string
		if err := json.Unmarshal(trimmed, &s); err != nil {
			return nil, newAPIError(errBadRequest, "request body is not valid JSON: %v", err)
		}
		for _, key := range triggerKeys {
			if strings.Contains(s, key) {
				return nil, newAPIError(errCrash,
					"request body is a string that contains %q, which Airflow then looks up as a field of a string: send a JSON object", key)
			}
		}
		return map[string]json.RawMessage{}, nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return nil, newAPIError(errBadRequest, "request body is not valid JSON: %v", err)
		}
		for _, key := range triggerKeys {
			for _, item := range items {
				var s string
				if jsonKind(item) == "a string" && json.Unmarshal(item, &s) == nil && s == key {
					return nil, newAPIError(errCrash,
						"request body is an array holding %q, which Airflow then looks up as a field of a list: send a JSON object", key)
				}
			}
		}
		return map[string]json.RawMessage{}, nil
	}
	return nil, newAPIError(errCrash, "request body must be a JSON object, got %s", jsonKind(trimmed))
}

// TriggerDAG is POST /dags/<dag_id>/dag_runs (docs/behaviour.md §3.1):
// the body read as trigger_dag reads it, then the operations' trigger.
func (a *airflowAPI) TriggerDAG(dagID string, body []byte) (map[string]any, error) {
	req, dateGiven, err := a.triggerRequest(dagID, body)
	if err != nil {
		return nil, err
	}
	done, err := a.ops.trigger(req)
	if err != nil {
		return nil, a.phrase(err)
	}
	return map[string]any{
		"execution_date": isoFormat(done.date),
		"message":        a.rules().triggerMessage(done.run, done.date, dateGiven),
		"run_id":         done.run.RunID,
	}, nil
}

// triggerRequest reads a trigger body: what the wire refuses is refused
// here, in trigger_dag's order; what trigger_dag finds wrong only later
// (an unreadable run id or conf) travels in the request.
func (a *airflowAPI) triggerRequest(dagID string, body []byte) (req triggerRequest, dateGiven bool, err error) {
	fields, err := decodeTriggerBody(body)
	if err != nil {
		return req, false, err
	}
	rules := a.rules()
	confRaw, confGiven := fields["conf"]
	conf, badConf, err := triggerConfOf(rules, confRaw, confGiven)
	if err != nil {
		return req, false, err
	}
	var date time.Time
	if raw, ok := fields["execution_date"]; ok && !isNull(raw) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return req, false, newAPIError(errCrash, "execution_date must be a string, got %s", jsonKind(raw))
		}
		if date, err = a.parseDate(s); err != nil {
			return req, false, err
		}
		dateGiven = true
	}
	replaceMicros := !dateGiven
	if raw, ok := fields["replace_microseconds"]; ok {
		if replaceMicros, err = a.parseFlag(raw); err != nil {
			return req, false, err
		}
	}
	req = triggerRequest{dagID: dagID, dateUnit: time.Microsecond, checks: triggerDagChecks(rules), conf: conf, badConf: badConf}
	if replaceMicros {
		req.dateUnit = time.Second
	}
	if dateGiven {
		if replaceMicros {
			date = date.Truncate(time.Second)
		}
		req.date = &date
	}
	if raw, ok := fields["run_id"]; ok && !isFalsy(raw) {
		if err := json.Unmarshal(raw, &req.runID); err != nil {
			req.badRunID = newAPIError(errCrash, "run_id must be a string, got %s", jsonKind(raw))
		}
	}
	return req, dateGiven, nil
}

// triggerConfOf reads a trigger's conf as trigger_dag does: what it
// refuses at once (a conf that is no object where the rules want one, a
// conf too large) is err; what it finds wrong only after the duplicate
// check is late.
func triggerConfOf(rules *editionRules, raw json.RawMessage, given bool) (conf json.RawMessage, late, err error) {
	if given && rules.confObjectOnly && jsonKind(raw) != "an object" {
		return nil, nil, newAPIError(errBadRequest, "Dag Run conf must be a dictionary object, other types are not supported")
	}
	if given {
		// Compacted once, here, so that the size limit holds before any
		// other check; triggerConf stores it as it is.
		if raw, err = compactConf(raw); err != nil {
			return nil, nil, err
		}
	}
	conf, late = triggerConf(rules, raw, given)
	return conf, late, nil
}

// triggerConf turns the request's conf into what the run stores: the
// rules' empty conf for a falsy one ({} in Airflow 2, null in 1.10), an
// object as it is, and, where the rules decode one (1.10), a string
// holding JSON (the form the 1.10 docs show); anything else crashes 1.10's
// JSON parser (Airflow 2 refused it before, in TriggerDAG).
func triggerConf(rules *editionRules, raw json.RawMessage, given bool) (json.RawMessage, error) {
	if !given || isFalsy(raw) {
		return rules.emptyConf, nil
	}
	switch jsonKind(raw) {
	case "an object":
		return raw, nil // compacted by TriggerDAG
	case "a string":
		if !rules.confString {
			break
		}
		var s string
		_ = json.Unmarshal(raw, &s) // a valid JSON string always decodes
		if !json.Valid([]byte(s)) {
			return nil, newAPIError(errCrash, "conf is a string that does not hold valid JSON: %q", s)
		}
		return compactConf(json.RawMessage(s))
	}
	return nil, newAPIError(errCrash, "conf must be an object or a string holding JSON, got %s", jsonKind(raw))
}

// compactConf is a conf as stored: compact JSON of at most maxConfBytes.
func compactConf(raw json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, newAPIError(errBadRequest, "conf is not valid JSON: %v", err)
	}
	if b.Len() > maxConfBytes {
		return nil, newAPIError(errBadRequest, "Dag Run conf is too large: %d bytes serialized, the limit is %d", b.Len(), maxConfBytes)
	}
	return json.RawMessage(b.Bytes()), nil
}

// DagRuns is GET /dags/<dag_id>/dag_runs (docs/behaviour.md §3.2). Every Airflow error
// is a 400 here, as in Airflow.
func (a *airflowAPI) DagRuns(dagID, stateParam string) (pyList, error) {
	if _, err := a.dagDefinition(dagID); err != nil {
		var apiErr *apiError
		if errors.As(err, &apiErr) {
			return pyList{}, newAPIError(errBadRequest, "%s", apiErr.msg)
		}
		return pyList{}, err
	}
	rules := a.rules()
	state := RunState(strings.ToLower(stateParam))
	if state != "" && rules.checkStateFilter {
		switch state {
		case RunQueued, RunRunning, RunSuccess, RunFailed:
		default:
			return pyList{}, newAPIError(errCrash, "'%s' is not a valid DagRunState", state)
		}
	}
	q := runQuery{dagIDs: []string{dagID}, orderBy: "execution_date", limit: math.MaxInt}
	if state != "" {
		q.states = []string{string(state)}
	}
	runs, _, err := a.ops.listRuns(&q)
	if err != nil {
		return pyList{}, err
	}
	// Rows are built as they are written: the listing holds the stored
	// runs (shared, never changed), not a copy of each as JSON fields.
	return pyList{n: len(runs), item: func(i int) any {
		run := runs[i]
		return pyObject{ // keys in sorted order
			{"dag_id", run.DagID},
			{"dag_run_url", rules.dagRunURL(run.DagID, run.ExecutionDate)},
			{"execution_date", isoFormat(run.ExecutionDate)},
			{"id", run.ID},
			{"run_id", run.RunID},
			{"start_date", optISO(run.StartDate)},
			{"state", string(run.State)},
		}
	}}, nil
}

// optISO renders an optional date as Airflow's listings do: "" when absent.
func optISO(t *time.Time) string {
	if t == nil {
		return ""
	}
	return isoFormat(*t)
}

// runOfDate applies Airflow's order for endpoints that name a run by its
// date: parse the date (400), find the DAG (404s), find the run (404).
func (a *airflowAPI) runOfDate(dagID, rawDate string) (*DagRun, error) {
	date, err := a.parseDate(rawDate)
	if err != nil {
		return nil, err
	}
	if _, err := a.dagDefinition(dagID); err != nil {
		return nil, err
	}
	return a.runAt(dagID, date)
}

// DagRunState is GET /dags/<dag_id>/dag_runs/<execution_date> (docs/behaviour.md §3.3).
func (a *airflowAPI) DagRunState(dagID, rawDate string) (map[string]any, error) {
	run, err := a.runOfDate(dagID, rawDate)
	if err != nil {
		return nil, err
	}
	return map[string]any{"state": string(run.State)}, nil
}

// TaskInstanceInfo is GET /dags/<dag_id>/dag_runs/<execution_date>/tasks/<task_id>
// (docs/behaviour.md §3.4).
func (a *airflowAPI) TaskInstanceInfo(dagID, rawDate, taskID string) (pyObject, error) {
	date, err := a.parseDate(rawDate)
	if err != nil {
		return nil, err
	}
	row, err := a.dagDefinition(dagID)
	if err != nil {
		return nil, err
	}
	if row.Def.Task(taskID) == nil {
		return nil, newAPIError(errNotFound, "Task %s not found in dag %s", taskID, dagID)
	}
	run, err := a.runAt(dagID, date)
	if err != nil {
		return nil, err
	}
	ti, err := a.ops.runTaskInstance(run, taskID)
	rules := a.rules()
	if errors.Is(err, errNotFound) {
		return nil, newAPIError(errNotFound, "Task %s instance for date %s not found", taskID, rules.errorDate(date))
	}
	if err != nil {
		return nil, err
	}
	return rules.taskInstanceInfo(ti, run), nil
}

// TaskInfo is GET /dags/<dag_id>/tasks/<task_id> (docs/behaviour.md §3.5).
func (a *airflowAPI) TaskInfo(dagID, taskID string) (map[string]any, error) {
	row, err := a.dagDefinition(dagID)
	if err != nil {
		return nil, err
	}
	t := row.Def.Task(taskID)
	if t == nil {
		return nil, newAPIError(errNotFound, "Task %s not found in dag %s", taskID, dagID)
	}
	return a.rules().taskInfo(row.Def, t), nil
}

// DagCode is GET /dags/<dag_id>/code (docs/behaviour.md §3.6): the .py file beside the
// definition, or the definition rendered as Airflow-style Python.
func (a *airflowAPI) DagCode(dagID string) (string, error) {
	row, err := a.dagDefinition(dagID)
	if err != nil {
		return "", err
	}
	if row.Def.SourceCode != "" {
		return row.Def.SourceCode, nil
	}
	return renderPython(row.Def, a.rules().python), nil
}

// SetPaused is GET /dags/<dag_id>/paused/<paused> (docs/behaviour.md §3.7): exactly
// "true" pauses, anything else unpauses. An unknown DAG crashes Airflow.
func (a *airflowAPI) SetPaused(dagID, paused string) (map[string]any, error) {
	if err := a.ops.pauseDag(dagID, paused == "true"); err != nil {
		return nil, expPausePhrases.phrase(err)
	}
	return map[string]any{"response": "ok"}, nil
}

// IsPaused is GET /dags/<dag_id>/paused (docs/behaviour.md §3.8).
func (a *airflowAPI) IsPaused(dagID string) (map[string]any, error) {
	row, err := a.ops.dagRow(dagID)
	if err != nil {
		// Airflow reads the DagModel row without a check, as the pause
		// endpoint does.
		return nil, expPausePhrases.phrase(err)
	}
	return map[string]any{"is_paused": row.IsPaused}, nil
}

// DeleteDag is DELETE /dags/<dag_id> (docs/behaviour.md §3.9). Airflow 2 refuses while
// a task instance of the DAG is running.
func (a *airflowAPI) DeleteDag(dagID string) (map[string]any, error) {
	count, err := a.ops.deleteDag(dagID)
	if errors.Is(err, errNotFound) {
		// delete_dag's DagNotFound, not check_and_get_dag's.
		return nil, newAPIError(errNotFound, "Dag id %s not found", dagID)
	}
	if err != nil {
		return nil, a.phrase(err)
	}
	return map[string]any{"count": count, "message": fmt.Sprintf("Removed %d record(s)", count)}, nil
}

// LatestRuns is GET /latest_runs (docs/behaviour.md §3.10).
func (a *airflowAPI) LatestRuns() (map[string]any, error) {
	runs, err := a.ops.latestRuns()
	if err != nil {
		return nil, err
	}
	rules := a.rules()
	items := make([]pyObject, len(runs))
	for i, run := range runs {
		items[i] = pyObject{ // keys in sorted order
			{"dag_id", run.DagID},
			{"dag_run_url", rules.dagRunURL(run.DagID, run.ExecutionDate)},
			{"execution_date", isoFormat(run.ExecutionDate)},
			{"start_date", optISO(run.StartDate)},
		}
	}
	return map[string]any{"items": items}, nil
}

// Pools is GET /pools (docs/behaviour.md §3.11), by name.
func (a *airflowAPI) Pools() ([]map[string]any, error) {
	pools, err := a.ops.pools(listQuery{})
	if err != nil {
		return nil, a.phrase(err)
	}
	rules := a.rules()
	items := make([]map[string]any, len(pools.rows))
	for i, p := range pools.rows {
		items[i] = rules.poolJSON(p.Pool)
	}
	return items, nil
}

// Pool is GET /pools/<name>.
func (a *airflowAPI) Pool(name string) (map[string]any, error) {
	if err := checkPoolName(name); err != nil {
		return nil, a.phrase(err)
	}
	p, err := a.ops.pool(name)
	if err != nil {
		return nil, a.phrase(err)
	}
	return a.rules().poolJSON(p.Pool), nil
}

// CreatePool is POST /pools: exactly name, slots and description, then
// Airflow's checks in Airflow's order; an existing pool is updated.
func (a *airflowAPI) CreatePool(body []byte) (map[string]any, error) {
	fields, err := decodeObject(body)
	if err != nil {
		return nil, err
	}
	for key := range fields {
		if key != "name" && key != "slots" && key != "description" {
			return nil, newAPIError(errCrash, "unexpected key %q: a pool body has exactly name, slots and description", key)
		}
	}
	for _, key := range []string{"name", "slots", "description"} {
		if _, ok := fields[key]; !ok {
			return nil, newAPIError(errCrash, "missing key %q: a pool body has exactly name, slots and description", key)
		}
	}
	var name string
	if !isNull(fields["name"]) {
		if err := json.Unmarshal(fields["name"], &name); err != nil {
			return nil, newAPIError(errCrash, "name must be a string, got %s", jsonKind(fields["name"]))
		}
	}
	if err := checkPoolName(name); err != nil {
		return nil, a.phrase(err)
	}
	slots, err := poolSlots(fields["slots"])
	if err != nil {
		return nil, err
	}
	if err := checkPoolNameLength(name); err != nil {
		return nil, a.phrase(err)
	}
	var description *string
	if raw := fields["description"]; !isNull(raw) {
		var d string
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, newAPIError(errCrash, "description must be a string or null, got %s", jsonKind(raw))
		}
		description = &d
	}
	p, err := a.ops.putPool(name, slots, description)
	if err != nil {
		return nil, a.phrase(err)
	}
	return a.rules().poolJSON(p), nil
}

// poolSlots is Python's int() of the slots value: integers, numeric
// strings (surrounding spaces allowed), floats truncated, booleans as 0/1.
func poolSlots(raw json.RawMessage) (int64, error) {
	v, err := decodeJSONValue(raw)
	if err != nil {
		return 0, newAPIError(errBadRequest, "Bad value for `slots`: %s", raw)
	}
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || f >= 1<<63 || f < -(1<<63) {
			return 0, newAPIError(errBadRequest, "Bad value for `slots`: %s", x)
		}
		return int64(f), nil
	case string:
		if !pyIntRe.MatchString(x) {
			return 0, newAPIError(errBadRequest, "Bad value for `slots`: %s", x)
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(x), "_", ""), 10, 64)
		if err != nil {
			return 0, newAPIError(errBadRequest, "Bad value for `slots`: %s", x)
		}
		return n, nil
	}
	return 0, newAPIError(errCrash, "slots must be an integer or a string holding one, got %s", jsonKind(raw))
}

// pyIntRe is the text Python's int() accepts: spaces around, a sign, digits
// with single underscores between them.
var pyIntRe = regexp.MustCompile(`^\s*[+-]?\d+(?:_\d+)*\s*$`)

// DeletePool is DELETE /pools/<name>: the deleted pool as it was.
func (a *airflowAPI) DeletePool(name string) (map[string]any, error) {
	if err := checkPoolName(name); err != nil {
		return nil, a.phrase(err)
	}
	p, err := a.ops.deletePool(name)
	if err != nil {
		return nil, a.phrase(err)
	}
	return a.rules().poolJSON(p), nil
}

// Lineage is GET /lineage/<dag_id>/<execution_date> (docs/behaviour.md §3.14).
func (a *airflowAPI) Lineage(dagID, rawDate string) (map[string]any, error) {
	run, err := a.runOfDate(dagID, rawDate)
	if err != nil {
		return nil, err
	}
	recs, err := a.ops.lineage(run)
	if err != nil {
		return nil, err
	}
	tasks := map[string]any{}
	for _, rec := range recs {
		entry := map[string]any{}
		if rec.Inlets != nil {
			entry["inlets"] = rec.Inlets
		}
		if rec.Outlets != nil {
			entry["outlets"] = rec.Outlets
		}
		if len(entry) > 0 {
			tasks[rec.TaskID] = entry
		}
	}
	return map[string]any{"task_ids": tasks}, nil
}
