package main

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// namedAssetsDAG is a DAG namer whose task make has asset (by name, at
// s3://b/<asset>) and alias al among its outlets.
func namedAssetsDAG(t *testing.T, asset string) *DAG {
	t.Helper()
	d, err := parseDAG([]byte(`
dag_id: namer
schedule_interval: null
start_date: 2024-01-01
tasks:
  - {task_id: make, operator: EmptyOperator, outlets: [{name: ` + asset + `, uri: "s3://b/` + asset + `"}, {alias: al}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	d.FilePath = "testdata/namer.yaml"
	return d
}

// activeNames are the names of the assets the DAGs name, by id.
func activeNames(t *testing.T, store *Store, at time.Time) (*NamedAssets, []string) {
	t.Helper()
	named, err := store.NamedAssets(at, true)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range named.active {
		out = append(out, a.Name)
	}
	return named, out
}

// NamedAssets registers the assets and aliases the DAGs name, answers
// them until the DAG, asset or alias table changes (reading nothing), and
// follows each change: a DAG that names another asset, an asset no DAG
// names, an asset attached to an alias, a reset, a restore.
func TestStore_NamedAssets_FollowChanges(t *testing.T) {
	t.Parallel()
	t0, t1 := testNow, testNow.Add(time.Hour)
	store := storeWith(t, &DAGSet{DAGs: []*DAG{namedAssetsDAG(t, "a")}})
	var read int
	store.rowsRead = func(n int) { read += n }

	first, names := activeNames(t, store, t0)
	if !reflect.DeepEqual(names, []string{"a"}) {
		t.Fatalf("named %v, want [a]", names)
	}
	if got := first.Naming(first.active[0]); !reflect.DeepEqual(got.Producing, []assetTaskRef{{DagID: "namer", TaskID: "make"}}) {
		t.Errorf("a's naming %+v", got)
	}
	if _, err := store.AssetAliasByID(1); err != nil {
		t.Errorf("alias al not registered: %v", err)
	}
	activeNames(t, store, t0) // the registering write changed the tables: read once more
	read = 0
	again, _ := activeNames(t, store, t1)
	if same, _ := activeNames(t, store, t1); same != again || read != 0 {
		t.Errorf("asked again with no change: read %d rows, a new answer %v", read, same != again)
	}

	if _, err := store.UpsertDAG(namedAssetsDAG(t, "b")); err != nil {
		t.Fatal(err)
	}
	named, names := activeNames(t, store, t1)
	if !reflect.DeepEqual(names, []string{"b"}) {
		t.Errorf("after the DAG names b: named %v, want [b]", names)
	}
	if b := named.active[0]; !b.CreatedAt.Equal(t1) || len(named.Naming(b).Producing) != 1 {
		t.Errorf("b %+v, naming %+v", b, named.Naming(b))
	}
	if all, _ := store.Assets(); len(all) != 2 || named.Naming(all[0]).namedBy([]string{"namer"}) {
		t.Errorf("a stays registered and named by no DAG: %v", all)
	}

	if err := store.EnsureAssets([]assetRef{{Name: "c", URI: "s3://b/c"}}, t1); err != nil {
		t.Fatal(err)
	}
	if _, names := activeNames(t, store, t1); !reflect.DeepEqual(names, []string{"b"}) {
		t.Errorf("after an asset no DAG names: named %v, want [b]", names)
	}
	ti := &TaskInstance{DagID: "namer", TaskID: "make", RunID: "r", MapIndex: -1, State: TaskSuccess}
	err := store.update(func(txn *memdb.Txn) error {
		return recordAliasEventsTxn(txn, ti, []aliasEvent{{Alias: aliasRef{Name: "al"}, Asset: assetRef{Name: "b", URI: "s3://b/b"}}}, t1)
	})
	if err != nil {
		t.Fatal(err)
	}
	named, _ = activeNames(t, store, t1)
	if al := named.Aliases(named.active[0].ID); len(al) != 1 || al[0].Name != "al" {
		t.Errorf("b's aliases %v, want al", al)
	}

	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := writeSnapshot(store, path, time.Now()); err != nil {
		t.Fatal(err)
	}
	restored, _, err := restoreSnapshot(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := restored.LoadDAGs(&DAGSet{DAGs: []*DAG{namedAssetsDAG(t, "b")}}); err != nil { // as a start reads the files
		t.Fatal(err)
	}
	if named, names := activeNames(t, restored, t1); !reflect.DeepEqual(names, []string{"b"}) || named.active[0].ID != 2 ||
		len(named.Aliases(2)) != 1 {
		t.Errorf("restored: named %v (%+v)", names, named.active)
	}

	if err := store.Reset(&DAGSet{DAGs: []*DAG{namedAssetsDAG(t, "a")}}); err != nil {
		t.Fatal(err)
	}
	named, names = activeNames(t, store, t1)
	if !reflect.DeepEqual(names, []string{"a"}) || named.active[0].ID != 4 || !named.active[0].CreatedAt.Equal(t1) {
		t.Errorf("after a reset: named %v (%+v), want a registered again", names, named.active)
	}
}
