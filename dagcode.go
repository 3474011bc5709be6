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

// operatorImports maps operators to the Airflow 2 module that defines them,
// for the Python rendering of a definition.
var operatorImports = map[string]string{
	"BashOperator":         "airflow.operators.bash",
	"EmptyOperator":        "airflow.operators.empty",
	"DummyOperator":        "airflow.operators.dummy",
	"PythonOperator":       "airflow.operators.python",
	"SubDagOperator":       "airflow.operators.subdag",
	"BranchPythonOperator": "airflow.operators.python",
}

// renderPython writes a definition as the Airflow DAG file a user would have
// written, for GET /dags/<dag_id>/code when no .py file sits beside it.
func renderPython(d *DAG) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"DAG %s, rendered by airlite from %s.\"\"\"\n\n", d.DagID, d.FilePath)
	b.WriteString("import datetime\n\nimport pendulum\n\nfrom airflow import DAG\n")
	modules := map[string][]string{}
	for _, t := range d.Tasks {
		mod, ok := operatorImports[t.Operator]
		if !ok {
			mod = "airflow.operators.other"
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
		b.WriteString("    schedule=None,\n")
	} else {
		fmt.Fprintf(&b, "    schedule=%s,\n", pyQuote(*d.Schedule))
	}
	if d.StartDate != nil {
		fmt.Fprintf(&b, "    start_date=%s,\n", pyPendulum(*d.StartDate))
	}
	if d.EndDate != nil {
		fmt.Fprintf(&b, "    end_date=%s,\n", pyPendulum(*d.EndDate))
	}
	fmt.Fprintf(&b, "    catchup=%s,\n", pyRepr(d.Catchup))
	if d.DagrunTimeout != 0 {
		fmt.Fprintf(&b, "    dagrun_timeout=%s,\n", pyTimedeltaCall(d.DagrunTimeout))
	}
	if len(d.Tags) > 0 {
		fmt.Fprintf(&b, "    tags=%s,\n", pyRepr(d.Tags))
	}
	if len(d.Params) > 0 {
		fmt.Fprintf(&b, "    params=%s,\n", pyRepr(d.Params))
	}
	if len(d.DefaultArgs) > 0 {
		fmt.Fprintf(&b, "    default_args=%s,\n", pyRepr(d.DefaultArgs))
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

func pyTimedeltaCall(d time.Duration) string {
	return fmt.Sprintf("datetime.timedelta(seconds=%s)", pyFloatRepr(d.Seconds()))
}
