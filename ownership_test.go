package main

// The scheduler owns task lifetimes: a reset or a DELETE stops the tasks it
// affects and changes the store in one step, and a try's result lands only
// on the run it was started for, whatever run_id a later run reuses.

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// TestScheduler_ResetNeverLeaksAStaleResult triggers a run, resets while
// its task is being launched or runs, and triggers the same run_id with
// another conf, round after round. Each round's run must end with its own
// task's result: one try, its own conf. The fake task ignores being
// stopped, so that a try that escaped the reset would report success.
func TestScheduler_ResetNeverLeaksAStaleResult(t *testing.T) {
	t.Parallel()
	rounds := 1000 // AIRLITE_RESET_ROUNDS sets another count
	if n, err := strconv.Atoi(os.Getenv("AIRLITE_RESET_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	stubborn := func(ctx context.Context, job taskJob) taskOutcome {
		time.Sleep(time.Duration(len(job.run.RunID)%3) * 100 * time.Microsecond)
		return taskOutcome{state: TaskSuccess, output: "conf=" + string(job.run.Conf) + "\n"}
	}
	for _, scope := range []string{"all", "runs", "delete"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			e := edition2
			if scope == "delete" {
				e = edition110 // DELETE /dags/<dag_id> drops the runs in 1.10
			}
			ts, sched := newSchedServer(t, e, func(o *schedulerOptions) {
				o.RunTask = stubborn
				o.Interval = time.Millisecond
			}, withDAG(racerDAG))
			for round := 0; round < rounds; round++ {
				body := fmt.Sprintf(`{"run_id": "same", "conf": {"round": %d}, "execution_date": "2024-05-01T00:00:00+00:00"}`, round)
				ts.trigger(t, "racer", body)
				if round%2 == 1 { // every other round, wait until the task runs
					waitFor(t, func() bool {
						ti, err := ts.store.TaskInstance("racer", "same", "only")
						return err == nil && ti.State != TaskNone && ti.State != TaskScheduled
					})
				}
				switch scope {
				case "delete":
					if res := ts.do(t, http.MethodDelete, apiPrefix+"/dags/racer", ""); res.status != http.StatusOK {
						t.Fatalf("round %d: delete: %d %s", round, res.status, res.body)
					}
					if res := ts.do(t, http.MethodPost, "/_airlite/dags", racerDAG); res.status != http.StatusOK {
						t.Fatalf("round %d: load again: %d %s", round, res.status, res.body)
					}
				default:
					if res := ts.do(t, http.MethodPost, "/_airlite/reset?scope="+scope, ""); res.status != http.StatusOK {
						t.Fatalf("round %d: reset: %d %s", round, res.status, res.body)
					}
				}
				// The answer came after every affected task ended.
				if n := sched.runningTasksOf("racer"); n != 0 {
					t.Fatalf("round %d: %d task goroutines outlived the %s", round, n, scope)
				}
				// The same run_id again: its own result only.
				conf := fmt.Sprintf(`{"round": "%d-again"}`, round)
				ts.trigger(t, "racer", `{"run_id": "same", "conf": `+conf+`, "execution_date": "2024-05-01T00:00:00+00:00"}`)
				if done := ts.waitRun(t, "racer", "same"); done["state"] != "success" {
					t.Fatalf("round %d: run ended %v", round, done)
				}
				logs, err := ts.store.TaskLogsOfRun("racer", "same")
				if err != nil {
					t.Fatal(err)
				}
				want := `{"round":"` + strconv.Itoa(round) + `-again"}`
				if tries := logs["only"].Tries; len(tries) != 1 || tries[0].Try != 1 || !strings.Contains(tries[0].Output, want) {
					t.Fatalf("round %d: a stale result reached the new run: tries %+v, want one try with %s", round, tries, want)
				}
				if res := ts.do(t, http.MethodPost, "/_airlite/reset?scope=runs", ""); res.status != http.StatusOK {
					t.Fatalf("round %d: reset: %d %s", round, res.status, res.body)
				}
			}
		})
	}
}

const racerDAG = `
dag_id: racer
schedule_interval: null
tasks:
  - task_id: only
    operator: BashOperator
    bash_command: "true"
`

// runningTasksOf counts the task goroutines the scheduler tracks for a DAG.
func (s *scheduler) runningTasksOf(dagID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for key := range s.tasks {
		if key.dagID == dagID {
			n++
		}
	}
	return n
}

// Only the store (memstore*.go) imports go-memdb and opens transactions;
// the snapshot codec (snapshot.go, snapshot_read.go, snapshot_write.go)
// names tables, whose names are its sections', and reads and restores
// through the store (storeSnapshot, storeRestore); the rest of airlite
// calls the store's intent-level methods.
func TestOwnership_OnlyTheStoreTouchesTables(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ownershipProblems(t, name, src) {
			t.Error(p)
		}
	}
}

// The check itself finds each kind of trespass, and passes the owners.
func TestOwnership_ProblemsFound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file, src string
		want            string // a problem's text; "" for none
	}{
		{"the store imports go-memdb", "memstore_runs.go", `import memdb "github.com/hashicorp/go-memdb"`, ""},
		{"the codec imports go-memdb", "snapshot_read.go", `import memdb "github.com/hashicorp/go-memdb"`, "imports go-memdb"},
		{"an API file imports go-memdb", "apiv1_runs.go", `import "github.com/hashicorp/go-memdb"`, "imports go-memdb"},
		{"the codec names a table", "snapshot.go", `var x = tableDags`, ""},
		{"an API file names a table", "api_admin.go", `var x = tableDags`, "names table constant tableDags"},
		{"the periodic snapshotter names a table", "snapshot_periodic.go", `var x = tableDags`, "names table constant tableDags"},
		{"the codec opens a transaction", "snapshot_read.go", `func f(s *Store) { s.update(nil) }`, "handles a transaction (.update)"},
		{"the store opens a transaction", "memstore_tis.go", `func f(s *Store) { s.db.Txn(true) }`, ""},
		{"the scheduler reads a transaction", "scheduler.go", `func f(s *Store) { s.read() }`, "handles a transaction (.read)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ownershipProblems(t, tc.file, []byte("package main\n"+tc.src+"\n"))
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("problems %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("problems %q, want one saying %q", got, tc.want)
			}
		})
	}
}

// ownershipProblems lists what a production file does that only the
// store, or the store and the snapshot codec, may do.
func ownershipProblems(t *testing.T, name string, src []byte) []string {
	t.Helper()
	store := strings.HasPrefix(name, "memstore")
	codec := map[string]bool{"snapshot.go": true, "snapshot_read.go": true, "snapshot_write.go": true}[name]
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "github.com/hashicorp/go-memdb" && !store {
			problems = append(problems, fmt.Sprintf("%s imports go-memdb: only the store (memstore*.go) may", fset.Position(imp.Pos())))
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if !store && !codec && strings.HasPrefix(x.Name, "table") && len(x.Name) > 5 && unicode.IsUpper(rune(x.Name[5])) {
				problems = append(problems, fmt.Sprintf("%s names table constant %s: only the store and the snapshot codec may",
					fset.Position(n.Pos()), x.Name))
			}
		case *ast.SelectorExpr:
			switch x.Sel.Name {
			case "update", "updateBatched", "read", "Txn":
				if !store {
					problems = append(problems, fmt.Sprintf("%s handles a transaction (.%s): only the store (memstore*.go) may",
						fset.Position(n.Pos()), x.Sel.Name))
				}
			}
		}
		return true
	})
	return problems
}
