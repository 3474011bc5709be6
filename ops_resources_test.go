package main

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// newResourceOps is the resource operations over a fresh edition-2 store
// with the examples loaded, counting how often they wake the scheduler.
func newResourceOps(t *testing.T) (*operations, *int) {
	t.Helper()
	return resourceOpsOf(newTestServer(t, edition2))
}

// resourceOpsOf is the resource operations over a test server's store.
func resourceOpsOf(ts *testServer) (*operations, *int) {
	wakes := new(int)
	now := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	return &operations{store: ts.store, edition: edition2, now: func() time.Time { return now },
		kick: func() { *wakes++ }}, wakes
}

// wantFault checks that err is the opError fault of kind kind (or nil
// when fault is "").
func wantFault(t *testing.T, err error, fault opFault, kind error) {
	t.Helper()
	if fault == "" {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	var oe *opError
	if !errors.As(err, &oe) || oe.fault != fault || !errors.Is(err, kind) {
		t.Fatalf("err = %v, want fault %s of kind %v", err, fault, kind)
	}
}

func TestResourceOps_PoolWrites(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("p", maxPoolNameChars+1)
	longDesc := strings.Repeat("d", maxPoolDescriptionBytes+1)
	tests := []struct {
		name      string
		op        func(o *operations) error
		wantFault opFault
		wantKind  error
		wantWakes int
	}{
		{"create wakes", func(o *operations) error { _, err := o.createPool(Pool{Name: "p", Slots: 2}); return err }, "", nil, 1},
		{"create a taken name", func(o *operations) error { _, err := o.createPool(Pool{Name: defaultPoolName}); return err },
			faultPoolExists, errConflict, 0},
		{"create a long name", func(o *operations) error { _, err := o.createPool(Pool{Name: long}); return err },
			faultPoolNameTooLong, errInvalid, 0},
		{"put wakes", func(o *operations) error { _, err := o.putPool(defaultPoolName, 3, nil); return err }, "", nil, 1},
		{"put an empty name", func(o *operations) error { _, err := o.putPool("  ", 3, nil); return err }, faultPoolNameEmpty, errInvalid, 0},
		{"put a long description", func(o *operations) error { _, err := o.putPool("p", 3, &longDesc); return err },
			faultPoolDescTooLong, errInvalid, 0},
		{"update wakes", func(o *operations) error {
			_, err := o.updatePool(defaultPoolName, func(p Pool) Pool { p.Slots = 9; return p })
			return err
		}, "", nil, 1},
		{"update a missing pool", func(o *operations) error {
			_, err := o.updatePool("nope", func(p Pool) Pool { return p })
			return err
		}, faultPoolNotFound, errNotFound, 0},
		{"rename onto a taken name", func(o *operations) error {
			if _, err := o.createPool(Pool{Name: "p"}); err != nil {
				return err
			}
			_, err := o.updatePool("p", func(p Pool) Pool { p.Name = defaultPoolName; return p })
			return err
		}, faultPoolExists, errConflict, 1},
		{"delete default_pool", func(o *operations) error { _, err := o.deletePool(defaultPoolName); return err },
			faultDefaultPoolDelete, errInvalid, 0},
		{"delete a missing pool", func(o *operations) error { _, err := o.deletePool("nope"); return err },
			faultPoolNotFound, errNotFound, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, wakes := newResourceOps(t)
			wantFault(t, tc.op(o), tc.wantFault, tc.wantKind)
			if *wakes != tc.wantWakes {
				t.Errorf("woke the scheduler %d times, want %d", *wakes, tc.wantWakes)
			}
		})
	}
}

func TestResourceOps_PoolListing(t *testing.T) {
	t.Parallel()
	o, _ := newResourceOps(t)
	for _, p := range []Pool{{Name: "b", Slots: 5}, {Name: "a", Slots: 5}, {Name: "c", Slots: -1}} {
		if _, err := o.createPool(p); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		q         listQuery
		want      []string
		wantFault opFault
	}{
		{"store order: by name", listQuery{}, []string{"a", "b", "c", "default_pool"}, ""},
		{"by id", listQuery{orderBy: "id"}, []string{"default_pool", "b", "a", "c"}, ""},
		{"by slots, ties as created", listQuery{orderBy: "slots"}, []string{"c", "b", "a", "default_pool"}, ""},
		{"by slots descending, ties still as created", listQuery{orderBy: "slots", desc: true}, []string{"default_pool", "b", "a", "c"}, ""},
		{"a window", listQuery{orderBy: "name", offset: 1, limit: 2}, []string{"b", "c"}, ""},
		{"past the end", listQuery{offset: 9}, nil, ""},
		{"an order pools have not", listQuery{orderBy: "description"}, nil, faultOrderUnknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := o.pools(tc.q)
			wantFault(t, err, tc.wantFault, errInvalid)
			if err != nil {
				return
			}
			var names []string
			for _, p := range got.rows {
				names = append(names, p.Name)
			}
			if !slices.Equal(names, tc.want) || got.total != 4 {
				t.Errorf("pools(%+v) = %v of %d, want %v of 4", tc.q, names, got.total, tc.want)
			}
		})
	}
	c, err := o.pool("c")
	if err != nil || c.Open() != -1 {
		t.Errorf("pool c = %+v (%v), want unlimited open slots (-1)", c, err)
	}
}

func TestCheckDefaultPoolChange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, pool, namedAs string
		fields              []string
		wantFault           opFault
	}{
		{"another pool", "p", "q", nil, ""},
		{"default_pool keeps its name", defaultPoolName, defaultPoolName, nil, ""},
		{"default_pool renamed", defaultPoolName, "other", nil, faultDefaultPoolRenaming},
		{"default_pool: slots and include_deferred only", defaultPoolName, "", []string{"slots", "include_deferred"}, ""},
		{"default_pool: description too", defaultPoolName, "", []string{"slots", "description"}, faultDefaultPoolRenaming},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantFault(t, checkDefaultPoolChange(tc.pool, tc.namedAs, tc.fields), tc.wantFault, errInvalid)
		})
	}
}

func TestResourceOps_Variables(t *testing.T) {
	t.Parallel()
	o, wakes := newResourceOps(t)
	for _, kv := range [][2]string{{"k1", "b"}, {"k2", "a"}, {"k3", "b"}} {
		if _, err := o.setVariable(kv[0], kv[1], nil); err != nil {
			t.Fatal(err)
		}
	}
	desc := "d"
	if v, err := o.updateVariable("k1", variableChange{description: &desc}); err != nil || v.Val != "b" || *v.Description != "d" {
		t.Fatalf("update = %+v, %v; want the value kept and the description set", v, err)
	}
	tests := []struct {
		name      string
		op        func() error
		wantFault opFault
		wantKind  error
	}{
		{"get a missing one", func() error { _, err := o.variable("nope"); return err }, faultVariableNotFound, errNotFound},
		{"update a missing one", func() error { _, err := o.updateVariable("nope", variableChange{}); return err }, faultVariableNotFound, errNotFound},
		{"delete a missing one", func() error { return o.deleteVariable("nope") }, faultVariableToDeleteMissing, errNotFound},
		{"a key longer than the column", func() error {
			_, err := o.setVariable(strings.Repeat("k", maxVariableKeyChars+1), "v", nil)
			return err
		}, faultVariableKeyTooLong, errInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantFault(t, tc.op(), tc.wantFault, tc.wantKind) })
	}
	got, err := o.variables(listQuery{orderBy: "value", desc: true, limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, v := range got.rows {
		keys = append(keys, v.Key)
	}
	if want := []string{"k1", "k3"}; !slices.Equal(keys, want) || got.total != 3 {
		t.Errorf("by value descending = %v of %d, want %v of 3 (ties in id order)", keys, got.total, want)
	}
	if *wakes != 0 {
		t.Errorf("variables woke the scheduler %d times", *wakes)
	}
}

func TestCheckConnectionID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id        string
		wantFault opFault
	}{
		{"my_conn-1.x", ""},
		{"trailing\n", ""}, // Python's $ lets one final newline by
		{"", faultConnectionIDInvalid},
		{"a b", faultConnectionIDInvalid},
		{strings.Repeat("c", maxConnectionIDChars), ""},
		{strings.Repeat("c", maxConnectionIDChars+1), faultConnectionIDTooLong},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()
			wantFault(t, checkConnectionID(tc.id), tc.wantFault, errInvalid)
		})
	}
}

func TestResourceOps_Connections(t *testing.T) {
	t.Parallel()
	o, _ := newResourceOps(t)
	port := 5432
	for _, c := range []Connection{{ConnID: "a", ConnType: "http"}, {ConnID: "b", ConnType: "postgres", Port: &port}} {
		if _, err := o.createConnection(c); err != nil {
			t.Fatal(err)
		}
	}
	b, err := o.connection("b")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		op        func() error
		wantFault opFault
		wantKind  error
	}{
		{"create a taken id", func() error { _, err := o.createConnection(Connection{ConnID: "a"}); return err }, faultConnectionExists, errConflict},
		{"create a bad id", func() error { _, err := o.createConnection(Connection{ConnID: "a/b"}); return err }, faultConnectionIDInvalid, errInvalid},
		{"rename", func() error { return checkConnectionRename(b, "c") }, faultConnectionIDFixed, errInvalid},
		{"the same id is no rename", func() error { return checkConnectionRename(b, "b") }, "", nil},
		{"update a missing one", func() error { _, err := o.updateConnection("nope", func(*Connection) {}); return err },
			faultConnectionNotFound, errNotFound},
		{"delete a missing one", func() error { return o.deleteConnection("nope") }, faultConnectionNotFound, errNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantFault(t, tc.op(), tc.wantFault, tc.wantKind) })
	}
	got, err := o.connections(listQuery{orderBy: "port"})
	if err != nil || len(got.rows) != 2 || got.rows[0].ConnID != "b" {
		t.Errorf("by port = %+v (%v), want b first (no port sorts last, as NULL)", got.rows, err)
	}
}

func TestResourceOps_XCom(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, edition2)
	o, _ := resourceOpsOf(ts)
	withXComs([4]string{"02", "runme_0", "a", `1`}, [4]string{"02", "runme_1", "b", `2`})(t, ts)
	empty, some := "", "a"
	minus1, zero := int64(-1), int64(0)
	tests := []struct {
		name      string
		f         xcomQuery
		wantKeys  []string
		wantTotal int
	}{
		{"every entry", xcomQuery{}, []string{"a", "b"}, 2},
		{"by key", xcomQuery{key: &some}, []string{"a"}, 1},
		{"an empty key matches none", xcomQuery{key: &empty}, nil, 0},
		{"map_index -1", xcomQuery{mapIndex: &minus1}, []string{"a", "b"}, 2},
		{"map_index 0", xcomQuery{mapIndex: &zero}, nil, 0},
		{"by task", xcomQuery{taskID: "runme_1"}, []string{"b"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := o.xcomEntries(tc.f, listQuery{})
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, e := range got.rows {
				keys = append(keys, e.Key)
				if e.ExecutionDate == nil {
					t.Errorf("entry %s has no execution date", e.Key)
				}
			}
			if !slices.Equal(keys, tc.wantKeys) || got.total != tc.wantTotal {
				t.Errorf("entries = %v of %d, want %v of %d", keys, got.total, tc.wantKeys, tc.wantTotal)
			}
		})
	}
	runID := "manual__2024-01-02T00:00:00+00:00"
	e, err := o.xcomEntry("example_bash_operator", runID, "runme_0", "a", -1)
	if err != nil || string(e.Value) != "1" {
		t.Errorf("entry = %+v, %v", e, err)
	}
	_, err = o.xcomEntry("example_bash_operator", runID, "runme_0", "a", 0)
	wantFault(t, err, faultXComNotFound, errNotFound)
	_, err = o.xcomEntry("example_bash_operator", runID, "runme_0", "nope", -1)
	wantFault(t, err, faultXComNotFound, errNotFound)
}

func TestResourceOps_EventLog(t *testing.T) {
	t.Parallel()
	o, _ := newResourceOps(t)
	when := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, ev := range []string{"b", "a", "b"} {
		if err := o.logEvent(EventLog{When: when.Add(time.Duration(i) * time.Minute), Event: ev, DagID: "d"}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := o.eventLogs(eventLogFilter{}, listQuery{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		f         eventLogFilter
		q         listQuery
		wantIDs   []int64
		wantTotal int
	}{
		{"by event, ties by id", eventLogFilter{dagID: "d"}, listQuery{orderBy: "event"}, []int64{all.rows[1].ID, all.rows[0].ID, all.rows[2].ID}, 3},
		{"excluded events", eventLogFilter{excluded: []string{"b"}}, listQuery{}, []int64{all.rows[1].ID}, 1},
		{"a window of the newest", eventLogFilter{}, listQuery{orderBy: "when", desc: true, limit: 1}, []int64{all.rows[2].ID}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := o.eventLogs(tc.f, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, e := range got.rows {
				ids = append(ids, e.ID)
			}
			if !slices.Equal(ids, tc.wantIDs) || got.total != tc.wantTotal {
				t.Errorf("events = %v of %d, want %v of %d", ids, got.total, tc.wantIDs, tc.wantTotal)
			}
		})
	}
	for _, id := range []int64{-1, 0, 1 << 40} {
		_, err := o.eventLog(id)
		wantFault(t, err, faultEventLogNotFound, errNotFound)
	}
}

func TestResourceOps_DependenciesAndDatasets(t *testing.T) {
	t.Parallel()
	o, _ := newResourceOps(t)
	_, err := o.taskInstanceDependencies("nope", "r", "t", -1)
	wantFault(t, err, faultDepsTaskInstanceNotFound, errNotFound)
	wantFault(t, o.reparseDagFile("/nowhere.py"), faultDagFileNotFound, errNotFound)
	_, err = o.dataset("s3://x")
	wantFault(t, err, faultDatasetNotFound, errNotFound)
	_, err = o.createDatasetEvent("s3://x", nil)
	wantFault(t, err, faultDatasetOfEventNotFound, errNotFound)
	wantFault(t, queuedEvents("d", ""), faultQueuedEventNotFound, errNotFound)
}

// Every fault the resource operations raise has the words of each API
// that can meet it: one a book lacks would be answered as an internal
// error.
func TestResourcePhrasebooks_CoverEveryFault(t *testing.T) {
	t.Parallel()
	poolFaults := []opFault{faultPoolNotFound, faultPoolNameEmpty, faultPoolNameTooLong, faultPoolDescTooLong, faultDefaultPoolDelete}
	v1Faults := append(slices.Clone(poolFaults), faultPoolExists, faultDefaultPoolRenaming,
		faultVariableNotFound, faultVariableToDeleteMissing, faultVariableKeyTooLong,
		faultConnectionNotFound, faultConnectionExists, faultConnectionIDTooLong, faultConnectionIDInvalid, faultConnectionIDFixed,
		faultXComNotFound, faultEventLogNotFound, faultDepsTaskInstanceNotFound,
		faultDatasetNotFound, faultDatasetOfEventNotFound, faultQueuedEventNotFound, faultDagFileNotFound)
	for _, book := range []struct {
		name   string
		book   phrasebook
		faults []opFault
	}{{"experimental", expPhrases(edition2.rules()), poolFaults}, {"v1", apiv1ResourcePhrases, v1Faults}} {
		for _, f := range book.faults {
			if _, ok := book.book[f]; !ok {
				t.Errorf("the %s book has no words for %s", book.name, f)
			}
		}
	}
	// a fault's values reach the words
	got := v1ResourceError(opErr(errNotFound, faultQueuedEventNotFound, "dag_id", "d", "uri", "s3://x"))
	body, _ := json.Marshal(got.(*problem).detail)
	if want := "\"Queue event with dag_id: `d` and dataset uri: `s3://x` was not found\""; string(body) != want {
		t.Errorf("queued event detail %s, want %s", body, want)
	}
}
