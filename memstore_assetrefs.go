package main

// What the DAG definitions say of assets and aliases: the assets they
// name and who names each, derived from the DAG rows once per version of
// the DAG table; and, once per version of the DAG, asset and alias tables,
// those assets registered (as Airflow registers the assets a parsed DAG
// references) with their references recorded and dated (Airflow's
// reference rows), and kept in the orders of an asset listing, with every
// asset's aliases. A listing of assets then reads its page (issue #21:
// lists cost O(limit)), where it read every DAG, asset and alias.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// Indexes of the asset table beside id and (name, uri): get_assets'
// orders by name, uri, created_at and updated_at, ties by id (go-memdb
// puts the primary key after a non-unique index's value).
const (
	indexAssetName    = "name"
	indexAssetURI     = "uri"
	indexAssetCreated = "created_at"
	indexAssetUpdated = "updated_at"
	// indexAssetReferenced: whether the asset has references recorded.
	indexAssetReferenced = "referenced"
)

// assetTaskRef is a task that names an asset (an outlet or an inlet).
type assetTaskRef struct {
	DagID, TaskID string
}

// assetNaming is what the DAG definitions say of one asset: the tasks
// that have it among their outlets (Producing) and inlets (Consuming),
// and the DAGs scheduled on it (Airflow's DagScheduleAssetReference
// rows), by dag_id. An asset with any is active (AssetModel.active:
// Airflow keeps an AssetActive row for every asset a parsed DAG
// references).
type assetNaming struct {
	Producing, Consuming []assetTaskRef
	Scheduled            []string
}

// namedBy says whether one of dagIDs is scheduled on the asset, produces
// it or reads it (_DagIdAssetReferenceFilter: scheduled_dags,
// producing_tasks, consuming_tasks).
func (n assetNaming) namedBy(dagIDs []string) bool {
	in := func(r assetTaskRef) bool { return slices.Contains(dagIDs, r.DagID) }
	return slices.ContainsFunc(n.Scheduled, func(id string) bool { return slices.Contains(dagIDs, id) }) ||
		slices.ContainsFunc(n.Producing, in) || slices.ContainsFunc(n.Consuming, in)
}

// assetRefKey is a reference without its date.
type assetRefKey struct {
	kind          AssetRefKind
	dagID, taskID string
}

// keys are the references the naming makes, each once, in its order.
func (n assetNaming) keys() []assetRefKey {
	var out []assetRefKey
	add := func(k assetRefKey) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, id := range n.Scheduled {
		add(assetRefKey{AssetScheduled, id, ""})
	}
	for _, r := range n.Producing {
		add(assetRefKey{AssetProducing, r.DagID, r.TaskID})
	}
	for _, r := range n.Consuming {
		add(assetRefKey{AssetConsuming, r.DagID, r.TaskID})
	}
	return out
}

func (r AssetReference) key() assetRefKey { return assetRefKey{r.Kind, r.DagID, r.TaskID} }

// recordedAs says whether refs are exactly the references n makes.
func (n assetNaming) recordedAs(refs []AssetReference) bool {
	keys := n.keys()
	if len(keys) != len(refs) {
		return false
	}
	for _, r := range refs {
		if !slices.Contains(keys, r.key()) {
			return false
		}
	}
	return true
}

// recordReferences are the references n makes as the DAG processor
// stores them over old: those already stored keep their date, the new
// ones are dated now, those n no longer makes go (c57fba0e
// dag_processing/collection.py add_dag_asset_references,
// add_task_asset_references: a parse inserts the rows not stored yet,
// each created_at and updated_at the insert's timezone.utcnow, deletes
// the rows the DAG no longer has and updates none; 2.10.3's
// bulk_write_to_db reconciles its dataset references the same way).
func recordReferences(old []AssetReference, n assetNaming, now time.Time) []AssetReference {
	keys := n.keys()
	if len(keys) == 0 {
		return nil
	}
	out := make([]AssetReference, 0, len(keys))
	for _, k := range keys {
		since := now
		if i := slices.IndexFunc(old, func(r AssetReference) bool { return r.key() == k }); i >= 0 {
			since = old[i].Since
		}
		out = append(out, AssetReference{Kind: k.kind, DagID: k.dagID, TaskID: k.taskID, Since: since})
	}
	return out
}

// ReferenceSince is when the asset's reference of kind by dagID (and
// taskID) was recorded: its created_at and updated_at. A reference not
// recorded (none is, once NamedAssets answered) shows the asset's date.
func (a *Asset) ReferenceSince(kind AssetRefKind, dagID, taskID string) time.Time {
	k := assetRefKey{kind, dagID, taskID}
	for _, r := range a.References {
		if r.key() == k {
			return r.Since
		}
	}
	return a.CreatedAt
}

// assetKey is an asset's identity, its name and uri, as one string.
func assetKey(name, uri string) string { return name + "\x00" + uri }

// dagAssetRefs is what the DAG definitions say of assets and aliases: the
// assets they name, in DAG and task order, each once; what they say of
// each (by assetKey); the aliases they name (in their schedules, outlets
// and inlets), each name once, in the same order.
type dagAssetRefs struct {
	refs    []assetRef
	naming  map[string]*assetNaming
	aliases []aliasRef
}

// dagAssetRefsTxn reads it from the DAG rows that have a definition, and
// says how many rows it read.
func dagAssetRefsTxn(txn *memdb.Txn) (*dagAssetRefs, int, error) {
	rows, err := allDagRowsTxn(txn)
	if err != nil {
		return nil, 0, err
	}
	out := &dagAssetRefs{naming: map[string]*assetNaming{}}
	aliasSeen := map[string]bool{}
	addAlias := func(r aliasRef) {
		if !aliasSeen[r.Name] {
			aliasSeen[r.Name] = true
			out.aliases = append(out.aliases, r)
		}
	}
	namingOf := func(ref assetRef) *assetNaming {
		k := assetKey(ref.Name, ref.URI)
		n := out.naming[k]
		if n == nil {
			n = &assetNaming{}
			out.naming[k] = n
			out.refs = append(out.refs, ref)
		}
		return n
	}
	note := func(v any, dagID, taskID string, producing bool) {
		v = normalizeYAML(v)
		if alias, ok := aliasOf(v); ok {
			addAlias(alias)
			return
		}
		ref, ok := assetOf(v)
		if !ok {
			return
		}
		n := namingOf(ref)
		if producing {
			n.Producing = append(n.Producing, assetTaskRef{DagID: dagID, TaskID: taskID})
		} else {
			n.Consuming = append(n.Consuming, assetTaskRef{DagID: dagID, TaskID: taskID})
		}
	}
	for _, row := range rows {
		// A stale DAG names no asset: Airflow 3 deletes its references
		// when it goes stale (models/asset.py
		// remove_references_to_deleted_dags, apache/airflow#47903).
		if !row.Active() {
			continue
		}
		for _, ref := range row.Def.AssetSchedule.refs() {
			n := namingOf(ref)
			n.Scheduled = append(n.Scheduled, row.DagID)
		}
		for _, alias := range row.Def.AssetSchedule.aliases() {
			addAlias(alias)
		}
		for _, t := range row.Def.Tasks {
			for _, v := range t.Outlets {
				note(v, row.DagID, t.TaskID, true)
			}
			for _, v := range t.Inlets {
				note(v, row.DagID, t.TaskID, false)
			}
		}
	}
	return out, len(rows), nil
}

// assetOrder is an order of an asset listing an index keeps.
type assetOrder int

const (
	assetByID assetOrder = iota
	assetByName
	assetByURI
	assetByCreated
	assetByUpdated
	assetOrders // how many
)

// index is the asset table's index in the order.
func (o assetOrder) index() string {
	return [...]string{indexID, indexAssetName, indexAssetURI, indexAssetCreated, indexAssetUpdated}[o]
}

// compare orders two assets by the order's attribute alone.
func (o assetOrder) compare(a, b *Asset) int {
	switch o {
	case assetByName:
		return strings.Compare(a.Name, b.Name)
	case assetByURI:
		return strings.Compare(a.URI, b.URI)
	case assetByCreated:
		return a.CreatedAt.Compare(b.CreatedAt)
	case assetByUpdated:
		return a.UpdatedAt.Compare(b.UpdatedAt)
	}
	return cmp.Compare(a.ID, b.ID)
}

// NamedAssets is what the DAG definitions say of assets, with the assets
// they name (the active ones, every one registered) and every asset's
// aliases. It is shared: no caller may change it.
type NamedAssets struct {
	refs *dagAssetRefs
	// active are the assets the DAGs name, by id; the other orders (ties
	// by id) are sorted from it when first asked for.
	active []*Asset
	sorted [assetOrders - 1]struct {
		once sync.Once
		rows []*Asset
	}
	// byDag are the assets each DAG names, by id: all (a schedule, an
	// outlet, an inlet), and those it produces or is scheduled on; made
	// when first asked for.
	byDag struct {
		once                   sync.Once
		all, producedScheduled map[string][]*Asset
	}
	// counts are how many named assets a filter picks, by its name
	// (patternKeep's countKey), at most maxTreeCounts of them.
	counts struct {
		mu sync.Mutex
		of map[string]int
	}
	// aliasesOf are the aliases events came to each asset through
	// (AssetModel.aliases), by alias id, by asset id.
	aliasesOf map[int64][]*AssetAlias
	// rowsRead is the store's hook (tests): it hears how many of the
	// named assets a listing reads.
	rowsRead func(n int)
}

// noteRead tells the hook, when there is one, that n named assets were read.
func (n *NamedAssets) noteRead(k int) {
	if n.rowsRead != nil {
		n.rowsRead(k)
	}
}

// Naming is what the DAGs say of a.
func (n *NamedAssets) Naming(a *Asset) assetNaming {
	if w := n.refs.naming[assetKey(a.Name, a.URI)]; w != nil {
		return *w
	}
	return assetNaming{}
}

// Aliases are the aliases events came to the asset with id through.
func (n *NamedAssets) Aliases(id int64) []*AssetAlias { return n.aliasesOf[id] }

// Active are the assets the DAGs name, by id: every one is read.
func (n *NamedAssets) Active() []*Asset {
	n.noteRead(len(n.active))
	return n.active
}

// Page is a page of the assets the DAGs name in order (ties by id in the
// order's direction: SortParam's primary key), descending when desc, of
// those keep picks (nil: all), and how many it picks. Without keep it
// reads the page alone; with keep, the assets of the order up to the
// page's last, and every one once per version of the tables and countKey
// (patternKeep's; "": at each page) to count them.
func (n *NamedAssets) Page(order assetOrder, desc bool, offset, limit int, keep func(*Asset) bool, countKey string) ([]*Asset, int) {
	rows := n.active
	if order != assetByID {
		s := &n.sorted[order-1]
		s.once.Do(func() {
			s.rows = slices.Clone(n.active)
			slices.SortStableFunc(s.rows, order.compare) // stable: ties stay by id
			n.noteRead(len(n.active))
		})
		rows = s.rows
	}
	total := len(rows)
	at := func(i int) *Asset {
		if desc {
			return rows[total-1-i]
		}
		return rows[i]
	}
	if keep == nil {
		page := make([]*Asset, 0, max(0, min(limit, total-offset)))
		for i := offset; i < total && len(page) < limit; i++ {
			page = append(page, at(i))
		}
		n.noteRead(len(page))
		return page, total
	}
	picked, known := n.count(countKey)
	page := []*Asset{}
	if known {
		// The page ends at the last asset the filter picks.
		if offset >= picked {
			return page, picked
		}
		limit = min(limit, picked-offset)
	}
	read, seen := 0, 0
	for i := 0; i < total && (!known || len(page) < limit); i++ {
		read++
		a := at(i)
		if !keep(a) {
			continue
		}
		if seen >= offset && len(page) < limit {
			page = append(page, a)
		}
		seen++
	}
	n.noteRead(read)
	if !known {
		picked = seen
		n.remember(countKey, picked)
	}
	return page, picked
}

// count is the remembered count of the named assets the filter countKey
// names picks ("": none is remembered).
func (n *NamedAssets) count(countKey string) (int, bool) {
	if countKey == "" {
		return 0, false
	}
	n.counts.mu.Lock()
	defer n.counts.mu.Unlock()
	c, ok := n.counts.of[countKey]
	return c, ok
}

// remember keeps the count of the filter countKey names; past
// maxTreeCounts filters the counts start again.
func (n *NamedAssets) remember(countKey string, c int) {
	if countKey == "" {
		return
	}
	n.counts.mu.Lock()
	defer n.counts.mu.Unlock()
	if n.counts.of == nil || len(n.counts.of) >= maxTreeCounts {
		n.counts.of = map[string]int{}
	}
	n.counts.of[countKey] = c
}

// NamedBy are the assets dagIDs name, by id, each once: those a DAG is
// scheduled on, produces or (with inlets) reads (v2's
// _DagIdAssetReferenceFilter; 2.10.3's get_datasets leaves the inlets
// out). It reads those assets: the lists of each DAG's are made once per
// version of the tables.
func (n *NamedAssets) NamedBy(dagIDs []string, inlets bool) []*Asset {
	n.byDag.once.Do(func() {
		n.byDag.all, n.byDag.producedScheduled = map[string][]*Asset{}, map[string][]*Asset{}
		for _, a := range n.active { // by id: each DAG's list is too
			w := n.refs.naming[assetKey(a.Name, a.URI)]
			if w == nil {
				continue
			}
			var all, ps []string
			add := func(list *[]string, id string) {
				if !slices.Contains(*list, id) {
					*list = append(*list, id)
				}
			}
			for _, id := range w.Scheduled {
				add(&all, id)
				add(&ps, id)
			}
			for _, r := range w.Producing {
				add(&all, r.DagID)
				add(&ps, r.DagID)
			}
			for _, r := range w.Consuming {
				add(&all, r.DagID)
			}
			for _, id := range all {
				n.byDag.all[id] = append(n.byDag.all[id], a)
			}
			for _, id := range ps {
				n.byDag.producedScheduled[id] = append(n.byDag.producedScheduled[id], a)
			}
		}
	})
	of := n.byDag.producedScheduled
	if inlets {
		of = n.byDag.all
	}
	var out []*Asset
	for i, id := range dagIDs {
		if !slices.Contains(dagIDs[:i], id) {
			out = append(out, of[id]...)
		}
	}
	n.noteRead(len(out))
	slices.SortFunc(out, func(a, b *Asset) int { return cmp.Compare(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b *Asset) bool { return a.ID == b.ID })
}

// namedAssetsMemo remembers NamedAssets for the DAG, asset and alias
// tables as they stood (treeValue's reasoning, over three tables).
type namedAssetsMemo struct {
	mu    sync.Mutex
	roots [3]<-chan struct{}
	value *NamedAssets
}

// NamedAssets registers the assets and aliases the DAG definitions name
// that are not registered yet (assets at now), with redefine gives the
// registered ones the group and extra the definitions give them
// (defineAssetTxn), and answers what the DAGs
// say of assets. Asked again with the DAG, asset and alias tables as they
// were, it reads nothing; after a change of them it reads the assets and
// aliases the DAGs name, and every alias, once.
func (s *Store) NamedAssets(now time.Time, redefine bool) (*NamedAssets, error) {
	txn := s.read()
	var roots [3]<-chan struct{}
	for i, table := range []string{tableDags, tableAssets, tableAssetAliases} {
		it, err := txn.Get(table, indexID)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", table, err)
		}
		roots[i] = it.WatchCh()
	}
	s.namedAssets.mu.Lock()
	if v := s.namedAssets.value; v != nil && s.namedAssets.roots == roots {
		s.namedAssets.mu.Unlock()
		return v, nil
	}
	s.namedAssets.mu.Unlock()
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	refs, err := s.assetRefs.get(roots[0], func() (*dagAssetRefs, error) {
		refs, n, err := dagAssetRefsTxn(txn)
		read += n
		return refs, err
	})
	if err != nil {
		return nil, err
	}
	named, missing, missingAliases, n, err := namedAssetsTxn(txn, refs, redefine, s.rowsRead)
	read += n
	if err != nil {
		return nil, err
	}
	unrecorded, n, err := unrecordedReferencesTxn(txn, refs)
	read += n
	if err != nil {
		return nil, err
	}
	if len(missing) == 0 && len(missingAliases) == 0 && !unrecorded {
		s.namedAssets.mu.Lock()
		s.namedAssets.roots, s.namedAssets.value = roots, named
		s.namedAssets.mu.Unlock()
		return named, nil
	}
	// Register them, and answer from the write; the next call finds them
	// all and remembers its answer.
	err = s.update(func(txn *memdb.Txn) error {
		for _, r := range missing {
			if err := defineAssetTxn(txn, r, now); err != nil {
				return err
			}
		}
		for _, r := range missingAliases {
			if err := defineAliasTxn(txn, r); err != nil {
				return err
			}
		}
		if err := recordReferencesTxn(txn, refs, now); err != nil {
			return err
		}
		named, _, _, n, err = namedAssetsTxn(txn, refs, redefine, s.rowsRead)
		read += n
		return err
	})
	return named, err
}

// unrecordedReferencesTxn says whether an asset's recorded references
// differ from what the DAGs say of it now: a registered asset the DAGs
// name, or one with references that they no longer name (or not as
// recorded); and how many assets it read.
func unrecordedReferencesTxn(txn *memdb.Txn, refs *dagAssetRefs) (bool, int, error) {
	read := 0
	differs := false
	err := walkReferencedAssetsTxn(txn, refs, func(a *Asset, n assetNaming) error {
		read++
		differs = differs || !n.recordedAs(a.References)
		return nil
	})
	return differs, read, err
}

// recordReferencesTxn records the references of every asset whose
// recorded ones differ from what the DAGs say of it now, dating the new
// ones now (recordReferences); the asset's own dates stay, as Airflow's
// asset row is not written.
func recordReferencesTxn(txn *memdb.Txn, refs *dagAssetRefs, now time.Time) error {
	var changed []*Asset
	err := walkReferencedAssetsTxn(txn, refs, func(a *Asset, n assetNaming) error {
		if !n.recordedAs(a.References) {
			next := *a
			next.References = recordReferences(a.References, n, now)
			changed = append(changed, &next)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, a := range changed {
		if err := txn.Insert(tableAssets, a); err != nil {
			return fmt.Errorf("record the references of asset %s: %w", a.URI, err)
		}
	}
	return nil
}

// walkReferencedAssetsTxn calls visit with each registered asset the
// DAGs name and what they say of it, then with each other asset that
// has references recorded and an empty naming. Assets the DAGs name that
// are not registered yet are passed over.
func walkReferencedAssetsTxn(txn *memdb.Txn, refs *dagAssetRefs, visit func(*Asset, assetNaming) error) error {
	named := make(map[int64]bool, len(refs.refs))
	for _, r := range refs.refs {
		raw, err := txn.First(tableAssets, "name_uri", assetKey(r.Name, r.URI))
		if err != nil {
			return fmt.Errorf("look up asset %s: %w", r.URI, err)
		}
		if raw == nil {
			continue
		}
		a := raw.(*Asset)
		named[a.ID] = true
		if err := visit(a, *refs.naming[assetKey(r.Name, r.URI)]); err != nil {
			return err
		}
	}
	it, err := txn.Get(tableAssets, indexAssetReferenced, true)
	if err != nil {
		return fmt.Errorf("list the assets with references: %w", err)
	}
	var unnamed []*Asset
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if a := raw.(*Asset); !named[a.ID] {
			unnamed = append(unnamed, a)
		}
	}
	for _, a := range unnamed {
		if err := visit(a, assetNaming{}); err != nil {
			return err
		}
	}
	return nil
}

// definedAs reports whether the asset has the group and extra a DAG
// file gives it (extra compared as compact JSON: a restored snapshot
// may have spaced it otherwise).
func (a *Asset) definedAs(r assetRef) bool {
	return a.Group == r.group() && sameJSON(a.Extra, r.extra())
}

func (r assetRef) group() string { return cmp.Or(r.Group, "asset") }

func (r assetRef) extra() json.RawMessage {
	if r.Extra == nil {
		return json.RawMessage("{}")
	}
	return r.Extra
}

func (r aliasRef) group() string { return cmp.Or(r.Group, assetAliasDefaultGroup) }

func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// defineAssetTxn registers the asset a DAG file names, or gives the
// registered one the file's group and extra, as the DAG processor
// overwrites them at every parse (dag_processing/collection.py
// AssetModelCollection.sync_assets); updated_at follows, as the row's
// onupdate sets it.
func defineAssetTxn(txn *memdb.Txn, r assetRef, now time.Time) error {
	a, err := ensureAssetTxn(txn, r, now)
	if err != nil || a.definedAs(r) {
		return err
	}
	next := *a
	next.Group, next.Extra, next.UpdatedAt = r.group(), r.extra(), now
	if err := txn.Insert(tableAssets, &next); err != nil {
		return fmt.Errorf("update asset %s: %w", r.URI, err)
	}
	return nil
}

// defineAliasTxn registers the alias a DAG file names, or gives the
// registered one the file's group (sync_asset_aliases).
func defineAliasTxn(txn *memdb.Txn, r aliasRef) error {
	a, err := ensureAliasTxn(txn, r)
	if err != nil || a.Group == r.group() {
		return err
	}
	next := *a
	next.Group = r.group()
	if err := txn.Insert(tableAssetAliases, &next); err != nil {
		return fmt.Errorf("update asset alias %s: %w", r.Name, err)
	}
	return nil
}

// namedAssetsTxn looks up the assets and aliases refs name: NamedAssets
// of those found, the refs of those not registered, and how many rows it
// read.
func namedAssetsTxn(txn *memdb.Txn, refs *dagAssetRefs, redefine bool, rowsRead func(int)) (*NamedAssets, []assetRef, []aliasRef, int, error) {
	named := &NamedAssets{refs: refs, active: make([]*Asset, 0, len(refs.refs)), aliasesOf: map[int64][]*AssetAlias{}, rowsRead: rowsRead}
	var missing []assetRef
	var missingAliases []aliasRef
	read := 0
	for _, r := range refs.refs {
		raw, err := txn.First(tableAssets, "name_uri", assetKey(r.Name, r.URI))
		if err != nil {
			return nil, nil, nil, read, fmt.Errorf("look up asset %s: %w", r.URI, err)
		}
		read++
		switch {
		case raw == nil:
			missing = append(missing, r)
		case redefine && !raw.(*Asset).definedAs(r):
			missing = append(missing, r) // to take the DAG file's group and extra
			named.active = append(named.active, raw.(*Asset))
		default:
			named.active = append(named.active, raw.(*Asset))
		}
	}
	slices.SortFunc(named.active, func(a, b *Asset) int { return cmp.Compare(a.ID, b.ID) })
	for _, r := range refs.aliases {
		raw, err := txn.First(tableAssetAliases, "name", r.Name)
		if err != nil {
			return nil, nil, nil, read, fmt.Errorf("look up asset alias %s: %w", r.Name, err)
		}
		read++
		if raw == nil || (redefine && raw.(*AssetAlias).Group != r.group()) {
			missingAliases = append(missingAliases, r)
		}
	}
	aliases, err := allRows[AssetAlias](txn, tableAssetAliases, "asset aliases")
	if err != nil {
		return nil, nil, nil, read, err
	}
	read += len(aliases)
	for _, al := range aliases {
		for _, id := range al.AssetIDs {
			named.aliasesOf[id] = append(named.aliasesOf[id], al)
		}
	}
	return named, missing, missingAliases, read, nil
}

// AssetPage is a page of every asset in order, descending when desc,
// ties by id in the walk's direction or, with tiesUp, ascending
// (listKeyed's last key), of the assets keep picks (nil: all), and how
// many it picks (tablePageOf: a count remembered per version of the table
// under countKey, which names keep).
func (s *Store) AssetPage(order assetOrder, desc, tiesUp bool, offset, limit int, keep func(*Asset) bool, countKey string) ([]*Asset, int, error) {
	var tied func(a, b *Asset) bool
	if desc && tiesUp && order != assetByID {
		tied = func(a, b *Asset) bool { return order.compare(a, b) == 0 }
	}
	if keep == nil {
		countKey = "all"
	}
	return tablePageOf(s, tableAssets, order.index(), nil, desc, offset, limit, keep, tied, countKey)
}
