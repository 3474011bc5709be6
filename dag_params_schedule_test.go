package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScheduleParams_ImportErrors: a DAG that can be scheduled (a cron
// expression, a duration, assets) must resolve its params without a
// conf, or its file is an import error and the DAG is not loaded (2.10.3
// models/dag.py validate_schedule_and_params:3712-3727 from
// DAG.__init__:776; Airflow 3's params validator, task-sdk
// definitions/dag.py:584-600 of c57fba0e). A Python DAG with a param
// without a default fails as it is made: the traceback Airflow records,
// the ParamValidationError as the cause. A default its schema refuses is
// found once the DAG is read: DagBag's "{type}: {message}" (dagbag.py:
// 485). A definition file names the line and the cause. A DAG without a
// schedule loads whatever its params. Airflow 3's Param refuses a
// default JSON cannot hold as it is made; 2.10.3 loads it.
func TestScheduleParams_ImportErrors(t *testing.T) {
	t.Parallel()
	const (
		text2 = "DAG is not allowed to define a Schedule, if there are any required params without default values or default values are not valid."
		cause = "Invalid input for param rows: No value passed and Param has no default value"
		minim = "Invalid input for param rows: 2 is less than the minimum of 3\n\nFailed validating 'minimum' in schema:\n" +
			"    {'type': 'integer', 'minimum': 3}\n\nOn instance:\n    2"
	)
	text3 := func(dagID string) string {
		return "Dag '" + dagID + "' is not allowed to define a Schedule, as there are required params without default values, or the default values are not valid."
	}
	dir, _ := filepath.Abs("testdata/pydags/params_scheduled")
	for _, tc := range []struct {
		e       edition
		loaded  []string
		texts   map[string]string // file: the whole text, or (traceback) its last line
		causes  map[string]string // file: a line the traceback holds
		tracebk []string
	}{
		{
			e:      edition2,
			loaded: []string{"not_json", "sched_ok", "unsched_invalid", "yaml_unsched_required"},
			texts: map[string]string{
				"required.py":        "airflow.exceptions.AirflowException: " + text2,
				"default_args.py":    "airflow.exceptions.AirflowException: " + text2,
				"invalid.py":         "AirflowException: " + text2,
				"yaml_required.yaml": filepath.Join(dir, "yaml_required.yaml") + ": line 6: params: rows: " + text2 + " (" + cause + ")",
				"yaml_invalid.yaml":  filepath.Join(dir, "yaml_invalid.yaml") + ": line 5: params: rows: " + text2 + " (" + minim + ")",
				"yaml_assets.yaml":   filepath.Join(dir, "yaml_assets.yaml") + ": line 5: params: rows: " + text2 + " (" + cause + ")",
			},
			causes:  map[string]string{"required.py": "airflow.exceptions.ParamValidationError: " + cause, "default_args.py": "airflow.exceptions.ParamValidationError: " + cause},
			tracebk: []string{"required.py", "default_args.py"},
		},
		{
			e:      edition3,
			loaded: []string{"sched_ok", "unsched_invalid", "yaml_unsched_required"},
			texts: map[string]string{
				"required.py":        "ValueError: " + text3("sched_required"),
				"default_args.py":    "ValueError: " + text3("sched_default_args"),
				"invalid.py":         "ValueError: " + text3("sched_invalid"),
				"not_json.py":        "airflow.sdk.exceptions.ParamValidationError: All provided parameters must be json-serializable. The value '2024-01-01' is not serializable.",
				"yaml_required.yaml": filepath.Join(dir, "yaml_required.yaml") + ": line 6: params: rows: " + text3("yaml_sched_required") + " (" + cause + ")",
				"yaml_invalid.yaml":  filepath.Join(dir, "yaml_invalid.yaml") + ": line 5: params: rows: " + text3("yaml_sched_invalid") + " (" + minim + ")",
				"yaml_assets.yaml":   filepath.Join(dir, "yaml_assets.yaml") + ": line 5: params: rows: " + text3("yaml_sched_assets") + " (" + cause + ")",
			},
			causes:  map[string]string{"required.py": "airflow.sdk.exceptions.ParamValidationError: " + cause},
			tracebk: []string{"required.py", "default_args.py", "not_json.py"},
		},
	} {
		t.Run(string(tc.e), func(t *testing.T) {
			t.Parallel()
			set := readPyServeFolderAs(t, "testdata/pydags/params_scheduled", tc.e)
			var loaded []string
			for _, d := range set.DAGs {
				loaded = append(loaded, d.DagID)
			}
			if !slices.Equal(loaded, tc.loaded) {
				t.Errorf("loaded %v, want %v", loaded, tc.loaded)
			}
			got := map[string]string{}
			for _, e := range set.ImportErrors {
				got[filepath.Base(e.File)] = e.Text
			}
			for file, want := range tc.texts {
				text, ok := got[file]
				if !ok {
					t.Errorf("%s: no import error, want %q", file, want)
					continue
				}
				if slices.Contains(tc.tracebk, file) {
					lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
					if !strings.HasPrefix(text, "Traceback (most recent call last):\n") || lines[len(lines)-1] != want {
						t.Errorf("%s: %q\nwant a traceback ending %q", file, text, want)
					}
					if c := tc.causes[file]; c != "" && (!strings.Contains(text, "\n"+c+"\n") ||
						!strings.Contains(text, "The above exception was the direct cause of the following exception:")) {
						t.Errorf("%s: %q\nwant the cause %q", file, text, c)
					}
					continue
				}
				if text != want {
					t.Errorf("%s:\n%s\nwant\n%s", file, text, want)
				}
			}
			if len(got) != len(tc.texts) {
				t.Errorf("import errors of %d files, want %d: %v", len(got), len(tc.texts), got)
			}
		})
	}
}
