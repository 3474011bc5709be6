package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// dagFolder is a DAG folder on disk. Definitions are read through its
// fs.FS (os.DirFS, which follows symlinks anywhere, as before); the .py
// files beside them, which /code hands to any API client, through
// readSource, which keeps them inside the folder.
type dagFolder struct {
	fs.FS
	realPath string   // the folder's absolute path, symlinks resolved
	root     *os.Root // opened at realPath
}

func openDAGFolder(dir string) (*dagFolder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	realPath, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(realPath)
	if err != nil {
		return nil, err
	}
	return &dagFolder{FS: os.DirFS(dir), realPath: realPath, root: root}, nil
}

func (f *dagFolder) Close() error { return f.root.Close() }

// realDir is the real path of the folder rel (a slash path inside the DAG
// folder), symlinks resolved: two paths that lead to one folder have one.
func (f *dagFolder) realDir(rel string) (string, error) {
	return filepath.EvalSymlinks(filepath.Join(f.realPath, filepath.FromSlash(rel)))
}

// Stat looks at a file without opening it (os.DirFS's Stat): opening a
// FIFO would wait for a writer.
func (f *dagFolder) Stat(name string) (fs.FileInfo, error) { return fs.Stat(f.FS, name) }

// readSource reads the file name of the folder when it is a regular file
// whose real path lies inside the folder's real path. A symlink beside a
// definition may point at any file airlite can read, and a FIFO or device
// would never end a read.
func (f *dagFolder) readSource(name string) ([]byte, error) {
	realPath, err := filepath.EvalSymlinks(filepath.Join(f.realPath, filepath.FromSlash(name)))
	if err != nil {
		return nil, fmt.Errorf("read source: %w", err)
	}
	rel, err := filepath.Rel(f.realPath, realPath)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("read source %s: %s is outside the DAG folder", name, realPath)
	}
	// Through the root, so that a folder changed since EvalSymlinks still
	// cannot lead the open outside it; non-blocking, so that opening a FIFO
	// does not wait for a writer.
	file, err := f.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read source: %w", err)
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("read source: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("read source %s: %s is not a regular file (%v)", name, realPath, info.Mode().Type())
	}
	src, err := io.ReadAll(file)
	if err != nil {
		return nil, fmt.Errorf("read source: %w", err)
	}
	return src, nil
}

// readDAGSource reads the .py file beside a definition: through the
// folder's readSource on disk, else (the embedded fixtures, tests' MapFS)
// when it is a regular file.
func readDAGSource(fsys fs.FS, name string) ([]byte, error) {
	if folder, ok := fsys.(*dagFolder); ok {
		return folder.readSource(name)
	}
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read source: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("read source %s: not a regular file (%v)", name, info.Mode().Type())
	}
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read source: %w", err)
	}
	return src, nil
}

// pythonDialect is how a release's DAG files read, for the Python that
// /code writes when no .py sits beside a definition: the text is
// airlite's, in the release's idiom.
type pythonDialect struct {
	// dagImport is the import statement of the DAG class.
	dagImport string
	// modules maps operators to the module that defines them in the release.
	modules map[string]string
	// otherModule stands for the module of an operator not in modules.
	otherModule string
	// scheduleArg is the DAG argument that takes the schedule.
	scheduleArg string
	// dateImport is the import that dateCall's text needs.
	dateImport string
	// dateCall writes an aware UTC date.
	dateCall func(time.Time) string
	// paramImport imports Param; "": the release has none (1.10.15).
	paramImport string
}

var (
	// Airflow 3.2.1's modules: the Task SDK's DAG (task-sdk/src/airflow/
	// sdk/__init__.py) and the standard provider's operators, which its
	// example DAGs import.
	python3 = pythonDialect{
		dagImport:   "from airflow.sdk import DAG",
		modules:     v2OperatorModules,
		otherModule: v2OtherOperatorModule,
		scheduleArg: "schedule",
		dateImport:  "import pendulum",
		dateCall:    pyPendulum,
		paramImport: "from airflow.sdk import Param",
	}
	// Airflow 2.10.3's modules (airflow/operators/*.py, the papermill provider, @task).
	python2 = pythonDialect{
		dagImport: "from airflow import DAG",
		modules: map[string]string{
			"BashOperator":             "airflow.operators.bash",
			"EmptyOperator":            "airflow.operators.empty",
			"DummyOperator":            "airflow.operators.dummy",
			"PythonOperator":           "airflow.operators.python",
			"BranchPythonOperator":     "airflow.operators.python",
			"SubDagOperator":           "airflow.operators.subdag",
			"PapermillOperator":        "airflow.providers.papermill.operators.papermill",
			"_PythonDecoratedOperator": "airflow.decorators.python",
		},
		otherModule: "airflow.operators.other",
		scheduleArg: "schedule",
		dateImport:  "import pendulum",
		dateCall:    pyPendulum,
		paramImport: "from airflow.models.param import Param",
	}
	// Airflow 1.10.15's modules (airflow/operators/*_operator.py), its
	// schedule_interval, and timezone.datetime (pendulum 1 has no
	// pendulum.datetime).
	python110 = pythonDialect{
		dagImport: "from airflow import DAG",
		modules: map[string]string{
			"BashOperator":         "airflow.operators.bash_operator",
			"DummyOperator":        "airflow.operators.dummy_operator",
			"PythonOperator":       "airflow.operators.python_operator",
			"BranchPythonOperator": "airflow.operators.python_operator",
			"SubDagOperator":       "airflow.operators.subdag_operator",
			"PapermillOperator":    "airflow.operators.papermill_operator",
		},
		otherModule: "airflow.operators.other",
		scheduleArg: "schedule_interval",
		dateImport:  "from airflow.utils import timezone",
		dateCall:    pyTimezoneDatetime,
	}
)

// renderPython writes a definition as the Airflow DAG file of the
// release a user would have written, for GET /dags/<dag_id>/code when no
// .py file sits beside it.
func renderPython(d *DAG, py pythonDialect) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"DAG %s, rendered by airlite from %s.\"\"\"\n\n", d.DagID, d.FilePath)
	b.WriteString("import datetime\n\n" + py.dateImport + "\n\n" + py.dagImport + "\n")
	withParams := len(d.ParamDocs) > 0 && py.paramImport != ""
	if withParams {
		b.WriteString(py.paramImport + "\n")
	}
	defaultArgs, relative := pyDefaultArgs(d.DefaultArgs)
	if relative {
		b.WriteString("from airflow.utils.dates import days_ago\n")
	}
	modules := map[string][]string{}
	for _, t := range d.Tasks {
		mod, ok := py.modules[t.Operator]
		if !ok {
			mod = py.otherModule
		}
		if !containsString(modules[mod], t.Operator) {
			modules[mod] = append(modules[mod], t.Operator)
		}
	}
	mods := make([]string, 0, len(modules))
	for m := range modules {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, m := range mods {
		sort.Strings(modules[m])
		fmt.Fprintf(&b, "from %s import %s\n", m, strings.Join(modules[m], ", "))
	}
	b.WriteString("\nwith DAG(\n")
	fmt.Fprintf(&b, "    dag_id=%s,\n", pyQuote(d.DagID))
	if d.Description != "" {
		fmt.Fprintf(&b, "    description=%s,\n", pyQuote(d.Description))
	}
	if d.Schedule == nil {
		fmt.Fprintf(&b, "    %s=None,\n", py.scheduleArg)
	} else if every, err := parseDuration(*d.Schedule); err == nil && isDurationSchedule(*d.Schedule) {
		// A DAG file says a fixed interval with a timedelta.
		fmt.Fprintf(&b, "    %s=%s,\n", py.scheduleArg, pyTimedeltaCall(every))
	} else {
		fmt.Fprintf(&b, "    %s=%s,\n", py.scheduleArg, pyQuote(*d.Schedule))
	}
	if d.StartDate != nil {
		fmt.Fprintf(&b, "    start_date=%s,\n", py.dateCall(*d.StartDate))
	}
	if d.EndDate != nil {
		fmt.Fprintf(&b, "    end_date=%s,\n", py.dateCall(*d.EndDate))
	}
	fmt.Fprintf(&b, "    catchup=%s,\n", pyRepr(d.Catchup))
	if d.DagrunTimeout != 0 {
		fmt.Fprintf(&b, "    dagrun_timeout=%s,\n", pyTimedeltaCall(d.DagrunTimeout))
	}
	if len(d.Tags) > 0 {
		fmt.Fprintf(&b, "    tags=%s,\n", pyRepr(d.Tags))
	}
	if withParams {
		fmt.Fprintf(&b, "    params=%s,\n", pyParamsRepr(d))
	} else if len(d.Params) > 0 {
		fmt.Fprintf(&b, "    params=%s,\n", pyRepr(d.Params))
	}
	if len(defaultArgs) > 0 {
		fmt.Fprintf(&b, "    default_args=%s,\n", pyRepr(defaultArgs))
	}
	b.WriteString(") as dag:\n")
	for _, t := range d.Tasks {
		fmt.Fprintf(&b, "    %s = %s(\n        task_id=%s,\n", pyIdent(t.TaskID), t.Operator, pyQuote(t.TaskID))
		if t.BashCommand != "" {
			fmt.Fprintf(&b, "        bash_command=%s,\n", pyQuote(t.BashCommand))
		}
		if t.Subdag != "" {
			fmt.Fprintf(&b, "        subdag=%s,  # defined in its own file\n", pyQuote(t.Subdag))
		}
		if t.Retries != 0 {
			fmt.Fprintf(&b, "        retries=%d,\n", t.Retries)
		}
		if t.Pool != defaultPoolName {
			fmt.Fprintf(&b, "        pool=%s,\n", pyQuote(t.Pool))
		}
		if t.TriggerRule != "all_success" {
			fmt.Fprintf(&b, "        trigger_rule=%s,\n", pyQuote(t.TriggerRule))
		}
		b.WriteString("    )\n")
	}
	var edges []string
	for _, t := range d.Tasks {
		for _, down := range t.Downstream {
			edges = append(edges, fmt.Sprintf("    %s >> %s\n", pyIdent(t.TaskID), pyIdent(down)))
		}
	}
	if len(edges) > 0 {
		b.WriteString("\n")
		b.WriteString(strings.Join(edges, ""))
	}
	return b.String()
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pyIdent turns a task id into a Python variable name.
// pyParamsRepr writes a DAG's params as its file would, each Param as
// the call that makes it: Param(default, description=..., keyword=...),
// the schema as keyword arguments in its order (schema={...} when a key
// cannot be one).
func pyParamsRepr(d *DAG) string {
	items := make([]string, 0, len(d.paramNames))
	for _, name := range d.paramNames {
		doc, ok := d.ParamDocs[name]
		if !ok {
			items = append(items, pyQuote(name)+": "+pyRepr(d.Params[name]))
			continue
		}
		var args []string
		if !doc.NoDefault {
			args = append(args, pyRepr(d.Params[name]))
		}
		if doc.Description != nil {
			args = append(args, "description="+pyRepr(doc.Description))
		}
		var schema pyDict
		if v, err := decodePyJSON(doc.rawSchema); err == nil {
			schema, _ = v.(pyDict)
		}
		kwargs := make([]string, 0, len(schema))
		for _, f := range schema {
			if !pyKeyword(f.key) {
				kwargs = []string{"schema=" + pyRepr(pyPlainMap(schema))}
				break
			}
			kwargs = append(kwargs, f.key+"="+pyRepr(pyPlainMap(f.val)))
		}
		items = append(items, pyQuote(name)+": Param("+strings.Join(append(args, kwargs...), ", ")+")")
	}
	return "{" + strings.Join(items, ", ") + "}"
}

// pyKeyword says whether a schema key can be a keyword argument of
// Param: an identifier that is not one of its own parameters.
func pyKeyword(key string) bool {
	if key == "" || key == "default" || key == "description" || key == "schema" || key == "source" ||
		pyKeywords[key] || (key[0] >= '0' && key[0] <= '9') {
		return false
	}
	for _, r := range key {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && !(r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// pyKeywords are Python's keywords, which no argument may be named
// (JSON Schema has not, if, else).
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

func pyIdent(id string) string {
	s := strings.NewReplacer("-", "_", ".", "_").Replace(id)
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "task_" + s
	}
	return s
}

func pyPendulum(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return fmt.Sprintf("pendulum.datetime(%d, %d, %d, tz=\"UTC\")", t.Year(), t.Month(), t.Day())
	}
	return fmt.Sprintf("pendulum.datetime(%d, %d, %d, %d, %d, %d, tz=\"UTC\")",
		t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second())
}

// pyTimezoneDatetime is an aware UTC date through Airflow 1.10's
// airflow.utils.timezone.datetime.
func pyTimezoneDatetime(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return fmt.Sprintf("timezone.datetime(%d, %d, %d)", t.Year(), t.Month(), t.Day())
	}
	return fmt.Sprintf("timezone.datetime(%d, %d, %d, %d, %d, %d)", t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second())
}

// pyDefaultArgs is default_args as written in Python: a days_ago(n) date
// is the call, not a string; relative says one is there.
func pyDefaultArgs(args map[string]any) (out map[string]any, relative bool) {
	out = make(map[string]any, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok && (k == "start_date" || k == "end_date") && daysAgoRe.MatchString(s) {
			out[k], relative = pyRaw(s), true
			continue
		}
		out[k] = v
	}
	return out, relative
}

func pyTimedeltaCall(d time.Duration) string {
	return fmt.Sprintf("datetime.timedelta(seconds=%s)", pyFloatRepr(d.Seconds()))
}
