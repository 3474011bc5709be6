package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// writeTree writes files (slash paths, relative to dir) and returns dir.
func writeTree(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func symlinkOrFail(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func dagIDs(set *DAGSet) []string {
	ids := []string{}
	for _, d := range set.DAGs {
		ids = append(ids, d.DagID)
	}
	return ids
}

// The DAG folder is read recursively, as Airflow's DagBag does (2.10.3
// airflow/utils/file.py:215, 1.10.15 airflow/utils/dag_processing.py:322:
// os.walk(..., followlinks=True)): subfolders, symlinked folders (also
// outside the folder), sub-DAGs across folders; a .airflowignore applies
// to its folder and those below it only (2.10.3 file.py:216,236-247;
// 1.10.15 dag_processing.py:323,343-344), its folders are not entered.
func TestLoadDAGDir_Recursive(t *testing.T) {
	t.Parallel()
	outside := writeTree(t, t.TempDir(), map[string]string{
		"shared.yaml": "dag_id: shared\n" + oneTask,
		"shared.py":   "# shared, outside the DAG folder\n",
	})
	dir := writeTree(t, t.TempDir(), map[string]string{
		"top.yaml":                "dag_id: top\n" + oneTask,
		".airflowignore":          "# scratch work is not DAGs\nscratch   # with a comment\n\n",
		"scratch/broken.yaml":     "broken: [",
		"team/.airflowignore":     "old_\n",
		"team/old_c.yaml":         "broken: [",
		"team/etl.yaml":           "dag_id: etl\ntasks:\n  - {task_id: s, operator: SubDagOperator}\n",
		"team/etl.py":             "# etl, as written\n",
		"team/deep/er/d.yaml":     "dag_id: deep\n" + oneTask,
		"other/old_e.yml":         "dag_id: old_e\n" + oneTask,
		"other/etl.s.json":        `{"dag_id": "etl.s", "tasks": [{"task_id": "t", "operator": "EmptyOperator"}]}`,
		"other/notes.txt":         "not a DAG",
		"other/pools.yaml.backup": "not a DAG either",
	})
	symlinkOrFail(t, outside, filepath.Join(dir, "linked"))
	writeTree(t, dir, map[string]string{"team/leak.yaml": "dag_id: leak\n" + oneTask})
	symlinkOrFail(t, filepath.Join(outside, "shared.py"), filepath.Join(dir, "team", "leak.py"))
	set, err := loadDAGDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"deep", "etl", "etl.s", "leak", "old_e", "shared", "top"}
	if got := dagIDs(set); !reflect.DeepEqual(got, want) {
		t.Fatalf("dag ids = %v, want %v", got, want)
	}
	byID := map[string]*DAG{}
	for _, d := range set.DAGs {
		byID[d.DagID] = d
	}
	for id, file := range map[string]string{"deep": "team/deep/er/d.yaml", "etl.s": "other/etl.s.json", "shared": "linked/shared.yaml"} {
		if got, want := byID[id].FilePath, filepath.Join(dir, filepath.FromSlash(file)); got != want {
			t.Errorf("%s: FilePath = %q, want %q", id, got, want)
		}
	}
	if got := byID["etl.s"].ParentDagID; got != "etl" {
		t.Errorf("etl.s: ParentDagID = %q, want etl (its SubDagOperator is in another folder)", got)
	}
	// /code: the .py beside a definition in a subfolder is served; one
	// whose real path is outside the DAG folder is not.
	if got := byID["etl"].SourceCode; got != "# etl, as written\n" {
		t.Errorf("etl source = %q", got)
	}
	for _, id := range []string{"shared", "leak"} {
		if got := byID[id].SourceCode; got != "" {
			t.Errorf("%s source = %q, want none: its real path is outside the DAG folder", id, got)
		}
	}
}

// Which path a .airflowignore pattern sees differs by edition: Airflow
// 2.10.3 searches the path relative to the DAG folder (airflow/utils/
// file.py:77); 1.10.15 the DAG folder's path as configured joined with it
// (airflow/utils/dag_processing.py:338,355).
func TestLoadDAGDir_IgnoreByEdition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		rules   *editionRules
		want    []string
	}{
		{`^team/old_`, &rules2, []string{"etl"}},
		{`^team/old_`, &rules110, []string{"etl", "old"}},
		{`/team/old_`, &rules2, []string{"etl", "old"}},
		{`/team/old_`, &rules110, []string{"etl"}},
		{`/team/old_`, &rules110RBAC, []string{"etl"}},
		{`^team$`, &rules2, []string{}}, // the folder itself: not entered
		{`old_c\.yaml$`, &rules110, []string{"etl"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.rules.name)+" "+tc.pattern, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, t.TempDir(), map[string]string{
				".airflowignore":  tc.pattern + "\n",
				"team/etl.yaml":   "dag_id: etl\n" + oneTaskEveryEdition,
				"team/old_c.yaml": "dag_id: old\n" + oneTaskEveryEdition,
			})
			set, err := dagLoader{rules: tc.rules}.loadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := dagIDs(set); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("dag ids = %v, want %v", got, tc.want)
			}
		})
	}
}

// A pattern that does not compile is passed over with a warning, the
// others still apply (Airflow 2.10.3 airflow/utils/file.py:63-70).
func TestLoadDAGDir_BadIgnorePattern(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, t.TempDir(), map[string]string{
		".airflowignore": "(unclosed\r\nskip\r\n",
		"keep.yaml":      "dag_id: keep\n" + oneTask,
		"skip.yaml":      "broken: [",
	})
	var warned []string
	set, err := dagLoader{rules: edition2.rules(), warn: func(file, problem string) { warned = append(warned, filepath.Base(file)+": "+problem) }}.loadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := dagIDs(set); !reflect.DeepEqual(got, []string{"keep"}) {
		t.Errorf("dag ids = %v, want [keep]", got)
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], `.airflowignore: pattern "(unclosed" is not a regular expression airlite reads`) {
		t.Errorf("warnings = %q, want one for the bad pattern", warned)
	}
}

func TestIgnoreFileLines(t *testing.T) {
	t.Parallel()
	got := ignoreFileLines("a\r\nb # c\n# d\n\n  \t\ne\rf#g\n x  \n")
	want := []string{"a", "b", "  \t", "e", "f", " x  "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
}

// A folder reached twice is refused, as Airflow 2.10.3 does
// (airflow/utils/file.py:238-246); 1.10.15 would walk a loop without end.
// Duplicate dag_ids across folders name both files; pools files count
// only at the top.
func TestLoadDAGDir_RecursiveErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  []string
	}{
		{"symlink loop", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"a/x.yaml": "dag_id: x\n" + oneTask})
			symlinkOrFail(t, "..", filepath.Join(dir, "a", "up"))
		}, []string{"the folder", "is reached again as", filepath.Join("a", "up"), "symlink loop"}},
		{"two links to one folder", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"real/x.yaml": "dag_id: x\n" + oneTask})
			symlinkOrFail(t, "real", filepath.Join(dir, "link"))
		}, []string{filepath.Join(dir0, "real"), "is reached again as", filepath.Join(dir0, "link")}},
		{"duplicate dag_id", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"a/x.yaml": "dag_id: x\n" + oneTask, "b/y.yaml": "# y\ndag_id: x\n" + oneTask})
		}, []string{filepath.Join("b", "y.yaml") + `: line 2: dag_id "x" is already defined in `, filepath.Join("a", "x.yaml")}},
		{"pools below the top", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"team/pools.yaml": "- {name: a, slots: 1}\n"})
		}, []string{filepath.Join("team", "pools.yaml") + ": pools are read from pools.yaml at the top of the DAG folder only"}},
		{"broken file in a subfolder", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"team/x.yaml": "dag_id: x\ntasks:\n  - {task_id: a, operator: BashOpertor}\n"})
		}, []string{filepath.Join("team", "x.yaml") + `: line 3: task "a": unknown operator "BashOpertor" (did you mean BashOperator?)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tc.setup(t, dir)
			_, err := loadDAGDir(dir)
			if err == nil {
				t.Fatal("loaded, want an error")
			}
			for _, part := range tc.want {
				part = strings.ReplaceAll(part, dir0, dir)
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not contain %q", err, part)
				}
			}
		})
	}
}

// dir0 stands for the test's DAG folder in expected messages.
const dir0 = "\x00dir"

// Without a disk, the walk reads subfolders of any fs.FS (the embedded
// examples have none).
func TestLoadDAGs_Subfolders(t *testing.T) {
	t.Parallel()
	set, err := loadDAGs(fstest.MapFS{
		"a.yaml":           {Data: []byte("dag_id: a\n" + oneTask)},
		"x/b.yaml":         {Data: []byte("dag_id: b\n" + oneTask)},
		"x/b.py":           {Data: []byte("# b\n")},
		"x/.airflowignore": {Data: []byte("skipme\n")},
		"x/skipme/c.yaml":  {Data: []byte("broken: [")},
	}, "dags")
	if err != nil {
		t.Fatal(err)
	}
	if got := dagIDs(set); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("dag ids = %v", got)
	}
	if set.DAGs[1].SourceCode != "# b\n" || set.DAGs[1].FilePath != filepath.Join("dags", "x", "b.yaml") {
		t.Errorf("b: source %q, file %q", set.DAGs[1].SourceCode, set.DAGs[1].FilePath)
	}
}

// benchDAGFolder writes n small definitions into dir, in folders of
// perFolder files (perFolder 0: all at the top), with a .airflowignore.
func benchDAGFolder(b *testing.B, n, perFolder int) string {
	b.Helper()
	dir := b.TempDir()
	files := map[string]string{".airflowignore": "^scratch/\n_draft\n# notes\n"}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("dag_%04d.yaml", i)
		if perFolder > 0 {
			name = fmt.Sprintf("team_%02d/%s", i/perFolder, name)
		}
		files[name] = fmt.Sprintf("dag_id: dag_%04d\nschedule_interval: '@daily'\nstart_date: 2024-01-01\n"+
			"tasks:\n  - {task_id: a, operator: BashOperator, bash_command: echo a, downstream: [b]}\n"+
			"  - {task_id: b, operator: PythonOperator}\n", i)
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkLoadDAGDir_1000Files loads a folder of 1,000 two-task DAGs,
// all at the top and in 20 subfolders.
func BenchmarkLoadDAGDir_1000Files(b *testing.B) {
	for _, layout := range []struct {
		name      string
		perFolder int
	}{{"flat", 0}, {"nested", 50}} {
		b.Run(layout.name, func(b *testing.B) {
			dir := benchDAGFolder(b, 1000, layout.perFolder)
			for b.Loop() {
				set, err := loadDAGDir(dir)
				if err != nil {
					b.Fatal(err)
				}
				if len(set.DAGs) != 1000 {
					b.Fatalf("%d DAGs", len(set.DAGs))
				}
			}
		})
	}
}
