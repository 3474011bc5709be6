package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The examples of docs/testing.md ("Use airlite in your test suite") live
// in testdata/examples; these tests prove the page shows them verbatim and
// that each one passes against the real binary. The README and the docs
// are checked here too: the README stays short, and every link between
// them leads somewhere.

var (
	buildOnce sync.Once
	builtDir  *tempFolder // removed by TestMain
	builtBin  string
	buildErr  error
)

// tempFolderBin is the tests' kind of temp folder: the binary they build.
const tempFolderBin = "bin"

// TestMain removes what test processes killed before their end (a
// timeout, an interrupt) left in $TMPDIR, and at its own end the binary
// the tests built and the Python task program the tests' schedulers
// extracted.
func TestMain(m *testing.M) {
	if _, err := sweepTempFolders(os.TempDir(), append(slices.Clone(tempFolderKinds), tempFolderBin)); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	code := m.Run()
	if builtDir != nil {
		if err := builtDir.remove(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	if err := removeTaskProgram(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// airliteBinary builds the binary once per test process.
func airliteBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := makeTempFolder(tempFolderBin)
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		builtBin = filepath.Join(dir.path, "airlite")
		if runtime.GOOS == "windows" {
			builtBin += ".exe" // what Windows runs
		}
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			builtBin = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build airlite: %v\n%s", buildErr, builtBin)
	}
	return builtBin
}

func TestDocsShowTheTestedExamples(t *testing.T) {
	t.Parallel()
	const page = "docs/testing.md"
	guide, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"python/conftest.py", "python/test_airlite_example.py", "go/airlite_example_test.go", "ci.sh"} {
		data, err := os.ReadFile(filepath.Join("testdata/examples", file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(guide), string(data)) {
			t.Errorf("%s does not show testdata/examples/%s verbatim", page, file)
		}
	}
}

func runExample(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AIRLITE_BIN="+airliteBinary(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

func TestExample_Shell(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	runExample(t, "testdata/examples", "bash", "ci.sh")
}

// TestExample_Airflow3Shell runs docs/airflow3.md's walk through /api/v2
// (a token, a run without a logical date, its task instances and log, a
// variable) against the binary, and checks the page shows it verbatim.
func TestExample_Airflow3Shell(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("docs/airflow3.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/examples/airflow3.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), string(script)) {
		t.Error("docs/airflow3.md does not show testdata/examples/airflow3.sh verbatim")
	}
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	runExample(t, "testdata/examples", "bash", "airflow3.sh")
}

func TestExample_GoTestMain(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/examples/go/airlite_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "airlite_example_test.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example\n\ngo 1.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runExample(t, dir, "go", "test", "-count=1", "./...")
}

// TestExample_Pytest runs the pytest example with AIRLITE_PYTHON (or
// python3) when it has pytest and requests; CI installs them, so there a
// missing module is a failure, not a skip.
func TestExample_Pytest(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	python := os.Getenv("AIRLITE_PYTHON")
	if python == "" {
		python = "python3"
	}
	if err := exec.Command(python, "-c", "import pytest, requests").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s lacks pytest or requests (CI installs python3-pytest and python3-requests): %v", python, err)
		}
		t.Skipf("%s lacks pytest or requests: install python3-pytest and python3-requests to run the pytest example", python)
	}
	dir := t.TempDir()
	for _, f := range []string{"conftest.py", "test_airlite_example.py"} {
		data, err := os.ReadFile(filepath.Join("testdata/examples/python", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runExample(t, dir, python, "-m", "pytest", "-q", "-p", "no:cacheprovider")
}

// TestREADMEGoVersionIsGoMod: the Go release the README asks for is the
// one go.mod names (major.minor), so a newcomer's toolchain builds.
func TestREADMEGoVersionIsGoMod(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)(\.\d+)?$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	want := string(m[1])
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`Go (\d+\.\d+)`).FindAllSubmatch(readme, -1)
	if len(named) == 0 {
		t.Fatal("README.md names no Go version")
	}
	for _, n := range named {
		if string(n[1]) != want {
			t.Errorf("README.md names Go %s; go.mod says %s", n[1], want)
		}
	}
	if !strings.Contains(string(readme), "go.mod says "+want) {
		t.Errorf("README.md does not say go.mod says %s", want)
	}
}

// docPages are the pages a reader is sent to: the README and docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md", "BENCHMARKS.md"}, pages...)
}

// TestDocsCodeFencesClosed: every ``` block a page opens is closed before
// the next one opens, so no prose renders as code.
func TestDocsCodeFencesClosed(t *testing.T) {
	t.Parallel()
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		open := 0 // line of the open fence, 0 when none
		for i, line := range strings.Split(string(text), "\n") {
			if !strings.HasPrefix(line, "```") {
				continue
			}
			switch {
			case open == 0:
				open = i + 1
			case line == "```":
				open = 0
			default:
				t.Errorf("%s:%d opens %q inside the block opened at line %d", page, i+1, line, open)
				open = i + 1
			}
		}
		if open != 0 {
			t.Errorf("%s:%d opens a block that is never closed", page, open)
		}
	}
}

// TestREADMEIsShort: the README is what a newcomer reads first; the rest
// belongs in docs/, by reader.
func TestREADMEIsShort(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 300 {
		t.Errorf("README.md has %d lines; at most 300 (move the rest to docs/)", n)
	}
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	// slugDrop is what GitHub drops from a heading to make its anchor.
	slugDrop = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// headingAnchors are the anchors GitHub gives a page's headings (outside
// code blocks).
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if m := mdHeading.FindStringSubmatch(line); m != nil && !inCode {
			slug := slugDrop.ReplaceAllString(strings.ToLower(m[1]), "")
			anchors[strings.ReplaceAll(slug, " ", "-")] = true
		}
	}
	return anchors
}

// TestDocsLinksResolve: every link from one page of the README or docs/
// to a file of the repository names a file that exists and, with a
// #fragment, a heading of that file; pages moved to docs/ keep their
// links working.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s links to %s: %v", page, target, err)
				continue
			}
			if fragment != "" && !headingAnchors(string(data))[fragment] {
				t.Errorf("%s links to %s: %s has no heading with anchor #%s", page, target, path, fragment)
			}
		}
	}
}
