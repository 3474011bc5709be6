package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// readFolderAs reads a folder of DAG files as airlite's start does (YAML,
// then Python) for edition e, its YAML files as read at now.
func readFolderAs(t *testing.T, e edition, files map[string]string, now time.Time) *DAGSet {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	logger := zerolog.New(zerolog.NewTestWriter(t))
	set, err := dagLoader{rules: e.rules(), tolerant: true, now: now}.loadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	store, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	if err := readPythonDAGs(t.Context(), config{DagsDir: dir, Edition: e, Python: "python3"}, store, set, logger); err != nil {
		t.Fatal(err)
	}
	if len(set.ImportErrors) > 0 {
		t.Fatalf("import errors: %+v", set.ImportErrors)
	}
	return set
}

// A stale DAG's kept definition builds the DAG its file built, whenever it
// is built again: a YAML file's days_ago counts from when the file was
// read, not from the restart; a Python file's serialized DAG builds the
// same tasks, its callables run from the folder the restart names.
// Editions 2 and 1.10 keep none: their stale DAGs lose their definition.
func TestKeptDefinition_BuildsTheSameDAG(t *testing.T) {
	t.Parallel()
	readAt := time.Date(2020, 6, 15, 12, 0, 0, 0, time.UTC)
	daysAgo := "dag_id: relative\nschedule: '@daily'\nstart_date: days_ago(3)\ntasks:\n" +
		"  - task_id: first\n    operator: BashOperator\n    bash_command: echo first\n"
	cases := []struct {
		name, file, text, dagID string
		e                       edition
		python                  bool
		wantKept                bool
		wantStart               time.Time
	}{
		{"yaml days_ago", "relative.yaml", daysAgo, "relative", edition3, false, true, time.Date(2020, 6, 12, 0, 0, 0, 0, time.UTC)},
		{"python", "gamma.py", staleV3PyDAG, "gamma", edition3, true, true, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		// allowed_run_types (Airflow 3.2) are part of the definition kept.
		{"yaml allowed_run_types", "relative.yaml", strings.Replace(daysAgo, "tasks:", "allowed_run_types: [scheduled, backfill]\ntasks:", 1),
			"relative", edition3, false, true, time.Date(2020, 6, 12, 0, 0, 0, 0, time.UTC)},
		{"python allowed_run_types", "gamma.py", strings.Replace(staleV3PyDAG, `tags=["py_tag"]`, `tags=["py_tag"], allowed_run_types=["manual"]`, 1),
			"gamma", edition3, true, true, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"yaml, edition 2", "relative.yaml", daysAgo, "relative", edition2, false, false, time.Time{}},
		{"yaml, edition 1.10", "relative.yaml", daysAgo, "relative", edition110, false, false, time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.python {
				requirePython(t)
			}
			set := readFolderAs(t, tc.e, map[string]string{tc.file: tc.text}, readAt)
			if len(set.DAGs) != 1 || set.DAGs[0].DagID != tc.dagID {
				t.Fatalf("read %d DAGs, want %s", len(set.DAGs), tc.dagID)
			}
			orig := set.DAGs[0]
			orig.ParsedAt, orig.ParseDuration = readAt.Add(time.Minute), 0.25 // as a reload sets them
			kept := keepDefinition(orig)
			if (kept != nil) != tc.wantKept {
				t.Fatalf("kept = %+v, want kept %v", kept, tc.wantKept)
			}
			if kept == nil {
				return
			}
			// Built with the folder and interpreter it was read with, it is
			// the same DAG (a callable's home is part of the hash).
			var folder, python string
			if tc.python {
				c := orig.Task("second").PythonCallable
				folder, python = c.Folder, c.Python
			}
			dag, err := kept.build(tc.e.rules(), orig.FilePath, folder, python)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dag.AllowedRunTypes, orig.AllowedRunTypes) || (strings.Contains(tc.text, "allowed_run_types") != (dag.AllowedRunTypes != nil)) {
				t.Errorf("allowed_run_types built again %q, read %q", dag.AllowedRunTypes, orig.AllowedRunTypes)
			}
			if got, want := dagHash(dag), dagHash(orig); got != want {
				t.Errorf("hash of the DAG built again %s, want its file's %s", got, want)
			}
			if dag.StartDate == nil || !dag.StartDate.Equal(tc.wantStart) {
				t.Errorf("start_date %v, want %v", dag.StartDate, tc.wantStart)
			}
			if dag.ParsedAt != orig.ParsedAt || dag.ParseDuration != orig.ParseDuration ||
				dag.SourceCode != orig.SourceCode || dag.RelativeFileloc != orig.RelativeFileloc || dag.FilePath != orig.FilePath {
				t.Errorf("built again: parsed %v %v, source %q, file %q %q; want %v %v, %q, %q %q",
					dag.ParsedAt, dag.ParseDuration, dag.SourceCode, dag.RelativeFileloc, dag.FilePath,
					orig.ParsedAt, orig.ParseDuration, orig.SourceCode, orig.RelativeFileloc, orig.FilePath)
			}
			if again := keepDefinition(dag); again == nil || !reflect.DeepEqual(again, kept) {
				t.Errorf("kept again %+v, want %+v", again, kept)
			}
			if tc.python {
				// A start that names another folder and interpreter runs
				// the callables from them, as a file read there would.
				elsewhere, err := kept.build(tc.e.rules(), orig.FilePath, "/elsewhere", "python-at-restart")
				if err != nil {
					t.Fatal(err)
				}
				want := PythonCallable{File: orig.FilePath, Folder: "/elsewhere", Python: "python-at-restart"}
				if c := elsewhere.Task("second").PythonCallable; c == nil || *c != want {
					t.Errorf("callable of second = %+v, want %+v", c, want)
				}
				if c := elsewhere.Task("first").PythonCallable; c != nil {
					t.Errorf("callable of the BashOperator first = %+v, want none", c)
				}
			}
		})
	}
}
