package main

import (
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// taskJob is what a task goroutine runs: a copy of everything it needs, so
// that it never reads state another goroutine writes.
type taskJob struct {
	key  tiKey
	try  int
	dag  *DAG
	task *Task
	run  DagRun
	// mapIndex is the map_index of the expanded instance of a mapped
	// task the job runs (scheduler_mapping.go); nil: the task is not
	// mapped.
	mapIndex *int
	// dagGone: the DAG was stale when the try was queued, so its file no
	// longer gives it, and the try fails at its start (runGuarded).
	dagGone bool
	// secrets are what the try's templates taught the task process's
	// secrets masker (the variables and connections they read), which
	// masks the rendered fields stored; nil: nothing.
	secrets *secretRegistry
}

// taskOutcome is how a try ended.
type taskOutcome struct {
	requeue bool      // the try does not count: back to no state (a shutdown)
	state   TaskState // success, failed or skipped
	output  string    // captured output, already bounded
	cut     bool      // output was truncated
	reason  string    // why it failed, for the log
	noRetry bool      // failed without its retries (AirflowFailException)
	// What a successful try pushes to XCom: the operator's return value
	// (nil: none; pushed under return_value unless do_xcom_push is off)
	// and what the task pushed itself.
	returnValue json.RawMessage
	pushed      []xcomPush
	// returnMapLength is the return value's length as the task measured
	// it for a mapped task downstream (the length the Task SDK sends with
	// the push); nil: airlite reads it from the stored value.
	returnMapLength *int
	// pushChecked: the task program checked the return value for the
	// mapped tasks downstream (refuseUnmappablePush need not).
	pushChecked bool
	// rendered is the try's rendered template fields (TaskInstance.Rendered);
	// nil when the try rendered none.
	rendered map[string]any
	// renderedMapIndex is an expanded instance's map_index_template
	// rendered (nil: none).
	renderedMapIndex *string
	// aliasEvents are the asset events a Python callable added through
	// aliases; outletExtras the extras it gave its outlet assets' events,
	// by asset name and uri (nil: none).
	aliasEvents  []aliasEvent
	outletExtras map[string]json.RawMessage
}

// schedulerOptions configures a scheduler.
type schedulerOptions struct {
	Store       *Store
	Edition     edition // the scheduler reads its rules (how a run begins)
	Logger      zerolog.Logger
	Now         func() time.Time // the clock; time.Now when nil
	Interval    time.Duration    // time between passes; 0 runs no loop (tests call tick)
	Parallelism int
	Unixname    string
	Hostname    string
	// RunTask runs one try; nil runs the real operators.
	RunTask func(ctx context.Context, job taskJob) taskOutcome
	// ReapOrphans reaps, and at shutdown kills, the processes airlite
	// adopts as a child subreaper. Only for a process whose children are
	// all airlite's tasks: the binary, never a test process.
	ReapOrphans bool
}

// scheduler decides what runs when. One goroutine, the loop, makes every
// scheduling decision; task goroutines only run their operator and record
// their own outcome. State lives in the store.
type scheduler struct {
	opts   schedulerOptions
	rules  *editionRules // opts.Edition's
	ctx    context.Context
	cancel context.CancelFunc
	loopWG sync.WaitGroup
	kickCh chan struct{}

	// mu guards tasks: the cancel function and end signal of every task
	// goroutine, so that resets and timeouts can stop them. It is held
	// from a launch's store write until its goroutine is registered, and
	// around every change made with WithTasksStopped, so that no try can
	// start unseen between a stop and the change it makes way for.
	mu    sync.Mutex
	tasks map[attempt]*runningTask

	procs *taskProcesses // the bash of every running try

	// ops is the operations value whose trigger a TriggerDagRunOperator's
	// try calls (useOperations, before start); nil: simulated.
	ops *operations

	// pyworkers are the warm Python workers that fork Python tries
	// (scheduler_pyworker.go); noPythonWorker runs each try in a process
	// of its own instead (tests of that path).
	pyworkers pyWorkers
	// warmed is closed once start's warming of the Python workers is
	// over (nil before start); only start's goroutine closes it.
	warmed         chan struct{}
	noPythonWorker bool

	// Owned by the loop goroutine (or the test calling tick).
	warnedPools map[tiKey]bool
	idsRefused  bool // scheduled runs wait for the id lease (logged once per episode)

	// heartbeat is when the loop's last pass began, in unix microseconds
	// (0: no pass yet); stopped is set once the loop has ended. Airflow's
	// /health reads them (Heartbeat).
	heartbeat atomic.Int64
	stopped   atomic.Bool
}

// attempt names a running try: its task instance and the never-reused id
// of its run, so that a run re-created with the same run_id (after a reset
// or a delete) is another attempt.
type attempt struct {
	tiKey
	runRowID int64
}

type runningTask struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// Why a try's context ends before its task does.
var (
	// errTaskStopped: a reset, a delete or a forced state took its task
	// instance; its result is dropped (Store.FinishTry).
	errTaskStopped = errors.New("stopped: its task instance was reset, deleted or forced to a state")
	// errShuttingDown: airlite stops and the shutdown grace is over; the
	// try is not counted and the task instance runs again at the next
	// start.
	errShuttingDown = errors.New("stopped: airlite shut down before the task ended")
)

func newScheduler(opts schedulerOptions) *scheduler {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Parallelism < 1 {
		opts.Parallelism = 32
	}
	rules := opts.Edition.rules()
	if rules == nil {
		panic(fmt.Sprintf("new scheduler: unknown edition %q", opts.Edition))
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &scheduler{
		opts: opts, rules: rules, ctx: ctx, cancel: cancel,
		kickCh:      make(chan struct{}, 1),
		tasks:       map[attempt]*runningTask{},
		procs:       newTaskProcesses(),
		warnedPools: map[tiKey]bool{},
	}
	if opts.RunTask == nil {
		s.opts.RunTask = s.runOperator
	}
	return s
}

// awaitWarm waits, at most limit, until the Python workers start has
// begun are warm: main says it is ready only then, so that a Python try
// triggered at once does not pay for a worker's start (none: at once).
func (s *scheduler) awaitWarm(limit time.Duration) {
	if s.warmed == nil {
		return
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-s.warmed:
	case <-timer.C:
	}
}

// start launches the loop; it runs until stop.
func (s *scheduler) start() {
	if s.opts.Interval <= 0 {
		return
	}
	s.loopWG.Add(2)
	go func() {
		defer s.loopWG.Done()
		s.loop()
	}()
	s.warmed = make(chan struct{})
	go func() {
		defer s.loopWG.Done()
		defer close(s.warmed)
		s.warmPythonWorkers()
	}()
	if s.opts.ReapOrphans {
		s.loopWG.Add(1)
		go func() {
			defer s.loopWG.Done()
			s.reapLoop()
		}()
	}
}

// reapLoop reaps adopted orphans that have exited, every second, until
// the scheduler stops.
func (s *scheduler) reapLoop() {
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-ticker.C:
			reapAdopted(s.procs)
		}
	}
}

// stop is shutdown without a grace period (tests and error paths).
func (s *scheduler) stop() { s.shutdown(0) }

// shutdown is a planned stop: the loop ends, so that no task starts; the
// running tasks get up to grace to end on their own; those still running
// then are stopped (their whole process group) and their task instances go
// back to no state without using a try, so that they run again at the
// next start. Stopping twice is harmless.
func (s *scheduler) shutdown(grace time.Duration) {
	s.cancel()
	s.loopWG.Wait()
	if grace > 0 {
		timer := time.NewTimer(grace)
		defer timer.Stop()
	wait:
		for _, rt := range s.running() {
			select {
			case <-rt.done:
			case <-timer.C:
				break wait
			}
		}
	}
	left := s.running()
	for _, rt := range left {
		rt.cancel(errShuttingDown)
	}
	for _, rt := range left {
		<-rt.done
	}
	s.pyworkers.close()
	if s.opts.ReapOrphans {
		if n := killAdopted(s.procs); n > 0 {
			s.opts.Logger.Warn().Int("processes", n).Msg("killed processes that tasks left behind")
		}
		reapAdopted(s.procs)
	}
}

// running lists the tries running now.
func (s *scheduler) running() []*runningTask {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := make([]*runningTask, 0, len(s.tasks))
	for _, rt := range s.tasks {
		list = append(list, rt)
	}
	return list
}

// Kick asks for a pass without waiting for the next tick.
func (s *scheduler) Kick() {
	select {
	case s.kickCh <- struct{}{}:
	default: // a pass is already due
	}
}

func (s *scheduler) loop() {
	ticker := time.NewTicker(s.opts.Interval)
	defer ticker.Stop()
	defer s.stopped.Store(true)
	for {
		now := s.opts.Now()
		if err := s.guardedTick(now); err != nil {
			s.opts.Logger.Error().Err(err).Msg("scheduler pass")
		}
		// After the pass: a pass that never ends stops the heartbeat.
		s.heartbeat.Store(now.UnixMicro())
		select {
		case <-s.ctx.Done():
			return
		case <-ticker.C:
		case <-s.kickCh:
		}
	}
}

// Heartbeat is the start of the loop's last finished pass (zero before the
// first) and whether the loop still runs: what Airflow's scheduler job
// records as its latest_heartbeat and state.
func (s *scheduler) Heartbeat() (last time.Time, running bool) {
	if us := s.heartbeat.Load(); us != 0 {
		last = time.UnixMicro(us).UTC()
	}
	return last, !s.stopped.Load()
}

// guardedTick is a pass whose panic is logged with its stack, so that the
// loop goes on with the next pass.
func (s *scheduler) guardedTick(now time.Time) error {
	defer func() {
		if v := recover(); v != nil {
			s.opts.Logger.Error().Interface("panic", v).Bytes("stack", debug.Stack()).Msg("scheduler pass panicked")
		}
	}()
	return s.tick(now)
}

// tick is one scheduler pass at time now.
func (s *scheduler) tick(now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	if err := s.createScheduledRuns(now); err != nil {
		return err
	}
	if err := s.createAssetTriggeredRuns(now); err != nil {
		return err
	}
	if err := s.startQueuedRuns(now); err != nil {
		return err
	}
	if err := s.startBackfillRuns(now); err != nil {
		return err
	}
	// EmptyOperators finish inside a pass; their downstream tasks are
	// evaluated in the same pass, a bounded number of rounds.
	for round := 0; round < 64; round++ {
		runs, err := s.opts.Store.RunsInState(RunRunning)
		if err != nil {
			return err
		}
		var examined map[string]int // running runs examined per DAG, when the edition caps them
		if s.rules.capRunningRuns {
			examined = map[string]int{}
			sort.SliceStable(runs, func(i, j int) bool { return runs[i].ExecutionDate.Before(runs[j].ExecutionDate) })
		}
		for _, run := range runs {
			if s.rules.newRun.isBackfill(run.RunID) && !s.rules.backfills {
				// Airflow leaves backfill runs to the backfill job, which
				// airlite does not have: a triggered run with such a
				// run_id stays as created (docs/behaviour.md §4.6).
				continue
			}
			if err := s.advanceRun(run, now, examined); err != nil {
				return err
			}
		}
		finished, err := s.launchScheduled(now)
		if err != nil {
			return err
		}
		if finished == 0 {
			break
		}
	}
	if s.rules.backfills {
		return s.opts.Store.CompleteBackfills(now)
	}
	return nil
}

// runnable reports whether the scheduler may move a run: its DAG is
// active (Airflow 3.2.1 models/dagrun.py get_running_dag_runs_to_examine
// and get_queued_dag_runs_to_set_running join DagModel on is_stale false;
// 2.10.3 on is_active), and queueable.
func (s *scheduler) runnable(v storeView, run *DagRun) (*DAG, bool) {
	dag, stale, ok := s.queueable(v, run)
	if !ok || stale {
		return nil, false
	}
	return dag, true
}

// queueable reports whether the scheduler may queue a scheduled task
// instance of run (a running one), and whether its DAG is stale: Airflow
// asks only that the DAG is not paused (jobs/scheduler_job_runner.py
// _executable_task_instances_to_queued joins DagModel on is_paused, and
// in 3.2.1 bundle_name, never on is_stale or, in 2.10.3:374-378,
// is_active), so a stale DAG's are queued too (launch). airlite needs
// the definition besides, which an inactive DAG of editions 2 and 1.10
// no longer has. A sub-DAG's run moves only while the parent's
// SubDagOperator task is running it.
func (s *scheduler) queueable(v storeView, run *DagRun) (dag *DAG, stale, ok bool) {
	row, err := v.Dag(run.DagID)
	if err != nil || row.Def == nil || row.IsPaused {
		return nil, false, false
	}
	if parent := row.Def.ParentDagID; parent != "" {
		ti, err := v.TaskInstance(parent, run.RunID, run.DagID[len(parent)+1:])
		if err != nil || ti.State != TaskRunning {
			return nil, false, false
		}
	}
	return row.Def, row.Stale, true
}

// createScheduledRuns creates the runs that schedules ask for, for every
// unpaused DAG that is not a sub-DAG (Airflow never schedules those on
// their own), up to max_active_runs.
func (s *scheduler) createScheduledRuns(now time.Time) error {
	rows, err := s.opts.Store.Dags()
	if err != nil {
		return err
	}
	for _, row := range rows {
		dag := row.Def
		// models/dag.py dags_needing_dagruns: not stale (3.2.1), active
		// (2.10.3), without import errors (both; 1.10.15 schedules a DAG
		// at the parse of its file, which gives none when it fails).
		if !row.Active() || row.IsPaused || row.ImportErrors || !dag.onSchedule() || dag.ParentDagID != "" {
			continue
		}
		// A DAG whose allowed_run_types leave out scheduled gets no
		// scheduled run (c57fba0e jobs/scheduler_job_runner.py:1947-1955);
		// its asset-triggered runs are not checked there. The validator
		// lets only a DAG on assets or a time (AssetOrTimeSchedule) come
		// here without scheduled.
		if !dag.allowsRunType("scheduled") {
			continue
		}
		for {
			created, err := s.createNextRun(dag, now)
			if errors.Is(err, errUnavailable) {
				if !s.idsRefused {
					s.opts.Logger.Warn().Err(err).Str("dag_id", dag.DagID).Msg("scheduled runs wait for run ids")
				}
				s.idsRefused = true
				return nil
			}
			if err != nil {
				s.opts.Logger.Error().Err(err).Str("dag_id", dag.DagID).Msg("create scheduled run")
				break
			}
			if !created {
				break
			}
			s.idsRefused = false
		}
	}
	return nil
}

// createNextRun creates the DAG's next due run, if any and if the DAG is
// under max_active_runs.
func (s *scheduler) createNextRun(dag *DAG, now time.Time) (bool, error) {
	return s.opts.Store.CreateRun(func(v storeView) (*newRun, error) {
		row, err := v.Dag(dag.DagID)
		if err != nil || row.Def != dag || !row.Active() || row.IsPaused || row.ImportErrors {
			return nil, nil
		}
		active := 0
		count := v.CountRuns
		if !s.rules.scheduleCountsTriggered {
			count = v.CountScheduledRuns
		}
		for _, state := range []RunState{RunQueued, RunRunning} {
			n, err := count(dag.DagID, state)
			if err != nil {
				return nil, err
			}
			active += n
		}
		if active >= dag.MaxActiveRuns {
			return nil, nil
		}
		last, err := v.LastRunDate(dag.DagID, s.rules.lastRun)
		if err != nil {
			return nil, err
		}
		// A date another run holds (a backfill's, a triggered one's) is
		// passed over and the schedule goes on, as Airflow's scheduler
		// creates no run at a logical date in existing_dagruns and moves
		// next_dagrun on all the same (3.2.1 jobs/scheduler_job_runner.py
		// _create_dag_runs; 2.10.3 the same). Each pass is one interval
		// further, up to now.
		var f scheduledForm
		for {
			p, ok, err := s.rules.plannedRun(dag, last, now)
			if err != nil || !ok || p.runAfter.After(now) {
				return nil, err
			}
			f = s.rules.scheduledRuns.form(p)
			if _, err := v.RunAt(dag.DagID, f.logical); errors.Is(err, errNotFound) {
				break
			} else if err != nil {
				return nil, err
			}
			held := f.logical
			if !held.After(derefTime(last)) {
				return nil, fmt.Errorf("schedule of %s does not move past %s", dag.DagID, isoFormat(held))
			}
			last = &held
		}
		return &newRun{start: s.rules.newRun, dag: dag, runID: f.runID, date: f.logical, runAfter: f.runAfter,
			interval: f.interval, runType: f.runType, triggeredBy: f.triggeredBy,
			conf: s.rules.emptyConf, now: now, unixname: s.opts.Unixname}, nil
	})
}

// startQueuedRuns moves queued runs to running while their DAG is under
// max_active_runs, oldest execution date first.
func (s *scheduler) startQueuedRuns(now time.Time) error {
	queued, err := s.opts.Store.RunsInState(RunQueued)
	if err != nil {
		return err
	}
	sort.SliceStable(queued, func(i, j int) bool { return queued[i].After().Before(queued[j].After()) })
	for _, run := range queued {
		if s.rules.newRun.isBackfill(run.RunID) && !s.rules.backfills {
			continue // a backfill run is never the scheduler's
		}
		if owned, err := s.ownedByBackfill(run); err != nil || owned {
			if err != nil {
				return err
			}
			continue // startBackfillRuns starts it
		}
		if run.After().After(now) {
			continue // a run dated in the future waits for its date (Airflow 3: its run_after), as Airflow's
		}
		err := s.opts.Store.StartRun(run.DagID, run.RunID, now, func(v storeView, run *DagRun) (bool, error) {
			dag, ok := s.runnable(v, run)
			if !ok {
				return false, nil
			}
			active, err := v.CountRuns(run.DagID, RunRunning)
			if err == nil && s.rules.backfills {
				var backfilling int
				backfilling, err = v.backfillRunsRunning(run.DagID)
				active -= backfilling
			}
			return err == nil && active < dag.MaxActiveRuns, err
		})
		if err != nil {
			return fmt.Errorf("start run %s of %s: %w", run.RunID, run.DagID, err)
		}
	}
	return nil
}

// advanceRun evaluates one running run in one write: timeout,
// dependencies of every waiting task, and the run's own outcome. With
// examined (editions that cap running runs), a DAG's runs beyond
// max_active_runs, counted in the order given, are not evaluated.
func (s *scheduler) advanceRun(listed *DagRun, now time.Time, examined map[string]int) error {
	var cancelled []tiKey
	stillRunning := false
	err := s.opts.Store.AdvanceRun(listed.DagID, listed.RunID, func(v storeView, run *DagRun, tis []*TaskInstance) (runAdvance, error) {
		cancelled, stillRunning = nil, false
		dag, ok := s.runnable(v, run)
		if !ok {
			return runAdvance{}, nil
		}
		byID := make(runTIs, len(tis))
		for _, ti := range tis {
			byID[ti.TaskID] = append(byID[ti.TaskID], ti)
		}
		var adv runAdvance
		put := func(ti *TaskInstance) {
			byID.set(ti)
			adv.Tasks = append(adv.Tasks, ti)
		}
		if s.timedOut(dag, run, now) {
			for _, ti := range tis {
				next, stop := s.rules.dagrunTimeout.taskAfter(ti.State)
				if next == ti.State {
					continue
				}
				if stop {
					cancelled = append(cancelled, ti.key())
				}
				changed := *ti
				changed.State, changed.UpdatedAt = next, &now
				if next.Finished() {
					changed.EndDate = &now
				}
				put(&changed)
			}
			s.opts.Logger.Warn().Str("dag_id", run.DagID).Str("run_id", run.RunID).
				Dur("dagrun_timeout", dag.DagrunTimeout).Msg("run timed out")
			adv.End, adv.At = RunFailed, now
			return adv, nil
		}
		if run.After().After(now) {
			// A run dated in the future waits for its date, or its
			// run_after (Airflow passes it over, and does not count it
			// as active).
			return adv, nil
		}
		if examined != nil && examined[run.DagID] >= dag.MaxActiveRuns {
			return adv, nil
		}
		// The DAG may have changed since the run began.
		changed, stop := verifyIntegrity(s.rules.newRun, dag, run, tis, byID, now, s.opts.Unixname)
		for _, ti := range changed {
			put(ti)
		}
		cancelled = append(cancelled, stop...)
		revised := map[string]int{} // mapped tasks whose length this pass read again: the length
		for _, task := range dag.UpstreamFirst() {
			// A mapped task's instances are decided one by one, as
			// Airflow's task instances are (the slice is the task's as
			// the pass began: an expansion replaces it).
			for _, ti := range byID[task.TaskID] {
				if n, ok := revised[task.TaskID]; ok && ti.MapIndex >= n {
					continue // removed by the revision
				}
				decide, _ := s.rules.triggerRule(task.TriggerRule)
				next, changed := evaluateTask(decide, task, ti, byID, now)
				if !changed {
					continue
				}
				if next == TaskScheduled && s.rules.teardownScope && teardownScopeWaiting(task, byID) > 0 {
					continue // a teardown waits for the tasks between its setups and it
				}
				if next == TaskScheduled && task.DependsOnPast {
					// Airflow checks every dependency: the trigger rule may
					// still skip or fail it upstream, but it is scheduled
					// only once the previous run lets it go.
					met, err := s.rules.pastDependsMet(v, dag, task, run)
					if err != nil {
						return runAdvance{}, err
					}
					if !met {
						continue
					}
				}
				if next == TaskScheduled && task.Mapping != nil && ti.MapIndex < 0 {
					for _, one := range s.expand(dag, task, run, ti, now) {
						put(one)
					}
					continue
				}
				if _, done := revised[task.TaskID]; next == TaskScheduled && task.Mapping != nil && !done {
					n, changed := s.revise(dag, task, run, byID[task.TaskID], now)
					revised[task.TaskID] = n
					for _, one := range changed {
						put(one)
					}
					if ti.MapIndex >= n {
						continue
					}
				}
				put(s.decidedByRule(ti, next, now))
			}
		}
		if state, done := runOutcome(dag, byID); done {
			adv.End, adv.At = state, now
		} else if len(adv.Tasks) == 0 && deadlocked(dag, byID) {
			s.opts.Logger.Warn().Str("dag_id", run.DagID).Str("run_id", run.RunID).
				Msg("run failed: no task instance left can ever start (deadlock)")
			adv.End, adv.At = RunFailed, now
		} else {
			stillRunning = true
		}
		return adv, nil
	})
	for _, key := range cancelled {
		s.cancelTask(key)
	}
	if err == nil && stillRunning && examined != nil {
		examined[listed.DagID]++
	}
	if err != nil {
		return fmt.Errorf("advance run %s of %s: %w", listed.RunID, listed.DagID, err)
	}
	return nil
}

// timedOut reports whether run has outlived its DAG's dagrun_timeout, for
// the runs the edition times out.
func (s *scheduler) timedOut(dag *DAG, run *DagRun, now time.Time) bool {
	rule := s.rules.dagrunTimeout
	if dag.DagrunTimeout <= 0 || run.StartDate == nil || now.Sub(*run.StartDate) <= dag.DagrunTimeout {
		return false
	}
	return !rule.scheduledOnly || (!run.ExternalTrigger && dag.onSchedule())
}

// decided is ti in the state a pass decided for it at now, its dates
// untouched: Airflow writes such a state straight into the row (the
// mapped task's expansion into nothing or without its upstream value,
// 2.10.3 abstractoperator.py expand_mapped_task:633-642, 3.2.1
// models/taskmap.py alike; removed map indexes), no dates with it.
func (s *scheduler) decided(ti *TaskInstance, next TaskState, now time.Time) *TaskInstance {
	updated := *ti
	updated.State, updated.UpdatedAt = next, &now
	if next == TaskScheduled && s.rules.tryAtSchedule {
		updated.TryNumber++
	}
	return &updated
}

// decidedByRule is ti in the state its trigger rule decided at now.
// Airflow's TriggerRuleDep sets a skipped or upstream_failed state with
// TaskInstance.set_state: in 2.10.3 and 3.2.1 a start and an end date
// where there are none and the duration between them
// (taskinstance.py:2422-2428 of 2.10.3), in 1.10.15 both dates at now and
// no duration (taskinstance.py:537-541).
func (s *scheduler) decidedByRule(ti *TaskInstance, next TaskState, now time.Time) *TaskInstance {
	updated := s.decided(ti, next, now)
	if !next.Finished() {
		return updated
	}
	if !s.rules.setStateDuration {
		updated.StartDate, updated.EndDate = &now, &now
		return updated
	}
	if updated.StartDate == nil {
		updated.StartDate = &now
	}
	if updated.EndDate == nil {
		updated.EndDate = &now
	}
	took := updated.EndDate.Sub(*updated.StartDate).Seconds()
	updated.Duration = &took
	return updated
}

// runTIs are a run's task instances by task_id: a task's one, or the
// instances a mapped task expanded into, by map_index.
type runTIs map[string][]*TaskInstance

// set puts ti in its task's place; an expanded instance replaces the
// task's map_index -1 one, as in the store (putTaskInstancesTxn).
func (r runTIs) set(ti *TaskInstance) {
	tis := slices.Clone(r[ti.TaskID])
	if ti.MapIndex >= 0 {
		tis = slices.DeleteFunc(tis, func(t *TaskInstance) bool { return t.MapIndex < 0 })
	}
	i, found := slices.BinarySearchFunc(tis, ti.MapIndex, func(t *TaskInstance, mi int) int { return cmp.Compare(t.MapIndex, mi) })
	if found {
		tis[i] = ti
	} else {
		tis = slices.Insert(tis, i, ti)
	}
	r[ti.TaskID] = tis
}

// evaluateTask decides the next state of a waiting task instance from its
// upstream tasks and its trigger rule, as the edition decides it (decide): a rule that
// can no longer be met turns the task skipped or upstream_failed, a rule
// that is met makes it scheduled. Finished and active tasks stay.
func evaluateTask(decide triggerRule, task *Task, ti *TaskInstance, byID runTIs, now time.Time) (TaskState, bool) {
	switch ti.State {
	case TaskNone:
	case TaskUpForRetry:
		// Ready once the retry time is strictly past, as Airflow's
		// TaskInstance.ready_for_retry.
		if ti.NextRetryAt != nil && !now.After(*ti.NextRetryAt) {
			return ti.State, false
		}
	default:
		return ti.State, false
	}
	if len(task.Upstream) == 0 {
		return TaskScheduled, true
	}
	if decide == nil {
		return ti.State, false // a rule the edition does not know: never met
	}
	blocked, met := decide(countUpstream(task, byID))
	if blocked != "" {
		return blocked, true
	}
	if met {
		return TaskScheduled, true
	}
	return ti.State, false
}

// runOutcome decides a run's end as Airflow does: once no task can change
// any more, failed when a leaf failed or is upstream_failed, success when
// every leaf succeeded or was skipped; a run whose remaining tasks can
// never start (a deadlock) fails.
func runOutcome(dag *DAG, byID runTIs) (RunState, bool) {
	for _, tis := range byID {
		for _, ti := range tis {
			if !ti.State.Finished() {
				return "", false
			}
		}
	}
	for _, t := range dag.RunStateLeaves() {
		for _, ti := range byID[t.TaskID] {
			if ti.State == TaskFailed || ti.State == TaskUpstreamFailed {
				return RunFailed, true
			}
		}
	}
	return RunSuccess, true
}

// deadlocked reports whether a run whose pass changed nothing can never
// finish: every unfinished task instance waits in no state on a trigger
// rule that is not met, and none waits on the previous run
// (depends_on_past), as Airflow's DagRun.update_state decides before it
// fails a run as deadlocked.
func deadlocked(dag *DAG, byID runTIs) bool {
	waiting := false
	for _, tis := range byID {
		for _, ti := range tis {
			if ti.State.Finished() {
				continue
			}
			task := dag.Task(ti.TaskID)
			if ti.State != TaskNone || task == nil || task.DependsOnPast {
				return false
			}
			waiting = true
		}
	}
	return waiting
}

// candidate is a scheduled task instance waiting for a slot.
type candidate struct {
	ti   *TaskInstance
	date time.Time
}

// launchScheduled starts scheduled task instances, highest priority weight
// first, while parallelism, the DAG's max_active_tasks and the pool allow.
// EmptyOperators succeed at once without taking a slot, as Airflow 2
// marks them in the scheduler; it returns how many did.
func (s *scheduler) launchScheduled(now time.Time) (int, error) {
	scheduled, usage, err := s.opts.Store.ScheduledTaskInstances()
	if err != nil || len(scheduled) == 0 {
		return 0, err
	}
	sort.SliceStable(scheduled, func(i, j int) bool {
		if scheduled[i].PriorityWeight != scheduled[j].PriorityWeight {
			return scheduled[i].PriorityWeight > scheduled[j].PriorityWeight
		}
		return scheduled[i].ExecutionDate.Before(scheduled[j].ExecutionDate)
	})
	finished := 0
	for _, ti := range scheduled {
		done, err := s.launch(ti, usage, now)
		if err != nil {
			return finished, err
		}
		if done {
			finished++
		}
	}
	return finished, nil
}

// launch starts one scheduled task instance if the limits allow. The task
// instance is marked running in the store before its goroutine starts, and
// only if it is still scheduled, so that no task starts twice. done
// reports an EmptyOperator finished on the spot.
func (s *scheduler) launch(listed *TaskInstance, usage *slotUsage, now time.Time) (done bool, err error) {
	var job *taskJob
	s.mu.Lock()
	defer s.mu.Unlock()
	key := listed.key()
	err = s.opts.Store.LaunchTry(key, func(v storeView, run *DagRun, ti *TaskInstance) (*TaskInstance, error) {
		job, done = nil, false
		dag, stale, ok := s.queueable(v, run)
		if !ok {
			return nil, nil
		}
		task := dag.Task(ti.TaskID)
		if task == nil {
			return nil, nil
		}
		started := *ti
		if !s.rules.tryAtSchedule {
			started.TryNumber++
		}
		started.StartDate, started.QueuedDttm, started.UpdatedAt = &now, &now, &now
		started.EndDate, started.Duration, started.NextRetryAt = nil, nil, nil
		started.Hostname = s.opts.Hostname
		if (task.Operator == "EmptyOperator" || task.Operator == "DummyOperator") && task.Simulate == nil {
			started.State, started.EndDate = TaskSuccess, &now
			zero := 0.0
			started.Duration = &zero
			done = true
			return &started, nil
		}
		pool, err := v.Pool(ti.Pool)
		if errors.Is(err, errNotFound) {
			if !s.warnedPools[key] {
				s.warnedPools[key] = true
				s.opts.Logger.Warn().Str("task", key.String()).Str("pool", ti.Pool).
					Msg("task waits in scheduled: its pool does not exist")
			}
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		delete(s.warnedPools, key)
		switch {
		case usage.total >= s.opts.Parallelism:
			return nil, nil
		case usage.byDag[ti.DagID] >= dag.MaxActiveTasks:
			return nil, nil
		case pool.Slots >= 0 && usage.byPool[ti.Pool]+int64(ti.PoolSlots) > pool.Slots:
			return nil, nil
		}
		started.State = TaskRunning
		job = &taskJob{key: key, try: started.TryNumber, dag: dag, task: task, run: *run, dagGone: stale,
			secrets: newSecretRegistry(s.rules.masker)}
		if ti.MapIndex >= 0 {
			index := ti.MapIndex
			job.mapIndex = &index
		}
		return &started, nil
	})
	if err == nil && job != nil {
		usage.total++
		usage.byDag[listed.DagID]++
		usage.byPool[listed.Pool] += int64(listed.PoolSlots)
	}
	if err != nil {
		return false, fmt.Errorf("launch %s: %w", key, err)
	}
	if job != nil {
		s.startTaskLocked(*job)
	}
	return done, nil
}

// startTaskLocked registers a job and runs it in its own goroutine; s.mu
// is held, so that the try is registered in the same step as its launch.
func (s *scheduler) startTaskLocked(job taskJob) {
	// A try's context is its own, not the loop's: a shutdown ends the
	// loop first and gives running tries their grace.
	ctx, cancel := context.WithCancelCause(context.Background())
	rt := &runningTask{cancel: cancel, done: make(chan struct{})}
	a := attempt{job.key, job.run.ID}
	s.tasks[a] = rt
	go func() {
		defer close(rt.done)
		defer cancel(nil)
		outcome := s.runGuarded(ctx, job)
		if errors.Is(context.Cause(ctx), errShuttingDown) && outcome.state != TaskSuccess {
			outcome = taskOutcome{requeue: true, reason: errShuttingDown.Error()}
		}
		if err := s.finishTask(job, outcome); err != nil {
			s.opts.Logger.Error().Err(err).Str("task", job.key.String()).Msg("record task outcome")
		}
		s.mu.Lock()
		delete(s.tasks, a)
		s.mu.Unlock()
		s.Kick()
	}()
}

// runGuarded runs a try and turns a panic into a failed try. A try of a
// stale DAG fails without running: Airflow's worker reads the task's DAG
// from its file, finds none, and exits before the task runs
// (task-sdk/src/airflow/sdk/execution_time/task_runner.py parse: "Dag not
// found during start up"), so the try fails as a failed try does.
func (s *scheduler) runGuarded(ctx context.Context, job taskJob) (out taskOutcome) {
	if job.dagGone {
		return taskOutcome{state: TaskFailed, reason: fmt.Sprintf(
			"Dag not found during start up (dag_id=%s, path=%s): the DAG is stale, its file no longer gives it, so the task did not run",
			job.key.dagID, job.dag.RelativeFileloc)}
	}
	defer func() {
		if v := recover(); v != nil {
			s.opts.Logger.Error().Str("task", job.key.String()).Interface("panic", v).
				Bytes("stack", debug.Stack()).Msg("task panicked")
			out = taskOutcome{state: TaskFailed, reason: fmt.Sprintf("task panicked: %v", v)}
		}
	}()
	return s.opts.RunTask(ctx, job)
}

// cancelTask signals a running task to stop, without waiting.
func (s *scheduler) cancelTask(key tiKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for a, rt := range s.tasks {
		if a.tiKey == key {
			rt.cancel(errTaskStopped)
		}
	}
}

// WithTasksStopped applies change to the store and stops the running
// tasks that match, in one step under s.mu: no try can be launched
// between the two, and a stopped try's result is dropped (its task
// instance changed, or its run is gone). It returns once every stopped
// task has ended. match is called after change, so change may decide it.
// Resets, deletes, forced states and shutdown go through here.
func (s *scheduler) WithTasksStopped(match func(tiKey) bool, change func() error) error {
	s.mu.Lock()
	err := change()
	var waiting []*runningTask
	if err == nil {
		for a, rt := range s.tasks {
			if match(a.tiKey) {
				rt.cancel(errTaskStopped)
				waiting = append(waiting, rt)
			}
		}
	}
	s.mu.Unlock()
	for _, rt := range waiting {
		<-rt.done
	}
	return err
}

// finishTask records a try's outcome; Store.FinishTry drops it when the
// try no longer owns its task instance. A try whose XCom values the store
// refuses (a limit) fails instead, as Airflow's does when its push fails.
func (s *scheduler) finishTask(job taskJob, out taskOutcome) error {
	out = s.refuseUnmappablePush(job, out)
	err := s.recordOutcome(job, out)
	var limit *limitError
	if !errors.As(err, &limit) {
		return err
	}
	text, _ := storeErrorTextWith(err, s.rules.freeingRoutes())
	failed := taskOutcome{state: TaskFailed, output: out.output, cut: out.cut, reason: "push xcom: " + text}
	return s.recordOutcome(job, failed)
}

// recordOutcome stores a try's outcome (see finishTask).
func (s *scheduler) recordOutcome(job taskJob, out taskOutcome) error {
	now := s.opts.Now().UTC().Truncate(time.Microsecond)
	return s.opts.Store.FinishTry(job.key, job.run.ID, job.try, func(stored *TaskInstance) (tryResult, error) {
		ti := *stored
		ti.ProcIdentity = "" // its process has ended
		if out.requeue {
			s.opts.Logger.Warn().Str("task", job.key.String()).Int("try", job.try).Str("reason", out.reason).
				Msg("task goes back to no state: it runs again at the next start, the try is not counted")
			ti.State, ti.TryNumber, ti.UpdatedAt, ti.PID = TaskNone, ti.TryNumber-1, &now, nil
			ti.StartDate, ti.EndDate, ti.Duration, ti.QueuedDttm, ti.NextRetryAt = nil, nil, nil, nil, nil
			return tryResult{TI: &ti}, nil
		}
		endTry(&ti, out.state, job.task, now)
		if out.noRetry && ti.State == TaskUpForRetry {
			// Airflow 2.10.3 models/taskinstance.py handle_failure: force_fail
			// (an AirflowFailException) fails the try whatever its retries.
			ti.State, ti.NextRetryAt = TaskFailed, nil
		}
		if out.rendered != nil {
			ti.Rendered = s.storedRenderedFields(job, out.rendered)
		}
		if out.renderedMapIndex != nil {
			ti.RenderedMapIndex = out.renderedMapIndex
		}
		log := s.opts.Logger.Info()
		if ti.State == TaskFailed || ti.State == TaskUpForRetry {
			log = s.opts.Logger.Warn().Str("reason", out.reason)
		}
		log.Str("task", job.key.String()).Int("try", job.try).Str("state", string(ti.State)).Msg("task finished")
		tryLog := out.tryLog(job.try)
		tryLog.Output = s.maskedOutput(job, tryLog.Output)
		res := tryResult{TI: &ti, Log: &tryLog}
		if ti.State == TaskSuccess && (job.task.Inlets != nil || job.task.Outlets != nil) {
			rec, err := lineageRecord(job)
			if err != nil {
				return tryResult{}, err
			}
			res.Lineage = rec
			res.OutletExtras = out.outletExtras
		}
		res.AliasEvents = out.aliasEvents
		switch {
		case ti.State == TaskSuccess:
			res.XComs = s.xcomPushes(job.dag, job.task, out)
		case !out.requeue:
			// What the try pushed before it failed or skipped stays, as in
			// Airflow, where xcom_push writes its row at once (2.10.3
			// models/taskinstance.py xcom_push); the return value never came.
			res.XComs = out.pushed
		}
		return res, nil
	})
}

// endTry ends ti's try at now in state (success, skipped or failed): end
// date and duration are set, and a failed try goes through Airflow's
// handle_failure: up_for_retry, with the time of its next try, when the
// task has retries and try_number <= max_tries, else failed. task gives
// the retry delay; without it (its DAG file is gone) the retry is due at
// once. The scheduler ends every try here, and so does the orphan policy
// with a try that a stop left running (scheduler_orphans.go).
func endTry(ti *TaskInstance, state TaskState, task *Task, now time.Time) {
	ti.EndDate, ti.UpdatedAt = &now, &now
	if ti.StartDate != nil {
		d := now.Sub(*ti.StartDate).Seconds()
		ti.Duration = &d
	}
	ti.State = state
	if state == TaskFailed && ti.MaxTries > 0 && ti.TryNumber <= ti.MaxTries {
		ti.State = TaskUpForRetry
		next := now
		if task != nil {
			next = now.Add(retryDelay(task, ti))
		}
		ti.NextRetryAt = &next
	}
}

// tryLog is the output a try leaves in its task instance's log, with the
// reason it failed.
func (o taskOutcome) tryLog(try int) TryLog {
	text := o.output
	if o.reason != "" && o.state != TaskSuccess {
		text += "[airlite] " + o.reason + "\n"
	}
	return TryLog{Try: try, Output: text, Truncated: o.cut}
}

func lineageRecord(job taskJob) (*LineageRecord, error) {
	rec := &LineageRecord{DagID: job.key.dagID, RunID: job.key.runID, TaskID: job.key.taskID, MapIndex: job.key.mapIndex}
	var err error
	if job.task.Inlets != nil {
		if rec.Inlets, err = spacedJSON.marshal(normalizeYAML(job.task.Inlets)); err != nil {
			return nil, fmt.Errorf("encode inlets: %w", err)
		}
	}
	if job.task.Outlets != nil {
		if rec.Outlets, err = spacedJSON.marshal(normalizeYAML(job.task.Outlets)); err != nil {
			return nil, fmt.Errorf("encode outlets: %w", err)
		}
	}
	return rec, nil
}

// normalizeYAML converts what the YAML decoder produced (ints, nested
// map[string]any) into values the JSON renderer takes.
func normalizeYAML(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = normalizeYAML(item)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			out[k] = normalizeYAML(item)
		}
		return out
	case int:
		return int64(x)
	case uint64:
		return json.Number(fmt.Sprint(x))
	case time.Time:
		return isoFormat(x)
	}
	return v
}

// maxTaskOutput bounds the output kept per try.
const maxTaskOutput = 64 << 10

// retryDelay is Airflow's next_retry_datetime delay: retry_delay, or with
// exponential backoff a deterministic value between delay·2^(try-2) and
// delay·2^(try-1) seconds derived from a hash of the task instance, capped
// by max_retry_delay.
func retryDelay(task *Task, ti *TaskInstance) time.Duration {
	delay := task.RetryDelay
	if !task.RetryExponentialBackoff {
		return delay
	}
	minBackoff := math.Ceil(delay.Seconds() * math.Pow(2, float64(ti.TryNumber-1)))
	if minBackoff < 1 {
		minBackoff = 1
	}
	sum := sha1.Sum([]byte(fmt.Sprintf("%s#%s#%s#%d", ti.DagID, ti.TaskID, strFormat(ti.ExecutionDate), ti.TryNumber)))
	hash := new(big.Int).SetBytes(sum[:])
	secs := minBackoff
	if minBackoff < float64(math.MaxInt64) {
		mod := new(big.Int).Mod(hash, big.NewInt(int64(minBackoff)))
		secs = minBackoff + float64(mod.Int64())
	}
	const maxSecs = float64(math.MaxInt64/int64(time.Second)) - 1
	secs = math.Min(secs, maxSecs)
	d := time.Duration(secs) * time.Second
	if task.MaxRetryDelay > 0 && d > task.MaxRetryDelay {
		d = task.MaxRetryDelay
	}
	return d
}

// derefTime is *t, or the zero time for nil.
func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
