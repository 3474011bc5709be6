package main

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// The store's variables behave as Airflow's Variable model: set replaces
// under a new id, update keeps the id, delete of a missing key is
// not found, and the limits refuse without changing anything.
func TestStore_Variables(t *testing.T) {
	t.Parallel()
	desc := "a description"
	type step struct {
		op      string // set, update, delete
		key     string
		val     string
		desc    *string
		wantErr error  // nil: accepted
		limit   string // the limit a refusal names
	}
	tests := []struct {
		name   string
		limits Limits
		steps  []step
		want   []Variable // every variable after the steps, by id
	}{
		{
			// Airflow 2.10.3 airflow/models/variable.py:211-212: set deletes
			// the key and adds a new row.
			name: "set replaces under a new id",
			steps: []step{
				{op: "set", key: "a", val: "1"},
				{op: "set", key: "b", val: "2", desc: &desc},
				{op: "set", key: "a", val: "3"},
			},
			want: []Variable{{ID: 2, Key: "b", Val: "2", Description: &desc}, {ID: 3, Key: "a", Val: "3"}},
		},
		{
			// Airflow 2.10.3 airflow/api_connexion/endpoints/variable_endpoint.py:124-126:
			// PATCH sets the attributes of the existing row.
			name: "update keeps the id",
			steps: []step{
				{op: "set", key: "a", val: "1"},
				{op: "set", key: "b", val: "2"},
				{op: "update", key: "a", val: "changed", desc: &desc},
				{op: "update", key: "missing", val: "x", wantErr: errNotFound},
			},
			want: []Variable{{ID: 1, Key: "a", Val: "changed", Description: &desc}, {ID: 2, Key: "b", Val: "2"}},
		},
		{
			// Airflow 2.10.3 airflow/models/variable.py:270-284: delete
			// reports the rows removed; none is a 404 in the endpoint.
			name: "delete",
			steps: []step{
				{op: "set", key: "a", val: "1"},
				{op: "delete", key: "a"},
				{op: "delete", key: "a", wantErr: errNotFound},
			},
		},
		{
			name:   "count limit refuses a new key, never a replacement",
			limits: Limits{Variables: 2},
			steps: []step{
				{op: "set", key: "a", val: "1"},
				{op: "set", key: "b", val: "2"},
				{op: "set", key: "c", val: "3", wantErr: errLimitReached, limit: limitVariables},
				{op: "set", key: "a", val: "again"},
				{op: "delete", key: "b"},
				{op: "set", key: "c", val: "3"},
			},
			want: []Variable{{ID: 3, Key: "a", Val: "again"}, {ID: 4, Key: "c", Val: "3"}},
		},
		{
			name:   "size limit refuses a value over it, by set or update",
			limits: Limits{VariableBytes: 4},
			steps: []step{
				{op: "set", key: "a", val: "1234"},
				{op: "set", key: "b", val: "12345", wantErr: errLimitReached, limit: limitVariableBytes},
				{op: "update", key: "a", val: "12345", wantErr: errLimitReached, limit: limitVariableBytes},
			},
			want: []Variable{{ID: 1, Key: "a", Val: "1234"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := storeWith(t, &DAGSet{})
			store.SetLimits(tc.limits)
			for i, st := range tc.steps {
				var err error
				switch st.op {
				case "set":
					_, err = store.SetVariable(st.key, st.val, st.desc)
				case "update":
					_, err = store.UpdateVariable(st.key, func(v Variable) Variable {
						v.Val, v.Description = st.val, st.desc
						return v
					})
				case "delete":
					err = store.DeleteVariable(st.key)
				}
				checkStoreErr(t, i, err, st.wantErr, st.limit)
			}
			got, err := store.Variables()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("variables %+v, want %+v", got, tc.want)
			}
			for i, v := range got {
				w := tc.want[i]
				if v.ID != w.ID || v.Key != w.Key || v.Val != w.Val || !equalPtr(v.Description, w.Description) || v.IsEncrypted {
					t.Errorf("variable %d = %+v, want %+v", i, *v, w)
				}
			}
		})
	}
}

// checkStoreErr checks the error of step i: wantErr's kind, and the limit
// a refusal names, phrased with its flag.
func checkStoreErr(t *testing.T, i int, err, wantErr error, limit string) {
	t.Helper()
	if wantErr == nil {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		return
	}
	if !errors.Is(err, wantErr) {
		t.Fatalf("step %d: error %v, want %v", i, err, wantErr)
	}
	if limit == "" {
		return
	}
	var l *limitError
	text, ok := storeErrorText(err)
	if !errors.As(err, &l) || l.limit != limit || !ok || !strings.Contains(text, "--max-") {
		t.Fatalf("step %d: error %v (%q), want a refusal at the limit of %s naming its flag", i, err, text, limit)
	}
}

func equalPtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// Templates read variables through the store (var.value.{key}).
func TestStore_VariableValueIsTheTemplateLookup(t *testing.T) {
	t.Parallel()
	store := storeWith(t, &DAGSet{})
	if _, err := store.SetVariable("greeting", "hello", nil); err != nil {
		t.Fatal(err)
	}
	var lookup func(string) (string, bool) = store.VariableValue
	for _, tc := range []struct {
		key    string
		want   string
		wantOK bool
	}{{"greeting", "hello", true}, {"missing", "", false}} {
		if got, ok := lookup(tc.key); got != tc.want || ok != tc.wantOK {
			t.Errorf("lookup %q = %q, %v; want %q, %v", tc.key, got, ok, tc.want, tc.wantOK)
		}
	}
}

// Connections: a connection_id is created once (Airflow's POST answers
// 409 for a taken one), updates keep it and the id, and the limits
// refuse without changing anything.
func TestStore_Connections(t *testing.T) {
	t.Parallel()
	host := "db.example"
	type step struct {
		op      string // create, update, delete
		conn    Connection
		wantErr error
		limit   string
	}
	tests := []struct {
		name   string
		limits Limits
		steps  []step
		want   []string // connection_id:conn_type:id of every connection, by id
	}{
		{
			// Airflow 2.10.3 airflow/api_connexion/endpoints/connection_endpoint.py:172-178:
			// an existing conn_id raises AlreadyExists.
			name: "create once",
			steps: []step{
				{op: "create", conn: Connection{ConnID: "a", ConnType: "http"}},
				{op: "create", conn: Connection{ConnID: "b", ConnType: "postgres", Host: &host}},
				{op: "create", conn: Connection{ConnID: "a", ConnType: "ftp"}, wantErr: errExists},
			},
			want: []string{"a:http:1", "b:postgres:2"},
		},
		{
			name: "update keeps connection_id and id; delete",
			steps: []step{
				{op: "create", conn: Connection{ConnID: "a", ConnType: "http"}},
				{op: "create", conn: Connection{ConnID: "b", ConnType: "http"}},
				{op: "update", conn: Connection{ConnID: "a", ConnType: "ftp"}},
				{op: "update", conn: Connection{ConnID: "missing", ConnType: "ftp"}, wantErr: errNotFound},
				{op: "delete", conn: Connection{ConnID: "b"}},
				{op: "delete", conn: Connection{ConnID: "b"}, wantErr: errNotFound},
			},
			want: []string{"a:ftp:1"},
		},
		{
			name:   "count and size limits",
			limits: Limits{Connections: 1, ConnectionBytes: 10},
			steps: []step{
				{op: "create", conn: Connection{ConnID: "a", ConnType: "http"}},
				{op: "create", conn: Connection{ConnID: "b", ConnType: "http"}, wantErr: errLimitReached, limit: limitConnections},
				{op: "update", conn: Connection{ConnID: "a", ConnType: "http", Host: &host}, wantErr: errLimitReached, limit: limitConnBytes},
				{op: "delete", conn: Connection{ConnID: "a"}},
				{op: "create", conn: Connection{ConnID: "b", ConnType: "x", Host: &host}, wantErr: errLimitReached, limit: limitConnBytes},
				{op: "create", conn: Connection{ConnID: "b", ConnType: "http"}},
			},
			want: []string{"b:http:2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := storeWith(t, &DAGSet{})
			store.SetLimits(tc.limits)
			for i, st := range tc.steps {
				var err error
				switch st.op {
				case "create":
					_, err = store.CreateConnection(st.conn)
				case "update":
					_, err = store.UpdateConnection(st.conn.ConnID, func(c Connection) (Connection, error) {
						c.ConnType, c.Host = st.conn.ConnType, st.conn.Host
						return c, nil
					})
				case "delete":
					err = store.DeleteConnection(st.conn.ConnID)
				}
				checkStoreErr(t, i, err, st.wantErr, st.limit)
			}
			conns, err := store.Connections()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range conns {
				got = append(got, c.ConnID+":"+c.ConnType+":"+strconv.FormatInt(c.ID, 10))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("connections %v, want %v", got, tc.want)
			}
		})
	}
}
