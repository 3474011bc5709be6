package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// refProducerDAG makes s3://refs/a in task p; more are further tasks
// without outlets.
func refProducerDAG(more ...string) string {
	text := "dag_id: producer\nschedule: null\nstart_date: 2021-01-01T00:00:00+00:00\ntasks:\n" +
		"  - {task_id: p, operator: EmptyOperator, outlets: [{name: a, uri: \"s3://refs/a\"}]}\n"
	for _, id := range more {
		text += "  - {task_id: " + id + ", operator: EmptyOperator}\n"
	}
	return text
}

// refConsumerDAG is scheduled on s3://refs/a, and its task c reads it.
const refConsumerDAG = "dag_id: consumer\nschedule: [{name: a, uri: \"s3://refs/a\"}]\nstart_date: 2021-01-01T00:00:00+00:00\ntasks:\n" +
	"  - {task_id: c, operator: EmptyOperator, inlets: [{name: a, uri: \"s3://refs/a\"}]}\n"

// newClockedReloadSetup is newReloadSetup whose server reads the clock
// the reloader's passes move (s.now), so that what a read records is
// dated as what a pass records.
func newClockedReloadSetup(t *testing.T, e edition, files map[string]string) *reloadSetup {
	t.Helper()
	var s *reloadSetup
	s = newReloadSetup(t, e, files, withOptions(func(o *serverOptions) {
		o.Now = func() time.Time {
			if s == nil {
				return testNow
			}
			return s.now
		}
	}))
	return s
}

// assetRefDates is an asset's dates and its references' as
// "kind dag[.task] created updated" lines, in the answer's order.
func assetRefDates(t *testing.T, body string) string {
	t.Helper()
	type ref struct {
		DagID     string `json:"dag_id"`
		TaskID    string `json:"task_id"`
		CreatedAt string `json:"created_at"`
		UpdatedAt string `json:"updated_at"`
	}
	var a struct {
		CreatedAt      string `json:"created_at"`
		UpdatedAt      string `json:"updated_at"`
		ScheduledDags  []ref  `json:"scheduled_dags"`
		ProducingTasks []ref  `json:"producing_tasks"`
		ConsumingTasks []ref  `json:"consuming_tasks"`
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("decode asset %s: %v", body, err)
	}
	lines := []string{"asset " + a.CreatedAt + " " + a.UpdatedAt}
	for kind, refs := range map[string][]ref{"scheduled": a.ScheduledDags, "producing": a.ProducingTasks, "consuming": a.ConsumingTasks} {
		for _, r := range refs {
			lines = append(lines, fmt.Sprintf("%s %s %s %s", kind, strings.Trim(r.DagID+"."+r.TaskID, "."), r.CreatedAt, r.UpdatedAt))
		}
	}
	slices.Sort(lines[1:])
	return strings.Join(lines, "\n")
}

// An asset's references are rows of their own in Airflow 3.2
// (DagScheduleAssetReference, TaskOutletAssetReference,
// TaskInletAssetReference), each created_at and updated_at set when the
// DAG processor inserts it (default=timezone.utcnow) and never changed
// after: a parse adds the references not stored yet and deletes those the
// DAG no longer has (c57fba0e dag_processing/collection.py
// add_dag_asset_references, add_task_asset_references), and a DAG gone
// stale loses them (models/asset.py remove_references_to_deleted_dags).
// So a DAG that names an asset later shows a later date than the asset,
// a parse that keeps a reference keeps its date, and a reference that
// went away and came back is dated when it came back.
func TestAPIv2_AssetReferencesKeepTheirOwnDates(t *testing.T) {
	t.Parallel()
	s := newClockedReloadSetup(t, edition3, map[string]string{"producer.yaml": refProducerDAG()})
	at := func(h int) string { return v2Time(testNow.Add(time.Duration(h) * time.Hour)) }
	check := func(step, want string) {
		t.Helper()
		res := s.ts.v2(t, http.MethodGet, "/assets/1", "", http.StatusOK)
		if got := assetRefDates(t, res.body); got != want {
			t.Errorf("%s:\n%s\nwant\n%s", step, got, want)
		}
	}
	check("loaded", "asset "+at(0)+" "+at(0)+"\nproducing producer.p "+at(0)+" "+at(0))

	// A DAG scheduled on the asset and reading it, an hour later.
	s.folder.write(t, "consumer.yaml", refConsumerDAG)
	s.pass(t, time.Hour, true)
	check("a consumer added", "asset "+at(0)+" "+at(0)+"\nconsuming consumer.c "+at(1)+" "+at(1)+
		"\nproducing producer.p "+at(0)+" "+at(0)+"\nscheduled consumer "+at(1)+" "+at(1))

	// The producer's file parsed again with a change elsewhere: its
	// reference keeps its date.
	s.folder.write(t, "producer.yaml", refProducerDAG("q"))
	s.pass(t, time.Hour, true)
	// The consumer's file broken (stale: no references), then fixed,
	// with no read between: its references are new.
	s.folder.write(t, "consumer.yaml", "dag_id: [\n")
	s.pass(t, time.Hour, true)
	s.folder.write(t, "consumer.yaml", refConsumerDAG)
	s.pass(t, time.Hour, true)
	s.now = s.now.Add(time.Hour) // read later than the parse
	check("the consumer back", "asset "+at(0)+" "+at(0)+"\nconsuming consumer.c "+at(4)+" "+at(4)+
		"\nproducing producer.p "+at(0)+" "+at(0)+"\nscheduled consumer "+at(4)+" "+at(4))
}

// Edition 2's datasets date their references the same way: 2.10.3's
// DagScheduleDatasetReference and TaskOutletDatasetReference rows are
// inserted when bulk_write_to_db first finds them and never updated.
func TestAPIv1_DatasetReferencesKeepTheirOwnDates(t *testing.T) {
	t.Parallel()
	producer := "dag_id: producer\nschedule: null\nstart_date: 2021-01-01T00:00:00+00:00\ntasks:\n" +
		"  - {task_id: p, operator: EmptyOperator, outlets: [{uri: \"s3://refs/a\"}]}\n"
	s := newClockedReloadSetup(t, edition2, map[string]string{"producer.yaml": producer})
	read := func() map[string]any {
		t.Helper()
		res := s.ts.do(t, http.MethodGet, "/api/v1/datasets/"+url.PathEscape("s3://refs/a"), "")
		var d map[string]any
		if err := json.Unmarshal([]byte(res.body), &d); err != nil || res.status != http.StatusOK {
			t.Fatalf("GET dataset = %d %s (%v)", res.status, res.body, err)
		}
		return d
	}
	read() // registered at the first read
	s.folder.write(t, "consumer.yaml", "dag_id: consumer\nschedule: [\"s3://refs/a\"]\nstart_date: 2021-01-01T00:00:00+00:00\ntasks:\n"+
		"  - {task_id: c, operator: EmptyOperator}\n")
	s.pass(t, time.Hour, true)
	d := read()
	at := func(h int) string { return isoFormat(testNow.Add(time.Duration(h) * time.Hour)) }
	got := fmt.Sprint(d["created_at"], " ", d["producing_tasks"], " ", d["consuming_dags"])
	want := fmt.Sprint(at(0), " ", []any{map[string]any{"dag_id": "producer", "task_id": "p", "created_at": at(0), "updated_at": at(0)}},
		" ", []any{map[string]any{"dag_id": "consumer", "created_at": at(1), "updated_at": at(1)}})
	if got != want {
		t.Errorf("dataset\n%s\nwant\n%s", got, want)
	}
}
