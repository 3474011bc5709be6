package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestV2RunAnswer_SameAsEncoder: renderV2Run writes the bytes
// encodeV2JSON writes for the same run, for every field set and unset,
// strings that need escapes, invalid UTF-8 and a conf with spaces.
func TestV2RunAnswer_SameAsEncoder(t *testing.T) {
	t.Parallel()
	at := func(s string) *v2When {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		w := v2When(tm)
		return &w
	}
	str := func(s string) *string { return &s }
	dur := v2PyFloat(12.5)
	version := v2DagVersion{ID: "0199a0b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b", VersionNumber: 3, DagID: "example_bash_operator",
		BundleName: str("dags-folder"), CreatedAt: *at("2026-01-02T03:04:05.123456Z"), DagDisplayName: "example_bash_operator"}
	full := v2DagRun{
		DagRunID: "manual__2026-01-01T00:00:00+00:00", DagID: "example_bash_operator",
		LogicalDate: at("2026-01-01T00:00:00Z"), QueuedAt: at("2026-01-01T00:00:00.5Z"), StartDate: at("2026-01-01T00:00:01Z"),
		EndDate: at("2026-01-01T00:00:02.000001Z"), Duration: &dur, DataIntervalStart: at("2025-12-31T00:00:00Z"),
		DataIntervalEnd: at("2026-01-01T00:00:00Z"), RunAfter: *at("2026-01-01T00:00:00Z"),
		LastSchedulingDecision: at("2026-01-01T00:00:03Z"), RunType: "manual", State: "queued",
		TriggeredBy: str("rest_api"), TriggeringUserName: str("admin"), Conf: json.RawMessage(`{"key": "value", "n": [1, 2.5e3]}`),
		Note: str("a note"), DagVersions: []any{version, version}, BundleVersion: str("v1"), DagDisplayName: "Example",
		PartitionKey: str("p1"),
	}
	for _, tc := range []struct {
		name string
		run  v2DagRun
	}{
		{"every field", full},
		{"none", v2DagRun{}},
		{"a trigger's", v2DagRun{DagRunID: "bench_1", DagID: "example_bash_operator", LogicalDate: at("2026-01-01T00:00:00Z"),
			QueuedAt: at("2026-11-29T01:02:03.456789Z"), RunAfter: *at("2026-01-01T00:00:00Z"), RunType: "manual", State: "queued",
			TriggeredBy: str("rest_api"), Conf: json.RawMessage(`{}`), DagVersions: []any{}, DagDisplayName: "example_bash_operator"}},
		{"escapes", v2DagRun{DagRunID: "quote\" back\\ tab\t nl\n <&> é \u2028 \x01", DagID: "d\x7f",
			Note: str("bad utf-8 \xff\xfe"), DagDisplayName: "日本", Conf: json.RawMessage(`{"html": "<b>&amp;</b>"}`),
			DagVersions: []any{v2DagVersion{DagDisplayName: "<x>", BundleURL: str("http://h/?a=1&b=2")}}}},
		{"another version form", v2DagRun{DagVersions: []any{map[string]any{"id": 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want bytes.Buffer
			if err := encodeV2JSON(&want, tc.run); err != nil {
				t.Fatal(err)
			}
			got, err := renderV2Run(&tc.run)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.body, want.Bytes()) {
				t.Errorf("renderV2Run:\n got %s\nwant %s", got.body, want.Bytes())
			}
		})
	}
	bad := v2DagRun{Conf: json.RawMessage(`{"a": `)}
	if _, err := renderV2Run(&bad); err == nil {
		t.Error("renderV2Run of a conf that is no JSON: no error")
	}
}

// TestV2RunAnswer_PooledBuffer: the trigger's answer is written from a
// pooled buffer that goes back to the pool once written: the answer
// written stays what it was when the buffer serves the next one.
func TestV2RunAnswer_PooledBuffer(t *testing.T) {
	t.Parallel()
	runs := []v2DagRun{
		{DagRunID: "first", DagID: "d", Conf: json.RawMessage(`{}`), DagVersions: []any{}},
		{DagRunID: "second_and_longer", DagID: "d", Conf: json.RawMessage(`{"k": "v"}`), DagVersions: []any{}},
	}
	var written [][]byte
	for _, run := range runs {
		rendered, err := renderV2Run(&run)
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		writeV2JSON(rec, httptest.NewRequest(http.MethodPost, "/", nil), http.StatusOK, rendered)
		written = append(written, rec.Body.Bytes())
	}
	for i, run := range runs {
		var want bytes.Buffer
		if err := encodeV2JSON(&want, run); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(written[i], want.Bytes()) {
			t.Errorf("answer %d:\n got %s\nwant %s", i, written[i], want.Bytes())
		}
	}
}

// TestV2InputJSON_SameAsMarshal: appendV2InputJSON writes what
// json.Marshal(v2Input(v)) writes for every kind of value a body decodes
// to.
func TestV2InputJSON_SameAsMarshal(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{"key": "value"}`, `{}`, `[]`, `null`, `true`, `false`, `"s"`, `0`, `-1.5e10`, `1E+2`, `12345678901234567890`,
		`{"a": {"b": [1, 2.50, {"c": null}], "d": true}, "e": []}`,
		`{"k": "v", "k": "w", "x": 1}`,
		`{"html": "<b>&amp;</b>", "quote": "\"\\/", "ctl": "\u0001\t\n", "uni": "é日本\u2028", "bad": "\udc00"}`,
		`{"<k>": "&"}`,
	} {
		v, err := decodePyJSON([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		want, err := json.Marshal(v2Input(v))
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendV2InputJSON(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", doc, got, want)
		}
	}
}

// TestV2RunNamed_ValuesBlock checks a run's answer built with its values
// in one block: a run with all six dates has each where it belongs, and
// triggered_by is the run's; two runs of one version share the version's
// list, which a different display name does not take.
func TestV2RunNamed_ValuesBlock(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition3)
	got, err := ts.srv.ops.trigger(triggerRequest{dagID: "example_bash_operator", dateUnit: time.Microsecond,
		triggeredBy: "rest_api", checks: triggerChecks{runIDPattern: true}, runID: "values_1"})
	if err != nil {
		t.Fatal(err)
	}
	day := func(d int) *time.Time { tm := time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC); return &tm }
	run := *got.run
	run.QueuedAt, run.StartDate, run.EndDate = day(2), day(3), day(4)
	run.DataIntervalStart, run.DataIntervalEnd = day(5), day(6)
	run.ExecutionDate = *day(7)
	out := ts.srv.v2RunNamed(&run, "shown")
	for name, c := range map[string]struct {
		at   *v2When
		want *time.Time
	}{
		"queued_at": {out.QueuedAt, run.QueuedAt}, "start_date": {out.StartDate, run.StartDate}, "end_date": {out.EndDate, run.EndDate},
		"data_interval_start": {out.DataIntervalStart, run.DataIntervalStart}, "data_interval_end": {out.DataIntervalEnd, run.DataIntervalEnd},
		"logical_date": {out.LogicalDate, day(7)},
	} {
		if c.at == nil || !time.Time(*c.at).Equal(*c.want) {
			t.Errorf("%s = %v, want %v", name, c.at, c.want)
		}
	}
	if out.TriggeredBy == nil || *out.TriggeredBy != "rest_api" {
		t.Errorf("triggered_by = %v, want rest_api", out.TriggeredBy)
	}
	if len(out.DagVersions) != 1 || out.DagVersions[0].(v2DagVersion).DagDisplayName != "shown" {
		t.Fatalf("dag_versions = %+v, want one version shown as %q", out.DagVersions, "shown")
	}
	again := ts.srv.v2RunNamed(&run, "shown")
	if &again.DagVersions[0] != &out.DagVersions[0] {
		t.Error("two answers of one version made two lists")
	}
	other := ts.srv.v2RunNamed(&run, "renamed")
	if other.DagVersions[0].(v2DagVersion).DagDisplayName != "renamed" {
		t.Errorf("another display name's list = %+v, want it shown as renamed", other.DagVersions)
	}
}
