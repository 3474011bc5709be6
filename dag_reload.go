package main

// Reading the DAG folder again while airlite runs, as Airflow's DAG
// processor does (2.10.3 dag_processing/manager.py): a file that changed
// is read again, a new one adds its DAGs, a fixed one loses its import
// error and a broken one gains one, and a DAG whose file is gone becomes
// inactive (is_active false; its runs are kept and it cannot be
// triggered), in Airflow 3 stale with its definition kept
// (editionRules.staleKeepsDefinition). One goroutine, the reloader's
// loop, owns the folder's state; the set it last applied lives in a
// dagSetHolder, whose lock a reset shares.
//
// The folder is polled: every --min-file-process-interval the reloader
// walks it (under .airflowignore) and compares each file's size and
// modification time with the last walk's, as Airflow compares
// modification times (manager.py:1288-1308). Polling, not a file-system
// watch (fsnotify): a watch does not recurse, so it needs one per folder
// kept in step with the walk's .airflowignore and symlinks; it misses
// changes on network and container bind mounts; and editors' rename-on-
// save shows as a burst of events to debounce. A walk and a stat of each
// file costs milliseconds for hundreds of files, and the DAG processor
// polls too.

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// defaultMinFileProcessInterval is Airflow's min_file_process_interval
// (2.10.3 config_templates/config.yml scheduler.min_file_process_interval:
// 30).
const defaultMinFileProcessInterval = 30 * time.Second

// dagSetHolder holds the DAG folder's set as last written to the store:
// what a reset goes back to. The reloader swaps it and writes the store
// inside with, and a reset reads it and writes the store inside with: the
// two never interleave, so the store and the set agree after either.
type dagSetHolder struct {
	mu  sync.Mutex
	set *DAGSet
}

func newDAGSetHolder(set *DAGSet) *dagSetHolder { return &dagSetHolder{set: set} }

// current is the set as last applied.
func (h *dagSetHolder) current() *DAGSet {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.set
}

// with runs fn on the current set, holding it still.
func (h *dagSetHolder) with(fn func(set *DAGSet) error) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fn(h.set)
}

// dagReloaderOptions is what a reloader needs.
type dagReloaderOptions struct {
	Config   config // DagsDir, Edition, Python
	Store    *Store
	Holder   *dagSetHolder // the set read at start
	Logger   zerolog.Logger
	Interval time.Duration    // between passes; 0: no loop (tests call tick)
	Now      func() time.Time // the process's clock
	// Changed, when set, hears that a pass changed the store (the
	// scheduler's kick: a new DAG may want a run).
	Changed func()
	// Requests are the files the API asked to be read again; nil: none.
	Requests *dagParseRequests
}

// dagParseRequests are the files asked to be read again out of turn, as
// Airflow's dag_priority_parsing_request rows are (3.2.1 models/dagbag.py
// DagPriorityParsingRequest: one row per file, its id the file's hash, so
// a second request for a file still waiting is a unique-key violation).
// PUT /parseDagFile/{file_token} adds one; the reloader's goroutine takes
// them all and reads those files at once, as the DAG processor queues
// them first at its next loop (3.2.1 dag_processing/manager.py
// _queue_requested_files_for_parsing). The lock guards only the set: the
// reloader alone reads files and writes the store.
type dagParseRequests struct {
	mu    sync.Mutex
	files map[string]bool
	wake  chan struct{} // buffered(1): the reloader's loop hears a request
}

func newDAGParseRequests() *dagParseRequests {
	return &dagParseRequests{files: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// add asks for file (an absolute path) to be read again; false when it is
// asked already and not yet taken.
func (q *dagParseRequests) add(file string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.files[file] {
		return false
	}
	q.files[file] = true
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// take empties the set and returns what it held.
func (q *dagParseRequests) take() map[string]bool {
	if q == nil {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.files) == 0 {
		return nil
	}
	files := q.files
	q.files = map[string]bool{}
	return files
}

// putBack returns files a failed pass took, so the next pass reads them.
func (q *dagParseRequests) putBack(files map[string]bool) {
	if q == nil || len(files) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for f := range files {
		q.files[f] = true
	}
}

// wakeups is the channel a request wakes the loop on; nil (never ready)
// without requests.
func (q *dagParseRequests) wakeups() <-chan struct{} {
	if q == nil {
		return nil
	}
	return q.wake
}

// dagReloader reads the DAG folder again. Its fields below the options
// belong to the goroutine that calls tick.
type dagReloader struct {
	opts  dagReloaderOptions
	rules *editionRules
	log   zerolog.Logger

	last   *folderRead // the last walk, its stamps and Python outcomes
	polled time.Time   // when the last pass walked the folder
	// kept are the DAGs kept with their last definition, by dag id, and
	// when they were last given: the pass before the one that lost them,
	// as Airflow parses an unchanged file again each interval.
	kept map[string]time.Time

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newDAGReloader(opts dagReloaderOptions) *dagReloader {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r := &dagReloader{opts: opts, rules: opts.Config.Edition.rules(),
		log:  opts.Logger.With().Str("component", "dag_reload").Logger(),
		kept: map[string]time.Time{}}
	set := opts.Holder.current()
	r.last = set.folder
	if r.last == nil {
		r.last = &folderRead{stamps: map[string]fileStamp{}, pyOut: map[string]*pyOutcome{}}
	}
	r.polled = opts.Now()
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r
}

// start runs the loop; an interval of 0 runs none.
func (r *dagReloader) start() {
	if r.opts.Interval <= 0 {
		return
	}
	r.wg.Add(1)
	go r.loop()
}

// stop ends the loop, and the reader process of a pass under way, and
// waits for it.
func (r *dagReloader) stop() {
	r.cancel()
	r.wg.Wait()
}

func (r *dagReloader) loop() {
	defer r.wg.Done()
	ticker := time.NewTicker(r.opts.Interval)
	defer ticker.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-ticker.C:
		case <-r.opts.Requests.wakeups():
		}
		if _, err := r.tick(r.ctx, r.opts.Now()); err != nil && r.ctx.Err() == nil {
			r.log.Error().Err(err).Msg("read the DAG folder again")
		}
	}
}

// tick is one pass: walk the folder, and when a file changed, came or
// went, was asked for (Requests), or a kept DAG's time is up, read what
// changed and apply it. It says whether the store changed. An error
// leaves the store and the reloader's state as they were, and the
// requests it took asked again, so the next pass tries again.
func (r *dagReloader) tick(ctx context.Context, now time.Time) (bool, error) {
	asked := r.opts.Requests.take()
	changed, err := r.pass(ctx, now, asked)
	if err != nil {
		r.opts.Requests.putBack(asked)
	}
	return changed, err
}

func (r *dagReloader) pass(ctx context.Context, now time.Time, asked map[string]bool) (bool, error) {
	dir := r.opts.Config.DagsDir
	var warnings []string
	warn := func(file, problem string) { warnings = append(warnings, file+": "+problem) }
	folder, err := openDAGFolder(dir)
	if err != nil {
		return false, fmt.Errorf("open dags folder: %w", err)
	}
	defer folder.Close()
	loader := dagLoader{ctx: ctx, rules: r.rules, tolerant: true, warn: warn}
	listing, err := loader.listFolder(folder, dir)
	if err != nil {
		return false, err
	}
	changed, gone := r.compare(listing)
	for f := range asked {
		if _, listed := listing.stamps[f]; listed {
			changed[f] = true // read again even when its stamp is the same
		}
	}
	if len(changed) == 0 && len(gone) == 0 && !r.keptExpired(now) {
		r.polled = now
		return false, nil
	}
	for _, w := range warnings {
		r.log.Warn().Msg(w)
	}
	warnings = nil

	set, err := loader.loadFiles(folder, dir, listing.defs)
	if err != nil {
		return false, err
	}
	outcomes := make(map[string]*pyOutcome, len(listing.py))
	for _, file := range listing.py {
		if out, ok := r.last.pyOut[file]; ok {
			outcomes[file] = out
		}
	}
	again := r.pythonToRead(listing, changed, gone)
	if len(again) > 0 {
		if err := readPythonOutcomes(ctx, r.opts.Config, r.opts.Store, again, outcomes, r.log); err != nil {
			return false, err
		}
	}
	addPythonDAGs(set, listing.py, outcomes, r.log)
	listing.pyOut = outcomes
	set.folder = listing

	reread := map[string]bool{}
	for _, f := range again {
		reread[f] = true
	}
	for f := range changed {
		reread[f] = true
	}
	err = r.opts.Holder.with(func(old *DAGSet) error {
		change, kept := r.diff(old, set, listing, reread, gone, now)
		if err := r.opts.Store.ReloadDAGs(change); err != nil {
			return fmt.Errorf("apply the DAG folder: %w", err)
		}
		r.opts.Holder.set, r.kept = set, kept
		r.log.Info().Int("files_read", len(change.Read)).Int("files_gone", len(gone)).Int("dags_updated", len(change.Upsert)).
			Int("dags_inactive", len(change.Drop)).Int("import_errors", len(set.ImportErrors)).Msg("DAG folder read again")
		return nil
	})
	if err != nil {
		return false, err
	}
	// The assets the DAGs name and their references are recorded with
	// the read, as Airflow's DAG processor records them with the parse:
	// a reference that went and came back between two reads of the
	// assets is dated when it came back (memstore_assetrefs.go).
	if _, err := r.opts.Store.NamedAssets(now, r.rules.assetsFollowFile); err != nil {
		return false, fmt.Errorf("record the DAGs' assets: %w", err)
	}
	r.last, r.polled = listing, now
	if r.opts.Changed != nil {
		r.opts.Changed()
	}
	return true, nil
}

// compare tells the files that changed (or are new) since the last walk,
// and those no longer listed, by absolute path.
func (r *dagReloader) compare(listing *folderRead) (changed map[string]bool, gone []string) {
	was := map[string]bool{}
	for _, f := range r.last.listed() {
		was[f] = true
	}
	changed = map[string]bool{}
	for _, f := range listing.listed() {
		if !was[f] || listing.stamps[f] != r.last.stamps[f] {
			changed[f] = true
		}
		delete(was, f)
	}
	for f := range was {
		gone = append(gone, f)
	}
	sort.Strings(gone)
	return changed, gone
}

// listed is every file of the walk, by absolute path.
func (f *folderRead) listed() []string {
	files := make([]string, 0, len(f.stamps))
	for abs := range f.stamps {
		files = append(files, abs)
	}
	return files
}

// keptExpired says whether a DAG kept with its last definition has
// outlived the edition's staleDAGAfter.
func (r *dagReloader) keptExpired(now time.Time) bool {
	if r.rules.staleDAGAfter < 0 {
		return false
	}
	for _, given := range r.kept {
		if now.Sub(given) >= r.rules.staleDAGAfter {
			return true
		}
	}
	return false
}

// pythonToRead are the .py files a pass reads again: those that changed
// or are new, and those that failed last time (a module they import may
// have come). A change to a file that defines no DAG (a helper module the
// DAG files import), or one gone, has every .py file read again, as
// Airflow re-reads every file each min_file_process_interval.
func (r *dagReloader) pythonToRead(listing *folderRead, changed map[string]bool, gone []string) []string {
	helperMoved := false
	for _, f := range gone {
		if out, ok := r.last.pyOut[f]; ok && out.skipped {
			helperMoved = true
		}
	}
	var again []string
	for _, f := range listing.py {
		out, known := r.last.pyOut[f]
		switch {
		case changed[f]:
			again = append(again, f)
			if (known && out.skipped) || (!known && !mightContainDAG(f, r.rules.pythonSurface)) {
				helperMoved = true
			}
		case !known || out.problem != "":
			again = append(again, f)
		}
	}
	if helperMoved {
		return listing.py
	}
	return again
}

// diff is what the store must change to go from old to set: the DAGs
// whose definition is new, the DAGs no longer given (kept a while with
// their last definition when the edition says so, which diff adds to
// set), the import errors of the files read; and the DAGs it keeps, with
// when they were last given.
func (r *dagReloader) diff(old, set *DAGSet, listing *folderRead, reread map[string]bool, gone []string, now time.Time) (DAGFolderChange, map[string]time.Time) {
	failed := make(map[string]string, len(set.ImportErrors))
	for _, e := range set.ImportErrors {
		failed[e.File] = e.Text
	}
	given := make(map[string]*DAG, len(set.DAGs))
	for _, d := range set.DAGs {
		given[d.DagID] = d
	}
	kept := map[string]time.Time{}
	for _, d := range old.DAGs {
		if given[d.DagID] != nil {
			continue
		}
		file := absPath(d.FilePath)
		if _, listed := listing.stamps[file]; !listed {
			continue // its file is gone: inactive at once
		}
		if _, fails := failed[file]; fails && r.rules.staleOnImportError {
			continue
		}
		lastGiven, was := r.kept[d.DagID]
		if !was {
			lastGiven = r.polled
		}
		if r.rules.staleDAGAfter >= 0 && now.Sub(lastGiven) >= r.rules.staleDAGAfter {
			continue
		}
		kept[d.DagID] = lastGiven
		set.DAGs = append(set.DAGs, d)
		given[d.DagID] = d
	}
	sort.Slice(set.DAGs, func(i, j int) bool { return set.DAGs[i].DagID < set.DAGs[j].DagID })

	change := DAGFolderChange{Failed: failed, Gone: gone, Now: now, KeepStale: r.rules.staleKeepsDefinition}
	oldByID := make(map[string]*DAG, len(old.DAGs))
	for _, d := range old.DAGs {
		oldByID[d.DagID] = d
	}
	for i, d := range set.DAGs {
		prev := oldByID[d.DagID]
		if prev == d {
			continue
		}
		// A YAML file read again unchanged gives equal definitions: the
		// store keeps the ones it has.
		if prev != nil && prev.FilePath == d.FilePath && !reread[absPath(d.FilePath)] {
			set.DAGs[i] = prev
			continue
		}
		d.ParsedAt = now.UTC().Truncate(time.Microsecond) // d is the pass's own, not yet in the store
		change.Upsert = append(change.Upsert, d)
	}
	for id := range oldByID {
		if given[id] == nil {
			change.Drop = append(change.Drop, id)
		}
	}
	sort.Strings(change.Drop)
	// The files read again, and those whose import error another file
	// made or unmade (a dag_id taken, or freed).
	wasFailing := make(map[string]string, len(old.ImportErrors))
	for _, e := range old.ImportErrors {
		wasFailing[e.File] = e.Text
	}
	for _, f := range set.Files {
		if reread[f] || wasFailing[f] != failed[f] {
			change.Read = append(change.Read, f)
		}
	}
	for _, rel := range listing.defs {
		if isPoolsFile(rel) && reread[absPath(filepath.Join(r.opts.Config.DagsDir, filepath.FromSlash(rel)))] {
			change.Pools = set.Pools
		}
	}
	return change, kept
}

// isPoolsFile says whether a definition file (a slash path inside the
// folder) is the folder's pools file.
func isPoolsFile(rel string) bool {
	return path.Dir(rel) == "." && strings.TrimSuffix(rel, path.Ext(rel)) == "pools"
}
