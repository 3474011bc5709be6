package main

// Benchmarks of Airflow 3's list routes (issue #21: lists cost O(limit),
// not O(rows)): each list at two sizes of its table, a page of 50, against
// a bare twin serving the same bytes (bench_test.go), so that the cost
// ratio of rows=100000 over rows=1000 reads in one run. BENCHMARKS.md has
// the figures and the commands.

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// benchListSizes are the table sizes each list is read at (a smoke pass,
// -benchtime=1x, reads smaller ones).
func benchListSizes() []int { return []int{benchSize(1000, 20), benchSize(100000, 200)} }

// benchPage is one page a list benchmark asks for: its sub-benchmark's
// name and its path under /api/v2.
type benchPage struct{ name, path string }

// benchV2Pages benchmarks each page against an edition-3 server over the
// store fill builds with rows rows, at each of benchListSizes
// (sub-benchmarks rows=N/<page>).
func benchV2Pages(b *testing.B, fill func(b *testing.B, rows int) (*Store, *DAGSet), pages ...benchPage) {
	b.Helper()
	for _, rows := range benchListSizes() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			store, dags := fill(b, rows)
			ts := httptest.NewServer(benchHandlerOf(b, edition3, store, dags))
			b.Cleanup(ts.Close)
			for _, p := range pages {
				b.Run(p.name, func(b *testing.B) { pairURL(b, ts, apiV2Prefix+p.path) })
			}
		})
	}
}

// benchManyDAGs is a store with rows one-task DAGs besides the examples,
// DAG i tagged tags(i) when tags is not nil.
func benchManyDAGs(tags func(i int) []string) func(b *testing.B, rows int) (*Store, *DAGSet) {
	return func(b *testing.B, rows int) (*Store, *DAGSet) {
		one := benchDAG(b, "bench_dag", 1)
		extra := make([]*DAG, rows)
		for i := range extra {
			d := *one
			d.DagID = fmt.Sprintf("bench_dag_%06d", i)
			d.FilePath = "bench/" + d.DagID + ".yaml"
			if tags != nil {
				d.Tags = tags(i)
			}
			extra[i] = &d
		}
		return benchStoreWith(b, extra...)
	}
}

// BenchmarkV2ListDags lists a page of 50 DAGs (GET /api/v2/dags, its
// default order dag_id, and by -dag_id) with rows DAGs stored.
func BenchmarkV2ListDags(b *testing.B) {
	benchV2Pages(b, benchManyDAGs(nil),
		benchPage{"default", "/dags?limit=50"},
		benchPage{"desc_offset", "/dags?limit=50&offset=200&order_by=-dag_id"})
}

// BenchmarkV2ListDagsLastRun lists a page of 50 DAGs by their latest
// run (GET /api/v2/dags with last_dag_run_state, and ordered by
// -last_run_start_date) with rows runs stored, spread over 100 DAGs:
// each DAG's latest run is one seek, where every run was read.
func BenchmarkV2ListDagsLastRun(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchManyDAGs(nil)(b, 100)
		for _, d := range dags.DAGs {
			if strings.HasPrefix(d.DagID, "bench_dag_") {
				addRuns(b, store, d, benchDate, rows/100, false)
			}
		}
		return store, dags
	},
		benchPage{"last_state", "/dags?limit=50&last_dag_run_state=success"},
		benchPage{"by_last_start", "/dags?limit=50&order_by=-last_run_start_date"})
}

// BenchmarkV2ListDagsFiltered lists a page of 50 DAGs by dag_id with a
// dag_id pattern ("9": about a third of the DAGs) and with a tag (every other DAG), with
// rows DAGs stored: the dag_id index walked to the page's end, the
// filter's count remembered while the DAG table does not change.
func BenchmarkV2ListDagsFiltered(b *testing.B) {
	benchV2Pages(b, benchManyDAGs(func(i int) []string { return []string{[]string{"even", "odd"}[i%2]} }),
		benchPage{"pattern", "/dags?limit=50&dag_id_pattern=9"},
		benchPage{"tag_desc", "/dags?limit=50&offset=200&order_by=-dag_id&tags=odd"})
}

// BenchmarkV2ListDagsImportErrorsFavorites lists a page of 50 DAGs with
// has_import_errors (the files of one DAG in three fail) and is_favorite
// (one in five the caller's), with rows DAGs stored: the dag_id index
// walked to the page's end with a lookup of each DAG's import error and
// favorite, where every DAG was read with every import error and
// favorite.
func BenchmarkV2ListDagsImportErrorsFavorites(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchManyDAGs(nil)(b, rows)
		failed := map[string]string{}
		var files []string
		for i, d := range dags.DAGs {
			if !strings.HasPrefix(d.DagID, "bench_dag_") {
				continue
			}
			if i%3 == 0 {
				failed[absPath(d.FilePath)] = "Traceback"
				files = append(files, absPath(d.FilePath))
			}
			if i%5 == 0 {
				if err := store.SetFavorite(d.DagID, anonymousAdmin, true); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := store.RecordParse(files, failed, benchDate); err != nil {
			b.Fatal(err)
		}
		return store, dags
	},
		benchPage{"import_errors", "/dags?limit=50&has_import_errors=true"},
		benchPage{"favorites_desc_offset", "/dags?limit=50&offset=200&order_by=-dag_id&is_favorite=true"})
}

// BenchmarkV2DagStats asks the statistics of 100 DAGs (GET
// /api/v2/dagStats) with rows runs stored among them: each DAG's counts
// per state are a row the writes keep, where its runs were read.
func BenchmarkV2DagStats(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchManyDAGs(nil)(b, 100)
		for _, d := range dags.DAGs {
			if strings.HasPrefix(d.DagID, "bench_dag_") {
				addRuns(b, store, d, benchDate, rows/100, false)
			}
		}
		return store, dags
	},
		benchPage{"all", "/dagStats"},
		benchPage{"two", "/dagStats?dag_ids=bench_dag_000001&dag_ids=bench_dag_000002"})
}

// BenchmarkV2ListRunsFiltered lists a page of 50 of a DAG's runs (rows
// of them, four states in turn, a minute apart) by id with filters the
// run counts do not keep apart: a run_id pattern ("T0": the runs of
// each day's first ten hours), run_type with a state, newest first: the
// DAG's runs
// walked by id to the page's end, the filter's count remembered while the
// runs do not change.
func BenchmarkV2ListRunsFiltered(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag := benchDAG(b, "bench_runs", 1)
		store, dags := benchStoreWith(b, dag)
		addRunsIn(b, store, dag, benchDate, rows, false, func(i int) RunState { return runStates[i%4] })
		return store, dags
	},
		benchPage{"run_id_pattern", "/dags/bench_runs/dagRuns?limit=50&run_id_pattern=T0"},
		benchPage{"type_state_desc_offset", "/dags/bench_runs/dagRuns?limit=50&offset=200&order_by=-id&run_type=scheduled&state=failed"})
}

// addSchedulerRuns stores n runs of dagID as the scheduler leaves them,
// one a minute from base: every tenth failed, the rest succeeded, each
// started two seconds after its date and ended a few seconds later (its
// updated_at), except every 37th, run again three hours later (its
// dates out of id order); the last four unfinished (two running, two
// queued, which never started). The runs' marks are built as a restore
// builds them.
func addSchedulerRuns(tb testing.TB, store *Store, dagID string, base time.Time, n int) {
	tb.Helper()
	err := store.update(func(txn *memdb.Txn) error {
		for i := range n {
			id, err := nextCounter(txn, counterRunID)
			if err != nil {
				return err
			}
			date := base.Add(time.Duration(i) * time.Minute)
			start := date.Add(2 * time.Second)
			if i%37 == 36 {
				start = start.Add(3 * time.Hour)
			}
			end := start.Add(time.Duration(10+i%7) * time.Second)
			state := RunSuccess
			if i%10 == 9 {
				state = RunFailed
			}
			r := &DagRun{ID: id, DagID: dagID, RunID: "scheduled__" + isoFormat(date), ExecutionDate: date, State: state,
				Conf: json.RawMessage(`{}`), RunType: "scheduled", StartDate: &start, EndDate: &end, UpdatedAt: &end}
			switch {
			case i >= n-2:
				r.State, r.StartDate, r.EndDate, r.UpdatedAt = RunQueued, nil, nil, &date
			case i >= n-4:
				r.State, r.EndDate, r.UpdatedAt = RunRunning, nil, &start
			}
			if err := txn.Insert(tableDagRuns, r); err != nil {
				return err
			}
		}
		return recountRunsTxn(txn)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkV2ListRunsOrdered lists a page of 50 runs (rows of a DAG as
// the scheduler leaves them, addSchedulerRuns; a quarter as many of a
// second DAG) in the orders no index of the run table kept (start_date,
// end_date, state, logical_date; run_after was one DAG's walk), and of
// every DAG with filters: a walk per DAG and per stretch of the marks,
// merged to the page's end, where every run was read and sorted.
func BenchmarkV2ListRunsOrdered(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag, other := benchDAG(b, "bench_runs", 1), benchDAG(b, "bench_more", 1)
		store, dags := benchStoreWith(b, dag, other)
		addSchedulerRuns(b, store, dag.DagID, benchDate, rows)
		addSchedulerRuns(b, store, other.DagID, benchDate.Add(time.Second), rows/4)
		return store, dags
	},
		benchPage{"-start_date", "/dags/bench_runs/dagRuns?limit=50&order_by=-start_date"},
		benchPage{"end_date_offset", "/dags/bench_runs/dagRuns?limit=50&offset=200&order_by=end_date"},
		benchPage{"state", "/dags/bench_runs/dagRuns?limit=50&order_by=state"},
		benchPage{"-logical_date", "/dags/bench_runs/dagRuns?limit=50&order_by=-logical_date"},
		benchPage{"-run_after", "/dags/bench_runs/dagRuns?limit=50&order_by=-run_after"},
		benchPage{"all_-start_date_type", "/dags/~/dagRuns?limit=50&order_by=-start_date&run_type=scheduled"},
		benchPage{"all_id_pattern", "/dags/~/dagRuns?limit=50&run_id_pattern=T0"})
}

// BenchmarkV2ListEventLogs lists a page of 50 events (GET
// /api/v2/eventLogs, by id and by -id) with rows events stored.
func BenchmarkV2ListEventLogs(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchStoreWith(b)
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range rows {
			if err := store.AppendEventLog(EventLog{Event: "cli_check", DagID: "example_bash_operator",
				When: base.Add(time.Duration(i) * time.Second)}); err != nil {
				b.Fatal(err)
			}
		}
		return store, dags
	},
		benchPage{"default", "/eventLogs?limit=50"},
		benchPage{"desc_offset", "/eventLogs?limit=50&offset=200&order_by=-id"})
}

// BenchmarkV2ListEventLogsFiltered lists a page of 50 events with a
// filter (an event, one in five; an owner and an event, one in fifteen,
// newest first) with rows events stored: the id index walked to the
// page's end, the filter's count remembered while the log does not
// change (a benchmark asks the same page of a quiet log).
func BenchmarkV2ListEventLogsFiltered(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchStoreWith(b)
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range rows {
			owner := fmt.Sprintf("owner_%d", i%3)
			if err := store.AppendEventLog(EventLog{Event: fmt.Sprintf("cli_check_%d", i%5), DagID: "example_bash_operator", Owner: &owner,
				When: base.Add(time.Duration(i) * time.Second)}); err != nil {
				b.Fatal(err)
			}
		}
		return store, dags
	},
		benchPage{"event", "/eventLogs?limit=50&event=cli_check_3"},
		benchPage{"owner_event_desc_offset", "/eventLogs?limit=50&offset=200&order_by=-id&owner=owner_1&event=cli_check_2"})
}

// BenchmarkV2ListVariables lists a page of 50 variables (GET
// /api/v2/variables, by id and by -key) with rows variables stored; the
// pools' and connections' lists take the same walk (tablePage).
func BenchmarkV2ListVariables(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchStoreWith(b)
		for i := range rows {
			if _, err := store.SetVariable(fmt.Sprintf("bench_var_%06d", (i*7919)%rows), "value", nil); err != nil {
				b.Fatal(err)
			}
		}
		return store, dags
	},
		benchPage{"default", "/variables?limit=50"},
		benchPage{"desc_offset", "/variables?limit=50&offset=200&order_by=-key"})
}

// benchTIStore is the task-instance benchmarks' store: rows task
// instances in runs of ten tasks of the DAG bench_tis (every third run
// with a mapped task, ids out of creation order).
func benchTIStore(b *testing.B, rows int) (*Store, *DAGSet) {
	dag := benchDAG(b, "bench_tis", 10)
	store, dags := benchStoreWith(b, dag)
	addRunsWithTIIDs(b, store, dag, benchDate, rows/10, false)
	return store, dags
}

// BenchmarkV2ListTaskInstances lists a page of 50 task instances (GET
// /api/v2/dags/~/dagRuns/~/taskInstances in its default order, map_index
// then id; one DAG's with an offset; every DAG's by id, the batch's
// order) with rows task instances stored (runs of ten tasks, every third
// with a mapped task, ids out of creation order).
func BenchmarkV2ListTaskInstances(b *testing.B) {
	benchV2Pages(b, benchTIStore,
		benchPage{"default", "/dags/~/dagRuns/~/taskInstances?limit=50"},
		benchPage{"dag_offset", "/dags/bench_tis/dagRuns/~/taskInstances?limit=50&offset=200"},
		benchPage{"by_id", "/dags/~/dagRuns/~/taskInstances?limit=50&order_by=id"})
}

// BenchmarkV2ListAssetEventsFiltered lists a page of 50 asset events of
// BenchmarkV2ListAssetEvents' store filtered: one asset's (of 20) by
// timestamp, and a source DAG's newest first: one asset's part of the
// (asset_id, timestamp) index, or the timestamp index, walked to the
// page's end.
func BenchmarkV2ListAssetEventsFiltered(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag := benchDAG(b, "bench_consumer", 1)
		store, dags := benchStoreWith(b, dag)
		addAssetEvents(b, store, 20, rows)
		addConsumers(b, store, dag, rows/10, 10)
		return store, dags
	},
		benchPage{"asset", "/assets/events?limit=50&asset_id=7"},
		benchPage{"source_desc_offset", "/assets/events?limit=50&offset=200&order_by=-timestamp&source_dag_id=producer"})
}

// BenchmarkV2ListTaskInstancesFiltered lists a page of 50 task
// instances of BenchmarkV2ListTaskInstances' store with filters: a task
// pattern (one task in ten), every DAG's in the default order; a state
// (all of them) by id from offset 200: the merge of ti_order walked to
// the page's end, the filter picking as it goes, its count remembered
// while the task instances do not change.
func BenchmarkV2ListTaskInstancesFiltered(b *testing.B) {
	benchV2Pages(b, benchTIStore,
		benchPage{"task_pattern", "/dags/~/dagRuns/~/taskInstances?limit=50&task_display_name_pattern=t3"},
		benchPage{"state_by_id_offset", "/dags/bench_tis/dagRuns/~/taskInstances?limit=50&offset=200&order_by=id&state=success"})
}

// BenchmarkV2ListTaskInstancesByVersion lists a page of 50 task
// instances of BenchmarkV2ListTaskInstances' store, the DAG at a second
// version that the odd runs' task instances ran with, by version_number:
// every DAG's in the default order, and one DAG's by id from offset 200:
// the merge of ti_order walked to the page's end with a version looked up
// once, where every run's task instances were read and sorted.
func BenchmarkV2ListTaskInstancesByVersion(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag := benchDAG(b, "bench_tis", 10)
		store, dags := benchStoreWith(b, dag)
		addRunsWithTIIDs(b, store, dag, benchDate, rows/10, false)
		v1, err := store.LatestDagVersion(dag.DagID)
		if err != nil {
			b.Fatal(err)
		}
		next := *dag
		next.Description = "version 2"
		if err := store.update(func(txn *memdb.Txn) error { return recordVersionTxn(txn, &next, benchDate) }); err != nil {
			b.Fatal(err)
		}
		v2, err := store.LatestDagVersion(dag.DagID)
		if err != nil {
			b.Fatal(err)
		}
		runs, err := store.RunsOfDag(dag.DagID, "")
		if err != nil {
			b.Fatal(err)
		}
		err = store.update(func(txn *memdb.Txn) error {
			for r, run := range runs {
				tis, err := taskInstancesOfRunTxn(txn, dag.DagID, run.RunID)
				if err != nil {
					return err
				}
				changed := make([]*TaskInstance, len(tis))
				for i, ti := range tis {
					c := *ti
					c.DagVersionID = []string{v1.ID, v2.ID}[r%2]
					changed[i] = &c
				}
				if err := putTaskInstancesTxn(txn, changed...); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return store, dags
	},
		benchPage{"version", "/dags/~/dagRuns/~/taskInstances?limit=50&version_number=2"},
		benchPage{"version_by_id_offset", "/dags/bench_tis/dagRuns/~/taskInstances?limit=50&offset=200&order_by=id&version_number=1"})
}

// BenchmarkV2ListTaskInstancesMapped lists a page of 50 task instances
// by id (order_by=id) of ten runs whose last task expands into rows/10
// mapped instances each: the page merges the DAG's unmapped and mapped
// blocks by id, where it opened a walk per map_index (rows/10 of them);
// and a page of the second run's mapped instances (listMapped; the
// first run's task has three), a part of the
// run's row, where the task's every instance was read and sorted.
func BenchmarkV2ListTaskInstancesMapped(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag := benchDAG(b, "bench_wide", 3)
		store, dags := benchStoreWith(b, dag)
		addRunsWithTIIDs(b, store, dag, benchDate, 10, false)
		expandLastTask(b, store, dag, rows/10)
		return store, dags
	},
		benchPage{"by_id", "/dags/bench_wide/dagRuns/~/taskInstances?limit=50&order_by=id"},
		benchPage{"by_id_offset", "/dags/bench_wide/dagRuns/~/taskInstances?limit=50&offset=200&order_by=id"},
		benchPage{"mapped_offset", "/dags/bench_wide/dagRuns/scheduled__" + strings.ReplaceAll(isoFormat(benchDate.Add(time.Minute)), "+", "%2B") +
			"/taskInstances/t2/listMapped?limit=50&offset=200"})
}

// expandLastTask expands the last task of each of dag's runs into width
// mapped task instances (index 0 keeps its id), as expand_mapped_task
// does when the task's list is known.
func expandLastTask(tb testing.TB, store *Store, dag *DAG, width int) {
	tb.Helper()
	runs, err := store.RunsOfDag(dag.DagID, "")
	if err != nil {
		tb.Fatal(err)
	}
	task := dag.Tasks[len(dag.Tasks)-1].TaskID
	for _, run := range runs {
		tis, err := store.TaskInstancesOfRun(dag.DagID, run.RunID)
		if err != nil {
			tb.Fatal(err)
		}
		i := slices.IndexFunc(tis, func(ti *TaskInstance) bool { return ti.TaskID == task && ti.MapIndex == -1 })
		if i < 0 {
			continue
		}
		var mapped []*TaskInstance
		for mi := range width {
			m := *tis[i]
			m.MapIndex = mi
			if mi > 0 {
				m.ID = newTaskInstanceID()
			}
			mapped = append(mapped, &m)
		}
		if err := store.update(func(txn *memdb.Txn) error { return putTaskInstancesTxn(txn, mapped...) }); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkV2ListAssetEvents lists a page of 50 asset events (GET
// /api/v2/assets/events, by timestamp and by -timestamp) with rows events
// of 20 assets stored, and rows/10 runs that consumed ten events each:
// every event's answer names the runs that consumed it (created_dagruns).
func BenchmarkV2ListAssetEvents(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag := benchDAG(b, "bench_consumer", 1)
		store, dags := benchStoreWith(b, dag)
		addAssetEvents(b, store, 20, rows)
		addConsumers(b, store, dag, rows/10, 10)
		return store, dags
	},
		benchPage{"default", "/assets/events?limit=50"},
		benchPage{"desc_offset", "/assets/events?limit=50&offset=200&order_by=-timestamp"})
}

// BenchmarkV2ListAssets lists a page of 50 assets (GET /api/v2/assets:
// the default, the assets a DAG names, by id; every asset; every asset by
// -name from offset 200) with rows assets stored, every other one named
// among the outlets of DAGs of 500 outlets each, and rows events of them:
// each asset's answer has its last event and the tasks that name it.
func BenchmarkV2ListAssets(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchStoreWith(b, benchAssetDAGs(b, rows)...)
		addAssetEvents(b, store, rows, rows)
		return store, dags
	},
		benchPage{"default", "/assets?limit=50"},
		benchPage{"all", "/assets?limit=50&only_active=false"},
		benchPage{"all_desc_offset", "/assets?limit=50&offset=200&order_by=-name&only_active=false"})
}

// BenchmarkV2ListAssetsFiltered lists a page of 50 assets of
// BenchmarkV2ListAssets' store, their times out of id order, in the
// orders and with the filters the indexes served last: by created_at (the
// named ones), every asset by -updated_at from offset 200, a name
// pattern, every asset with a uri pattern, the assets of one DAG.
func BenchmarkV2ListAssetsFiltered(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchStoreWith(b, benchAssetDAGs(b, rows)...)
		addAssetEvents(b, store, rows, rows)
		scrambleAssetTimes(b, store)
		return store, dags
	},
		benchPage{"by_created", "/assets?limit=50&order_by=created_at"},
		benchPage{"all_by_updated_desc_offset", "/assets?limit=50&offset=200&order_by=-updated_at&only_active=false"},
		benchPage{"name_pattern", "/assets?limit=50&name_pattern=asset_1"},
		benchPage{"all_uri_pattern", "/assets?limit=50&only_active=false&uri_pattern=bucket/asset_2"},
		benchPage{"dag_ids", "/assets?limit=50&dag_ids=bench_assets_000000"})
}

// BenchmarkV2ListPatterns lists a page of 50 asset aliases and of 50
// variables with a name pattern ("12" or "77": about one in twenty rows
// matches, a page of 50 reads about 1,000 of them) with rows of
// each stored; pools and connections take the variables' walk.
func BenchmarkV2ListPatterns(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchStoreWith(b)
		refs := make([]aliasRef, rows)
		for i := range rows {
			refs[i] = aliasRef{Name: fmt.Sprintf("bench_alias_%06d", (i*7919)%rows)}
			if _, err := store.SetVariable(fmt.Sprintf("bench_var_%06d", (i*7919)%rows), "value", nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := store.EnsureAssetAliases(refs); err != nil {
			b.Fatal(err)
		}
		return store, dags
	},
		benchPage{"aliases", "/assets/aliases?limit=50&name_pattern=12"},
		benchPage{"aliases_by_name", "/assets/aliases?limit=50&order_by=name&name_pattern=77"},
		benchPage{"variables", "/variables?limit=50&variable_key_pattern=12"},
		benchPage{"variables_by_key_desc", "/variables?limit=50&order_by=-key&variable_key_pattern=77"})
}

// scrambleAssetTimes gives every asset a created_at and an updated_at out
// of id order, many of them shared (a DAG file's assets are registered at
// one parse), updated_at never before created_at.
func scrambleAssetTimes(tb testing.TB, store *Store) {
	tb.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err := store.update(func(txn *memdb.Txn) error {
		all, err := allRows[Asset](txn, tableAssets, "assets")
		if err != nil {
			return err
		}
		for _, a := range all {
			next := *a
			next.CreatedAt = base.Add(time.Duration((a.ID*37)%101) * time.Second)
			next.UpdatedAt = next.CreatedAt.Add(time.Duration((a.ID*53)%7) * time.Minute)
			if err := txn.Insert(tableAssets, &next); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// benchAssetDAGs are DAGs whose tasks have every other asset of
// addAssetEvents' assets (asset_0, asset_2, ... below assets) among their
// outlets, 500 a DAG.
func benchAssetDAGs(b *testing.B, assets int) []*DAG {
	b.Helper()
	var out []*DAG
	for i := 0; i < assets; i += 2 {
		if i%1000 == 0 {
			d := benchDAG(b, fmt.Sprintf("bench_assets_%06d", i), 1)
			d.FilePath = "bench/" + d.DagID + ".yaml"
			out = append(out, d)
		}
		t := out[len(out)-1].Tasks[0]
		t.Outlets = append(t.Outlets, map[string]any{"name": fmt.Sprintf("asset_%d", i), "uri": fmt.Sprintf("s3://bucket/asset_%d", i)})
	}
	return out
}

// addConsumers stores runs runs of dag, run i having consumed the events
// i*each+1 to (i+1)*each (ids from 1), as an asset-triggered run records
// the events it consumed.
func addConsumers(b *testing.B, store *Store, dag *DAG, runs, each int) {
	b.Helper()
	addRuns(b, store, dag, benchDate, runs, false)
	stored, err := store.RunsOfDag(dag.DagID, "")
	if err != nil || len(stored) != runs {
		b.Fatalf("runs %d of %d (%v)", len(stored), runs, err)
	}
	err = store.update(func(txn *memdb.Txn) error {
		for i, run := range stored {
			ids := make([]int64, each)
			for j := range ids {
				ids[j] = int64(i*each + j + 1)
			}
			if err := txn.Insert(tableConsumedEvents, &ConsumedEvents{RunRowID: run.ID, DagID: run.DagID, EventIDs: ids}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// fillXComs is BenchmarkV2ListXComs' store: ten runs of a DAG of two
// tasks, each task instance rows/20 entries (one a map index).
func fillXComs(dagID string) func(b *testing.B, rows int) (*Store, *DAGSet) {
	return func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag := benchDAG(b, dagID, 2)
		store, dags := benchStoreWith(b, dag)
		addRuns(b, store, dag, benchDate, 10, false)
		putXComsOfRuns(b, store, dag, "return_value", max(rows/20, 1), 1)
		return store, dags
	}
}

// putXComsOfRuns stores an entry of key for each of a DAG's runs' tasks
// at map indexes 0, every, 2×every, ... below n.
func putXComsOfRuns(b *testing.B, store *Store, dag *DAG, key string, n, every int) {
	b.Helper()
	runs, err := store.RunsOfDag(dag.DagID, "")
	if err != nil {
		b.Fatal(err)
	}
	err = store.update(func(txn *memdb.Txn) error {
		for _, run := range runs {
			for _, task := range dag.Tasks {
				for mi := 0; mi < n; mi += every {
					e := &XComEntry{DagID: dag.DagID, RunID: run.RunID, TaskID: task.TaskID, RunRowID: run.ID, MapIndex: mi,
						Key: key, Value: json.RawMessage(`1`), Timestamp: benchDate}
					if err := store.putXComTxn(txn, e); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkV2ListXComsFiltered lists a page of 50 of BenchmarkV2ListXComs'
// entries with filters across runs: a key every entry has (the page's
// walk), a key pattern from offset 200, and one map index (20 entries
// spread over the DAG's 100,000: the walk reads on to the last); each
// was the scope read and sorted.
func BenchmarkV2ListXComsFiltered(b *testing.B) {
	const dagID = "bench_xcoms"
	benchV2Pages(b, fillXComs(dagID),
		benchPage{"dag_key", "/dags/" + dagID + "/dagRuns/~/taskInstances/~/xcomEntries?limit=50&xcom_key=return_value"},
		benchPage{"every_key_pattern_offset", "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?limit=50&offset=200&xcom_key_pattern=value"},
		benchPage{"dag_map_index", "/dags/" + dagID + "/dagRuns/~/taskInstances/~/xcomEntries?limit=50&map_index=7"})
}

// BenchmarkV2ListXComs lists a page of 50 XCom entries (GET
// /api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{task_id}/xcomEntries,
// Airflow's order) with rows entries stored: ten runs of a DAG of two
// mapped tasks, each task instance rows/20 entries (one a map index), so
// that every scope grows with rows: every entry (~ for the three ids),
// the DAG's, a task's, one run's, one run's task's, and one run's with a
// map_index or xcom_key filter.
func BenchmarkV2ListXComs(b *testing.B) {
	const dagID = "bench_xcoms"
	run := "/dags/" + dagID + "/dagRuns/scheduled__" + strings.ReplaceAll(isoFormat(benchDate.Add(5*time.Minute)), "+", "%2B")
	benchV2Pages(b, fillXComs(dagID),
		benchPage{"default", "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?limit=50"},
		benchPage{"offset", "/dags/~/dagRuns/~/taskInstances/~/xcomEntries?limit=50&offset=200"},
		benchPage{"dag", "/dags/" + dagID + "/dagRuns/~/taskInstances/~/xcomEntries?limit=50"},
		benchPage{"dag_task", "/dags/" + dagID + "/dagRuns/~/taskInstances/t1/xcomEntries?limit=50"},
		benchPage{"run", run + "/taskInstances/~/xcomEntries?limit=50"},
		benchPage{"run_task", run + "/taskInstances/t1/xcomEntries?limit=50&offset=20"},
		benchPage{"run_map_index", run + "/taskInstances/~/xcomEntries?limit=50&map_index=7"},
		benchPage{"run_task_key", run + "/taskInstances/t1/xcomEntries?limit=50&xcom_key=return_value"})
}

// BenchmarkV2ListImportErrors lists a page of 50 import errors (GET
// /api/v2/importErrors, by id and by -filename) with rows of them stored.
func BenchmarkV2ListImportErrors(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchStoreWith(b)
		failed := map[string]string{}
		read := make([]string, rows)
		for i := range rows {
			read[i] = fmt.Sprintf("/dags/broken_%06d.py", (i*7919)%rows)
			failed[read[i]] = "Traceback (most recent call last): ..."
		}
		if err := store.RecordParse(read, failed, benchDate); err != nil {
			b.Fatal(err)
		}
		return store, dags
	},
		benchPage{"default", "/importErrors?limit=50"},
		benchPage{"desc_offset", "/importErrors?limit=50&offset=200&order_by=-filename"})
}

// BenchmarkV2ListImportErrorsByTime lists a page of 50 import errors by
// timestamp (GET /api/v2/importErrors?order_by=timestamp, and -timestamp
// from offset 200) with rows of them stored over 100 reads of the folder
// (the files of a read share its time): the (timestamp, id) index walked
// to the page's end, where every import error was read and sorted.
func BenchmarkV2ListImportErrorsByTime(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchStoreWith(b)
		for r := range 100 {
			failed := map[string]string{}
			var read []string
			for i := r; i < rows; i += 100 {
				name := fmt.Sprintf("/dags/broken_%06d.py", (i*7919)%rows)
				failed[name] = "Traceback (most recent call last): ..."
				read = append(read, name)
			}
			if err := store.RecordParse(read, failed, benchDate.Add(time.Duration((r*37)%100)*time.Minute)); err != nil {
				b.Fatal(err)
			}
		}
		return store, dags
	},
		benchPage{"timestamp", "/importErrors?limit=50&order_by=timestamp"},
		benchPage{"desc_offset", "/importErrors?limit=50&offset=200&order_by=-timestamp"})
}

// BenchmarkV2ListDagVersions lists a page of 50 of every DAG's versions
// (GET /api/v2/dags/~/dagVersions, by id and by -id) with rows DAGs of
// one version each stored.
func BenchmarkV2ListDagVersions(b *testing.B) {
	benchV2Pages(b, benchManyDAGs(nil),
		benchPage{"default", "/dags/~/dagVersions?limit=50"},
		benchPage{"desc_offset", "/dags/~/dagVersions?limit=50&offset=200&order_by=-id"})
}

// BenchmarkV2ListDagVersionsOfDag lists a page of 50 of one DAG's
// versions (GET /api/v2/dags/{dag_id}/dagVersions, by id and by
// -version_number from offset 200) with rows versions of the DAG stored:
// the DAG's part of an index, where every version of the DAG was read and
// sorted.
func BenchmarkV2ListDagVersionsOfDag(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		dag := benchDAG(b, "bench_versions", 1)
		store, dags := benchStoreWith(b, dag)
		err := store.update(func(txn *memdb.Txn) error {
			for i := range rows {
				d := *dag
				d.Description = fmt.Sprintf("version %d", i)
				if err := recordVersionTxn(txn, &d, benchDate.Add(time.Duration(i)*time.Second)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return store, dags
	},
		benchPage{"default", "/dags/bench_versions/dagVersions?limit=50"},
		benchPage{"number_desc_offset", "/dags/bench_versions/dagVersions?limit=50&offset=200&order_by=-version_number"})
}

// BenchmarkV2ListBackfills lists a page of 50 of a DAG's backfills (GET
// /api/v2/backfills?dag_id=..., by id and by -id) with rows backfills of
// two DAGs stored.
func BenchmarkV2ListBackfills(b *testing.B) {
	benchV2Pages(b, func(b *testing.B, rows int) (*Store, *DAGSet) {
		store, dags := benchStoreWith(b)
		addBackfills(b, store, rows)
		return store, dags
	},
		benchPage{"default", "/backfills?dag_id=filled_a&limit=50"},
		benchPage{"desc_offset", "/backfills?dag_id=filled_a&limit=50&offset=200&order_by=-id"})
}

// BenchmarkV2ListDagTags lists a page of 50 of the DAGs' tags (GET
// /api/v2/dagTags, by name and by -name) with rows DAGs of 1,000
// distinct tags stored.
func BenchmarkV2ListDagTags(b *testing.B) {
	benchV2Pages(b, benchManyDAGs(func(i int) []string { return []string{fmt.Sprintf("tag_%04d", i%1000)} }),
		benchPage{"default", "/dagTags?limit=50"},
		benchPage{"desc_offset", "/dagTags?limit=50&offset=200&order_by=-name"})
}

// BenchmarkAddAssetEvent stores an asset event (the write a try with an
// outlet makes, which queues the DAGs scheduled on the asset) with rows
// DAGs stored, none scheduled on it: the DAGs to queue come from an index,
// not a walk of every DAG.
func BenchmarkAddAssetEvent(b *testing.B) {
	for _, rows := range benchListSizes() {
		b.Run(fmt.Sprintf("dags=%d", rows), func(b *testing.B) {
			store, _ := benchManyDAGs(nil)(b, rows)
			addAssetEvents(b, store, 1, 1)
			e := AssetEvent{AssetID: 1, Extra: json.RawMessage(`{}`), SourceMapIndex: -1, Timestamp: benchDate}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := store.AddAssetEvent(e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRecordAliasEvents records the events of a try that added
// events through one alias (the write a Python task's alias outlets make
// at its end), each with an extra of a few keys: of an asset each
// (assets=n), or all of one asset with extras that differ (assets=1).
func BenchmarkRecordAliasEvents(b *testing.B) {
	for _, c := range []struct{ events, assets int }{{10, 10}, {1000, 1000}, {10, 1}, {1000, 1}} {
		b.Run(fmt.Sprintf("events=%d/assets=%d", c.events, c.assets), func(b *testing.B) {
			store, _ := benchStoreWith(b)
			events := make([]aliasEvent, c.events)
			for i := range events {
				asset := fmt.Sprintf("s3://bench/part_%05d", i%c.assets)
				events[i] = aliasEvent{Alias: aliasRef{Name: "parts"}, Asset: assetRef{Name: asset, URI: asset},
					Extra: json.RawMessage(fmt.Sprintf(`{"row_count": %d, "schema": "v2", "source": {"db": "pg", "table": "t%d"}}`, i, i))}
			}
			ti := &TaskInstance{DagID: "bench", TaskID: "emit", RunID: "manual__1", MapIndex: -1, State: TaskSuccess}
			b.ReportAllocs()
			for b.Loop() {
				txn := store.db.Txn(true)
				if err := recordAliasEventsTxn(txn, ti, events, benchDate); err != nil {
					b.Fatal(err)
				}
				txn.Abort()
			}
		})
	}
}

// BenchmarkLastScheduledDate reads a DAG's last automated logical date
// (LastRunDate: every DAG answer's next_dagrun, and each DAG at every
// scheduler tick) with rows manual runs stored after its one scheduled
// run.
func BenchmarkLastScheduledDate(b *testing.B) {
	for _, rows := range benchListSizes() {
		b.Run(fmt.Sprintf("manual_runs=%d", rows), func(b *testing.B) {
			dag := benchDAG(b, "bench_last", 1)
			store, _ := benchStoreWith(b, dag)
			addRunsIn(b, store, dag, benchDate, 1, false, func(int) RunState { return RunSuccess })
			manual := benchDate.Add(time.Hour)
			addRuns(b, store, dag, manual, rows, false)
			err := store.update(func(txn *memdb.Txn) error { // the later ones are manual
				it, err := txn.Get(tableDagRuns, indexID+"_prefix", dag.DagID, "scheduled__"+isoFormat(manual)[:4])
				if err != nil {
					return err
				}
				var runs []*DagRun
				for raw := it.Next(); raw != nil; raw = it.Next() {
					if r := raw.(*DagRun); r.ExecutionDate.After(benchDate) {
						runs = append(runs, r)
					}
				}
				for _, r := range runs {
					m := *r
					m.RunType = "manual"
					if err := txn.Insert(tableDagRuns, &m); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			if err := store.update(recountRunsTxn); err != nil {
				b.Fatal(err)
			}
			if last, err := store.LastRunDate(dag.DagID, lastAutomated); err != nil || last == nil || !last.Equal(benchDate) {
				b.Fatalf("last scheduled %v (%v), want %s", last, err, benchDate)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := store.LastRunDate(dag.DagID, lastAutomated); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
