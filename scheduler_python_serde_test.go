package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// compactedJSON is raw JSON without insignificant space, for comparing a
// stored value (Python's json.dumps text) with an expected one.
func compactedJSON(t *testing.T, raw string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		t.Fatalf("compact %s: %v", raw, err)
	}
	return b.String()
}

// runServedPy triggers dagID of a served folder (run_id "r") and runs it
// to its end with the real scheduler.
func runServedPy(t *testing.T, e edition, dir, dagID string) *testServer {
	t.Helper()
	requirePython(t)
	set := readPyServeFolderAs(t, dir, e)
	if len(set.ImportErrors) > 0 {
		t.Fatalf("import errors: %+v", set.ImportErrors)
	}
	ts := newTestServer(t, e, withOptions(func(o *serverOptions) { o.DAGs = set }))
	sched := newScheduler(schedulerOptions{Store: ts.store, Edition: e, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: time.Now, Parallelism: 8, Unixname: testUnixname, Hostname: "test"})
	t.Cleanup(sched.stop)
	if e == edition3 {
		ts.v2(t, http.MethodPost, "/dags/"+dagID+"/dagRuns", `{"dag_run_id": "r", "logical_date": null}`, http.StatusOK)
	} else if res := ts.do(t, http.MethodPost, "/api/v1/dags/"+dagID+"/dagRuns", `{"dag_run_id": "r"}`, "Content-Type", "application/json"); res.status != http.StatusOK {
		t.Fatalf("trigger %s: %d %s", dagID, res.status, res.body)
	}
	settleUntil(t, sched, time.Now, func() bool {
		run, err := ts.store.RunByRunID(dagID, "r")
		return err == nil && run.State.Finished()
	})
	finishedRun(t, ts.store, dagID, "r")
	return ts
}

// TestPythonTask_SerdeForms3: in edition 3 a Python task's value is stored
// as 3.2.1's Task SDK writes it (task-sdk serde serialize: a tuple, set or
// frozenset as builtins.* version 1, a namedtuple as builtins.tuple, dates
// and datetimes version 2, Decimal version 1, dict keys as str), and read
// back as the objects by ti.xcom_pull and TaskFlow arguments (serde
// deserialize), by Jinja's ti.xcom_pull (str() of the objects), by a
// mapped task's expansion (over a tuple), and by /api/v2 (raw, and through
// stringify with deserialize=true).
func TestPythonTask_SerdeForms3(t *testing.T) {
	t.Parallel()
	ts := runServedPy(t, edition3, "testdata/pydags/serde3", "serde3")
	tz := func(class string) string {
		return `{"__classname__":"builtins.tuple","__version__":1,"__data__":["UTC","` + class + `",1,true]}`
	}
	for _, tc := range []struct{ task, key, want string }{
		{"make_tuple", xcomReturnKey, `{"__classname__":"builtins.tuple","__version__":1,"__data__":[1,2]}`},
		{"make_set", xcomReturnKey, `{"__classname__":"builtins.set","__version__":1,"__data__":[3]}`},
		{"make_dt", xcomReturnKey, `{"__classname__":"datetime.datetime","__version__":2,"__data__":{"timestamp":1704164645.0,"tz":` +
			tz("pendulum.tz.timezone.FixedTimezone") + `}}`},
		{"make_pendulum", xcomReturnKey, `{"__classname__":"pendulum.datetime.DateTime","__version__":2,"__data__":{"timestamp":1704164645.0,"tz":` +
			tz("pendulum.tz.timezone.Timezone") + `}}`},
		{"pushes", "pair", `{"__classname__":"builtins.tuple","__version__":1,"__data__":["a","b"]}`},
		{"read_back", xcomReturnKey, `"read"`},
	} {
		e, err := ts.store.XCom("serde3", "r", tc.task, tc.key, -1)
		if err != nil {
			t.Errorf("%s %s: %v (log: %s)", tc.task, tc.key, err, taskLogText(t, ts.store, "serde3", "r", tc.task))
			continue
		}
		if got := compactedJSON(t, string(e.Value)); got != tc.want {
			t.Errorf("%s %s stored %s, want %s", tc.task, tc.key, got, tc.want)
		}
	}
	mixed, err := ts.store.XCom("serde3", "r", "make_mixed", xcomReturnKey, -1)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(mixed.Value, &fields); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"1":      `"int key"`,
		"day":    `{"__classname__":"datetime.date","__version__":2,"__data__":"2024-01-02"}`,
		"span":   `{"__classname__":"datetime.timedelta","__version__":2,"__data__":3601.0}`,
		"dec":    `{"__classname__":"decimal.Decimal","__version__":1,"__data__":1.5}`,
		"whole":  `{"__classname__":"decimal.Decimal","__version__":1,"__data__":7}`,
		"frozen": `{"__classname__":"builtins.frozenset","__version__":1,"__data__":["f"]}`,
		"nested": `[{"__classname__":"builtins.tuple","__version__":1,"__data__":[1,"a"]}]`,
		"point":  `{"__classname__":"builtins.tuple","__version__":1,"__data__":[1,2]}`,
	} {
		if got := compactedJSON(t, string(fields[key])); got != want {
			t.Errorf("make_mixed[%q] stored %s, want %s", key, got, want)
		}
	}
	if got := compactedJSON(t, string(fields["naive"])); !strings.HasPrefix(got, `{"__classname__":"datetime.datetime","__version__":2,"__data__":{"timestamp":`) ||
		!strings.HasSuffix(got, `,"tz":null}}`) {
		t.Errorf("a naive datetime stored %s, want a timestamp and a null tz", got)
	}
	states := map[string]TaskState{}
	for id, rows := range rowsByTask(t, ts.store, "serde3", "r") {
		for _, ti := range rows {
			states[id] = ti.State
		}
	}
	for _, id := range []string{"read_back", "render", "show"} {
		if states[id] != TaskSuccess {
			t.Errorf("%s is %q, want success (log: %s)", id, states[id], taskLogText(t, ts.store, "serde3", "r", id))
		}
	}
	render, err := ts.store.XCom("serde3", "r", "render", xcomReturnKey, -1)
	if err != nil {
		t.Fatal(err)
	}
	const rendered = `"(1, 2)|{3}|2024-01-02 03:04:05+00:00|2024-01-02|1:00:01|1.5|[(1, 'a')]"`
	if string(render.Value) != rendered {
		t.Errorf("Jinja rendered %s, want %s", render.Value, rendered)
	}
	shown := rowsByTask(t, ts.store, "serde3", "r")["show"]
	if len(shown) != 2 {
		t.Fatalf("show expanded into %d instances over the tuple, want 2", len(shown))
	}
	for i, want := range []string{"1", "2"} {
		if got := mappedXCom(t, ts.store, "serde3", "r", "show", i); got != want {
			t.Errorf("show[%d] pushed %s, want %s", i, got, want)
		}
	}
	const entry = "/dags/serde3/dagRuns/r/taskInstances/make_tuple/xcomEntries/return_value"
	var native, deserialized struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal([]byte(ts.v2(t, http.MethodGet, entry, "", http.StatusOK).body), &native); err != nil {
		t.Fatal(err)
	}
	if got := compactedJSON(t, string(native.Value)); got != `{"__classname__":"builtins.tuple","__version__":1,"__data__":[1,2]}` {
		t.Errorf("the entry's value is %s, want the stored form", got)
	}
	if err := json.Unmarshal([]byte(ts.v2(t, http.MethodGet, entry+"?deserialize=true", "", http.StatusOK).body), &deserialized); err != nil {
		t.Fatal(err)
	}
	if string(deserialized.Value) != `"(1,2)"` {
		t.Errorf("deserialize=true shows %s, want stringify's \"(1,2)\"", deserialized.Value)
	}
	const dtEntry = "/dags/serde3/dagRuns/r/taskInstances/make_dt/xcomEntries/return_value?deserialize=true"
	if err := json.Unmarshal([]byte(ts.v2(t, http.MethodGet, dtEntry, "", http.StatusOK).body), &deserialized); err != nil {
		t.Fatal(err)
	}
	if want := `"datetime.datetime@version=2(timestamp=1704164645.0,tz=(UTC,pendulum.tz.timezone.FixedTimezone,1,True))"`; string(deserialized.Value) != want {
		t.Errorf("deserialize=true shows the datetime as %s, want %s", deserialized.Value, want)
	}
}

// TestPythonTask_UnmappablePushFailsUpstream: a value a mapped task
// cannot expand over fails the task that returned it (a Python callable,
// checked in its process, or a BashOperator, whose last line is a str,
// checked by airlite), and the mapped task is then upstream_failed. 3.2.1 checks before the push (task-sdk
// task_runner.py _push_xcom_if_needed: XComForMappingNotPushed for None,
// UnmappableXComTypePushed for what is no sequence or dict, nothing
// stored; the execution API's 400 for a length over [core]
// max_map_length, 1024). 2.10.3 pushes, then refuses
// (taskinstance.py _record_task_map_for_downstreams), the value kept.
func TestPythonTask_UnmappablePushFailsUpstream(t *testing.T) {
	t.Parallel()
	type upstream struct{ task, mapped, reason string }
	for _, tc := range []struct {
		name   string
		e      edition
		dir    string
		kept   bool
		checks []upstream
	}{
		{"edition 3", edition3, "testdata/pydags/mapfail", false, []upstream{
			{"a_set", "over_set", "UnmappableXComTypePushed: unmappable return type 'set'"},
			{"nothing", "over_nothing", "XComForMappingNotPushed: did not push XCom for task mapping"},
			{"too_long", "over_too_long", `AirflowRuntimeError: API_SERVER_ERROR: {'status_code': 400, 'message': 'Server returned error', ` +
				`'detail': {'detail': {'reason': 'unmappable_return_value_length', 'message': "pushed value is too large to map as a downstream's dependency"}}}`},
			{"bash_line", "over_bash", "UnmappableXComTypePushed: unmappable return type 'str'"},
		}},
		{"edition 2", edition2, "testdata/pydags/mapfail", true, []upstream{
			{"a_set", "over_set", "UnmappableXComTypePushed: unmappable return type 'set'"},
			{"nothing", "over_nothing", "XComForMappingNotPushed: did not push XCom for task mapping"},
			{"too_long", "over_too_long", "UnmappableXComLengthPushed: unmappable return value length: 1025 > 1024"},
			{"bash_line", "over_bash", "UnmappableXComTypePushed: unmappable return type 'str'"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := runServedPy(t, tc.e, tc.dir, "mapfail")
			byTask := rowsByTask(t, ts.store, "mapfail", "r")
			for _, c := range tc.checks {
				if up := byTask[c.task]; len(up) != 1 || up[0].State != TaskFailed {
					t.Errorf("%s: %d task instances (first %+v), want one failed", c.task, len(up), up)
				}
				if log := taskLogText(t, ts.store, "mapfail", "r", c.task); !strings.Contains(log, c.reason) {
					t.Errorf("%s's log lacks %q:\n%s", c.task, c.reason, log)
				}
				_, err := ts.store.XCom("mapfail", "r", c.task, xcomReturnKey, -1)
				if stored, want := err == nil, tc.kept && c.task != "nothing"; stored != want {
					t.Errorf("%s's return value stored: %v, want %v", c.task, stored, want)
				}
				if down := byTask[c.mapped]; len(down) != 1 || down[0].State != TaskUpstreamFailed {
					t.Errorf("%s: %d task instances, want one upstream_failed", c.mapped, len(down))
				}
			}
		})
	}
}

// taskLogText is every try's output of an unmapped task instance.
func taskLogText(t *testing.T, store *Store, dagID, runID, taskID string) string {
	t.Helper()
	l, err := store.TaskLogOf(tiKey{dagID, runID, taskID, -1})
	if err != nil || l == nil {
		return ""
	}
	var b strings.Builder
	for _, try := range l.Tries {
		b.WriteString(try.Output)
	}
	return b.String()
}

// TestPythonTask_XComEncoderForms2: edition 2 stores a task's value as
// 2.10.3's XComEncoder writes it (utils/json.py: a top-level tuple, all
// of it, and what json cannot write itself in serde's form, a tuple
// inside what json writes as json's list, json's own keys; a type serde has no serializer for in
// 2.10.3, a UUID, json's TypeError) and reads it back through
// XComDecoder: in the task and in Jinja.
func TestPythonTask_XComEncoderForms2(t *testing.T) {
	t.Parallel()
	ts := runServedPy(t, edition2, "testdata/pydags/serde2", "serde2")
	for task, want := range map[string]string{
		"make_tuple": `{"__classname__":"builtins.tuple","__version__":1,"__data__":[1,{"__classname__":"builtins.tuple","__version__":1,"__data__":[2,3]}]}`,
		"make_mixed": `{"set":{"__classname__":"builtins.set","__version__":1,"__data__":[3]},"nested":[[1,"a"]],` +
			`"when":{"__classname__":"datetime.datetime","__version__":2,"__data__":{"timestamp":1704164645.0,"tz":` +
			`{"__classname__":"builtins.tuple","__version__":1,"__data__":["UTC","pendulum.tz.timezone.FixedTimezone",1,true]}}},` +
			`"dec":{"__classname__":"decimal.Decimal","__version__":1,"__data__":1.5},"true":"bool key"}`,
		"read_back": `"read"`,
		"render":    `"(1, (2, 3))|{3}"`,
	} {
		e, err := ts.store.XCom("serde2", "r", task, xcomReturnKey, -1)
		if err != nil {
			t.Errorf("%s: %v (log: %s)", task, err, taskLogText(t, ts.store, "serde2", "r", task))
			continue
		}
		if got := compactedJSON(t, string(e.Value)); got != want {
			t.Errorf("%s stored %s, want %s", task, got, want)
		}
	}
	const refused = "TypeError: Object of type UUID is not JSON serializable"
	if log := taskLogText(t, ts.store, "serde2", "r", "make_uuid"); !strings.Contains(log, refused) {
		t.Errorf("make_uuid's log lacks %q:\n%s", refused, log)
	}
}
