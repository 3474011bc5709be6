package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// syncBuffer is a bytes.Buffer that run's goroutines and the test may use
// at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// mapEnv is a getenv over a fixed map, so that tests never read the
// process environment.
func mapEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	const home = "/home/tester"
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, c config)
		// wantErr, when set, is text the error must contain (the flag's name).
		wantErr string
	}{
		{
			name: "defaults",
			check: func(t *testing.T, c config) {
				want := config{
					Addr: "127.0.0.1:8080", Edition: edition2, DagsDir: "",
					Home: filepath.Join(home, "airlite"), Snapshot: filepath.Join(home, "airlite", "snapshot.json"),
					SnapshotInterval: 5 * time.Second, Scheduler: true, Parallelism: 32,
					AuthBackend: authDefault, UsersFile: "", ReadyFile: "", LogFormat: "", LogLevel: zerolog.InfoLevel,
				}
				checkConfigFields(t, c, want)
				if c.MaxPools != 1000 || c.MaxDags != 1000 || c.MaxConfBytes != 256<<20 {
					t.Errorf("MaxPools = %d, MaxDags = %d, MaxConfBytes = %d: want 1000, 1000 and 256 MiB",
						c.MaxPools, c.MaxDags, c.MaxConfBytes)
				}
				if c.BodyTimeout != defaultBodyTimeout || c.InsecureOpenAPI || c.AllowedOrigins != nil || c.AllowedHosts != nil {
					t.Errorf("body timeout %s, insecure %v, origins %q, hosts %q: want 30s, false and none",
						c.BodyTimeout, c.InsecureOpenAPI, c.AllowedOrigins, c.AllowedHosts)
				}
			},
		},
		{
			name: "every flag",
			args: []string{
				"--addr", "0.0.0.0:9090", "--edition", "1.10-rbac", "--dags", "/srv/dags",
				"--home", "/var/lib/airlite", "--snapshot", "/tmp/state.json", "--snapshot-interval", "30s",
				"--scheduler", "off", "--parallelism", "4", "--auth-backend", "basic_auth",
				"--users", "/etc/airlite/users", "--ready-file", "/tmp/ready", "--log-format", "console",
				"--log-level", "debug", "--allowed-origins", "https://dash.example", "--allowed-hosts", "airlite.lan",
				"--insecure-open-api",
			},
			check: func(t *testing.T, c config) {
				checkConfigFields(t, c, config{
					Addr: "0.0.0.0:9090", Edition: edition110RBAC, DagsDir: "/srv/dags",
					Home: "/var/lib/airlite", Snapshot: "/tmp/state.json", SnapshotInterval: 30 * time.Second,
					Scheduler: false, Parallelism: 4, AuthBackend: authBasic, UsersFile: "/etc/airlite/users",
					ReadyFile: "/tmp/ready", LogFormat: "console", LogLevel: zerolog.DebugLevel,
				})
				if len(c.AllowedOrigins) != 1 || c.AllowedOrigins[0] != "https://dash.example" ||
					len(c.AllowedHosts) != 1 || c.AllowedHosts[0] != "airlite.lan" || !c.InsecureOpenAPI {
					t.Errorf("browser flags: origins %q, hosts %q, insecure %v", c.AllowedOrigins, c.AllowedHosts, c.InsecureOpenAPI)
				}
			},
		},
		{
			name: "single dash and = forms",
			args: []string{"-edition=1.10", "--parallelism=7"},
			check: func(t *testing.T, c config) {
				checkConfigFields(t, c, config{Edition: edition110, Parallelism: 7})
			},
		},
		{
			name: "snapshot off",
			args: []string{"--snapshot", "off"},
			check: func(t *testing.T, c config) {
				if c.Snapshot != "off" {
					t.Errorf("Snapshot = %q, want off", c.Snapshot)
				}
			},
		},
		{
			name: "home with tilde",
			args: []string{"--home", "~/state"},
			check: func(t *testing.T, c config) {
				checkConfigFields(t, c, config{
					Home: filepath.Join(home, "state"), Snapshot: filepath.Join(home, "state", "snapshot.json"),
				})
			},
		},
		{
			name: "environment fallbacks",
			env: map[string]string{
				"AIRLITE_ADDR": "127.0.0.1:0", "AIRLITE_EDITION": "1.10", "AIRLITE_DAGS": "/env/dags",
				"AIRLITE_HOME": "/env/home", "AIRLITE_SNAPSHOT": "/env/snap.json",
				"AIRLITE_SNAPSHOT_INTERVAL": "1m", "AIRLITE_SCHEDULER": "off", "AIRLITE_PARALLELISM": "2",
				"AIRLITE_AUTH_BACKEND": "password_auth", "AIRLITE_USERS": "/env/users",
				"AIRLITE_READY_FILE": "/env/ready", "AIRLITE_LOG_FORMAT": "json", "AIRLITE_LOG_LEVEL": "warn",
			},
			check: func(t *testing.T, c config) {
				checkConfigFields(t, c, config{
					Addr: "127.0.0.1:0", Edition: edition110, DagsDir: "/env/dags", Home: "/env/home",
					Snapshot: "/env/snap.json", SnapshotInterval: time.Minute, Scheduler: false, Parallelism: 2,
					AuthBackend: authPassword, UsersFile: "/env/users", ReadyFile: "/env/ready",
					LogFormat: "json", LogLevel: zerolog.WarnLevel,
				})
			},
		},
		{
			name: "snapshot under env home",
			env:  map[string]string{"AIRLITE_HOME": "/env/home"},
			check: func(t *testing.T, c config) {
				checkConfigFields(t, c, config{Home: "/env/home", Snapshot: filepath.Join("/env/home", "snapshot.json")})
			},
		},
		{
			name: "command line wins over environment",
			args: []string{"--addr", "127.0.0.1:7000", "--edition", "2", "--snapshot-interval", "2s", "--scheduler", "on", "--log-level", "error"},
			env: map[string]string{
				"AIRLITE_ADDR": "127.0.0.1:6000", "AIRLITE_EDITION": "1.10",
				"AIRLITE_SNAPSHOT_INTERVAL": "1h", "AIRLITE_SCHEDULER": "off", "AIRLITE_LOG_LEVEL": "debug",
			},
			check: func(t *testing.T, c config) {
				checkConfigFields(t, c, config{
					Addr: "127.0.0.1:7000", Edition: edition2, SnapshotInterval: 2 * time.Second,
					Scheduler: true, LogLevel: zerolog.ErrorLevel,
				})
			},
		},
		{
			name: "command line fixes a bad environment value",
			args: []string{"--edition", "2"},
			env:  map[string]string{"AIRLITE_EDITION": "4"},
			check: func(t *testing.T, c config) {
				checkConfigFields(t, c, config{Edition: edition2})
			},
		},
		{name: "edition 3", args: []string{"--edition", "3"},
			check: func(t *testing.T, c config) { checkConfigFields(t, c, config{Edition: edition3}) }},
		{name: "edition 3 from the environment", env: map[string]string{"AIRLITE_EDITION": "3"},
			check: func(t *testing.T, c config) { checkConfigFields(t, c, config{Edition: edition3}) }},
		{name: "bad edition", args: []string{"--edition", "4"}, wantErr: "edition"},
		{name: "bad scheduler", args: []string{"--scheduler", "maybe"}, wantErr: "--scheduler"},
		{name: "zero parallelism", args: []string{"--parallelism", "0"}, wantErr: "--parallelism"},
		{name: "parallelism not a number", args: []string{"--parallelism", "many"}, wantErr: "parallelism"},
		{name: "bad log format", args: []string{"--log-format", "xml"}, wantErr: "--log-format"},
		{name: "bad log level", args: []string{"--log-level", "loud"}, wantErr: "--log-level"},
		{name: "empty log level", args: []string{"--log-level", ""}, wantErr: "--log-level"},
		{name: "zero snapshot interval", args: []string{"--snapshot-interval", "0s"}, wantErr: "snapshot-interval"},
		{name: "basic_auth without users", args: []string{"--auth-backend", "basic_auth"}, wantErr: "--users"},
		{name: "password_auth without users", args: []string{"--auth-backend", "password_auth"}, wantErr: "--users"},
		{name: "bad environment edition", env: map[string]string{"AIRLITE_EDITION": "4"}, wantErr: `AIRLITE_EDITION="4"`},
		{name: "bad edition flag", args: []string{"--edition", "4"}, wantErr: "--edition"},
		{name: "zero body timeout", args: []string{"--body-timeout", "0s"}, wantErr: "--body-timeout"},
		{name: "body timeout from the environment", env: map[string]string{"AIRLITE_BODY_TIMEOUT": "5s"},
			check: func(t *testing.T, c config) {
				if c.BodyTimeout != 5*time.Second {
					t.Errorf("BodyTimeout = %s, want 5s", c.BodyTimeout)
				}
			}},
		{name: "max pools", args: []string{"--max-pools", "5"},
			check: func(t *testing.T, c config) {
				if c.MaxPools != 5 {
					t.Errorf("MaxPools = %d, want 5", c.MaxPools)
				}
			}},
		{name: "max pools from the environment", env: map[string]string{"AIRLITE_MAX_POOLS": "0"},
			check: func(t *testing.T, c config) {
				if c.MaxPools != 0 {
					t.Errorf("MaxPools = %d, want 0 (no limit)", c.MaxPools)
				}
			}},
		{name: "negative max pools", args: []string{"--max-pools", "-1"}, wantErr: "--max-pools"},
		{name: "bad environment max pools", env: map[string]string{"AIRLITE_MAX_POOLS": "many"}, wantErr: "AIRLITE_MAX_POOLS"},
		{name: "max dags", args: []string{"--max-dags", "0"}, env: map[string]string{"AIRLITE_MAX_DAGS": "7"},
			check: func(t *testing.T, c config) {
				if c.MaxDags != 0 {
					t.Errorf("MaxDags = %d, want 0 (the command line wins)", c.MaxDags)
				}
			}},
		{name: "max dags from the environment", env: map[string]string{"AIRLITE_MAX_DAGS": "7"},
			check: func(t *testing.T, c config) {
				if c.MaxDags != 7 {
					t.Errorf("MaxDags = %d, want 7", c.MaxDags)
				}
			}},
		{name: "negative max dags", env: map[string]string{"AIRLITE_MAX_DAGS": "-3"}, wantErr: "--max-dags"},
		{name: "variable, connection and xcom limits", args: []string{"--max-variables", "1", "--max-variable-bytes", "2",
			"--max-connections", "3", "--max-xcoms", "5", "--max-xcom-bytes", "6"},
			env: map[string]string{"AIRLITE_MAX_CONNECTION_BYTES": "4", "AIRLITE_MAX_XCOMS": "50"},
			check: func(t *testing.T, c config) {
				got := []int{c.MaxVariables, c.MaxVariableBytes, c.MaxConnections, c.MaxConnBytes, c.MaxXComs, c.MaxXComBytes}
				if fmt.Sprint(got) != "[1 2 3 4 5 6]" {
					t.Errorf("limits = %v, want [1 2 3 4 5 6]", got)
				}
			}},
		{name: "variable, connection and xcom limit defaults", check: func(t *testing.T, c config) {
			got := []int{c.MaxVariables, c.MaxVariableBytes, c.MaxConnections, c.MaxConnBytes, c.MaxXComs, c.MaxXComBytes}
			if fmt.Sprint(got) != "[10000 65536 1000 65536 100000 65536]" {
				t.Errorf("limits = %v", got)
			}
		}},
		{name: "negative max xcom bytes", env: map[string]string{"AIRLITE_MAX_XCOM_BYTES": "-1"}, wantErr: "--max-xcom-bytes"},
		{name: "max event logs default", check: func(t *testing.T, c config) {
			if c.MaxEventLogs != 10000 {
				t.Errorf("MaxEventLogs = %d, want 10000", c.MaxEventLogs)
			}
		}},
		{name: "max event logs from the environment", env: map[string]string{"AIRLITE_MAX_EVENT_LOGS": "5"},
			check: func(t *testing.T, c config) {
				if c.MaxEventLogs != 5 {
					t.Errorf("MaxEventLogs = %d, want 5", c.MaxEventLogs)
				}
			}},
		{name: "negative max event logs", args: []string{"--max-event-logs", "-1"}, wantErr: "--max-event-logs"},
		{name: "negative max connections", args: []string{"--max-connections", "-1"}, wantErr: "--max-connections"},
		{name: "max conf bytes total", args: []string{"--max-conf-bytes-total", "1048576"},
			check: func(t *testing.T, c config) {
				if c.MaxConfBytes != 1<<20 {
					t.Errorf("MaxConfBytes = %d, want 1 MiB", c.MaxConfBytes)
				}
			}},
		{name: "max conf bytes total from the environment", env: map[string]string{"AIRLITE_MAX_CONF_BYTES_TOTAL": "0"},
			check: func(t *testing.T, c config) {
				if c.MaxConfBytes != 0 {
					t.Errorf("MaxConfBytes = %d, want 0 (no limit)", c.MaxConfBytes)
				}
			}},
		{name: "negative max conf bytes total", args: []string{"--max-conf-bytes-total", "-1"}, wantErr: "--max-conf-bytes-total"},
		{name: "max conf bytes total with a unit", args: []string{"--max-conf-bytes-total", "256MiB"}, wantErr: "max-conf-bytes-total"},
		{name: "bad allowed origin", args: []string{"--allowed-origins", "evil.example"}, wantErr: "--allowed-origins"},
		{name: "allowed host with a port", env: map[string]string{"AIRLITE_ALLOWED_HOSTS": "box:80"}, wantErr: "--allowed-hosts"},
		{name: "bad insecure flag", env: map[string]string{"AIRLITE_INSECURE_OPEN_API": "maybe"}, wantErr: "AIRLITE_INSECURE_OPEN_API"},
		{name: "stray argument", args: []string{"serve"}, wantErr: `"serve"`},
		{name: "stray argument after flags", args: []string{"--scheduler", "off", "extra"}, wantErr: `"extra"`},
		{name: "unknown flag", args: []string{"--colour"}, wantErr: "colour"},
		{name: "bad environment scheduler", env: map[string]string{"AIRLITE_SCHEDULER": "maybe"}, wantErr: "--scheduler"},
		{name: "bad environment parallelism", env: map[string]string{"AIRLITE_PARALLELISM": "x"}, wantErr: "AIRLITE_PARALLELISM"},
		{name: "bad environment interval", env: map[string]string{"AIRLITE_SNAPSHOT_INTERVAL": "soon"}, wantErr: "AIRLITE_SNAPSHOT_INTERVAL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"HOME": home}
			for k, v := range tc.env {
				env[k] = v
			}
			var stderr syncBuffer
			c, err := parseConfig(tc.args, mapEnv(env), &stderr)
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("parseConfig(%q) = nil error, want one naming %s", tc.args, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseConfig(%q) error = %q, want it to contain %q", tc.args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseConfig(%q): %v", tc.args, err)
			}
			tc.check(t, c)
		})
	}
}

// checkConfigFields compares the fields of want that are not zero, so that
// flags added later do not break the table. Scheduler is compared whenever
// Parallelism or Addr is set (rows that describe a whole config), or when
// want.Scheduler is true.
func checkConfigFields(t *testing.T, got, want config) {
	t.Helper()
	str := func(name, g, w string) {
		if w != "" && g != w {
			t.Errorf("%s = %q, want %q", name, g, w)
		}
	}
	str("Addr", got.Addr, want.Addr)
	str("Edition", string(got.Edition), string(want.Edition))
	str("DagsDir", got.DagsDir, want.DagsDir)
	str("Home", got.Home, want.Home)
	str("Snapshot", got.Snapshot, want.Snapshot)
	str("AuthBackend", got.AuthBackend, want.AuthBackend)
	str("UsersFile", got.UsersFile, want.UsersFile)
	str("ReadyFile", got.ReadyFile, want.ReadyFile)
	str("LogFormat", got.LogFormat, want.LogFormat)
	if want.SnapshotInterval != 0 && got.SnapshotInterval != want.SnapshotInterval {
		t.Errorf("SnapshotInterval = %s, want %s", got.SnapshotInterval, want.SnapshotInterval)
	}
	if want.Parallelism != 0 && got.Parallelism != want.Parallelism {
		t.Errorf("Parallelism = %d, want %d", got.Parallelism, want.Parallelism)
	}
	if (want.Scheduler || want.Addr != "") && got.Scheduler != want.Scheduler {
		t.Errorf("Scheduler = %v, want %v", got.Scheduler, want.Scheduler)
	}
	// zerolog.DebugLevel is the zero Level; compare whenever a row sets a
	// level other than the default or describes a whole config.
	if (want.LogLevel != zerolog.DebugLevel || want.Addr != "") && got.LogLevel != want.LogLevel {
		t.Errorf("LogLevel = %s, want %s", got.LogLevel, want.LogLevel)
	}
}

func TestParseConfig_Defaults_LogFormatEmpty(t *testing.T) {
	t.Parallel()
	// An empty log format means "console on a terminal, else json"; the
	// default must stay empty so that newLogger can decide.
	c, err := parseConfig(nil, mapEnv(map[string]string{"HOME": "/h"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.LogFormat != "" {
		t.Errorf("LogFormat = %q, want empty", c.LogFormat)
	}
	if c.LogLevel != zerolog.InfoLevel {
		t.Errorf("LogLevel = %s, want info", c.LogLevel)
	}
}

func TestParseConfig_Help(t *testing.T) {
	t.Parallel()
	var stderr syncBuffer
	_, err := parseConfig([]string{"--help"}, mapEnv(nil), &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("parseConfig(--help) error = %v, want flag.ErrHelp", err)
	}
	usage := stderr.String()
	for _, want := range []string{"Usage: airlite", "AIRLITE_", "-addr", "-snapshot-interval", "-ready-file"} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage does not mention %q:\n%s", want, usage)
		}
	}
}

func TestRun_Help(t *testing.T) {
	t.Parallel()
	var stdout, stderr syncBuffer
	err := run(context.Background(), []string{"--help"}, mapEnv(nil), &stdout, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("run(--help) = %v, want flag.ErrHelp", err)
	}
	if stdout.String() != "" {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

func TestRun_BadFlag(t *testing.T) {
	t.Parallel()
	var stdout, stderr syncBuffer
	err := run(context.Background(), []string{"--edition", "4"}, mapEnv(nil), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "edition") {
		t.Fatalf("run(--edition 4) = %v, want an error naming the edition", err)
	}
	if stdout.String() != "" {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

// runningServer is one run call serving in the background.
type runningServer struct {
	baseURL string
	stdout  *syncBuffer
	stderr  *syncBuffer
	cancel  context.CancelFunc
	done    chan error
}

// stop cancels run and returns what it returned.
func (s *runningServer) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		return err
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return within 15s of the context's end")
		return nil
	}
}

var listeningLine = regexp.MustCompile(`^listening on (http://[^\s]+)\n$`)

// startRun calls run in a goroutine with args (plus --home in a temp dir,
// --snapshot off, --scheduler off and --log-format json unless given) and
// waits for the "listening on" line. The run is stopped at cleanup.
func startRun(t *testing.T, args ...string) *runningServer {
	t.Helper()
	has := func(flagName string) bool {
		for _, a := range args {
			if a == flagName || strings.HasPrefix(a, flagName+"=") {
				return true
			}
		}
		return false
	}
	dir := t.TempDir()
	defaults := map[string]string{
		"--home": dir, "--snapshot": "off", "--scheduler": "off", "--log-format": "json", "--addr": "127.0.0.1:0",
	}
	for _, name := range []string{"--home", "--snapshot", "--scheduler", "--log-format", "--addr"} {
		if !has(name) {
			args = append(args, name, defaults[name])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &runningServer{stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	env := mapEnv(map[string]string{"HOME": dir})
	go func() { s.done <- run(ctx, args, env, s.stdout, s.stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(15 * time.Second):
			t.Error("run did not return within 15s of cleanup")
		}
	})

	waitForRun(t, s, "the listening line", func() bool { return s.stdout.String() != "" })
	m := listeningLine.FindStringSubmatch(s.stdout.String())
	if m == nil {
		t.Fatalf("stdout = %q, want exactly one line \"listening on http://HOST:PORT\"", s.stdout.String())
	}
	s.baseURL = m[1]
	return s
}

// waitForRun polls cond on a short ticker until it holds, failing the test
// after a deadline or when run returns first.
func waitForRun(t *testing.T, s *runningServer, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case err := <-s.done:
			s.done <- err
			t.Fatalf("run returned %v while waiting for %s; stderr:\n%s", err, what, s.stderr.String())
		case <-deadline.C:
			t.Fatalf("no %s within 10s; stdout %q; stderr:\n%s", what, s.stdout.String(), s.stderr.String())
		case <-tick.C:
		}
	}
}

// mainGet fetches a URL and returns status and body.
func mainGet(t *testing.T, url string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

func TestRun_ServesAndShutsDown(t *testing.T) {
	t.Parallel()
	readyFile := filepath.Join(t.TempDir(), "ready")
	s := startRun(t, "--ready-file", readyFile)

	if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*$`).MatchString(s.baseURL) {
		t.Fatalf("base URL %q: want http://127.0.0.1:<real port>", s.baseURL)
	}
	if strings.HasSuffix(s.baseURL, ":0") {
		t.Fatalf("base URL %q carries port 0, not the real port", s.baseURL)
	}
	data, err := os.ReadFile(readyFile)
	if err != nil {
		t.Fatalf("ready file: %v (it must exist once the listening line is printed)", err)
	}
	if got := strings.TrimSpace(string(data)); got != s.baseURL {
		t.Errorf("ready file holds %q, want %q", got, s.baseURL)
	}

	if status, body := mainGet(t, s.baseURL+"/_airlite/ready"); status != http.StatusOK {
		t.Errorf("GET /_airlite/ready = %d %s, want 200", status, body)
	}
	if status, body := mainGet(t, s.baseURL+"/_airlite/health"); status != http.StatusOK {
		t.Errorf("GET /_airlite/health = %d %s, want 200", status, body)
	}
	if status, body := mainGet(t, s.baseURL+"/api/experimental/test"); status != http.StatusOK || body != `{"status": "OK"}` {
		t.Errorf("GET /api/experimental/test = %d %q, want 200 {\"status\": \"OK\"}", status, body)
	}
	// The embedded examples are served when --dags is not given.
	if status, body := mainGet(t, s.baseURL+"/api/experimental/dags/example_bash_operator/paused"); status != http.StatusOK {
		t.Errorf("GET example_bash_operator/paused = %d %s, want 200", status, body)
	}

	if err := s.stop(t); err != nil {
		t.Fatalf("run after cancel = %v, want nil", err)
	}
	if got := s.stdout.String(); !listeningLine.MatchString(got) {
		t.Errorf("stdout after shutdown = %q, want only the listening line", got)
	}
	client := &http.Client{Timeout: 2 * time.Second}
	if resp, err := client.Get(s.baseURL + "/_airlite/health"); err == nil {
		resp.Body.Close()
		t.Errorf("server still answers after run returned")
	}
}

func TestRun_Edition110(t *testing.T) {
	t.Parallel()
	s := startRun(t, "--edition", "1.10")
	if status, body := mainGet(t, s.baseURL+"/api/experimental/test"); status != http.StatusOK || body != "{\"status\":\"OK\"}\n" {
		t.Errorf("GET /api/experimental/test = %d %q, want 200 compact JSON with a newline", status, body)
	}
	if status, _ := mainGet(t, s.baseURL+"/api/experimental/info"); status != http.StatusNotFound {
		t.Errorf("GET /api/experimental/info in 1.10 = %d, want 404", status)
	}
}

func TestRun_EnvironmentAddr(t *testing.T) {
	t.Parallel()
	// The address comes from AIRLITE_ADDR when the flag is absent.
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &runningServer{stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	env := mapEnv(map[string]string{
		"HOME": dir, "AIRLITE_ADDR": "127.0.0.1:0", "AIRLITE_SNAPSHOT": "off", "AIRLITE_SCHEDULER": "off",
		"AIRLITE_LOG_FORMAT": "json", "AIRLITE_HOME": dir,
	})
	go func() { s.done <- run(ctx, nil, env, s.stdout, s.stderr) }()
	t.Cleanup(func() { cancel(); <-s.done })
	waitForRun(t, s, "the listening line", func() bool { return s.stdout.String() != "" })
	if !regexp.MustCompile(`^listening on http://127\.0\.0\.1:[1-9][0-9]*\n$`).MatchString(s.stdout.String()) {
		t.Fatalf("stdout = %q", s.stdout.String())
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("run after cancel = %v, want nil", err)
	}
}

const mainTestDAG = `dag_id: airlite_main_test
schedule_interval: null
start_date: 2024-01-01T00:00:00+00:00
tasks:
  - task_id: hello
    operator: BashOperator
    bash_command: echo hello
    downstream: [done]
  - task_id: done
    operator: EmptyOperator
`

func TestRun_DagsFolder(t *testing.T) {
	t.Parallel()
	dags := t.TempDir()
	if err := os.WriteFile(filepath.Join(dags, "airlite_main_test.yaml"), []byte(mainTestDAG), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startRun(t, "--dags", dags)

	status, body := mainGet(t, s.baseURL+"/api/experimental/dags/airlite_main_test/tasks/hello")
	if status != http.StatusOK {
		t.Fatalf("GET task hello = %d %s, want 200", status, body)
	}
	var info map[string]any
	if err := json.Unmarshal([]byte(body), &info); err != nil {
		t.Fatalf("task info is not JSON: %v\n%s", err, body)
	}
	if info["task_id"] != "hello" || info["bash_command"] != "echo hello" {
		t.Errorf("task info task_id=%v bash_command=%v, want hello / echo hello", info["task_id"], info["bash_command"])
	}
	// The folder replaces the embedded examples.
	if status, body := mainGet(t, s.baseURL+"/api/experimental/dags/example_bash_operator/tasks/runme_0"); status != http.StatusNotFound {
		t.Errorf("GET an embedded example with --dags = %d %s, want 404", status, body)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("run after cancel = %v, want nil", err)
	}
}

// TestRun_DagsFolder_BrokenFile: a DAG file that does not load is an
// import error, as in Airflow (2.10.3 models/dagbag.py:389-393): airlite
// starts, serves the other files' DAGs and lists the broken file with its
// text in /importErrors. --fail-on-import-errors (or its environment
// variable) refuses to start instead, naming the file.
func TestRun_DagsFolder_BrokenFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, content string
		wantInErr           []string
	}{
		{
			name: "not YAML", file: "broken.yaml",
			content:   "dag_id: broken\ntasks: [\n",
			wantInErr: []string{"broken.yaml"},
		},
		{
			name: "unknown upstream", file: "dangling.yaml",
			content:   "dag_id: dangling\ntasks:\n  - task_id: a\n    operator: EmptyOperator\n    upstream: [nope]\n",
			wantInErr: []string{"dangling.yaml", "line 3", "nope"},
		},
		{
			name: "cycle", file: "cycle.yml",
			content: "dag_id: cycle\ntasks:\n" +
				"  - {task_id: a, operator: EmptyOperator, downstream: [b]}\n" +
				"  - {task_id: b, operator: EmptyOperator, downstream: [a]}\n",
			wantInErr: []string{"cycle.yml", "cycle"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dags := t.TempDir()
			if err := os.WriteFile(filepath.Join(dags, "good.yaml"), []byte(mainTestDAG), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dags, tc.file), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			s := startRun(t, "--dags", dags)
			if status, body := mainGet(t, s.baseURL+"/api/v1/dags/airlite_main_test"); status != http.StatusOK {
				t.Errorf("GET the good DAG beside a broken file = %d %s, want 200", status, body)
			}
			status, body := mainGet(t, s.baseURL+"/api/v1/importErrors")
			var answer struct {
				ImportErrors []struct {
					Filename   string `json:"filename"`
					StackTrace string `json:"stack_trace"`
				} `json:"import_errors"`
			}
			if err := json.Unmarshal([]byte(body), &answer); status != http.StatusOK || err != nil || len(answer.ImportErrors) != 1 {
				t.Fatalf("GET /importErrors = %d %s, want the broken file", status, body)
			}
			if got := answer.ImportErrors[0]; got.Filename != filepath.Join(dags, tc.file) {
				t.Errorf("import error of %s, want %s", got.Filename, filepath.Join(dags, tc.file))
			}
			for _, want := range tc.wantInErr {
				if !strings.Contains(answer.ImportErrors[0].StackTrace, want) {
					t.Errorf("import error %q does not contain %q", answer.ImportErrors[0].StackTrace, want)
				}
			}
			if log := s.stderr.String(); !strings.Contains(log, "DAG file did not load") || !strings.Contains(log, tc.file) {
				t.Errorf("log does not report the broken file:\n%s", log)
			}
		})
		for _, how := range []string{"flag", "environment"} {
			t.Run(tc.name+" fail fast by "+how, func(t *testing.T) {
				t.Parallel()
				dags := t.TempDir()
				if err := os.WriteFile(filepath.Join(dags, "good.yaml"), []byte(mainTestDAG), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dags, tc.file), []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
				failFast(t, dags, how, append([]string{"--fail-on-import-errors", tc.file}, tc.wantInErr...))
			})
		}
	}
}

// failFast runs airlite on dags with --fail-on-import-errors (given as a
// flag or through AIRLITE_FAIL_ON_IMPORT_ERRORS) and checks that it
// refuses to start with an error holding each of wantInErr.
func failFast(t *testing.T, dags, how string, wantInErr []string) {
	t.Helper()
	home := t.TempDir()
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := []string{"--addr", "127.0.0.1:0", "--dags", dags, "--home", home, "--snapshot", "off",
		"--scheduler", "off", "--log-format", "json"}
	env := map[string]string{"HOME": home}
	if how == "flag" {
		args = append(args, "--fail-on-import-errors")
	} else {
		env["AIRLITE_FAIL_ON_IMPORT_ERRORS"] = "true"
	}
	err := run(ctx, args, mapEnv(env), &stdout, &stderr)
	if err == nil {
		t.Fatal("run with a broken DAG file = nil, want an error")
	}
	if ctx.Err() != nil {
		t.Fatalf("run served until the test's deadline instead of refusing to start: %v", err)
	}
	for _, want := range wantInErr {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if stdout.String() != "" {
		t.Errorf("stdout = %q, want nothing (the server must not start)", stdout.String())
	}
}

func TestRun_DagsFolderMissing(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	missing := filepath.Join(home, "no-such-folder")
	var stdout, stderr syncBuffer
	args := []string{"--addr", "127.0.0.1:0", "--dags", missing, "--home", home, "--snapshot", "off", "--scheduler", "off"}
	err := run(context.Background(), args, mapEnv(map[string]string{"HOME": home}), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "no-such-folder") {
		t.Fatalf("run with a missing --dags folder = %v, want an error naming it", err)
	}
}

func TestRun_ListenError(t *testing.T) {
	t.Parallel()
	s := startRun(t)
	addr := strings.TrimPrefix(s.baseURL, "http://")
	home := t.TempDir()
	var stdout, stderr syncBuffer
	args := []string{"--addr", addr, "--home", home, "--snapshot", "off", "--scheduler", "off", "--log-format", "json"}
	err := run(context.Background(), args, mapEnv(map[string]string{"HOME": home}), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("run on a busy address = %v, want an error naming %s", err, addr)
	}
	if stdout.String() != "" {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

func TestRun_NonLoopbackWarning(t *testing.T) {
	t.Parallel()
	s := startRun(t, "--addr", "0.0.0.0:0", "--log-format", "json", "--insecure-open-api")
	const warning = "anyone who can reach this port can trigger runs"
	var found bool
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		if line == "" {
			continue
		}
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("stderr line is not JSON with --log-format json: %v\n%s", err, line)
		}
		if msg, _ := entry["message"].(string); strings.Contains(msg, warning) {
			found = true
			if entry["level"] != "warn" {
				t.Errorf("warning logged at level %v, want warn", entry["level"])
			}
		}
	}
	if !found {
		t.Errorf("stderr has no warning containing %q:\n%s", warning, s.stderr.String())
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("run after cancel = %v, want nil", err)
	}
}

// An open API beyond loopback is refused unless asked for: the error names
// the backends to use instead and the flag, and nothing is served.
func TestRun_OpenAPIBeyondLoopbackRefused(t *testing.T) {
	t.Parallel()
	for _, env := range []map[string]string{nil, {"AIRLITE_INSECURE_OPEN_API": "false"}} {
		home := t.TempDir()
		env2 := map[string]string{"HOME": home}
		for k, v := range env {
			env2[k] = v
		}
		var stdout, stderr syncBuffer
		args := []string{"--addr", ":0", "--home", home, "--snapshot", "off", "--scheduler", "off"}
		err := run(context.Background(), args, mapEnv(env2), &stdout, &stderr)
		if err == nil {
			t.Fatal("run on :0 with --auth-backend default = nil, want a refusal")
		}
		for _, want := range []string{"beyond loopback", "basic_auth", "deny_all", "--insecure-open-api"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
		}
		if stdout.String() != "" {
			t.Errorf("stdout = %q, want nothing", stdout.String())
		}
	}
	// The environment fallback opens it as the flag does.
	home := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", ":0", "--home", home, "--snapshot", "off", "--scheduler", "off"},
			mapEnv(map[string]string{"HOME": home, "AIRLITE_INSECURE_OPEN_API": "true"}), &stdout, &stderr)
	}()
	if !pollUntil(10*time.Second, func() bool { return stdout.String() != "" }) {
		t.Fatalf("AIRLITE_INSECURE_OPEN_API=true did not serve: %s", stderr.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run = %v", err)
	}
}

func TestRun_LoopbackNoWarning(t *testing.T) {
	t.Parallel()
	s := startRun(t)
	if strings.Contains(s.stderr.String(), "beyond loopback") {
		t.Errorf("a loopback bind logged the warning:\n%s", s.stderr.String())
	}
	// With a password backend there is no warning either.
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("admin:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := startRun(t, "--addr", "0.0.0.0:0", "--auth-backend", "basic_auth", "--users", users)
	if strings.Contains(s2.stderr.String(), "beyond loopback") {
		t.Errorf("basic_auth on 0.0.0.0 logged the default-auth warning:\n%s", s2.stderr.String())
	}
}

// --version prints airlite's version and the Airflow version of the
// edition, and starts nothing.
func TestRun_Version(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--version"}, "airlite dev, answering as Airflow 2.10.3 (edition 2)\n"},
		{[]string{"--version", "--edition", "1.10-rbac"}, "airlite dev, answering as Airflow 1.10.15 (edition 1.10-rbac)\n"},
	} {
		var stdout, stderr syncBuffer
		home := t.TempDir()
		if err := run(context.Background(), append(tc.args, "--home", home, "--addr", "127.0.0.1:0"), mapEnv(map[string]string{"HOME": home}), &stdout, &stderr); err != nil {
			t.Fatalf("run %q: %v", tc.args, err)
		}
		if stdout.String() != tc.want {
			t.Errorf("run %q printed %q, want %q", tc.args, stdout.String(), tc.want)
		}
	}
}

// TestRun_DagsFolder_V2ImportErrorFilename: /api/v2 names a broken file by
// its path inside the DAG folder (Airflow 3 records an import error by its
// bundle and relative path, and ImportErrorResponse.filename is that
// path), where /api/v1 keeps the absolute path; filename_pattern reads the
// same relative path.
func TestRun_DagsFolder_V2ImportErrorFilename(t *testing.T) {
	t.Parallel()
	dags := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dags, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dags, "sub", "broken.yaml"), []byte("dag_id: broken\ntasks: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startRun(t, "--edition", "3", "--dags", dags)
	for _, tc := range []struct{ path, want string }{
		{"/api/v2/importErrors", `"filename":"sub/broken.yaml"`},
		{"/api/v2/importErrors?filename_pattern=sub/b", `"filename":"sub/broken.yaml"`},
		{"/api/v2/importErrors/1", `"filename":"sub/broken.yaml"`},
	} {
		status, body := mainGet(t, s.baseURL+tc.path)
		if status != http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s = %d %s, want %s", tc.path, status, body, tc.want)
		}
	}
	if status, body := mainGet(t, s.baseURL+"/api/v2/importErrors?filename_pattern="+url.QueryEscape(dags)); status != http.StatusOK || !strings.Contains(body, `"total_entries":0`) {
		t.Errorf("a pattern of the folder's absolute path = %d %s, want no match", status, body)
	}
}
