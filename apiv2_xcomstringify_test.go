package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestV2StringifyXCom: 3.2.1's stringify (c57fba0e serialization/
// stringify.py) of what json.loads gives: JSON values as they are, serde's
// forms of a tuple, a set or a frozenset as "(a,b)", another class as
// "<class>@version=<n>(<data>)" (a datetime's data a dict, its tz serde's
// tuple; a timedelta's a number), the older {"__type", "__var"} form read
// as serde's with version 0 ("dict" as its data), an Airflow class left
// as it is, and what decode refuses an error (the route's 500).
func TestV2StringifyXCom(t *testing.T) {
	t.Parallel()
	const tuple = `{"__classname__": "builtins.tuple", "__version__": 1, "__data__": [1, "a", [2, 3], null, true, 2.0]}`
	const utc = `{"__classname__": "builtins.tuple", "__version__": 1, "__data__": ["UTC", "pendulum.tz.timezone.FixedTimezone", 1, true]}`
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{"plain values", `{"a": [1, 2.5, "x", null], "b": {"c": false}}`, `{"a":[1,2.5,"x",null],"b":{"c":false}}`, ""},
		{"tuple", tuple, `"(1,a,[2, 3],None,True,2.0)"`, ""},
		{"set", `{"__classname__": "builtins.set", "__version__": 1, "__data__": [3, 1]}`, `"(3,1)"`, ""},
		{"frozenset", `{"__classname__": "builtins.frozenset", "__version__": 1, "__data__": []}`, `"()"`, ""},
		{"nested in a dict and a list", `{"when": [` + tuple + `]}`, `{"when":["(1,a,[2, 3],None,True,2.0)"]}`, ""},
		{"datetime", `{"__classname__": "datetime.datetime", "__version__": 2, "__data__": {"timestamp": 1704067200.0, "tz": ` + utc + `}}`,
			`"datetime.datetime@version=2(timestamp=1704067200.0,tz=(UTC,pendulum.tz.timezone.FixedTimezone,1,True))"`, ""},
		{"naive datetime", `{"__classname__": "datetime.datetime", "__version__": 2, "__data__": {"timestamp": 1.5, "tz": null}}`,
			`"datetime.datetime@version=2(timestamp=1.5,tz=None)"`, ""},
		{"date", `{"__classname__": "datetime.date", "__version__": 2, "__data__": "2024-01-01"}`, `"datetime.date@version=2(2024-01-01)"`, ""},
		{"timedelta", `{"__classname__": "datetime.timedelta", "__version__": 2, "__data__": 90.0}`, `"datetime.timedelta@version=2(90.0)"`, ""},
		{"class with a list", `{"__classname__": "my.Cls", "__version__": 0, "__data__": [1, {"k": 2}]}`, `"my.Cls@version=0(1,{'k': 2})"`, ""},
		{"class without data", `{"__classname__": "my.Cls", "__version__": 3}`, `"my.Cls@version=3()"`, ""},
		{"version True is an int", `{"__classname__": "my.Cls", "__version__": true, "__data__": 1}`, `"my.Cls@version=True(1)"`, ""},
		{"older form", `{"__type": "timedelta", "__var": 30.0}`, `"timedelta@version=0(30.0)"`, ""},
		{"older dict", `{"__type": "dict", "__var": {"a": ` + tuple + `}}`, `{"a":"(1,a,[2, 3],None,True,2.0)"}`, ""},
		{"older form needs both keys", `{"__type": "x"}`, `{"__type":"x"}`, ""},
		{"classname alone is a dict", `{"__classname__": "builtins.tuple", "__data__": [1]}`, `{"__classname__":"builtins.tuple","__data__":[1]}`, ""},
		{"an Airflow class", `{"__classname__": "airflow.sdk.Asset", "__version__": 0, "__data__": {"name": "a"}}`,
			`{"__classname__":"airflow.sdk.Asset","__version__":0,"__data__":{"name":"a"}}`, ""},
		{"classname not a string", `{"__classname__": 1, "__version__": 1}`, "", "cannot decode"},
		{"version a float", `{"__classname__": "x", "__version__": 1.0}`, "", "cannot decode"},
		{"empty classname", `{"__classname__": "", "__version__": 1}`, "", "classname cannot be empty"},
		{"older dict of a list", `{"__type": "dict", "__var": [1]}`, "", "no dict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := decodePyJSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := v2DeserializedXCom(v)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out, err := v2PlainJSON(got); err != nil || string(out) != tc.want {
				t.Errorf("stringify = %s (%v), want %s", out, err, tc.want)
			}
		})
	}
}

// TestAPIv2_XComDeserializeStringifies: GET .../xcomEntries/{key} with
// deserialize=true answers stringify of json.loads' value (c57fba0e
// routes/public/xcom.py:104-126): a value PATCHed in serde's form (3.2.1's
// XComUpdateBody takes the reserved keys) reads as its text, str() of it
// with stringify=true; one serde cannot decode is a 500.
func TestAPIv2_XComDeserializeStringifies(t *testing.T) {
	t.Parallel()
	ts, sched := newSchedServer(t, edition3, tickDriven, withDAG(`
dag_id: v2stringify
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - {task_id: t, operator: PythonOperator, simulate: {xcom: {return_value: 1}}}
`))
	runID := v2Trigger(t, ts, "v2stringify", `{"logical_date": null}`)
	settleTicks(t, sched, time.Now)
	entry := "/api/v2/dags/v2stringify/dagRuns/" + runID + "/taskInstances/t/xcomEntries/return_value"
	for _, tc := range []struct {
		name, value, query string
		status             int
		want               string
	}{
		{"tuple", `{"__classname__": "builtins.tuple", "__version__": 1, "__data__": [1, "a"]}`, "?deserialize=true", 200, `"value":"(1,a)"`},
		{"set in a dict, stringify", `{"s": {"__classname__": "builtins.set", "__version__": 1, "__data__": [2]}}`,
			"?deserialize=true&stringify=true", 200, `"value":"{'s': '(2)'}"`},
		{"native read keeps the text", `{"__classname__": "builtins.tuple", "__version__": 1, "__data__": [1]}`, "", 200,
			`"value":"{\"__classname__\": \"builtins.tuple\", \"__version__\": 1, \"__data__\": [1]}"`},
		{"cannot decode", `{"__classname__": "", "__version__": 1}`, "?deserialize=true", 500, "Internal Server Error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := ts.do(t, http.MethodPatch, entry, `{"value": `+tc.value+`}`); res.status != 200 {
				t.Fatalf("patch = %d %s", res.status, res.body)
			}
			res := ts.do(t, http.MethodGet, entry+tc.query, "")
			if res.status != tc.status || !strings.Contains(res.body, tc.want) {
				t.Errorf("GET = %d %s\nwant %d with %s", res.status, res.body, tc.status, tc.want)
			}
		})
	}
}
