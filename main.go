// Command airlite serves Apache Airflow's experimental REST API from memory.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
)

func main() {
	// On Windows os.Interrupt is Ctrl-C or Ctrl-Break in the console, and
	// SIGTERM its close, logoff and shutdown events (os/signal), after
	// which Windows ends the process within seconds whatever it does: the
	// tries' Job Objects die with it (scheduler_procs_windows.go).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first signal the default handling is back: a second
		// Ctrl-C or SIGTERM ends airlite at once, as a crash would.
		<-ctx.Done()
		stop()
	}()
	err := runProcess(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr, processOptions{ownsChildren: true})
	// The Python task program is the process's, extracted once for
	// every scheduler it runs: it goes when the process does (a test
	// process's in TestMain), once runProcess has stopped the tries and
	// workers that ran it.
	if rerr := removeTaskProgram(); rerr != nil {
		fmt.Fprintln(os.Stderr, "airlite:", rerr)
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "airlite:", err)
		os.Exit(1)
	}
}

// Values of --run-retention.
const (
	runRetentionKeep = "keep"
	runRetentionDrop = "drop-oldest-finished"
)

// Defaults of the limits on the store's totals (docs/behaviour.md §4.1).
const (
	defaultMaxPools = 1000
	defaultMaxDags  = 1000
	// defaultMaxConfBytes is 256 MiB: 4,096 runs with a conf at the 64 KiB
	// a trigger may send.
	defaultMaxConfBytes = 256 << 20
	// Variables, connections and XCom entries: the counts bound the rows,
	// the sizes one value each (64 KiB, as a conf).
	defaultMaxVariables       = 10000
	defaultMaxVariableBytes   = 64 << 10
	defaultMaxConnections     = 1000
	defaultMaxConnectionBytes = 64 << 10
	defaultMaxXComs           = 100000
	defaultMaxXComBytes       = 64 << 10
	// defaultMaxEventLogs is the event log's ring: the newest rows kept.
	defaultMaxEventLogs = 10000
)

// schedulerInterval is the time between scheduler passes when nothing
// wakes it sooner (triggers, unpauses and finished tasks do).
const schedulerInterval = time.Second

// config is the command line, after environment fallbacks.
type config struct {
	Addr    string
	Edition edition
	DagsDir string
	Python  string // --python: the interpreter that reads Python DAG files
	// FailOnImportErrors: a DAG file that does not load stops the start
	// (test suites that want to fail fast), instead of being an import error.
	FailOnImportErrors bool
	// MinFileProcessInterval is how often the DAG folder is looked at
	// again for changed, new and removed files (dag_reload.go); 0: never.
	MinFileProcessInterval time.Duration
	Home                   string
	Snapshot               string
	SnapshotInterval       time.Duration
	SnapshotBad            string // refuse or move: what to do with a snapshot that cannot be read
	Scheduler              bool
	FakeClock              bool
	JournalSize            int
	MaxRunsPerDag          int    // 0: no limit
	RunRetention           string // keep or drop-oldest-finished: what happens at MaxRunsPerDag
	MaxPools               int    // 0: no limit
	MaxDags                int    // DAGs loaded through POST /_airlite/dags; 0: no limit
	MaxConfBytes           int64  // --max-conf-bytes-total: the confs of every run; 0: no limit
	MaxVariables           int    // --max-variables and the rest: 0 is no limit
	MaxVariableBytes       int
	MaxConnections         int
	MaxConnBytes           int // --max-connection-bytes
	MaxXComs               int
	MaxXComBytes           int
	MaxEventLogs           int // --max-event-logs: the newest kept; 0: all
	Parallelism            int
	AuthBackend            string
	UsersFile              string
	AllowedOrigins         []string // pages of other sites that may use the API
	AllowedHosts           []string // Host names answered besides the loopback ones
	InsecureOpenAPI        bool     // --auth-backend default beyond loopback, on purpose
	BodyTimeout            time.Duration
	ShutdownGrace          time.Duration // how long a planned stop waits for running tasks
	ShowVersion            bool          // --version: print the versions and exit
	ReadyFile              string
	LogFormat              string
	LogLevel               zerolog.Level
}

// parseConfig reads flags; every flag falls back to AIRLITE_<FLAG> in the
// environment, and a flag given on the command line wins.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("airlite", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		c                                     config
		editionText, schedulerText, levelText string
		clockText, originsText, hostsText     string
	)
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "listen address; port 0 picks a free port")
	fs.StringVar(&editionText, "edition", "2", "Airflow edition to answer as: 3 (3.2.1), 2 (2.10.3), 1.10 (1.10.15), 1.10-rbac")
	fs.StringVar(&c.DagsDir, "dags", "", "folder of DAG definition files (default: the embedded examples)")
	fs.StringVar(&c.Python, "python", "python3", "Python 3 interpreter that reads the DAG folder's .py files, e.g. a project's virtualenv")
	fs.BoolVar(&c.FailOnImportErrors, "fail-on-import-errors", false, "refuse to start when a DAG file does not load, instead of listing it in importErrors and serving the others")
	fs.DurationVar(&c.MinFileProcessInterval, "min-file-process-interval", defaultMinFileProcessInterval,
		"how often the --dags folder is looked at again: changed files are read again, new ones add DAGs, removed ones make theirs inactive (Airflow's [scheduler] min_file_process_interval); 0 reads it at start only")
	fs.StringVar(&c.Home, "home", "~/airlite", "working folder; the snapshot lives here")
	fs.StringVar(&c.Snapshot, "snapshot", "", "snapshot file, or off (default: snapshot.json under --home)")
	fs.DurationVar(&c.SnapshotInterval, "snapshot-interval", 5*time.Second, "how often a changed state is written")
	fs.StringVar(&c.SnapshotBad, "snapshot-bad", snapshotBadRefuse, "a snapshot that cannot be read: refuse to start, or move it aside to <file>.bad-<time> and start without it")
	fs.StringVar(&schedulerText, "scheduler", "on", "on runs DAGs; off serves the API alone")
	fs.IntVar(&c.Parallelism, "parallelism", 32, "tasks running at once across all DAGs")
	fs.StringVar(&clockText, "clock", "real", "real, or fake: a clock that moves only through POST /_airlite/clock")
	fs.IntVar(&c.JournalSize, "journal-size", 1000, "requests kept for GET /_airlite/requests; 0 turns the journal off")
	fs.IntVar(&c.MaxRunsPerDag, "max-runs-per-dag", 10000, "runs kept per DAG; 0 means no limit")
	fs.StringVar(&c.RunRetention, "run-retention", runRetentionKeep, "at --max-runs-per-dag: keep (refuse new runs with a 400) or drop-oldest-finished")
	fs.IntVar(&c.MaxPools, "max-pools", defaultMaxPools, "pools kept, default_pool and the DAG folder's included; creating one more through POST /pools is refused with a 400; 0 means no limit")
	fs.IntVar(&c.MaxDags, "max-dags", defaultMaxDags, "DAGs loaded through POST /_airlite/dags, beyond the DAG folder's; one more is refused with a 400; 0 means no limit")
	fs.Int64Var(&c.MaxConfBytes, "max-conf-bytes-total", defaultMaxConfBytes, "bytes of conf kept, summed over every run; a run whose conf would pass it is refused with a 400; 0 means no limit")
	fs.IntVar(&c.MaxVariables, "max-variables", defaultMaxVariables, "variables kept; one more is refused with a 400; 0 means no limit")
	fs.IntVar(&c.MaxVariableBytes, "max-variable-bytes", defaultMaxVariableBytes, "bytes of one variable's value; a larger one is refused with a 400; 0 means no limit")
	fs.IntVar(&c.MaxConnections, "max-connections", defaultMaxConnections, "connections kept; one more is refused with a 400; 0 means no limit")
	fs.IntVar(&c.MaxConnBytes, "max-connection-bytes", defaultMaxConnectionBytes, "bytes of one connection's fields together; a larger one is refused with a 400; 0 means no limit")
	fs.IntVar(&c.MaxXComs, "max-xcoms", defaultMaxXComs, "XCom entries kept; a task pushing one more fails, saying so in its log; 0 means no limit")
	fs.IntVar(&c.MaxXComBytes, "max-xcom-bytes", defaultMaxXComBytes, "bytes of one XCom value as JSON; a task pushing a larger one fails, saying so in its log; 0 means no limit")
	fs.IntVar(&c.MaxEventLogs, "max-event-logs", defaultMaxEventLogs, "event log rows kept (GET /api/v1/eventLogs); a new one drops the oldest; 0 means no limit")
	fs.StringVar(&c.AuthBackend, "auth-backend", authDefault, "default, deny_all, basic_auth or password_auth; in edition 3, default (all admins, no token needed) or simple_auth_manager (bearer tokens from POST /auth/token)")
	fs.StringVar(&c.UsersFile, "users", "", "file of user:password or user:<bcrypt hash> lines: who may sign in (basic_auth, password_auth, simple_auth_manager)")
	fs.StringVar(&originsText, "allowed-origins", "", "comma-separated origins (https://dash.example) whose pages may use the API; other sites' pages are refused")
	fs.StringVar(&hostsText, "allowed-hosts", "", "comma-separated Host names answered besides localhost, 127.0.0.1 and [::1], or * for any (DNS rebinding protection)")
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", defaultShutdownGrace, "at SIGTERM or SIGINT, how long running tasks get to end; those still running then are stopped and run again at the next start")
	fs.DurationVar(&c.BodyTimeout, "body-timeout", defaultBodyTimeout, "time a client has to send a request body; a body that takes longer is answered 400 and its connection closed")
	fs.BoolVar(&c.InsecureOpenAPI, "insecure-open-api", false, "allow listening beyond loopback with --auth-backend default: anyone who reaches the port can run the DAGs' commands")
	fs.StringVar(&c.ReadyFile, "ready-file", "", "file written with the base URL once the server answers")
	fs.StringVar(&c.LogFormat, "log-format", "", "console or json (default: console on a terminal, else json)")
	fs.StringVar(&levelText, "log-level", "info", "debug, info, warn or error")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: airlite [flags]\n\nEvery flag also reads AIRLITE_<FLAG> (e.g. AIRLITE_ADDR); the command line wins.\n\nFlags:")
		fs.PrintDefaults()
	}
	fs.BoolVar(&c.ShowVersion, "version", false, "print airlite's version and the Airflow version of the edition, then exit")
	var envErr error
	fromEnv := map[string]string{} // flag name -> the value the environment gave
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "version" {
			return
		}
		name := envName(f.Name)
		if v := getenv(name); v != "" && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("environment %s=%q: %w", name, v, err)
			}
			fromEnv[f.Name] = v
		}
	})
	if envErr != nil {
		return c, envErr
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	var err error
	if c.Edition, err = parseEdition(editionText); err != nil {
		if v, ok := fromEnv["edition"]; ok && v == editionText {
			return c, fmt.Errorf("environment %s=%q: %w", envName("edition"), v, err)
		}
		return c, fmt.Errorf("--edition: %w", err)
	}
	switch schedulerText {
	case "on":
		c.Scheduler = true
	case "off":
	default:
		return c, fmt.Errorf("--scheduler %q: want on or off", schedulerText)
	}
	switch clockText {
	case "real":
	case "fake":
		c.FakeClock = true
	default:
		return c, fmt.Errorf("--clock %q: want real or fake", clockText)
	}
	if c.JournalSize < 0 {
		return c, fmt.Errorf("--journal-size %d: want 0 (off) or more", c.JournalSize)
	}
	if c.MaxRunsPerDag < 0 {
		return c, fmt.Errorf("--max-runs-per-dag %d: want 0 (no limit) or more", c.MaxRunsPerDag)
	}
	if c.MaxPools < 0 {
		return c, fmt.Errorf("--max-pools %d: want 0 (no limit) or more", c.MaxPools)
	}
	if c.MaxDags < 0 {
		return c, fmt.Errorf("--max-dags %d: want 0 (no limit) or more", c.MaxDags)
	}
	if c.MaxConfBytes < 0 {
		return c, fmt.Errorf("--max-conf-bytes-total %d: want 0 (no limit) or more", c.MaxConfBytes)
	}
	for _, l := range []struct {
		flag string
		v    int
	}{{"max-variables", c.MaxVariables}, {"max-variable-bytes", c.MaxVariableBytes}, {"max-connections", c.MaxConnections},
		{"max-connection-bytes", c.MaxConnBytes}, {"max-xcoms", c.MaxXComs}, {"max-xcom-bytes", c.MaxXComBytes},
		{"max-event-logs", c.MaxEventLogs}} {
		if l.v < 0 {
			return c, fmt.Errorf("--%s %d: want 0 (no limit) or more", l.flag, l.v)
		}
	}
	if c.RunRetention != runRetentionKeep && c.RunRetention != runRetentionDrop {
		return c, fmt.Errorf("--run-retention %q: want %s or %s", c.RunRetention, runRetentionKeep, runRetentionDrop)
	}
	if c.Parallelism < 1 {
		return c, fmt.Errorf("--parallelism %d: want at least 1", c.Parallelism)
	}
	if c.SnapshotBad != snapshotBadRefuse && c.SnapshotBad != snapshotBadMove {
		return c, fmt.Errorf("--snapshot-bad %q: want refuse or move", c.SnapshotBad)
	}
	if c.ShutdownGrace < 0 {
		return c, fmt.Errorf("--shutdown-grace %s: want 0 or more", c.ShutdownGrace)
	}
	if c.BodyTimeout <= 0 {
		return c, fmt.Errorf("--body-timeout %s: want a positive duration", c.BodyTimeout)
	}
	if c.MinFileProcessInterval < 0 {
		return c, fmt.Errorf("--min-file-process-interval %s: want 0 (at start only) or more", c.MinFileProcessInterval)
	}
	if c.SnapshotInterval <= 0 {
		return c, fmt.Errorf("--snapshot-interval %s: want a positive duration", c.SnapshotInterval)
	}
	switch c.LogFormat {
	case "", "console", "json":
	default:
		return c, fmt.Errorf("--log-format %q: want console or json", c.LogFormat)
	}
	if c.LogLevel, err = zerolog.ParseLevel(levelText); err != nil || levelText == "" {
		return c, fmt.Errorf("--log-level %q: want debug, info, warn or error", levelText)
	}
	if c.Home, err = expandHome(c.Home, getenv); err != nil {
		return c, err
	}
	if c.Snapshot == "" {
		c.Snapshot = filepath.Join(c.Home, "snapshot.json")
	}
	if c.AllowedOrigins, err = parseAllowedOrigins(originsText); err != nil {
		return c, err
	}
	if c.AllowedHosts, err = parseAllowedHosts(hostsText); err != nil {
		return c, err
	}
	if err := checkAuthBackend(c); err != nil {
		return c, err
	}
	return c, nil
}

// checkAuthBackend refuses a backend the edition has not: Airflow 3 has
// only auth managers (the simple auth manager here), Airflow 1.10 and 2
// only API auth backends. A backend that signs users in needs --users.
func checkAuthBackend(c config) error {
	if c.Edition.rules().apiV2 {
		if c.AuthBackend != authDefault && c.AuthBackend != authSimple {
			return fmt.Errorf("--auth-backend %s: edition 3 (Airflow 3) takes default (the simple auth manager's all-admins mode) "+
				"or simple_auth_manager (bearer tokens from POST /auth/token, users from --users)", c.AuthBackend)
		}
	} else if c.AuthBackend == authSimple {
		return fmt.Errorf("--auth-backend simple_auth_manager is Airflow 3's: use it with --edition 3 "+
			"(edition %s takes default, deny_all, basic_auth or password_auth)", c.Edition)
	}
	if (c.AuthBackend == authBasic || c.AuthBackend == authPassword || c.AuthBackend == authSimple) && c.UsersFile == "" {
		return fmt.Errorf("--auth-backend %s needs --users", c.AuthBackend)
	}
	return nil
}

// envName is the environment variable a flag falls back to.
func envName(flagName string) string {
	return "AIRLITE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func expandHome(p string, getenv func(string) string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("expand --home %s: %w", p, err)
		}
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}

// newLogger is the application log: stamped with the time of each line.
func newLogger(c config, stderr io.Writer) zerolog.Logger {
	return newLoggerTo(c, stderr, stderr).With().Timestamp().Logger()
}

// newLoggerTo writes to out in the format --log-format, or stderr being a
// terminal, asks for. It adds no timestamp: the access log stamps each
// line with the end time of its request, already read.
func newLoggerTo(c config, stderr, out io.Writer) zerolog.Logger {
	format := c.LogFormat
	if format == "" {
		format = "json"
		if f, ok := stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			format = "console"
		}
	}
	if format == "console" {
		out = zerolog.ConsoleWriter{Out: out, TimeFormat: time.TimeOnly}
	}
	return zerolog.New(out).Level(c.LogLevel)
}

// processOptions is what only the binary's own process may do.
type processOptions struct {
	// ownsChildren: every child of this process is one of airlite's tasks,
	// so airlite may become a child subreaper and reap and kill the
	// orphans it adopts. A test process that calls run has other children.
	ownsChildren bool
	// listen opens the listener (net.Listen when nil); tests wrap the
	// listener to make serving fail.
	listen func(network, addr string) (net.Listener, error)
}

// run is airlite from start to exit, inside a process it shares (tests).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return runProcess(ctx, args, getenv, stdout, stderr, processOptions{})
}

// runProcess is airlite from start to exit: load the DAGs, open the
// store, serve until ctx ends, then stop in order. Once the store is open
// every exit, whatever its reason (a signal, a serve error, a ready file
// that cannot be written, a refused listen), goes through process.stop.
func runProcess(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, po processOptions) error {
	c, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	if c.ShowVersion {
		fmt.Fprintf(stdout, "airlite %s, answering as Airflow %s (edition %s)\n", airliteVersion, c.Edition.rules().version, c.Edition)
		return nil
	}
	logger := newLogger(c, stderr)
	// What an instance killed outright left in $TMPDIR (its Python task
	// program, its tries' folders) goes before this one makes its own.
	sweepStaleTempFolders(logger)

	if c.Snapshot != "off" {
		lock, err := lockSnapshot(c) // one airlite per snapshot
		if err != nil {
			return err
		}
		defer lock.release() // last: after the final snapshot
		if err := removeStaleTemps(c.Snapshot, logger.With().Str("component", "snapshot").Logger()); err != nil {
			return err
		}
	}
	dags, err := loadDAGSet(ctx, c.DagsDir, c.Edition, logger)
	if err != nil {
		return err
	}
	if err := c.Edition.rules().checkDAGs(dags); err != nil {
		return fmt.Errorf("load dags: %w", err)
	}
	// Restore before anything can answer a request; snaps is nil with
	// --snapshot off.
	store, snaps, err := openStore(ctx, c, dags, logger)
	if err != nil {
		return err
	}
	p := &process{c: c, po: po, logger: logger, store: store, dags: dags, snaps: snaps}
	err = p.serve(ctx, getenv, stdout, stderr)
	return errors.Join(err, p.stop())
}

// process is airlite from its open store to its exit. serve fills in the
// parts as it starts them; stop ends the ones started, in one order.
type process struct {
	c      config
	po     processOptions
	logger zerolog.Logger
	store  *Store
	dags   *DAGSet

	httpServer *http.Server // set once serving
	sched      *scheduler   // set once started
	reload     *dagReloader // set once started; nil without --dags or with --min-file-process-interval 0
	snaps      *snapshotter // nil with --snapshot off; written at stop even if never started
	accessOut  *asyncWriter // the access log's buffer
}

// serve starts the scheduler, the snapshots and the HTTP server, and
// serves until ctx ends (nil) or something fails (its error).
func (p *process) serve(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	c, store, logger := p.c, p.store, p.logger
	store.SetRunLimit(RunLimit{Max: c.MaxRunsPerDag, DropOldestFinished: c.RunRetention == runRetentionDrop})
	store.SetLimits(Limits{Pools: c.MaxPools, LoadedDAGs: c.MaxDags, ConfBytes: c.MaxConfBytes,
		Variables: c.MaxVariables, VariableBytes: c.MaxVariableBytes, Connections: c.MaxConnections,
		ConnectionBytes: c.MaxConnBytes, XComs: c.MaxXComs, XComBytes: c.MaxXComBytes, EventLogs: c.MaxEventLogs})
	// Before anything runs: the process groups of tries that a crashed
	// instance left running end now, so that no task runs twice at once.
	if err := endLeftoverTaskProcesses(store, logger); err != nil {
		return err
	}
	tokenKey, err := loadEditionTokenKey(c)
	if err != nil {
		return err
	}
	auth, err := newAuthenticatorWithKey(c.AuthBackend, c.UsersFile, tokenKey)
	if err != nil {
		return err
	}
	if tokenKey != nil {
		// The tokens logout revoked are kept beside the key they were
		// signed with, for as long as it takes them.
		if auth.tokens.revoked, err = loadRevokedTokens(c.Home); err != nil {
			return err
		}
	}
	unixname := currentUser(getenv)
	now := time.Now
	var clock *fakeClock
	if c.FakeClock {
		clock = newFakeClock(time.Now())
		now = clock.Now
	}
	p.accessOut = newAsyncWriter(stderr, 1<<20) // about 6,000 lines
	accessLog := newLoggerTo(c, stderr, p.accessOut)
	folder := newDAGSetHolder(p.dags)
	opts := serverOptions{
		Edition: c.Edition, Store: store, DAGs: p.dags, Folder: folder, Auth: auth, Logger: logger,
		Now: now, Unixname: unixname, Clock: clock, Journal: newJournal(c.JournalSize), AccessLog: &accessLog,
		BodyTimeout: c.BodyTimeout, ParseRequests: newDAGParseRequests(),
	}
	if c.DagsDir != "" {
		opts.DagsFolder = absPath(c.DagsDir)
	}
	var sched *scheduler
	if c.Scheduler {
		hostname, _ := os.Hostname()
		sched = newScheduler(schedulerOptions{
			Store: store, Edition: c.Edition, Logger: logger.With().Str("component", "scheduler").Logger(),
			Now: now, Interval: schedulerInterval, Parallelism: c.Parallelism,
			Unixname: unixname, Hostname: hostname, ReapOrphans: p.po.ownsChildren,
		})
		opts.Kick, opts.WithTasksStopped = sched.Kick, sched.WithTasksStopped
		opts.SchedulerHeartbeat = sched.Heartbeat
		opts.SchedulerJob = schedulerJobInfo{Start: now().UTC(), Hostname: hostname}
		if p.po.ownsChildren {
			if err := becomeSubreaper(); err != nil {
				logger.Warn().Err(err).Msg("processes that tasks leave behind go to init, not to airlite")
			}
		}
		if clock != nil {
			clock.moved = sched.Kick
		}
	}
	listen := p.po.listen
	if listen == nil {
		listen = net.Listen
	}
	ln, err := listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.Addr, err)
	}
	if err := checkExposure(c, ln.Addr()); err != nil {
		ln.Close()
		return err
	}
	opts.Browser = browserPolicy{
		HostCheck:      isLoopback(ln.Addr()) || len(c.AllowedHosts) > 0,
		AllowedHosts:   c.AllowedHosts,
		AllowedOrigins: c.AllowedOrigins,
	}
	srv, err := newServer(opts)
	if err != nil {
		ln.Close()
		return err
	}
	if sched != nil {
		// A TriggerDagRunOperator's try triggers through the server's
		// operations, as every trigger does.
		sched.useOperations(srv.ops)
	}
	p.httpServer = newHTTPServer(srv.routes(), logger, answerWriteTimeout)
	if srv.rules().werkzeugReasons {
		ln = capitalReasons(p.httpServer, ln)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- p.httpServer.Serve(ln) }()

	baseURL := "http://" + ln.Addr().String()
	if !isLoopback(ln.Addr()) && c.AuthBackend == authDefault {
		logger.Warn().Str("addr", ln.Addr().String()).
			Msg("listening beyond loopback with --auth-backend default (--insecure-open-api): anyone who can reach this port can trigger runs")
	}
	if sched != nil {
		sched.start()
		p.sched = sched
	}
	if c.DagsDir != "" && c.MinFileProcessInterval > 0 {
		p.reload = newDAGReloader(dagReloaderOptions{Config: c, Store: store, Holder: folder, Logger: logger,
			Interval: c.MinFileProcessInterval, Now: now, Changed: opts.Kick, Requests: opts.ParseRequests})
		p.reload.start()
	}
	if p.snaps != nil {
		p.snaps.start()
	}
	if sched != nil {
		// A Python try triggered on the ready line finds its worker warm
		// (none without Python DAGs; bounded, a slow worker only waits).
		sched.awaitWarm(pythonWarmLimit)
	}
	srv.ready.Store(true)
	if c.ReadyFile != "" {
		if err := writeFileAtomic(c.ReadyFile, []byte(baseURL+"\n"), 0o644); err != nil {
			return fmt.Errorf("write ready file: %w", err)
		}
	}
	logger.Info().Str("edition", string(c.Edition)).Int("dags", len(p.dags.DAGs)).Str("url", baseURL).Msg("serving")
	fmt.Fprintf(stdout, "listening on %s\n", baseURL)

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		return nil
	}
}

// loadEditionTokenKey is the key edition 3 signs its tokens with, kept in
// the home so that tokens outlive a restart; nil (a key for this process
// only) in the other editions, which issue no tokens, and with --snapshot
// off, which writes nothing in the home.
func loadEditionTokenKey(c config) ([]byte, error) {
	if !c.Edition.rules().apiV2 || c.Snapshot == "off" {
		return nil, nil
	}
	return loadTokenKey(c.Home)
}

// stop ends what serve started, in this order whatever ended it: the HTTP
// server first, so that no request writes any more; then the scheduler,
// whose running tries get --shutdown-grace to end; then the final
// snapshot, once nothing writes to the store; the caller releases the
// snapshot's lock after.
func (p *process) stop() error {
	p.logger.Info().Msg("shutting down")
	var errs []error
	if p.httpServer != nil {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.httpServer.Shutdown(shutdownCtx); err != nil {
			errs = append(errs, fmt.Errorf("shut down http server: %w", err))
		}
	}
	if p.reload != nil {
		p.reload.stop() // it writes to the store, and may have a reader process
	}
	if p.sched != nil {
		p.logger.Info().Dur("grace", p.c.ShutdownGrace).Msg("waiting for running tasks")
		p.sched.shutdown(p.c.ShutdownGrace)
	}
	if p.snaps != nil {
		if err := p.snaps.stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if p.accessOut != nil {
		if n := p.accessOut.Close(); n > 0 {
			p.logger.Warn().Int64("lines", n).Msg("access log lines dropped under load")
		}
	}
	return errors.Join(errs...)
}

// loadDAGSet reads the --dags folder (as the edition reads .airflowignore),
// or the edition's embedded examples; a signal stops it between files.
func loadDAGSet(ctx context.Context, dir string, e edition, logger zerolog.Logger) (*DAGSet, error) {
	if dir == "" {
		return loadExampleDAGs(e.rules(), time.Now())
	}
	loader := dagLoader{ctx: ctx, rules: e.rules(), tolerant: true, warn: func(file, problem string) {
		logger.Warn().Str("file", file).Msg(problem)
	}}
	return loader.loadDir(dir)
}

// currentUser is the OS user name Airflow reports as unixname.
func currentUser(getenv func(string) string) string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return getenv("USER")
}

// defaultShutdownGrace is --shutdown-grace: shorter than the 30 s that
// Kubernetes and Docker give a container between SIGTERM and SIGKILL, so
// that the final snapshot is written in time.
const defaultShutdownGrace = 20 * time.Second

// answerWriteTimeout bounds the time an answer takes to reach its client:
// one that does not read is cut off, and the memory its answer holds goes
// back. Only GET /_airlite/.../wait sets a longer deadline, for its wait.
const answerWriteTimeout = 30 * time.Second

// newHTTPServer is the HTTP server around airlite's handler. No
// ReadTimeout: it would cancel the context of the long-poll wait; readBody
// sets a deadline on bodies instead.
func newHTTPServer(h http.Handler, logger zerolog.Logger, writeTimeout time.Duration) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		WriteTimeout:      writeTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          stdlog.New(logger.With().Str("component", "http").Logger(), "", 0),
	}
}

// checkExposure refuses to serve an open API beyond loopback unless asked
// to: every DAG's shell commands would be anyone's to run. Airflow itself
// denies the experimental API unless configured; airlite stays open on
// loopback because test suites want it that way.
func checkExposure(c config, addr net.Addr) error {
	if isLoopback(addr) || c.AuthBackend != authDefault || c.InsecureOpenAPI {
		return nil
	}
	return fmt.Errorf("refusing to listen on %s (beyond loopback) with --auth-backend default: anyone who reaches the port "+
		"could run the DAGs' shell commands. Use --auth-backend basic_auth --users FILE (password_auth in the 1.10 editions, "+
		"simple_auth_manager in edition 3) "+
		"or deny_all, listen on 127.0.0.1, or pass --insecure-open-api to accept it", addr)
}

func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
