package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// GET /code serves x.py beside x.yaml only when it is a regular file whose
// real path lies inside the DAG folder's; anything else gets the rendering,
// as a DAG without a .py file does.
func TestServer_GetDagCode_SourceStaysInFolder(t *testing.T) {
	t.Parallel()
	const source = "# x, as written\n"
	const secret = "TOP-SECRET airlite test secret"
	writeFile := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	symlink := func(t *testing.T, target, link string) {
		t.Helper()
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	// outside is a file with a secret in another folder.
	outside := func(t *testing.T) string {
		t.Helper()
		path := filepath.Join(t.TempDir(), "secret.txt")
		writeFile(t, path, secret)
		return path
	}
	tests := []struct {
		name string
		// addSource puts an x.py into the DAG folder dir; it returns the
		// folder to load (dir, unless the test reaches it another way).
		addSource  func(t *testing.T, dir string) string
		wantServed bool // false: the rendering
	}{
		{name: "regular file", wantServed: true, addSource: func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "x.py"), source)
			return dir
		}},
		{name: "relative symlink inside", wantServed: true, addSource: func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "src", "real.py"), source)
			symlink(t, filepath.Join("src", "real.py"), filepath.Join(dir, "x.py"))
			return dir
		}},
		{name: "absolute symlink inside", wantServed: true, addSource: func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "src", "real.py"), source)
			symlink(t, filepath.Join(dir, "src", "real.py"), filepath.Join(dir, "x.py"))
			return dir
		}},
		{name: "folder reached through a symlink", wantServed: true, addSource: func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "x.py"), source)
			link := filepath.Join(t.TempDir(), "dags")
			symlink(t, dir, link)
			return link
		}},
		{name: "absolute symlink outside", addSource: func(t *testing.T, dir string) string {
			symlink(t, outside(t), filepath.Join(dir, "x.py"))
			return dir
		}},
		{name: "relative symlink outside", addSource: func(t *testing.T, dir string) string {
			target, err := filepath.Rel(dir, outside(t))
			if err != nil {
				t.Fatal(err)
			}
			symlink(t, target, filepath.Join(dir, "x.py"))
			return dir
		}},
		{name: "symlink inside to a symlink outside", addSource: func(t *testing.T, dir string) string {
			if err := os.Mkdir(filepath.Join(dir, "src"), 0o700); err != nil {
				t.Fatal(err)
			}
			symlink(t, outside(t), filepath.Join(dir, "src", "hop.py"))
			symlink(t, filepath.Join("src", "hop.py"), filepath.Join(dir, "x.py"))
			return dir
		}},
		{name: "symlink to a device", addSource: func(t *testing.T, dir string) string {
			symlink(t, "/dev/zero", filepath.Join(dir, "x.py"))
			return dir
		}},
		{name: "dangling symlink", addSource: func(t *testing.T, dir string) string {
			symlink(t, filepath.Join(dir, "absent.py"), filepath.Join(dir, "x.py"))
			return dir
		}},
		{name: "directory", addSource: func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "x.py", "inside.py"), source)
			return dir
		}},
		{name: "FIFO", addSource: func(t *testing.T, dir string) string {
			mkfifo(t, filepath.Join(dir, "x.py"))
			return dir
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "x.yaml"), "dag_id: x\n"+oneTask)
			folder := tc.addSource(t, dir)
			set := loadDAGDirSoon(t, folder)
			ts := newTestServer(t, edition2, withOptions(func(o *serverOptions) { o.DAGs = set }))
			res := ts.do(t, http.MethodGet, apiPrefix+"/dags/x/code", "")
			if res.status != http.StatusOK {
				t.Fatalf("status %d, want 200: %s", res.status, res.body)
			}
			want := renderPython(set.DAGs[0], python2)
			if tc.wantServed {
				want = source
			}
			if res.body != want {
				t.Errorf("body %.200q, want %.200q", res.body, want)
			}
			if strings.Contains(res.body, secret) {
				t.Error("the answer holds the secret from outside the DAG folder")
			}
		})
	}
}

// loadDAGDirSoon loads a DAG folder, failing the test if that takes more
// than ten seconds (a read that waits on a FIFO would never end).
func loadDAGDirSoon(t *testing.T, dir string) *DAGSet {
	t.Helper()
	type loaded struct {
		set *DAGSet
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		set, err := loadDAGDir(dir)
		done <- loaded{set, err}
	}()
	select {
	case l := <-done:
		if l.err != nil {
			t.Fatalf("loadDAGDir: %v", l.err)
		}
		if len(l.set.DAGs) != 1 {
			t.Fatalf("loadDAGDir: %d DAGs, want 1", len(l.set.DAGs))
		}
		return l.set
	case <-time.After(10 * time.Second):
		t.Fatal("loadDAGDir still runs after 10 s")
		return nil
	}
}
