package main

// Backfills (Airflow 3): what airflow-core/src/airflow/models/backfill.py
// decides when a backfill is asked for (_create_backfill, _do_dry_run,
// _validate_backfill_params, _get_info_list), and the pause, unpause and
// cancel of routes/public/backfills.py. The store keeps the rows
// (memstore_backfills.go); the scheduler runs them (scheduler_backfills.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// reprocessBehaviors are ReprocessBehavior's values (models/backfill.py).
var reprocessBehaviors = []string{"failed", "completed", "none"}

// Why a backfill is refused; the dialects word them.
var (
	// errBackfillDagNotFound: no serialized DAG (DagNotFound).
	errBackfillDagNotFound = errors.New("backfill: no such dag")
	// errBackfillNoSchedule: DagNoScheduleException.
	errBackfillNoSchedule = errors.New("backfill: the dag has no schedule")
	// errBackfillNotAllowed: DagRunTypeNotAllowed, the DAG's
	// allowed_run_types leave out backfill.
	errBackfillNotAllowed = errors.New("backfill: the dag does not allow backfill runs")
	// errBackfillReverse: InvalidBackfillDirection.
	errBackfillReverse = errors.New("backfill: depends_on_past forbids running backwards")
	// errBackfillReprocess: InvalidReprocessBehavior.
	errBackfillReprocess = errors.New("backfill: depends_on_past needs a reprocess behavior")
	// errBackfillFuture: InvalidBackfillDate.
	errBackfillFuture = errors.New("backfill: dates in the future")
	// errBackfillNoRuns: _create_backfill's RuntimeError, raised after the
	// backfill row was stored.
	errBackfillNoRuns = errors.New("backfill: no runs to create")
	// errBackfillParams: create_dagrun's ValueError for a dag_run_conf the
	// DAG's params refuse, raised at the first run to create, after the
	// backfill row was stored; the runs before it are rolled back.
	errBackfillParams = errors.New("backfill: dag_run_conf refused by the params")
	// errBackfillCompleted: pause, unpause or cancel of a completed backfill.
	errBackfillCompleted = errors.New("backfill: already completed")
	// errBackfillTooLong: more dates than airlite plans in one backfill.
	errBackfillTooLong = errors.New("backfill: too many dates")
)

// maxBackfillDates bounds the dates one backfill plans, so that a
// schedule of every minute over centuries cannot exhaust memory; the
// store's run limit applies to the runs made as to any other.
const maxBackfillDates = 1 << 20

// backfillRequest is a backfill as a client asks for it (BackfillPostBody).
type backfillRequest struct {
	dagID         string
	from, to      time.Time
	runBackwards  bool
	conf          json.RawMessage // dag_run_conf; nil: null
	reprocess     string          // one of reprocessBehaviors
	maxActiveRuns int
	user          *string // triggering_user_name
}

// backfillInfo is one date of a DAG's schedule a backfill covers (the
// DagRunInfo of iter_dagrun_infos_between).
type backfillInfo struct {
	logical, runAfter time.Time
	interval          dataInterval
}

// backfillDAG is the DAG a backfill asks for, its definition loaded
// (SerializedDagModel.latest_item_select_object; a stale DAG's is kept),
// or errBackfillDagNotFound.
func (o *operations) backfillDAG(dagID string) (*DAG, error) {
	row, err := o.store.DagByID(dagID)
	if errors.Is(err, errNotFound) || (err == nil && row.Def == nil) {
		return nil, errBackfillDagNotFound
	}
	if err != nil {
		return nil, err
	}
	return row.Def, nil
}

// validateBackfill is _validate_backfill_params.
func validateBackfill(dag *DAG, req *backfillRequest, now time.Time) error {
	if slices.ContainsFunc(dag.Tasks, func(t *Task) bool { return t.DependsOnPast }) {
		if req.runBackwards {
			return errBackfillReverse
		}
		if req.reprocess == "none" {
			return errBackfillReprocess
		}
	}
	if !req.from.Before(now) && !req.to.Before(now) {
		return errBackfillFuture
	}
	return nil
}

// backfillInfos is _get_info_list: the dates of dag's schedule from from
// to to (the DAG's start_date and end_date do not bound them), those
// whose data interval has ended before now, latest first when reverse.
// Airflow 3 walks the DAG's timetable with catchup from from
// (DAG.iter_dagrun_infos_between, serialization/definitions/dag.py:
// 433-470 of the 3.2.0-era main Phinhas214/airflow c57fba0e): a cron
// expression's CronTriggerTimetable and a duration's
// DeltaTriggerTimetable fire at from's first fire time (a duration's:
// from itself) and each one after it up to to, each run dated at its
// fire time, the instant as its interval (triggerNext); @once runs once,
// at from. A timetable object is asked for its next run after the last
// one, as iter_dagrun_infos_between asks next_dagrun_info_v2.
func backfillInfos(dag *DAG, from, to, now time.Time, reverse bool) ([]backfillInfo, error) {
	var out []backfillInfo
	add := func(iv dataInterval, runAfter time.Time) error {
		if len(out) >= maxBackfillDates {
			return errBackfillTooLong
		}
		if iv.end.Before(now) {
			out = append(out, backfillInfo{logical: iv.start, runAfter: runAfter, interval: iv})
		}
		return nil
	}
	if tt := dag.timetable; tt != nil {
		var last *time.Time
		for {
			iv, ok, err := tt.nextRun(last, &from, true, now, &to)
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			if last != nil && !iv.start.After(*last) {
				return nil, fmt.Errorf("timetable of %s does not move past %s", dag.DagID, isoFormat(*last))
			}
			if err := add(iv, iv.end); err != nil {
				return nil, err
			}
			last = &iv.start
		}
	} else if *dag.Schedule == "@once" {
		if !from.After(to) {
			if err := add(dataInterval{from, from}, from); err != nil {
				return nil, err
			}
		}
	} else {
		fires, err := fireTimesOf(dag)
		if err != nil {
			return nil, err
		}
		for t, err := fires.atOrAfter(from); !t.After(to); t, err = fires.after(t) {
			if err != nil {
				return nil, fmt.Errorf("schedule %q: %w", *dag.Schedule, err)
			}
			if err := add(dataInterval{t, t}, t); err != nil {
				return nil, err
			}
		}
	}
	if reverse {
		slices.Reverse(out)
	}
	return out, nil
}

// backfillAsGiven is t as the request gave from, offset kept, when t is
// from's instant, else t: a timetable starts a backfill at from_date
// itself when it falls on the schedule (c57fba0e timetables/_cron.py
// _align_to_next returns current; _delta.py and OnceTimetable always do)
// and works the later dates out in UTC (_get_next: convert_to_utc), so the
// first logical date or run_after keeps the body's offset: the dry run
// answers it (DryRunBackfillResponse), and a run's id is written from it
// (timetables/base.py generate_run_id: run_after.isoformat()), where
// stored dates are read back in UTC.
func backfillAsGiven(t, from time.Time) time.Time {
	if t.Equal(from) {
		return from
	}
	return t
}

// backfillReason is _get_dag_run_no_create_reason: why a backfill makes
// no run at a date that has run already ("": it reprocesses that run).
func backfillReason(run *DagRun, reprocess string) string {
	switch {
	case run.State != RunSuccess && run.State != RunFailed:
		return "in flight"
	case reprocess == "none":
		return "already exists"
	case reprocess == "failed" && run.State != RunFailed:
		return "already exists"
	}
	return ""
}

// backfillDryRun is _do_dry_run: the dates a backfill would make or
// reprocess a run at, leaving out those with a run it would not touch.
func (o *operations) backfillDryRun(req *backfillRequest) ([]backfillInfo, error) {
	dag, err := o.backfillDAG(req.dagID)
	if err != nil {
		return nil, err
	}
	now := o.clock()
	if err := validateBackfill(dag, req, now); err != nil {
		return nil, err
	}
	if !dag.onSchedule() {
		return nil, errBackfillNoSchedule
	}
	infos, err := backfillInfos(dag, req.from.UTC(), req.to.UTC(), now, req.runBackwards)
	if err != nil {
		return nil, err
	}
	out := infos[:0:0]
	err = o.store.View(func(v storeView) error {
		for _, info := range infos {
			run, err := v.RunAt(dag.DagID, info.logical)
			if errors.Is(err, errNotFound) {
				out = append(out, info)
				continue
			}
			if err != nil {
				return err
			}
			if backfillReason(run, req.reprocess) == "" {
				out = append(out, info)
			}
		}
		return nil
	})
	return out, err
}

// createBackfill is _create_backfill: the backfill and, at each date of
// the schedule it covers, a queued backfill run, or the finished run
// there cleared and queued again when reprocess_behavior asks, or a link
// saying why neither.
func (o *operations) createBackfill(req *backfillRequest) (*Backfill, error) {
	dag, err := o.backfillDAG(req.dagID)
	if err != nil {
		return nil, err
	}
	// _create_backfill looks at allowed_run_types once the serialized DAG
	// is found, before the schedule (c57fba0e models/backfill.py:568-575);
	// _do_dry_run does not look.
	if !dag.allowsRunType("backfill") {
		return nil, errBackfillNotAllowed
	}
	if !dag.onSchedule() {
		return nil, errBackfillNoSchedule
	}
	now := o.clock()
	rules := o.rules()
	var noRuns bool
	var refused string
	b, err := o.store.CreateBackfill(func(v storeView) (*backfillPlan, error) {
		noRuns, refused = false, ""
		if running, err := v.backfillRunning(dag.DagID); err != nil || running {
			if err == nil {
				err = errBackfillRunning
			}
			return nil, err
		}
		if err := validateBackfill(dag, req, now); err != nil {
			return nil, err
		}
		p := &backfillPlan{backfill: Backfill{DagID: dag.DagID, FromDate: req.from.UTC(), ToDate: req.to.UTC(), DagRunConf: req.conf,
			ReprocessBehavior: req.reprocess, MaxActiveRuns: req.maxActiveRuns, CreatedAt: now, UpdatedAt: now,
			TriggeringUser: req.user}}
		infos, err := backfillInfos(dag, p.backfill.FromDate, p.backfill.ToDate, now, req.runBackwards)
		if err != nil {
			return nil, err
		}
		noRuns = len(infos) == 0
		// A run's conf is {} when the backfill has none (DagRun.__init__).
		conf := req.conf
		if conf == nil {
			conf = json.RawMessage("{}")
		}
		for _, info := range infos {
			d := backfillDate{logical: info.logical}
			run, err := v.RunAt(dag.DagID, info.logical)
			switch {
			case errors.Is(err, errNotFound):
				iv := info.interval
				d.create = &newRun{start: rules.newRun, dag: dag, runID: "backfill__" + isoFormat(backfillAsGiven(info.runAfter, req.from)),
					date: info.logical, runType: "backfill", triggeredBy: "backfill", user: req.user, conf: conf,
					interval: &iv, now: now, unixname: o.unixname, dateChecked: true, startedAtCreation: true}
				if !info.runAfter.Equal(info.logical) {
					d.create.runAfter = info.runAfter
				}
				// create_dagrun checks the conf against the params
				// (serialization/definitions/dag.py:570-571 of c57fba0e);
				// its ValueError leaves the backfill committed
				// (models/backfill.py:594-605) and rolls back the session's
				// runs, cleared ones too.
				if dag.params != nil {
					if refused = dag.params.validate(conf, rules.paramsMerged); refused != "" {
						p.dates = nil
						return p, nil
					}
				}
			case err != nil:
				return nil, err
			default:
				if d.exception = backfillReason(run, req.reprocess); d.exception == "" {
					d.reprocess = run
				}
			}
			p.dates = append(p.dates, d)
		}
		return p, nil
	})
	if err != nil {
		return nil, err
	}
	o.wake()
	if refused != "" {
		return b, fmt.Errorf("%w: %s", errBackfillParams, refused)
	}
	if noRuns {
		// Airflow stores the backfill, then fails the request.
		return b, errBackfillNoRuns
	}
	return b, nil
}

// backfillPage is a page of a DAG's backfills ("": every DAG's) by id,
// descending when desc (list_backfills orders by id only), from the
// store's index, and how many there are.
func (o *operations) backfillPage(dagID string, desc bool, p page) ([]*Backfill, int, error) {
	return o.store.BackfillPage(dagID, desc, p.offset, p.limit)
}

// backfill is one backfill, or errNotFound.
func (o *operations) backfill(id int64) (*Backfill, error) { return o.store.BackfillByID(id) }

// pauseBackfill is pause_backfill (paused true) and unpause_backfill: a
// completed backfill is errBackfillCompleted. Unpausing wakes the
// scheduler.
func (o *operations) pauseBackfill(id int64, paused bool) (*Backfill, error) {
	now := o.clock()
	b, err := o.store.UpdateBackfill(id, func(_ storeView, b *Backfill) error {
		if b.CompletedAt != nil {
			return errBackfillCompleted
		}
		if b.IsPaused != paused {
			b.IsPaused, b.UpdatedAt = paused, now
		}
		return nil
	})
	if err == nil && !paused {
		o.wake()
	}
	return b, err
}

// cancelBackfill is cancel_backfill: the backfill paused, its queued runs
// failed, and completed now; its running runs go on.
func (o *operations) cancelBackfill(id int64) (*Backfill, error) {
	return o.store.CancelBackfill(id, o.clock(), func(b *Backfill) error {
		if b.CompletedAt != nil {
			return errBackfillCompleted
		}
		return nil
	})
}
