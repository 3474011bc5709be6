package main

// The restore's fuzz targets' shared check (FuzzRestoreSnapshot, over
// bytes; FuzzRestoreSnapshotEdits, over rows): a snapshot a restore takes
// is the state the restored store writes back, row for row. A row lost,
// merged or changed on the way in shows as a difference.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	gojson "github.com/goccy/go-json"
)

// snapDocument is a snapshot's rows, by table, each as the writer writes
// the object a restore makes of it (decode, then encode), sorted; legacy
// is set when a task-instance row nests expanded instances (a version 6
// row), whose new rows take new ids.
type snapDocument struct {
	rows   map[string][]string
	legacy bool
}

// readSnapDocument reads a snapshot that restored: a header line, table
// sections, an end line.
func readSnapDocument(t testing.TB, data []byte) snapDocument {
	t.Helper()
	codecs := map[string]snapshotCodec{}
	for _, c := range snapshotCodecs() {
		codecs[c.table] = c
	}
	doc := snapDocument{rows: map[string][]string{}}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[1 : len(lines)-2] // header; end line and the empty tail
	var buf bytes.Buffer
	enc := gojson.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for len(lines) > 0 {
		var sec sectionHeader
		if err := json.Unmarshal(lines[0], &sec); err != nil {
			t.Fatalf("table header %q: %v", lines[0], err)
		}
		if sec.Rows < 0 || sec.Rows > len(lines)-1 {
			t.Fatalf("restored a file whose table %s has %d rows, with %d lines left", sec.Table, sec.Rows, len(lines)-1)
		}
		c := codecs[sec.Table]
		doc.rows[sec.Table] = []string{}
		for _, line := range lines[1 : 1+sec.Rows] {
			obj, err := c.decode(bytes.TrimSuffix(line, []byte("\n")))
			if err != nil {
				t.Fatalf("row %q of %s: %v", line, sec.Table, err)
			}
			if l, ok := obj.(*legacyMappedTask); ok {
				doc.legacy = true
				obj = l.ti
			}
			buf.Reset()
			if err := enc.Encode(c.encode(obj)); err != nil {
				t.Fatalf("encode a row of %s: %v", sec.Table, err)
			}
			doc.rows[sec.Table] = append(doc.rows[sec.Table], buf.String())
		}
		sort.Strings(doc.rows[sec.Table])
		lines = lines[1+sec.Rows:]
	}
	return doc
}

// counters reads the counters rows of a document, by name.
func (d snapDocument) counters(t testing.TB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, line := range d.rows[tableCounters] {
		var c snapCounter
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		out[c.Name] = c.Value
	}
	return out
}

// checkRestoredFaithfully checks that store, restored from input, writes
// back every row input holds and nothing else: the same rows in each
// table (the counters may have been raised past the ids restored, and a
// version 6 row's expanded instances are rows of their own), and that a
// second restore of what it wrote changes nothing more.
func checkRestoredFaithfully(t *testing.T, input []byte, store *Store) {
	t.Helper()
	dir := t.TempDir()
	written := func(store *Store, name string) ([]byte, string) {
		path := filepath.Join(dir, name)
		if _, err := writeSnapshot(store, path, testNow); err != nil {
			t.Fatalf("write the restored state: %v", err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data, path
	}
	in := readSnapDocument(t, input)
	outData, outPath := written(store, "again.json")
	out := readSnapDocument(t, outData)
	for _, c := range snapshotCodecs() {
		want, got := in.rows[c.table], out.rows[c.table]
		switch {
		case c.table == tableCounters:
			have := out.counters(t)
			for name, v := range in.counters(t) {
				if have[name] < v {
					t.Errorf("counter %s restored as %d, the file says %d", name, have[name], v)
				}
			}
		case c.table == tableTasks && in.legacy:
			if len(got) < len(want) {
				t.Errorf("%d task instances restored from %d rows", len(got), len(want))
			}
		case !slices.Equal(want, got):
			t.Errorf("table %s restored is not the file's:\nfile     %s\nrestored %s", c.table, strings.Join(want, ""), strings.Join(got, ""))
		}
	}
	checkXComCounts(t, "restored", store)
	checkRunCounts(t, store)
	checkUniqueIndexesWhole(t, store)
	again, _, err := restoreSnapshot(t.Context(), outPath)
	if err != nil {
		t.Fatalf("read back the restored state: %v", err)
	}
	againData, _ := written(again, "again2.json")
	if second := readSnapDocument(t, againData); !equalDocuments(out, second) {
		t.Errorf("a second round trip changed the state:\nfirst  %v\nsecond %v", out.rows, second.rows)
	}
}

func equalDocuments(a, b snapDocument) bool {
	if len(a.rows) != len(b.rows) {
		return false
	}
	for table, rows := range a.rows {
		if !slices.Equal(rows, b.rows[table]) {
			return false
		}
	}
	return true
}

// snapEditable is a snapshot's rows as JSON objects, numbers kept exact,
// which FuzzRestoreSnapshotEdits changes and writes back sealed.
type snapEditable struct {
	header []byte
	tables []string
	rows   map[string][]map[string]any
}

func readSnapEditable(t testing.TB, data []byte) *snapEditable {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte("\n"))
	e := &snapEditable{header: lines[0], rows: map[string][]map[string]any{}}
	lines = lines[1 : len(lines)-2]
	for len(lines) > 0 {
		var sec sectionHeader
		if err := json.Unmarshal(lines[0], &sec); err != nil {
			t.Fatal(err)
		}
		e.tables = append(e.tables, sec.Table)
		for _, line := range lines[1 : 1+sec.Rows] {
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.UseNumber()
			var row map[string]any
			if err := dec.Decode(&row); err != nil {
				t.Fatal(err)
			}
			e.rows[sec.Table] = append(e.rows[sec.Table], row)
		}
		lines = lines[1+sec.Rows:]
	}
	return e
}

// bytes writes the rows back with their section headers and an end line
// that fits them.
func (e *snapEditable) bytes() []byte {
	var body bytes.Buffer
	body.Write(e.header)
	n := 0
	for _, table := range e.tables {
		fmt.Fprintf(&body, `{"table":%q,"rows":%d}`+"\n", table, len(e.rows[table]))
		for _, row := range e.rows[table] {
			line, _ := json.Marshal(row)
			body.Write(line)
			body.WriteByte('\n')
			n++
		}
	}
	fmt.Fprintf(&body, `{"end":%q,"tables":%d,"rows":%d,"crc32c":"0"}`+"\n", snapshotFormat, len(e.tables), n)
	return fixSnapshotCRC(body.Bytes())
}

// snapEditValues are values an edit may set a field to: the edges of
// each kind a row holds, and what other rows hold (copied by the edits).
var snapEditValues = []any{
	nil, "", " ", "a", "a\x00b", "\xff", "é", strings.Repeat("x", 300), true, false,
	json.Number("0"), json.Number("-1"), json.Number("-2"), json.Number("1"), json.Number("2"),
	json.Number("9007199254740992"), json.Number("9007199254740993"), json.Number("9223372036854775807"), json.Number("1e3"), json.Number("0.5"),
	"0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59-01:00", "2024-01-01T00:00:00+05:30",
	"1677-09-21T00:12:43Z", "2262-04-11T23:47:17Z", "running", "success", "failed", "queued", "default_pool", "none",
	[]any{}, []any{json.Number("1")}, []any{json.Number("1"), json.Number("1")}, map[string]any{}, `{}`, `[]`, `{"a":1}`, `nope`,
}

// apply runs the edit program prog over the rows: each step takes an
// operation and its operands from prog's bytes.
func (e *snapEditable) apply(prog []byte) {
	next := func() int {
		if len(prog) == 0 {
			return 0
		}
		b := int(prog[0])
		prog = prog[1:]
		return b
	}
	pick := func() (string, int, bool) { // a table with rows, and a row
		var with []string
		for _, table := range e.tables {
			if len(e.rows[table]) > 0 {
				with = append(with, table)
			}
		}
		if len(with) == 0 {
			return "", 0, false
		}
		table := with[next()%len(with)]
		return table, next() % len(e.rows[table]), true
	}
	field := func(row map[string]any) string {
		keys := make([]string, 0, len(row))
		for k := range row {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) == 0 {
			return ""
		}
		return keys[next()%len(keys)]
	}
	for steps := 0; len(prog) > 0 && steps < 16; steps++ {
		op := next() % 6
		table, i, ok := pick()
		if !ok {
			return
		}
		rows := e.rows[table]
		switch op {
		case 0: // a row twice
			e.rows[table] = slices.Insert(rows, next()%(len(rows)+1), clone(rows[i]))
		case 1: // a field of one row into another row, of any table
			to, j, _ := pick()
			k := field(rows[i])
			if _, has := e.rows[to][j][k]; has || next()%2 == 0 {
				e.rows[to][j][k] = clone(rows[i][k])
			}
		case 2: // a row fewer
			e.rows[table] = slices.Delete(rows, i, i+1)
		case 3: // a field set to an edge
			rows[i][field(rows[i])] = clone(snapEditValues[next()%len(snapEditValues)])
		case 4: // a row moved
			row := rows[i]
			rows = slices.Delete(rows, i, i+1)
			e.rows[table] = slices.Insert(rows, next()%(len(rows)+1), row)
		case 5: // a field gone
			delete(rows[i], field(rows[i]))
		}
	}
}

// clone deep-copies a decoded JSON value.
func clone[T any](v T) T {
	data, _ := json.Marshal(v)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out T
	_ = dec.Decode(&out)
	return out
}

// checkRunCounts compares the counts a restore builds of each DAG's runs,
// task instances and task instances with an id (runCount), and the
// blocks of ti_order, with a count of the rows.
func checkRunCounts(t *testing.T, store *Store) {
	t.Helper()
	txn := store.read()
	type counts struct{ runs, tis, ordered, blocks int }
	want, got := map[string]counts{}, map[string]counts{}
	for _, r := range must(allRows[DagRun](txn, tableDagRuns, "runs")) {
		c := want[r.DagID]
		c.runs++
		want[r.DagID] = c
	}
	for _, row := range must(allRows[runTasks](txn, tableTasks, "task instances")) {
		c := want[row.DagID]
		for _, ti := range row.TIs {
			c.tis++
			if ti.ID != "" {
				c.ordered, c.blocks = c.ordered+1, c.blocks+1
			}
		}
		want[row.DagID] = c
	}
	for _, rc := range must(allRows[runCount](txn, tableRunCounts, "run counts")) {
		if rc.DagID == allDAGs {
			continue
		}
		c := got[rc.DagID]
		c.runs, c.tis, c.ordered = rc.N, rc.TaskInstances, rc.OrderedTIs
		got[rc.DagID] = c
	}
	for _, b := range orderBlocks(t, txn) {
		c := got[b.DagID]
		c.blocks += b.N
		got[b.DagID] = c
	}
	for dagID, c := range got {
		if c == (counts{}) {
			delete(got, dagID)
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("counts restored (runs, task instances, with ids, in ti_order) by DAG %v, the rows make %v", got, want)
	}
}

// checkUniqueIndexesWhole checks that every unique index that every row
// has holds every row of its table: go-memdb lets a row under another
// row's key in such an index take its place there, hiding the other from
// the lookups and listings that read it.
func checkUniqueIndexesWhole(t *testing.T, store *Store) {
	t.Helper()
	txn := store.read()
	count := func(table, index string) int {
		it, err := txn.Get(table, index)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for raw := it.Next(); raw != nil; raw = it.Next() {
			n++
		}
		return n
	}
	for name, table := range schema().Tables {
		rows := count(name, indexID)
		for index, x := range table.Indexes {
			if x.Unique && !x.AllowMissing && index != indexID {
				if n := count(name, index); n != rows {
					t.Errorf("index %s of table %s holds %d of its %d rows", index, name, n, rows)
				}
			}
		}
	}
}
