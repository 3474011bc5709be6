package main

// DAGs: delete one, pause and unpause, list them with what Airflow 3
// shows of them, favorites, tags and versions.

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DAG faults.
const (
	// faultDagRunning is a delete refused while a task instance of the
	// DAG runs (Airflow 2's delete_dag): dag_id.
	faultDagRunning opFault = "dag_running"
)

// deleteDag deletes a DAG's row, runs, task instances and the rest that
// names it, with its sub-DAGs', and answers how many records went
// (delete_dag's count). The edition says whether a running task refuses
// the delete (Airflow 2) or is stopped with it (1.10).
func (o *operations) deleteDag(dagID string) (int, error) {
	rules := o.rules()
	refuse := func(v storeView, ids []string) error {
		if !rules.deleteRefusesRunning {
			return nil
		}
		for _, id := range ids {
			n, err := v.CountTaskInstances(id, func(ti *TaskInstance) bool { return ti.State == TaskRunning })
			if err != nil {
				return err
			}
			if n > 0 {
				return opErr(errConflict, faultDagRunning, "dag_id", dagID)
			}
		}
		return nil
	}
	var count int
	del := func() (err error) {
		count, err = o.store.DeleteDag(dagID, refuse)
		return err
	}
	var err error
	if rules.deleteStopsTasks {
		// 1.10 deletes whatever runs; the DAG's tasks (and its sub-DAGs')
		// stop with the delete, so that none writes into a deleted run.
		err = o.stopping(func(k tiKey) bool { return k.dagID == dagID || strings.HasPrefix(k.dagID, dagID+".") }, del)
	} else {
		err = del()
	}
	var oe *opError
	if errors.Is(err, errNotFound) && !errors.As(err, &oe) {
		return 0, opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	}
	return count, err
}

// setPaused pauses or unpauses a DAG and, with subdags, its sub-DAGs; an
// unpaused DAG may have runs to create, so the scheduler is woken.
func (o *operations) setPaused(dagID string, paused, subdags bool) error {
	err := o.store.SetPaused(dagID, paused, subdags)
	if errors.Is(err, errNotFound) {
		return opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	}
	if err != nil {
		return err
	}
	if !paused {
		o.wake()
	}
	return nil
}

// pauseDag is the experimental API's and the status page's pause
// (airflow/api/common/experimental/... set_is_paused through DagModel):
// the DAG's row must exist and, where the rules say so, its definition
// load; the rules say whether its sub-DAGs follow.
func (o *operations) pauseDag(dagID string, paused bool) error {
	row, err := o.store.DagByID(dagID)
	if errors.Is(err, errNotFound) {
		return opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	}
	if err != nil {
		return err
	}
	rules := o.rules()
	if rules.pauseNeedsDefinition && row.Def == nil {
		return opErr(errNotFound, faultDagNotLoaded, "dag_id", dagID)
	}
	return o.setPaused(dagID, paused, rules.pauseSubDAGs)
}

// setPausedAll pauses or unpauses each of dagIDs (those deleted since
// they were read are passed over), then wakes the scheduler once.
func (o *operations) setPausedAll(dagIDs []string, paused bool) error {
	for _, id := range dagIDs {
		if err := o.store.SetPaused(id, paused, false); err != nil && !errors.Is(err, errNotFound) {
			return err
		}
	}
	if !paused {
		o.wake()
	}
	return nil
}

// dagInfo is a DAG as Airflow 3's DagModel shows it: its row and what the
// store around it says of it, in neutral terms (the v2 dialect words it).
type dagInfo struct {
	Row *DagRow
	// Owners are the distinct owners of its tasks, sorted (DagModel.owners,
	// which Airflow joins with ", " and the API splits again).
	Owners []string
	// Stale: the DAG's file no longer defines it (is_stale): a row
	// marked stale, or one without a definition.
	Stale bool
	// ImportErrors: its file failed to load at the last read.
	ImportErrors bool
	// Next is the run the schedule wants next; nil when none.
	Next *nextDagRun
	// LastRun is the DAG's latest run (its highest id, started or not, as
	// Airflow 3's DAG list joins it); filled only when a filter or an
	// order asked for it.
	LastRun *DagRun
	// Version is the DAG's latest version; nil when it has none.
	Version *DagVersion
	// Favorite: the caller marked it.
	Favorite bool
}

// nextDagRun is DagModel's next_dagrun fields.
type nextDagRun struct {
	LogicalDate, IntervalStart, IntervalEnd, RunAfter time.Time
}

// dagQuery is the filters, order and page of a DAG listing (Airflow 3's
// get_dags and patch_dags). Nil and empty fields filter nothing.
type dagQuery struct {
	includeStale bool
	paused       *bool
	// idLike and displayLike are patterns of which one must match (the
	// pipe's OR).
	idLike, displayLike []*regexp.Regexp
	tags                []string
	tagsAll             bool // every tag rather than any
	// ownerLikes are patterns of which one must match the DAG's owners
	// joined with ", " (DagModel.owners).
	ownerLikes       []*regexp.Regexp
	hasImportErrors  *bool
	bundleName       *string
	bundleVersion    *string
	hasAssetSchedule *bool
	// assetDependency is a pattern one of the assets the DAG is
	// scheduled on must match by name or URI.
	assetDependency *regexp.Regexp
	favoriteOf      *string // the user whose favorites is_favorite reads
	favorite        *bool
	timetableTypes  []string
	// The latest run's filters: its state one of runStates, its
	// state lastRunState, its start and end dates in their ranges.
	runStates             []RunState
	lastRunState          *RunState
	runStart, runEnd      timeRange
	lastRunFiltersEnabled bool
	order                 []dagSortKey
	page                  page
}

// timeRange is a datetime range filter: each bound nil when absent.
type timeRange struct{ gte, gt, lte, lt *time.Time }

func (r timeRange) active() bool { return r.gte != nil || r.gt != nil || r.lte != nil || r.lt != nil }

// holds says whether t (nil: NULL, which no comparison holds) is in the range.
func (r timeRange) holds(t *time.Time) bool {
	if !r.active() {
		return true
	}
	if t == nil {
		return false
	}
	return (r.gte == nil || !t.Before(*r.gte)) && (r.gt == nil || t.After(*r.gt)) &&
		(r.lte == nil || !t.After(*r.lte)) && (r.lt == nil || t.Before(*r.lt))
}

// dagSortKey is one key of a DAG listing's order.
type dagSortKey struct {
	attr string // dag_id, dag_display_name, next_dagrun, last_run_state, last_run_start_date
	desc bool
}

// bundleName is the DAG bundle airlite's DAGs come from: Airflow 3's
// default local bundle (config [dag_processor] dag_bundle_config_list).
const bundleName = "dags-folder"

// dagInfoOf fills what a DAG shows besides its row.
func (o *operations) dagInfoOf(row *DagRow, withLastRun bool) (dagInfo, error) {
	info, err := o.dagListInfo(row, withLastRun, true)
	if err != nil {
		return info, err
	}
	return info, o.addDagVersion(&info)
}

// dagListInfo fills what a listing's filters and orders read of a DAG:
// its owners, import errors, its next run (withNext: the schedule's
// computation) and latest run (withLastRun: a seek); the rest
// (addDagVersion) waits for the page.
func (o *operations) dagListInfo(row *DagRow, withLastRun, withNext bool) (dagInfo, error) {
	info := dagInfo{Row: row, Stale: !row.Active(), ImportErrors: row.ImportErrors, Owners: []string{}}
	if row.Def != nil {
		info.Owners = dagOwners(row.Def)
	}
	if withNext {
		if err := o.addNextDagRun(&info); err != nil {
			return info, err
		}
	}
	if withLastRun {
		last, err := o.store.LatestRunByID(row.DagID)
		if err != nil {
			return info, err
		}
		info.LastRun = last
	}
	return info, nil
}

// addNextDagRun fills the run info's DAG's schedule wants next.
func (o *operations) addNextDagRun(info *dagInfo) error {
	def := info.Row.Def
	if def == nil {
		return nil
	}
	last, err := o.store.LastRunDate(info.Row.DagID, o.rules().lastRun)
	if err != nil {
		return err
	}
	rules := o.rules()
	if p, ok, err := rules.plannedRun(def, last, o.now().UTC()); err == nil && ok {
		info.Next = &nextDagRun{LogicalDate: p.logical, IntervalStart: p.interval.start, IntervalEnd: p.interval.end, RunAfter: p.runAfter}
	}
	return nil
}

// addDagVersion fills info's DAG's latest version.
func (o *operations) addDagVersion(info *dagInfo) error {
	v, err := o.store.LatestDagVersion(info.Row.DagID)
	switch {
	case err == nil:
		info.Version = v
	case !errors.Is(err, errNotFound):
		return err
	}
	return nil
}

// dagOwners is the distinct owners of a DAG's tasks, each owner string
// split at commas and trimmed, sorted.
func dagOwners(def *DAG) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, t := range def.Tasks {
		for o := range strings.SplitSeq(t.Owner, ",") {
			if o = strings.TrimSpace(o); o != "" && !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	slices.Sort(out)
	return out
}

// dagByID is one DAG with what it shows; userID, when not "", says
// whether that user marked it. A DAG without a row is faultDagNotFound.
func (o *operations) dagByID(dagID, userID string) (dagInfo, error) {
	row, err := o.store.DagByID(dagID)
	if errors.Is(err, errNotFound) {
		return dagInfo{}, opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	}
	if err != nil {
		return dagInfo{}, err
	}
	// The user's mark looked up: not every favorite of the user.
	info, err := o.dagInfoOf(row, false)
	if err != nil {
		return info, err
	}
	if userID != "" {
		if info.Favorite, err = o.store.IsFavorite(dagID, userID); err != nil {
			return info, err
		}
	}
	return info, nil
}

// listDags is the DAGs a query selects, ordered, and the page of them,
// with the number selected. Sub-DAGs are never listed.
func (o *operations) listDags(q dagQuery) ([]dagInfo, int, error) {
	if desc, ok := q.byIDOnRows(); ok && !o.sortLists.Load() && (len(q.order) == 0 || q.order[0].attr == "dag_id" || !o.anyDagNamed()) {
		return o.listDagsByID(q, desc)
	}
	rows, err := o.store.Dags()
	if err != nil {
		return nil, 0, err
	}
	var favs map[string]bool
	if q.favoriteOf != nil {
		if favs, err = o.store.FavoriteDagIDs(*q.favoriteOf); err != nil {
			return nil, 0, err
		}
	}
	withLastRun := q.lastRunFiltersEnabled || slices.ContainsFunc(q.order, func(k dagSortKey) bool {
		return k.attr == "last_run_state" || k.attr == "last_run_start_date"
	})
	withNext := slices.ContainsFunc(q.order, func(k dagSortKey) bool { return k.attr == "next_dagrun" })
	var out []dagInfo
	for _, row := range rows {
		if row.RootDagID != "" {
			continue
		}
		// What the filters and the order read, for every DAG; the rest
		// for the page's below.
		info, err := o.dagListInfo(row, withLastRun, withNext)
		if err != nil {
			return nil, 0, err
		}
		info.Favorite = favs[row.DagID]
		if q.selects(info) {
			out = append(out, info)
		}
	}
	slices.SortStableFunc(out, func(a, b dagInfo) int {
		for _, k := range q.order {
			if c := compareDagKey(a, b, k); c != 0 {
				return c
			}
		}
		// SortParam's last key is the primary key, in the first key's
		// direction (common/parameters.py SortParam.to_orm).
		if len(q.order) > 0 && q.order[0].desc {
			return strings.Compare(b.Row.DagID, a.Row.DagID)
		}
		return strings.Compare(a.Row.DagID, b.Row.DagID)
	})
	page := v2Window(out, q.page)
	for i := range page {
		if !withNext {
			if err := o.addNextDagRun(&page[i]); err != nil {
				return nil, 0, err
			}
		}
		if err := o.addDagVersion(&page[i]); err != nil {
			return nil, 0, err
		}
	}
	return page, len(out), nil
}

// anyDagNamed says whether a loaded DAG has a display name of its own:
// without one, an order by dag_display_name is the order by dag_id.
func (o *operations) anyDagNamed() bool {
	named, err := o.store.AnyDagNamed()
	return named || err != nil // the full listing reports the error
}

// byIDOnRows says whether q orders by dag_id alone (its display name is
// its id; the first key decides, ids being unique) and filters on what a
// DAG's row holds, its file's import error and the caller's favorites
// (one lookup each), and whether the order is descending.
func (q dagQuery) byIDOnRows() (desc, ok bool) {
	if q.lastRunFiltersEnabled {
		return false, false
	}
	if len(q.order) == 0 {
		return false, true
	}
	k := q.order[0]
	return k.desc, k.attr == "dag_id" || k.attr == "dag_display_name"
}

// rowFilterKey names the filters of a byIDOnRows query, which read the
// DAG row alone: the count of the rows they pick is remembered under it
// per version of the DAG table (tablePage's countKey).
func (q dagQuery) rowFilterKey() string {
	res := func(list []*regexp.Regexp) []string {
		out := make([]string, len(list))
		for i, re := range list {
			out[i] = re.String()
		}
		return out
	}
	str := func(s *string) string {
		if s == nil {
			return "None"
		}
		return strconv.Quote(*s)
	}
	dep := "None"
	if q.assetDependency != nil {
		dep = strconv.Quote(q.assetDependency.String())
	}
	return fmt.Sprintf("stale=%t paused=%s id=%q display=%q tags=%q all=%t owners=%q bundle=%s version=%s assets=%s dependency=%s timetables=%q import_errors=%s favorite=%s of=%s",
		q.includeStale, pyBoolOrNone(q.paused), res(q.idLike), res(q.displayLike), q.tags, q.tagsAll, res(q.ownerLikes),
		str(q.bundleName), str(q.bundleVersion), pyBoolOrNone(q.hasAssetSchedule), dep, q.timetableTypes,
		pyBoolOrNone(q.hasImportErrors), pyBoolOrNone(q.favorite), str(q.favoriteOf))
}

// listDagsByID is listDags for byIDOnRows' queries: the store walks its
// dag_id index to the page's end (the total counted once per change of
// the DAG table, and of the favorites the filters read, and filters:
// rowFilterKey), and the DAGs' details are read for the page alone. A
// favorite is looked up for each DAG the walk or the page meets, where
// every user's favorites were read.
func (o *operations) listDagsByID(q dagQuery, desc bool) ([]dagInfo, int, error) {
	var lookupErr error
	favorite := func(row *DagRow) bool {
		if q.favoriteOf == nil {
			return false
		}
		is, err := o.store.IsFavorite(row.DagID, *q.favoriteOf)
		lookupErr = cmp.Or(lookupErr, err)
		return is
	}
	keep := func(row *DagRow) bool {
		if row.RootDagID != "" {
			return false
		}
		info := dagInfo{Row: row, Stale: !row.Active(), ImportErrors: row.ImportErrors}
		if len(q.ownerLikes) > 0 && row.Def != nil {
			info.Owners = dagOwners(row.Def)
		}
		if q.favorite != nil {
			info.Favorite = favorite(row)
		}
		return q.selects(info)
	}
	var reads []DagReads
	if q.favorite != nil {
		reads = append(reads, ReadsFavorites)
	}
	rows, total, err := o.store.DagPage(desc, q.page.offset, q.page.limit, keep, q.rowFilterKey(), reads...)
	if err = cmp.Or(err, lookupErr); err != nil {
		return nil, 0, err
	}
	out := make([]dagInfo, 0, len(rows))
	for _, row := range rows {
		info, err := o.dagInfoOf(row, false)
		if err != nil {
			return nil, 0, err
		}
		info.Favorite = favorite(row)
		out = append(out, info)
	}
	return out, total, lookupErr
}

// pyBoolOrNone is an optional flag as a word: True, False or None.
func pyBoolOrNone(b *bool) string {
	switch {
	case b == nil:
		return "None"
	case *b:
		return "True"
	}
	return "False"
}

// selects says whether a DAG passes every filter.
func (q dagQuery) selects(d dagInfo) bool {
	row := d.Row
	if !q.includeStale && d.Stale {
		return false
	}
	if q.paused != nil && row.IsPaused != *q.paused {
		return false
	}
	if q.idLike != nil && !slices.ContainsFunc(q.idLike, func(re *regexp.Regexp) bool { return re.MatchString(row.DagID) }) {
		return false
	}
	if q.displayLike != nil {
		name := dagDisplayName(row)
		if !slices.ContainsFunc(q.displayLike, func(re *regexp.Regexp) bool { return re.MatchString(name) }) {
			return false
		}
	}
	var tags []string
	if row.Def != nil {
		tags = row.Def.Tags
	}
	if len(q.tags) > 0 {
		has := func(t string) bool { return slices.Contains(tags, t) }
		if q.tagsAll && !allOf(q.tags, has) || !q.tagsAll && !slices.ContainsFunc(q.tags, has) {
			return false
		}
	}
	if len(q.ownerLikes) > 0 {
		owners := strings.Join(d.Owners, ", ")
		if !slices.ContainsFunc(q.ownerLikes, func(re *regexp.Regexp) bool { return re.MatchString(owners) }) {
			return false
		}
	}
	if q.hasImportErrors != nil && d.ImportErrors != *q.hasImportErrors {
		return false
	}
	if q.bundleName != nil && *q.bundleName != bundleName {
		return false
	}
	if q.bundleVersion != nil { // a local bundle has no versions
		return false
	}
	// Airflow 3.2.1 reads both from the DAG's DagScheduleAssetReference
	// rows (common/parameters.py _HasAssetScheduleFilter,
	// _AssetDependencyFilter): the assets of its schedule, none for a
	// stale DAG (dagAssetRefsTxn).
	var scheduledOn []assetRef
	if row.Active() {
		scheduledOn = row.Def.AssetSchedule.refs()
	}
	if q.hasAssetSchedule != nil && (len(scheduledOn) > 0) != *q.hasAssetSchedule {
		return false
	}
	if q.assetDependency != nil && !slices.ContainsFunc(scheduledOn, func(a assetRef) bool {
		return q.assetDependency.MatchString(a.Name) || q.assetDependency.MatchString(a.URI)
	}) {
		return false
	}
	if q.favorite != nil && d.Favorite != *q.favorite {
		return false
	}
	if len(q.timetableTypes) > 0 && !slices.Contains(q.timetableTypes, timetableType(row.Def)) {
		return false
	}
	if q.lastRunFiltersEnabled {
		last := d.LastRun
		var state RunState
		var start, end *time.Time
		if last != nil {
			state, start, end = last.State, last.StartDate, last.EndDate
		}
		if len(q.runStates) > 0 && (last == nil || !slices.Contains(q.runStates, state)) {
			return false
		}
		if q.lastRunState != nil && (last == nil || state != *q.lastRunState) {
			return false
		}
		if !q.runStart.holds(start) || !q.runEnd.holds(end) {
			return false
		}
	}
	return true
}

func allOf(want []string, has func(string) bool) bool {
	for _, w := range want {
		if !has(w) {
			return false
		}
	}
	return true
}

// timetableType is DagModel.timetable_type, Timetable.type_name of the
// DAG's timetable in Airflow 3: the class name alone for Airflow's own
// timetables (a module under airflow.timetables. or
// airflow.sdk.definitions.timetables.), the qualified name for another's
// (timetables/base.py:265-290 of the 3.2.0-era main Phinhas214/airflow
// c57fba0e): a cron schedule's CronTriggerTimetable, a duration's
// DeltaTriggerTimetable, @once's OnceTimetable, @continuous's
// ContinuousTimetable, None's NullTimetable, a shown timetable's own
// (assets: AssetTriggeredTimetable).
func timetableType(def *DAG) string {
	switch {
	case def == nil || def.Schedule == nil && def.Timetable == nil:
		return "NullTimetable"
	case def.Schedule == nil && def.Timetable.Type != "":
		typ := def.Timetable.Type
		if strings.HasPrefix(typ, "airflow.timetables.") || strings.HasPrefix(typ, "airflow.sdk.definitions.timetables.") {
			return typ[strings.LastIndexByte(typ, '.')+1:]
		}
		return typ
	case def.Schedule == nil:
		return "Timetable"
	case *def.Schedule == "@once":
		return "OnceTimetable"
	case *def.Schedule == "@continuous":
		return "ContinuousTimetable"
	case isDurationSchedule(*def.Schedule):
		return "DeltaTriggerTimetable"
	}
	return "CronTriggerTimetable"
}

// compareDagKey orders two DAGs by one key; NULL is below every value
// (first ascending, last descending), SQLite's order, which Airflow 3.2's
// DAG list leaves to the database (sortKey's nullsLow; c57fba0e
// test_dags.py:440-470).
func compareDagKey(a, b dagInfo, k dagSortKey) int {
	var av, bv any
	switch k.attr {
	case "dag_id":
		av, bv = a.Row.DagID, b.Row.DagID
	case "dag_display_name":
		av, bv = dagDisplayName(a.Row), dagDisplayName(b.Row)
	case "next_dagrun":
		if a.Next != nil {
			av = a.Next.LogicalDate
		}
		if b.Next != nil {
			bv = b.Next.LogicalDate
		}
	case "last_run_state":
		if a.LastRun != nil {
			av = string(a.LastRun.State)
		}
		if b.LastRun != nil {
			bv = string(b.LastRun.State)
		}
	case "last_run_start_date":
		if a.LastRun != nil && a.LastRun.StartDate != nil {
			av = *a.LastRun.StartDate
		}
		if b.LastRun != nil && b.LastRun.StartDate != nil {
			bv = *b.LastRun.StartDate
		}
	}
	switch {
	case av == nil && bv == nil:
		return 0
	case av == nil:
		c := -1
		if k.desc {
			c = 1
		}
		return c
	case bv == nil:
		c := 1
		if k.desc {
			c = -1
		}
		return c
	}
	var c int
	switch x := av.(type) {
	case string:
		c = strings.Compare(x, bv.(string))
	case time.Time:
		c = x.Compare(bv.(time.Time))
	}
	if k.desc {
		c = -c
	}
	return c
}

// dagTags is the distinct tags of the DAGs whose definitions are loaded,
// those matching one of like (nil: all), in name order (desc: reversed).
func (o *operations) dagTags(like []*regexp.Regexp, desc bool) ([]string, error) {
	tags, err := o.store.DagTags() // remembered: the distinct tags, not the DAGs
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if like == nil || slices.ContainsFunc(like, func(re *regexp.Regexp) bool { return re.MatchString(t) }) {
			out = append(out, t)
		}
	}
	if desc {
		slices.Reverse(out)
	}
	return out, nil
}

// setFavorite marks or unmarks a DAG as a user's favorite.
func (o *operations) setFavorite(dagID, userID string, on bool) error {
	err := o.store.SetFavorite(dagID, userID, on)
	switch {
	case errors.Is(err, errNotFound):
		return opErr(errNotFound, faultDagNotFound, "dag_id", dagID)
	case errors.Is(err, errExists):
		return opErr(errConflict, faultFavoriteExists, "dag_id", dagID)
	case errors.Is(err, errFavoriteMissing):
		return opErr(errConflict, faultNotFavorite, "dag_id", dagID)
	}
	return err
}

// Favorite faults.
const (
	faultFavoriteExists opFault = "favorite_exists" // dag_id
	faultNotFavorite    opFault = "not_favorite"    // dag_id
)

// dagVersions is the versions of a DAG (dagID "": every DAG's).
func (o *operations) dagVersions(dagID string) ([]*DagVersion, error) {
	return o.store.DagVersions(dagID)
}

// dagVersionPageOf is a page of one DAG's versions by version_number
// (byNumber) or by id, descending when desc, and how many there are.
func (o *operations) dagVersionPageOf(dagID string, byNumber, desc bool, p page) ([]*DagVersion, int, error) {
	return o.store.DagVersionPageOf(dagID, byNumber, desc, p.offset, p.limit)
}

// dagVersionPage is a page of every DAG's versions by id (descending
// when desc) and how many there are.
func (o *operations) dagVersionPage(desc bool, p page) ([]*DagVersion, int, error) {
	return o.store.DagVersionPage(desc, p.offset, p.limit)
}

// dagVersion is one version of a DAG: faultDagVersionNotFound when the
// DAG has no such version.
func (o *operations) dagVersion(dagID string, number int64) (*DagVersion, error) {
	v, err := o.store.DagVersionByNumber(dagID, number)
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultDagVersionNotFound, "dag_id", dagID, "version_number", strconv.FormatInt(number, 10))
	}
	return v, err
}

// faultDagVersionNotFound: dag_id, version_number.
const faultDagVersionNotFound opFault = "dag_version_not_found"
