package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
)

// reloadDAG is a one-task definition; extra adds tasks.
func reloadDAG(dagID string, extra ...string) string {
	text := "dag_id: " + dagID + "\nschedule: null\nstart_date: 2021-01-01T00:00:00+00:00\ntasks:\n" +
		"  - task_id: first\n    operator: BashOperator\n    bash_command: echo first\n"
	for _, id := range extra {
		text += "  - task_id: " + id + "\n    operator: BashOperator\n    bash_command: echo " + id + "\n"
	}
	return text
}

// reloadFolder is a DAG folder whose files get a new modification time at
// every write, as an editor's save gives them.
type reloadFolder struct {
	dir   string
	mtime time.Time
}

func newReloadFolder(t *testing.T, files map[string]string) *reloadFolder {
	t.Helper()
	f := &reloadFolder{dir: t.TempDir(), mtime: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	for name, text := range files {
		f.write(t, name, text)
	}
	return f
}

func (f *reloadFolder) write(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join(f.dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f.mtime = f.mtime.Add(time.Second)
	if err := os.Chtimes(path, f.mtime, f.mtime); err != nil {
		t.Fatal(err)
	}
}

func (f *reloadFolder) remove(t *testing.T, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(f.dir, name)); err != nil {
		t.Fatal(err)
	}
}

// reloadSetup is a test server over a folder read as airlite's start
// reads it, and a reloader whose passes the test runs.
type reloadSetup struct {
	ts     *testServer
	folder *reloadFolder
	rl     *dagReloader
	now    time.Time
}

func newReloadSetup(t *testing.T, e edition, files map[string]string, options ...testOption) *reloadSetup {
	t.Helper()
	f := newReloadFolder(t, files)
	logger := zerolog.New(zerolog.NewTestWriter(t))
	set, err := loadDAGSet(context.Background(), f.dir, e, logger)
	if err != nil {
		t.Fatal(err)
	}
	vars, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	c := config{DagsDir: f.dir, Edition: e, Python: "python3"}
	if err := readPythonDAGs(context.Background(), c, vars, set, logger); err != nil {
		t.Fatal(err)
	}
	holder := newDAGSetHolder(set)
	ts := newTestServer(t, e, append([]testOption{withOptions(func(o *serverOptions) { o.DAGs, o.Folder = set, holder })}, options...)...)
	if err := recordImportErrors(ts.store, set, testNow); err != nil {
		t.Fatal(err)
	}
	s := &reloadSetup{ts: ts, folder: f, now: testNow}
	s.rl = newDAGReloader(dagReloaderOptions{Config: c, Store: ts.store, Holder: holder, Logger: logger,
		Now: func() time.Time { return s.now }, Requests: ts.srv.opts.ParseRequests})
	return s
}

// pass runs one reloader pass at s.now, after moving the clock by d.
func (s *reloadSetup) pass(t *testing.T, d time.Duration, wantChanged bool) {
	t.Helper()
	s.now = s.now.Add(d)
	changed, err := s.rl.tick(context.Background(), s.now)
	if err != nil {
		t.Fatalf("reload pass: %v", err)
	}
	if changed != wantChanged {
		t.Fatalf("reload pass changed = %v, want %v", changed, wantChanged)
	}
}

// active says whether the store has dagID active (a definition, not
// stale); false also when it has no row.
func (s *reloadSetup) active(t *testing.T, dagID string) bool {
	t.Helper()
	row, err := s.ts.store.DagByID(dagID)
	return err == nil && row.Active()
}

func (s *reloadSetup) importErrorFiles(t *testing.T) []string {
	t.Helper()
	rows, err := s.ts.store.ImportErrors()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, r := range rows {
		files = append(files, filepath.Base(r.Filename))
	}
	return files
}

func taskIDsOf(t *testing.T, body string) []string {
	t.Helper()
	var v struct {
		Tasks []struct {
			TaskID string `json:"task_id"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("decode tasks: %v: %s", err, body)
	}
	var ids []string
	for _, task := range v.Tasks {
		ids = append(ids, task.TaskID)
	}
	return ids
}

func TestDAGReload_ChangedFileNewTaskInAPI(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition2, map[string]string{"alpha.yaml": reloadDAG("alpha")})
	s.pass(t, time.Second, false) // nothing changed: nothing read

	s.folder.write(t, "alpha.yaml", reloadDAG("alpha", "second"))
	s.pass(t, time.Second, true)
	res := s.ts.v1(t, "GET", "/dags/alpha/tasks", "")
	if res.status != 200 {
		t.Fatalf("GET tasks = %d %s", res.status, res.body)
	}
	if got := strings.Join(taskIDsOf(t, res.body), ","); got != "first,second" {
		t.Errorf("tasks after the change = %s, want first,second", got)
	}
	s.pass(t, time.Second, false)
}

func TestDAGReload_RemovedFileInactiveRunsKept(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition2, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
	if res := s.ts.v1(t, "POST", "/dags/beta/dagRuns", `{"dag_run_id": "before"}`); res.status != 200 {
		t.Fatalf("trigger = %d %s", res.status, res.body)
	}
	s.folder.remove(t, "beta.yaml")
	s.pass(t, time.Second, true)

	res := s.ts.v1(t, "GET", "/dags/beta", "")
	var dag map[string]any
	if err := json.Unmarshal([]byte(res.body), &dag); err != nil || res.status != 200 {
		t.Fatalf("GET dag = %d %s", res.status, res.body)
	}
	if dag["is_active"] != false {
		t.Errorf("is_active = %v, want false", dag["is_active"])
	}
	// Airflow 2.10.3 api_connexion/endpoints/dag_run_endpoint.py post_dag_run
	// looks the DAG up among the active ones.
	if res := s.ts.v1(t, "POST", "/dags/beta/dagRuns", `{"dag_run_id": "after"}`); res.status != 404 {
		t.Errorf("trigger an inactive DAG = %d %s, want 404", res.status, res.body)
	}
	runs, err := s.ts.store.RunsOfDag("beta", "")
	if err != nil || len(runs) != 1 || runs[0].RunID != "before" {
		t.Errorf("runs kept = %v (%v), want the one run", runs, err)
	}
	if !s.active(t, "alpha") {
		t.Error("alpha, whose file is still there, went inactive")
	}

	// The file back: active again, its runs still there.
	s.folder.write(t, "beta.yaml", reloadDAG("beta"))
	s.pass(t, time.Second, true)
	if !s.active(t, "beta") {
		t.Error("beta is not active again after its file came back")
	}
}

func TestDAGReload_NewFilesAndImportErrors(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition2, map[string]string{"alpha.yaml": reloadDAG("alpha")})
	steps := []struct {
		name       string
		change     func()
		wantActive map[string]bool
		wantErrors string
	}{
		{"a new file adds its DAG", func() { s.folder.write(t, "gamma.yaml", reloadDAG("gamma")) },
			map[string]bool{"alpha": true, "gamma": true}, ""},
		{"a broken new file is an import error", func() { s.folder.write(t, "broken.yaml", "dag_id: [\n") },
			map[string]bool{"alpha": true, "gamma": true}, "broken.yaml"},
		{"fixed, its error goes and its DAG comes", func() { s.folder.write(t, "broken.yaml", reloadDAG("mended")) },
			map[string]bool{"mended": true}, ""},
		{"a dag_id taken by another file", func() { s.folder.write(t, "twin.yaml", reloadDAG("alpha")) },
			map[string]bool{"alpha": true}, "twin.yaml"},
		{"the file with the error removed", func() { s.folder.remove(t, "twin.yaml") },
			map[string]bool{"alpha": true}, ""},
	}
	for _, step := range steps {
		step.change()
		s.pass(t, time.Second, true)
		for id, want := range step.wantActive {
			if got := s.active(t, id); got != want {
				t.Errorf("%s: %s active = %v, want %v", step.name, id, got, want)
			}
		}
		if got := strings.Join(s.importErrorFiles(t), ","); got != step.wantErrors {
			t.Errorf("%s: import errors of %q, want %q", step.name, got, step.wantErrors)
		}
	}
	res := s.ts.v1(t, "GET", "/importErrors", "")
	if res.status != 200 || !strings.Contains(res.body, `"total_entries": 0`) {
		t.Errorf("GET importErrors = %d %s, want none", res.status, res.body)
	}
}

// A file that breaks: Airflow 2.10.3 keeps its DAGs until they are
// stale_dag_threshold (50 s) older than the file's last parse, 1.10.15
// until the scheduler ends, Airflow 3 marks them stale at once.
func TestDAGReload_BrokenFileDAGsPerEdition(t *testing.T) {
	t.Parallel()
	cases := []struct {
		e                 edition
		atOnce, after50s  bool // active at the pass that reads the broken file, and 50 s later
		activeOnceRemoved bool // a DAG taken out of a file that still loads
	}{
		{edition2, true, false, true},
		{edition110, true, true, true},
		{edition3, false, false, true},
	}
	for _, tc := range cases {
		t.Run(string(tc.e), func(t *testing.T) {
			t.Parallel()
			s := newReloadSetup(t, tc.e, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
			s.folder.write(t, "alpha.yaml", "dag_id: [\n")
			s.pass(t, time.Second, true)
			if got := s.active(t, "alpha"); got != tc.atOnce {
				t.Errorf("alpha active once its file broke = %v, want %v", got, tc.atOnce)
			}
			if got := strings.Join(s.importErrorFiles(t), ","); got != "alpha.yaml" {
				t.Errorf("import errors = %q, want alpha.yaml", got)
			}
			s.pass(t, 30*time.Second, false)
			s.pass(t, 20*time.Second, tc.atOnce && !tc.after50s)
			if got := s.active(t, "alpha"); got != tc.after50s {
				t.Errorf("alpha active 50 s after = %v, want %v", got, tc.after50s)
			}
			// A file that loads but no longer has the DAG: the same clock.
			s.folder.write(t, "beta.yaml", reloadDAG("beta2"))
			s.pass(t, time.Second, true)
			if got := s.active(t, "beta"); got != tc.activeOnceRemoved {
				t.Errorf("beta active at the pass that lost it = %v, want %v", got, tc.activeOnceRemoved)
			}
		})
	}
}

func TestDAGReload_KeepsDAGsLoadedThroughAdmin(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition2, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
	for _, body := range []string{reloadDAG("loaded"), reloadDAG("beta", "from_admin")} {
		if res := s.ts.do(t, "POST", "/_airlite/dags", body); res.status != 200 {
			t.Fatalf("load a DAG = %d %s", res.status, res.body)
		}
	}
	s.folder.write(t, "alpha.yaml", reloadDAG("alpha", "second"))
	s.folder.remove(t, "beta.yaml")
	s.pass(t, time.Second, true)
	if !s.active(t, "loaded") {
		t.Error("a DAG loaded through /_airlite/dags went inactive at a reload")
	}
	row, err := s.ts.store.DagByID("beta")
	if err != nil || row.Def == nil || row.Def.Task("from_admin") == nil {
		t.Errorf("beta as /_airlite/dags replaced it is gone with its file: %+v %v", row, err)
	}
}

func TestDAGReload_ResetGoesBackToTheFolderAsReadLast(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition2, map[string]string{"alpha.yaml": reloadDAG("alpha")})
	s.folder.write(t, "gamma.yaml", reloadDAG("gamma"))
	s.pass(t, time.Second, true)
	if res := s.ts.do(t, "POST", "/_airlite/dags", reloadDAG("loaded")); res.status != 200 {
		t.Fatalf("load a DAG = %d %s", res.status, res.body)
	}
	if res := s.ts.do(t, "POST", "/_airlite/reset", ""); res.status != 200 {
		t.Fatalf("reset = %d %s", res.status, res.body)
	}
	for id, want := range map[string]bool{"alpha": true, "gamma": true, "loaded": false} {
		if got := s.active(t, id); got != want {
			t.Errorf("after the reset %s active = %v, want %v", id, got, want)
		}
	}
	s.pass(t, time.Second, false) // the reset changed no file
}

// The loop: a pass every interval on its ticker, ended by stop (a leaked
// goroutine fails the bubble).
func TestDAGReload_LoopPassesAndStops(t *testing.T) {
	t.Parallel()
	f := newReloadFolder(t, map[string]string{"alpha.yaml": reloadDAG("alpha")})
	synctest.Test(t, func(t *testing.T) {
		set, err := loadDAGSet(context.Background(), f.dir, edition2, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		store := storeWith(t, set)
		kicks := 0
		rl := newDAGReloader(dagReloaderOptions{Config: config{DagsDir: f.dir, Edition: edition2}, Store: store,
			Holder: newDAGSetHolder(set), Logger: zerolog.Nop(), Interval: 30 * time.Second, Changed: func() { kicks++ }})
		rl.start()
		f.write(t, "gamma.yaml", reloadDAG("gamma"))
		time.Sleep(29 * time.Second) // the bubble's clock: no pass yet
		synctest.Wait()
		if _, err := store.DagByID("gamma"); err == nil {
			t.Fatal("a pass ran before the interval")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if row, err := store.DagByID("gamma"); err != nil || row.Def == nil {
			t.Fatalf("gamma after one interval: %+v %v", row, err)
		}
		if kicks != 1 {
			t.Errorf("scheduler kicked %d times, want 1", kicks)
		}
		rl.stop()
	})
}

// The start lists the folder once: the .py files readPythonDAGs reads are
// those of the YAML loader's walk, so a file that comes between the two
// is left to the first reload.
func TestReadPythonDAGs_ReadsTheStartWalk(t *testing.T) {
	t.Parallel()
	requirePython(t)
	f := newReloadFolder(t, map[string]string{"alpha.yaml": reloadDAG("alpha")})
	set, err := loadDAGSet(context.Background(), f.dir, edition2, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, "late.py", "from airflow import DAG\nDAG('late')\n")
	vars, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	c := config{DagsDir: f.dir, Edition: edition2, Python: "python3"}
	if err := readPythonDAGs(context.Background(), c, vars, set, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	for _, file := range set.Files {
		if filepath.Base(file) == "late.py" {
			t.Fatalf("late.py was listed by a second walk: %v", set.Files)
		}
	}
}

func TestDAGReload_PythonFiles(t *testing.T) {
	t.Parallel()
	requirePython(t)
	dagFile := func(tasks ...string) string {
		text := "from datetime import datetime\nfrom airflow import DAG\nfrom airflow.operators.bash import BashOperator\n" +
			"import helper\n" +
			"with DAG('py', start_date=datetime(2021, 1, 1), schedule=None):\n"
		for _, id := range tasks {
			text += "    BashOperator(task_id='" + id + "', bash_command=helper.COMMAND)\n"
		}
		return text
	}
	s := newReloadSetup(t, edition2, map[string]string{
		"py.py":     dagFile("one"),
		"other.py":  "from datetime import datetime\nfrom airflow import DAG\ndag = DAG('other', start_date=datetime(2021, 1, 1), schedule=None)\n",
		"helper.py": "COMMAND = 'echo one'\n",
	})
	s.folder.write(t, "py.py", dagFile("one", "two"))
	s.pass(t, time.Second, true)
	res := s.ts.v1(t, "GET", "/dags/py/tasks", "")
	if got := strings.Join(taskIDsOf(t, res.body), ","); got != "one,two" {
		t.Fatalf("tasks after the change = %s, want one,two (%d %s)", got, res.status, res.body)
	}
	// A helper module that changes has every DAG file read again.
	s.folder.write(t, "helper.py", "COMMAND = 'echo changed'\n")
	s.pass(t, time.Second, true)
	row, err := s.ts.store.DagByID("py")
	if err != nil || row.Def == nil || row.Def.Task("one").BashCommand != "echo changed" {
		t.Fatalf("after the helper changed: %+v %v", row, err)
	}
	// A syntax error: an import error in Airflow's words; fixed: none.
	s.folder.write(t, "py.py", "from airflow import DAG\ndef broken(:\n")
	s.pass(t, time.Second, true)
	rows, err := s.ts.store.ImportErrors()
	if err != nil || len(rows) != 1 || !strings.Contains(rows[0].StackTrace, "SyntaxError") {
		t.Fatalf("import errors after the break = %+v %v", rows, err)
	}
	s.folder.write(t, "py.py", dagFile("one"))
	s.pass(t, time.Second, true)
	if files := s.importErrorFiles(t); len(files) != 0 {
		t.Errorf("import errors after the fix: %v", files)
	}
	s.folder.remove(t, "other.py")
	s.pass(t, time.Second, true)
	if s.active(t, "other") || !s.active(t, "py") {
		t.Errorf("after other.py went: other active %v, py active %v", s.active(t, "other"), s.active(t, "py"))
	}
}

// A run in progress when its file changes follows the new definition at
// the scheduler's next look, as Airflow's verify_integrity has it: the
// task added gets a task instance and runs.
func TestDAGReload_RunInProgressTakesTheNewTask(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition2, map[string]string{"alpha.yaml": reloadDAG("alpha")})
	sched := newScheduler(schedulerOptions{Store: s.ts.store, Edition: edition2, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Now: time.Now, Parallelism: 4}) // no loop: settleTicks runs the passes
	t.Cleanup(sched.stop)
	if res := s.ts.v1(t, "POST", "/dags/alpha/dagRuns", `{"dag_run_id": "r"}`); res.status != 200 {
		t.Fatalf("trigger = %d %s", res.status, res.body)
	}
	s.folder.write(t, "alpha.yaml", reloadDAG("alpha", "second"))
	s.pass(t, time.Second, true)
	s.ts.tickRun(t, sched, "alpha", "r")
	for _, id := range []string{"first", "second"} {
		if got := s.ts.tiState(t, "alpha", "r", id); got != TaskSuccess {
			t.Errorf("%s = %q, want success", id, got)
		}
	}
}

// A parse request wakes the loop: the file is read at once, not at the
// next interval, and a request for a file whose stamp did not move is
// read all the same.
func TestDAGReload_LoopReadsAskedFileAtOnce(t *testing.T) {
	t.Parallel()
	f := newReloadFolder(t, map[string]string{"alpha.yaml": reloadDAG("alpha")})
	synctest.Test(t, func(t *testing.T) {
		set, err := loadDAGSet(context.Background(), f.dir, edition2, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		store := storeWith(t, set)
		asked := newDAGParseRequests()
		o := &operations{store: store, edition: edition2, now: time.Now, parseRequests: asked}
		rl := newDAGReloader(dagReloaderOptions{Config: config{DagsDir: f.dir, Edition: edition2}, Store: store,
			Holder: newDAGSetHolder(set), Logger: zerolog.Nop(), Interval: time.Hour, Requests: asked})
		rl.start()
		defer rl.stop()
		row, err := store.DagByID("alpha")
		if err != nil {
			t.Fatal(err)
		}
		if err := o.reparseDagFile(row.FileLoc); err != nil {
			t.Fatalf("ask for the file: %v", err)
		}
		synctest.Wait()
		if again, err := store.DagByID("alpha"); err != nil || again.Def == row.Def {
			t.Errorf("alpha not read again after the request (%v)", err)
		}
		if got := asked.take(); len(got) != 0 {
			t.Errorf("requests left after the pass: %v", got)
		}
	})
}

// Airflow sets a DAG's last_parsed_time each time its file is parsed
// (3.2.1 dag_processing/collection.py update_dags; 2.10.3
// models/dag.py bulk_write_to_db): after the reloader reads a file again
// the DAG's last_parsed_time (and the details' last_parsed) is that
// pass's time, in both APIs, even when the definition is the same (no new
// version); a DAG whose file was not read keeps its own.
func TestDAGReload_LastParsedTimeMoves(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e      edition
		path   string
		keys   []string
		format func(time.Time) string
	}{
		{edition2, "/api/v1/dags/%s/details", []string{"last_parsed_time", "last_parsed"}, isoFormat},
		{edition3, "/api/v2/dags/%s/details", []string{"last_parsed_time", "last_parsed"}, func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }},
		{edition3, "/api/v2/dags/%s", []string{"last_parsed_time"}, func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }},
	} {
		t.Run(tc.path, func(t *testing.T) {
			s := newReloadSetup(t, tc.e, map[string]string{"alpha.yaml": reloadDAG("alpha"), "beta.yaml": reloadDAG("beta")})
			parsed := func(dagID string) map[string]any {
				t.Helper()
				res := s.ts.do(t, http.MethodGet, fmt.Sprintf(tc.path, dagID), "")
				var d map[string]any
				if err := json.Unmarshal([]byte(res.body), &d); err != nil || res.status != http.StatusOK {
					t.Fatalf("GET %s = %d %s", dagID, res.status, res.body)
				}
				return d
			}
			before := parsed("beta")
			// The same text written again: a new stamp, the same definition.
			s.folder.write(t, "alpha.yaml", reloadDAG("alpha"))
			s.pass(t, 45*time.Second, true)
			want := tc.format(s.now)
			alpha, beta := parsed("alpha"), parsed("beta")
			for _, k := range tc.keys {
				if alpha[k] != want {
					t.Errorf("alpha's %s = %v after its file was read at %s", k, alpha[k], want)
				}
				if beta[k] != before[k] {
					t.Errorf("beta's %s = %v, was %v: its file was not read", k, beta[k], before[k])
				}
			}
		})
	}
}

// A reload records DAG versions as the start does (3.2.1
// models/serialized_dag.py write_dag: a new DagVersion when the
// serialized DAG's hash changes): a new file's DAG gets version 1, a
// changed definition the next, a file read again unchanged none, a stale
// DAG back with its definition unchanged none.
func TestDAGReload_RecordsDAGVersions(t *testing.T) {
	t.Parallel()
	s := newReloadSetup(t, edition3, map[string]string{"alpha.yaml": reloadDAG("alpha")})
	versions := func(dagID string) any {
		t.Helper()
		return v2JSON(t, s.ts.v2(t, http.MethodGet, "/dags/"+dagID+"/dagVersions", "", http.StatusOK))["total_entries"]
	}
	steps := []struct {
		name   string
		change func()
		dagID  string
		want   float64
	}{
		{"a new file", func() { s.folder.write(t, "gamma.yaml", reloadDAG("gamma")) }, "gamma", 1},
		{"the same text again", func() { s.folder.write(t, "alpha.yaml", reloadDAG("alpha")) }, "alpha", 1},
		{"a task added", func() { s.folder.write(t, "alpha.yaml", reloadDAG("alpha", "second")) }, "alpha", 2},
		{"the file gone", func() { s.folder.remove(t, "alpha.yaml") }, "alpha", 2},
		{"back unchanged", func() { s.folder.write(t, "alpha.yaml", reloadDAG("alpha", "second")) }, "alpha", 2},
		{"changed again", func() { s.folder.write(t, "alpha.yaml", reloadDAG("alpha")) }, "alpha", 3},
	}
	for _, step := range steps {
		step.change()
		s.pass(t, time.Second, true)
		if got := versions(step.dagID); got != step.want {
			t.Errorf("%s: %s has %v versions, want %v", step.name, step.dagID, got, step.want)
		}
	}
	src := v2JSON(t, s.ts.v2(t, http.MethodGet, "/dagSources/alpha", "", http.StatusOK))
	if src["version_number"] != float64(3) || src["content"] == nil {
		t.Errorf("alpha's source = %v, want version 3's code", src)
	}
}
