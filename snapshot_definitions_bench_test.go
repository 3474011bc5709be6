package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
	"github.com/rs/zerolog"
)

// defsBenchDAGs is how many DAGs the definition benchmarks hold: 1,000,
// or 100 without AIRLITE_BENCH_FULL=1 (CI's -benchtime=1x smoke).
func defsBenchDAGs() int {
	if os.Getenv("AIRLITE_BENCH_FULL") == "1" {
		return 1_000
	}
	return 100
}

// defsBenchYAML is a YAML DAG of ten BashOperator tasks in a chain.
func defsBenchYAML(dagID string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "dag_id: %s\nschedule: \"@daily\"\nstart_date: 2024-01-01T00:00:00+00:00\ncatchup: false\n"+
		"tags: [bench, yaml]\ndefault_args:\n  owner: bench\n  retries: 1\ntasks:\n", dagID)
	for i := range 10 {
		fmt.Fprintf(&b, "  - task_id: task_%02d\n    operator: BashOperator\n    bash_command: echo %s task %d\n", i, dagID, i)
		if i > 0 {
			fmt.Fprintf(&b, "    upstream: [task_%02d]\n", i-1)
		}
	}
	return b.String()
}

// defsBenchPython is an Airflow 3 Python file of three DAGs, each of
// five BashOperators and five @task callables in a chain.
func defsBenchPython(file int) string {
	var b strings.Builder
	b.WriteString("import pendulum\nfrom airflow.sdk import DAG, task\nfrom airflow.providers.standard.operators.bash import BashOperator\n")
	for d := range 3 {
		fmt.Fprintf(&b, "\nwith DAG(dag_id=\"py_%04d_%d\", start_date=pendulum.datetime(2024, 1, 1, tz=\"UTC\"), schedule=\"@daily\", tags=[\"bench\"]):\n", file, d)
		b.WriteString("    prev = None\n    for i in range(5):\n")
		b.WriteString("        op = BashOperator(task_id=f\"bash_{i}\", bash_command=f\"echo {i}\")\n")
		b.WriteString("        if prev is not None:\n            prev >> op\n        prev = op\n")
		b.WriteString("    for i in range(5):\n")
		b.WriteString("        @task(task_id=f\"py_{i}\")\n        def step(n=i):\n            return n\n")
		b.WriteString("        op = step()\n        prev >> op\n        prev = op\n")
	}
	return b.String()
}

// defsBenchStore is an edition-3 store over a folder of n DAGs (YAML, or
// Python files of three DAGs each), read as a start reads it, each DAG
// with runs finished runs of ten task instances.
func defsBenchStore(b *testing.B, python bool, n, runs int) (*Store, config, *DAGSet) {
	b.Helper()
	dir := b.TempDir()
	if python {
		if _, err := exec.LookPath("python3"); err != nil {
			b.Skipf("no python3: %v", err)
		}
		for f := range (n + 2) / 3 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("py_%04d.py", f)), []byte(defsBenchPython(f)), 0o600); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		for i := range n {
			id := fmt.Sprintf("yaml_%04d", i)
			if err := os.WriteFile(filepath.Join(dir, id+".yaml"), []byte(defsBenchYAML(id)), 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	logger := zerolog.Nop()
	set, err := loadDAGSet(context.Background(), dir, edition3, logger)
	if err != nil {
		b.Fatal(err)
	}
	store, err := newStore()
	if err != nil {
		b.Fatal(err)
	}
	c := config{DagsDir: dir, Edition: edition3, Python: "python3"}
	if err := readPythonDAGs(context.Background(), c, store, set, logger); err != nil {
		b.Fatal(err)
	}
	if len(set.DAGs) < n {
		b.Fatalf("%d DAGs read, want %d", len(set.DAGs), n)
	}
	if err := store.LoadDAGs(set); err != nil {
		b.Fatal(err)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, d := range set.DAGs {
		err := store.update(func(txn *memdb.Txn) error {
			for i := range runs {
				id, err := nextCounter(txn, counterRunID)
				if err != nil {
					return err
				}
				date := base.Add(time.Duration(i) * 24 * time.Hour)
				start, end := date.Add(time.Second), date.Add(time.Minute)
				runID := "scheduled__" + isoFormat(date)
				run := &DagRun{ID: id, DagID: d.DagID, RunID: runID, ExecutionDate: date, State: RunSuccess,
					StartDate: &start, EndDate: &end, QueuedAt: &date, RunType: "scheduled"}
				if err := txn.Insert(tableDagRuns, run); err != nil {
					return err
				}
				for _, task := range d.Tasks {
					dur := 59.0
					ti := &TaskInstance{DagID: d.DagID, RunID: runID, TaskID: task.TaskID, ExecutionDate: date,
						State: TaskSuccess, TryNumber: 1, MaxTries: 1, StartDate: &start, EndDate: &end, Duration: &dur,
						Pool: defaultPoolName, PoolSlots: 1, Queue: "default", Operator: "BashOperator", Hostname: "host", Unixname: "airflow"}
					if err := putTaskInstancesTxn(txn, ti); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return store, c, set
}

// defsBenchCases are the definition benchmarks' states: YAML or Python
// DAGs, without runs or with ten runs each.
func defsBenchCases(fn func(name string, python bool, runs int)) {
	for _, python := range []bool{false, true} {
		for _, runs := range []int{0, 10} {
			kind := map[bool]string{false: "yaml", true: "python"}[python]
			fn(fmt.Sprintf("%s-%d-dags-%d-runs", kind, defsBenchDAGs(), runs), python, runs)
		}
	}
}

// definitionsBytes is the size of the definitions files beside path.
func definitionsBytes(b *testing.B, path string) int64 {
	b.Helper()
	files, err := filepath.Glob(path + definitionsInfix + "*")
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		n += info.Size()
	}
	return n
}

// BenchmarkSnapshotWriteDAGs writes the snapshot of a store of many
// edition-3 DAGs, without runs and with ten runs each: steady, the
// definitions unchanged since the last snapshot (the definitions file
// named again); changed, the definitions file written at each snapshot,
// as when the DAGs' definitions changed.
func BenchmarkSnapshotWriteDAGs(b *testing.B) {
	defsBenchCases(func(name string, python bool, runs int) {
		b.Run(name, func(b *testing.B) {
			store, _, _ := defsBenchStore(b, python, defsBenchDAGs(), runs)
			for _, changed := range []bool{false, true} {
				b.Run(map[bool]string{false: "steady", true: "changed"}[changed], func(b *testing.B) {
					path := filepath.Join(b.TempDir(), "snapshot.json")
					if _, err := writeSnapshot(store, path, time.Now()); err != nil {
						b.Fatal(err)
					}
					runtime.GC()
					var stats snapshotStats
					for b.Loop() {
						if changed {
							b.StopTimer()
							store.definitions = definitionsWritten{}
							for _, f := range mustGlob(b, path+definitionsInfix+"*") {
								if err := os.Remove(f); err != nil {
									b.Fatal(err)
								}
							}
							b.StartTimer()
						}
						var err error
						if stats, err = writeSnapshot(store, path, time.Now()); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(stats.Bytes)/1024, "file-KB")
					b.ReportMetric(float64(definitionsBytes(b, path))/1024, "defs-KB")
				})
			}
		})
	})
}

func mustGlob(b *testing.B, pattern string) []string {
	b.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkSnapshotRestoreDAGs restores the snapshot of a store of many
// edition-3 DAGs and starts over it as openStore does: files there, the
// DAGs read from them (what was kept is decoded, not built); files gone,
// every DAG built from what was kept, stale.
func BenchmarkSnapshotRestoreDAGs(b *testing.B) {
	defsBenchCases(func(name string, python bool, runs int) {
		b.Run(name, func(b *testing.B) {
			store, c, set := defsBenchStore(b, python, defsBenchDAGs(), runs)
			path := filepath.Join(b.TempDir(), "snapshot.json")
			if _, err := writeSnapshot(store, path, time.Now()); err != nil {
				b.Fatal(err)
			}
			store = nil
			for _, gone := range []bool{false, true} {
				b.Run(map[bool]string{false: "files-there", true: "files-gone"}[gone], func(b *testing.B) {
					given := set
					if gone {
						given = &DAGSet{}
					}
					runtime.GC()
					for b.Loop() {
						restored, _, err := restoreSnapshot(b.Context(), path)
						if err != nil {
							b.Fatal(err)
						}
						if err := buildKeptDefinitions(restored, c, given, zerolog.Nop()); err != nil {
							b.Fatal(err)
						}
						if err := restored.LoadDAGs(given); err != nil {
							b.Fatal(err)
						}
						if row, err := restored.DagByID(set.DAGs[0].DagID); err != nil || row.Def == nil || row.Stale != gone {
							b.Fatalf("restored %+v (%v), want a definition, stale %v", row, err, gone)
						}
					}
				})
			}
		})
	})
}
