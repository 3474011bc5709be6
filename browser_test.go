package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds a Chromium or Chrome: $AIRLITE_CHROMIUM, then the
// usual names.
func chromiumPath() string {
	if p := os.Getenv("AIRLITE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// startAirlite builds the real binary and starts it on a free port with
// the embedded examples and the scheduler on; it returns the base URL
// once the ready file is written, and stops the server at cleanup.
func startAirlite(t *testing.T, args ...string) string {
	t.Helper()
	skipStopBySignal(t)
	dir := t.TempDir()
	bin := airliteBinary(t)
	ready := filepath.Join(dir, "ready")
	cmd := exec.Command(bin, append([]string{"--addr", "127.0.0.1:0", "--snapshot", "off", "--ready-file", ready,
		"--home", dir, "--log-format", "json"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AIRLITE_") { // the flags alone decide
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var logs bytes.Buffer // one writer for both: exec serialises the writes
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start airlite: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Error("airlite did not stop within 10 s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("airlite output:\n%s", logs.String())
		}
	})
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for {
		if b, err := os.ReadFile(ready); err == nil {
			return strings.TrimSpace(string(b))
		}
		select {
		case err := <-exited:
			t.Fatalf("airlite exited before it was ready: %v\n%s", err, logs.String())
		case <-deadline:
			t.Fatal("airlite wrote no ready file within 20 s")
		case <-tick.C:
		}
	}
}

// TestBrowser_StatusPage drives the real binary in headless Chromium: it
// triggers example_bash_operator with a conf from /, follows the run's
// link, waits for the run to finish, checks what the page shows, and
// takes screenshots at laptop and phone widths.
func TestBrowser_StatusPage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	chrome := chromiumPath()
	if chrome == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found with CI=true: .ci/run installs the chromium package")
		}
		t.Skip("no Chromium found: install the chromium package (or set AIRLITE_CHROMIUM) to run the browser test")
	}
	base := startAirlite(t)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chrome),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "chromium")),
		chromedp.WindowSize(1280, 900),
	)
	t.Cleanup(cancelAlloc) // waits for Chromium to exit, before the temp dirs go
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	do := func(step string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(browser, steps...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}

	const (
		dagID = "example_bash_operator"
		conf  = `{"greeting": "<script>alert(1)</script>", "n": 1}`
	)
	row := `tr[data-dag-id="` + dagID + `"]`
	do("open /", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(row)))
	// The stylesheet and the script run under the CSP by their hashes.
	if !browserEval[bool](t, browser, `getComputedStyle(document.querySelector(".top")).display === "flex"`) {
		t.Error("the stylesheet is not applied (a CSP hash out of date?)")
	}
	if !browserEval[bool](t, browser, `!document.getElementById("refresh-toggle").hidden`) {
		t.Error("the refresh script did not run (a CSP hash out of date?)")
	}

	do("trigger with a conf",
		chromedp.Click(chromedp.CSS(`#trigger-`+dagID+` > summary`)),
		chromedp.WaitVisible(chromedp.CSS(`#conf-`+dagID)),
		chromedp.SendKeys(chromedp.CSS(`#conf-`+dagID), conf),
		chromedp.Click(chromedp.CSS(`#trigger-`+dagID+` button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#triggered-run`)),
	)
	runHref := browserEval[string](t, browser, `document.getElementById("triggered-run").getAttribute("href")`)
	// The link is the API's dag_run_url of the new run, and the DAG's row
	// shows the run as a square with the same link.
	if want := apiRunURLs(t, base, dagID); !slices.Contains(want, runHref) {
		t.Errorf("triggered run links to %q; the API's dag_run_urls are %q", runHref, want)
	}
	if !browserEval[bool](t, browser, `Array.from(document.querySelectorAll('`+row+` .squares a')).some(a => a.getAttribute("href") === `+browserJSString(runHref)+`)`) {
		t.Errorf("no square in the %s row links to %s", dagID, runHref)
	}

	do("follow the run's link and wait for the run to finish",
		chromedp.Click(chromedp.CSS(`#triggered-run`)),
		chromedp.WaitVisible(chromedp.CSS(`section.run[data-run-finished]`)), // the page reloads itself meanwhile
	)
	if state := browserEval[string](t, browser, `document.querySelector("section.run").dataset.runState`); state != "success" {
		t.Errorf("run state %q, want success", state)
	}
	states := browserEval[map[string]string](t, browser,
		`Object.fromEntries(Array.from(document.querySelectorAll("tr[data-task-id]")).map(tr => [tr.dataset.taskId, tr.dataset.state]))`)
	wantStates := map[string]string{
		"runme_0": "success", "runme_1": "success", "runme_2": "success", "run_after_loop": "success",
		"also_run_this": "success", "this_will_skip": "skipped", "run_this_last": "skipped",
	}
	if !reflect.DeepEqual(states, wantStates) {
		t.Errorf("task states shown %v, want %v", states, wantStates)
	}
	// The graph shows the same states, as the fills the binary chose, and
	// the grid's cell of each task in this run links to its log.
	graphStates := browserEval[map[string]string](t, browser,
		`Object.fromEntries(Array.from(document.querySelectorAll("g.node")).map(g => [g.dataset.taskId, g.dataset.state]))`)
	if !reflect.DeepEqual(graphStates, wantStates) {
		t.Errorf("graph states %v, want %v", graphStates, wantStates)
	}
	if fill := browserEval[string](t, browser, `getComputedStyle(document.querySelector('g.node[data-task-id="runme_0"] rect')).fill`); fill != "rgb(0, 128, 0)" {
		t.Errorf("runme_0's node is filled %q, want green", fill)
	}
	if n := browserEval[int](t, browser, `document.querySelectorAll("path.edge").length`); n != 6 {
		t.Errorf("graph has %d edges, want 6", n)
	}
	cellHref := browserEval[string](t, browser, `document.querySelector('tr[data-grid-task="runme_0"] td:last-child a.cell').getAttribute("href")`)
	if cellHref != runHref+"#log-runme_0" {
		t.Errorf("runme_0's grid cell links to %q, want %q", cellHref, runHref+"#log-runme_0")
	}
	confText := browserEval[string](t, browser, `document.getElementById("conf").textContent`)
	confChildren := browserEval[int](t, browser, `document.querySelectorAll("#conf *").length`)
	if !strings.Contains(confText, `"<script>alert(1)</script>"`) || confChildren != 0 {
		t.Errorf("conf shown as %q with %d elements inside, want the text as typed", confText, confChildren)
	}

	do("open the output of runme_0",
		chromedp.Click(chromedp.CSS(`#log-runme_0 > summary`)),
		chromedp.WaitVisible(chromedp.CSS(`#log-runme_0 pre.output`)),
	)
	output, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS(`#log-runme_0 pre.output`)))
	if err != nil {
		t.Fatalf("read output: %v", err)
	}
	if !strings.Contains(output, dagID+"__runme_0__") {
		t.Errorf("runme_0 output %q, want its task_instance_key_str", output)
	}

	runURL := base + runHref
	shots := []struct {
		name, url string
		width     int64
		readme    bool // shown in the README or docs/local-development.md, so kept in docs/
	}{
		{"status-run-1280", runURL, 1280, true},
		{"status-dags-1280", base + "/", 1280, true},
		{"status-run-390", runURL, 390, true},
		{"status-dags-390", base + "/", 390, false},
	}
	update := os.Getenv("AIRLITE_UPDATE_SCREENSHOTS") == "1"
	shotDir := t.TempDir()
	for _, s := range shots {
		opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
		if s.width < 600 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		do("open "+s.name,
			chromedp.EmulateViewport(s.width, 900, opts...),
			chromedp.Navigate(s.url),
			chromedp.WaitVisible(chromedp.CSS(`main`)),
		)
		browserEval[bool](t, browser, `document.querySelectorAll("details.log").forEach(d => d.open = d.id === "log-runme_0"); true`)
		if browserEval[bool](t, browser, `document.documentElement.scrollWidth > window.innerWidth`) {
			t.Errorf("%s: the page is wider than a %d px screen", s.name, s.width)
		}
		if s.url == runURL {
			// The graph's labels (13 user units) are drawn at 12 px or
			// more: at a phone's width it scrolls rather than shrinks.
			px := browserEval[float64](t, browser, `(() => { const g = document.querySelector(".graph-box svg"); return g.getBoundingClientRect().width / g.viewBox.baseVal.width * 13 })()`)
			if px < 12 {
				t.Errorf("%s: the graph's labels are %.1f px high, want 12 or more", s.name, px)
			}
		}
		png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", s.name, err)
		}
		files := []string{filepath.Join(shotDir, s.name+".png")}
		if update && s.readme {
			files = append(files, filepath.Join("docs", s.name+".png"))
		}
		for _, f := range files {
			if err := os.WriteFile(f, png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("screenshots in %s", shotDir)
}

// browserEval evaluates a JavaScript expression in the page.
func browserEval[T any](t *testing.T, browser context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(browser, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// apiRunURLs lists the dag_run_url of every run of a DAG, as the API
// reports them.
func apiRunURLs(t *testing.T, base, dagID string) []string {
	t.Helper()
	res, err := http.Get(base + apiPrefix + "/dags/" + dagID + "/dag_runs")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var runs []struct {
		URL string `json:"dag_run_url"`
	}
	if err := json.NewDecoder(res.Body).Decode(&runs); err != nil {
		t.Fatalf("decode dag_runs: %v", err)
	}
	var urls []string
	for _, r := range runs {
		urls = append(urls, r.URL)
	}
	return urls
}

func browserJSString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
