package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// aliasDAGFile is an Airflow 3 DAG file: a task adding an event through
// an alias among its outlets (and one through an alias it does not
// declare, which Airflow ignores), a task setting its outlet asset's
// extra, and a DAG scheduled on the alias.
const aliasDAGFile = `
import pendulum
from airflow.sdk import DAG, Asset, AssetAlias, task

with DAG("alias_producer", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    @task(outlets=[AssetAlias("made")])
    def emit(*, outlet_events):
        outlet_events[AssetAlias("made")].add(Asset("s3://bucket/made"), extra={"rows": 3})
        outlet_events[AssetAlias("undeclared")].add(Asset("s3://bucket/other"))

    @task(outlets=[Asset("s3://bucket/direct")])
    def direct(*, outlet_events):
        outlet_events[Asset("s3://bucket/direct")].extra = {"k": "v"}

    emit() >> direct()

with DAG("alias_consumer", schedule=[AssetAlias("made")], start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    @task
    def read():
        pass

    read()
`

// TestPythonTask_AliasEvents: outlet_events[AssetAlias(name)].add(asset)
// in a Python task records an event of the asset through the alias
// (created if new, attached to the alias), queues the DAG scheduled on
// the alias; outlet_events[asset].extra is the outlet event's extra.
func TestPythonTask_AliasEvents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "aliases.py"), []byte(aliasDAGFile), 0o600); err != nil {
		t.Fatal(err)
	}
	set := readPyServeFolderAs(t, dir, edition3)
	store, api, settle := newRealScheduler(t, set, edition3)
	for _, id := range []string{"alias_producer", "alias_consumer"} {
		if err := store.SetPaused(id, false, false); err != nil {
			t.Fatal(err)
		}
	}
	res, err := api.TriggerDAG("alias_producer", []byte(`{"execution_date": "2024-03-01T00:00:00+00:00"}`))
	if err != nil {
		t.Fatal(err)
	}
	runID := res["run_id"].(string)
	settle("alias_producer", runID)
	if run := finishedRun(t, store, "alias_producer", runID); run.State != RunSuccess {
		t.Fatalf("producer run %s, want success", run.State)
	}

	assets, err := store.Assets()
	if err != nil {
		t.Fatal(err)
	}
	byURI := map[string]*Asset{}
	for _, a := range assets {
		byURI[a.URI] = a
	}
	made, direct := byURI["s3://bucket/made"], byURI["s3://bucket/direct"]
	if made == nil || direct == nil || byURI["s3://bucket/other"] != nil {
		t.Fatalf("assets %v: want made and direct, not other (its alias is no outlet)", slices.Collect(func(yield func(string) bool) {
			for u := range byURI {
				if !yield(u) {
					return
				}
			}
		}))
	}
	aliases, err := store.AssetAliases()
	if err != nil || len(aliases) != 1 || aliases[0].Name != "made" || aliases[0].Group != "asset" || !slices.Equal(aliases[0].AssetIDs, []int64{made.ID}) {
		t.Fatalf("aliases %+v (%v), want made attached to asset %d", aliases, err, made.ID)
	}
	events, err := store.AssetEvents()
	if err != nil {
		t.Fatal(err)
	}
	var viaAlias, viaOutlet *AssetEvent
	for _, e := range events {
		switch e.AssetID {
		case made.ID:
			viaAlias = e
		case direct.ID:
			viaOutlet = e
		}
	}
	if viaAlias == nil || string(viaAlias.Extra) != `{"rows":3}` || !slices.Equal(viaAlias.SourceAliasIDs, []int64{aliases[0].ID}) ||
		deref(viaAlias.SourceTaskID) != "emit" || deref(viaAlias.SourceDagID) != "alias_producer" {
		t.Errorf("event through the alias %+v", viaAlias)
	}
	if viaOutlet == nil || string(viaOutlet.Extra) != `{"k":"v"}` || len(viaOutlet.SourceAliasIDs) != 0 {
		t.Errorf("outlet event %+v, want extra {\"k\":\"v\"}", viaOutlet)
	}
	// The consumer is queued for the asset the alias resolved to, or
	// already ran on it.
	queue, _ := store.QueuedAssetEvents("alias_consumer", 0)
	runs, _ := store.RunsOfDag("alias_consumer", "")
	if !(len(queue) == 1 && queue[0].AssetID == made.ID) && !(len(runs) == 1 && runs[0].RunType == "asset_triggered") {
		t.Errorf("alias_consumer: queue %+v, runs %d; want it queued on asset %d or run", queue, len(runs), made.ID)
	}
}

// aliasDAGs are a producer whose task adds an event through the alias
// made, a DAG scheduled on the alias, one on the asset the event names,
// and one on another alias.
var aliasDAGs = map[string]string{
	"pal.yaml": `
dag_id: pal
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: make, operator: PythonOperator, outlets: [{alias: made}]}
`,
	"on_alias.yaml": `
dag_id: on_alias
schedule: [{alias: made}]
start_date: 2024-01-01
tasks:
  - {task_id: t, operator: PythonOperator}
`,
	"on_m.yaml": `
dag_id: on_m
schedule: ["s3://x/m"]
start_date: 2024-01-01
tasks:
  - {task_id: t, operator: PythonOperator}
`,
	"on_other.yaml": `
dag_id: on_other
schedule: [{alias: other}]
start_date: 2024-01-01
tasks:
  - {task_id: t, operator: PythonOperator}
`,
}

// An event through an alias queues the DAGs scheduled on the alias and
// on its asset (register_asset_change: dags_to_queue_from_asset and
// _from_asset_alias); the alias-scheduled DAG's condition holds through
// the alias's asset, and its run consumes the event; a DAG on another
// alias gets nothing. A second event of the asset itself, through no
// alias, queues the DAG on the asset.
func TestScheduler_AliasScheduledRuns(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newSchedHarness(t, aliasDAGs, func(o *schedulerOptions) { o.Edition = edition3 })
		h.runner.aliasEvents = map[string][]aliasEvent{"make": {{Alias: aliasRef{Name: "made"}, Asset: assetRef{Name: "s3://x/m", URI: "s3://x/m"},
			Extra: json.RawMessage(`{"n":1}`)}}}
		h.trigger("pal", `{"execution_date": "2024-01-02"}`)
		h.settle()
		runs := h.runsOf("on_alias")
		if len(runs) != 1 || runs[0].RunType != "asset_triggered" || runs[0].State != RunSuccess {
			t.Fatalf("on_alias runs %+v, want one asset_triggered run to success", runs)
		}
		if got := consumed(t, h.store, runs[0]); len(got) != 1 || got[0] != "pal" {
			t.Errorf("on_alias's run consumed %v, want pal's event", got)
		}
		if n := len(h.runsOf("on_m")); n != 1 {
			t.Errorf("on_m has %d runs, want 1", n)
		}
		if n := len(h.runsOf("on_other")); n != 0 {
			t.Errorf("on_other has %d runs, want none", n)
		}

		h.clock.Advance(time.Minute)
		h.runner.mu.Lock()
		h.runner.aliasEvents = nil
		h.runner.mu.Unlock()
		assets, _ := h.store.Assets()
		var m *Asset
		for _, a := range assets {
			if a.URI == "s3://x/m" {
				m = a
			}
		}
		if m == nil {
			t.Fatal("the alias's asset was not registered")
		}
		if _, err := h.store.AddAssetEvent(AssetEvent{AssetID: m.ID, Extra: json.RawMessage(`{}`), SourceMapIndex: -1, Timestamp: h.clock.Now()}); err != nil {
			t.Fatal(err)
		}
		if q, _ := h.store.QueuedAssetEvents("on_m", 0); len(q) != 1 {
			t.Errorf("on_m queue %+v, want the asset's event", q)
		}
	})
}

// A NaN or an infinity in an outlet event's extra is null in the event,
// as pydantic writes a float that JSON cannot hold when the task's
// outlet events reach Airflow 3's API server (ser_json_inf_nan "null"):
// the try that set it succeeds.
func TestPythonTask_OutletExtraNaNIsNull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nan.py"), []byte(`
import pendulum
from airflow.sdk import DAG, Asset, AssetAlias, task

with DAG("nan_extra", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    @task(outlets=[Asset("s3://bucket/scores"), AssetAlias("scored")])
    def score(*, outlet_events):
        outlet_events[Asset("s3://bucket/scores")].extra = {"mean": float("nan"), "max": float("inf"), "n": [1, float("-inf")]}
        outlet_events[AssetAlias("scored")].add(Asset("s3://bucket/via_alias"), extra={"mean": float("nan")})

    score()
`), 0o600); err != nil {
		t.Fatal(err)
	}
	set := readPyServeFolderAs(t, dir, edition3)
	store, api, settle := newRealScheduler(t, set, edition3)
	res, err := api.TriggerDAG("nan_extra", []byte(`{"execution_date": "2024-03-01T00:00:00+00:00"}`))
	if err != nil {
		t.Fatal(err)
	}
	runID := res["run_id"].(string)
	settle("nan_extra", runID)
	if run := finishedRun(t, store, "nan_extra", runID); run.State != RunSuccess {
		raw, _ := store.TaskLogOf(tiKey{"nan_extra", runID, "score", -1})
		t.Fatalf("run %s, want success; log %+v", run.State, raw)
	}
	events, err := store.AssetEvents()
	if err != nil {
		t.Fatal(err)
	}
	var extras []string
	for _, e := range events {
		extras = append(extras, string(e.Extra))
	}
	slices.Sort(extras)
	if want := []string{`{"mean":null,"max":null,"n":[1,null]}`, `{"mean":null}`}; !slices.Equal(extras, want) {
		t.Errorf("event extras %q, want %q", extras, want)
	}
}
