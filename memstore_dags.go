package main

// The DAG table: loading definitions, paused flags, deleting a DAG.

import (
	"errors"
	"fmt"
	"slices"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// dagsTable holds one row per DAG id.
func dagsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableDags,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:   {Name: indexID, Unique: true, Indexer: stringField[DagRow]{func(r *DagRow) string { return r.DagID }}},
			indexRoot: {Name: indexRoot, AllowMissing: true, Indexer: stringField[DagRow]{func(r *DagRow) string { return r.RootDagID }}},
			// The DAGs an asset event queues: by each asset and alias
			// their schedules name.
			indexScheduledOn: {Name: indexScheduledOn, AllowMissing: true, Indexer: scheduledOnIndex{}},
		},
	}
}

// indexScheduledOn indexes DAG rows by the assets and aliases their asset
// schedules name (queueAssetEventTxn).
const indexScheduledOn = "scheduled_on"

// scheduledOnIndex keys a DAG row by scheduledOnAsset of each asset and
// scheduledOnAlias of each alias its definition's asset schedule names;
// FromArgs takes one such key.
type scheduledOnIndex struct{}

func scheduledOnAsset(name, uri string) string { return "asset\x00" + name + "\x00" + uri }
func scheduledOnAlias(name string) string      { return "alias\x00" + name }

func (scheduledOnIndex) FromObject(obj any) (bool, [][]byte, error) {
	r, ok := obj.(*DagRow)
	if !ok {
		return false, nil, fmt.Errorf("scheduled-on index: want *DagRow, got %T", obj)
	}
	// A stale DAG has no schedule references (dagAssetRefsTxn): no
	// event queues it.
	if !r.Active() || r.Def.AssetSchedule == nil {
		return false, nil, nil
	}
	var keys [][]byte
	for _, ref := range r.Def.AssetSchedule.refs() {
		keys = append(keys, []byte(scheduledOnAsset(ref.Name, ref.URI)+"\x00"))
	}
	for _, alias := range r.Def.AssetSchedule.aliases() {
		keys = append(keys, []byte(scheduledOnAlias(alias.Name)+"\x00"))
	}
	return len(keys) > 0, keys, nil
}

func (scheduledOnIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("scheduled-on index: want one key, got %d arguments", len(args))
	}
	k, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("scheduled-on index: want a string key, got %T", args[0])
	}
	return []byte(k + "\x00"), nil
}

// LoadDAGs replaces the DAG table with the given definitions. A DAG already
// known keeps its paused flag; a new one takes is_paused_upon_creation (a
// stale one given again is not stale any more). A definition that
// differs from its DAG's latest version is a new version. Rows whose
// definition is no longer given stay, without a definition, as Airflow
// keeps DagModel rows of vanished files; a stale row keeps its definition
// (built from what the snapshot kept, AttachKeptDefinitions), as Airflow
// 3 keeps a stale DAG's serialized DAG.
func (s *Store) LoadDAGs(set *DAGSet) error {
	now := s.clock()
	return s.updateIDs(func(txn *memdb.Txn) error {
		given := map[string]bool{}
		for _, d := range set.DAGs {
			given[d.DagID] = true
			row := &DagRow{DagID: d.DagID, IsPaused: d.IsPausedUponCreation, FileLoc: d.FilePath, RootDagID: d.ParentDagID, Def: d}
			if old, err := dagRowTxn(txn, d.DagID); err == nil {
				row.IsPaused = old.IsPaused
			}
			if err := txn.Insert(tableDags, row); err != nil {
				return fmt.Errorf("insert dag %s: %w", d.DagID, err)
			}
			if err := recordVersionTxn(txn, d, now); err != nil {
				return err
			}
		}
		rows, err := allDagRowsTxn(txn)
		if err != nil {
			return err
		}
		for _, row := range rows {
			if given[row.DagID] || row.Def == nil || row.Stale {
				continue
			}
			orphan := *row
			orphan.Def = nil
			if err := txn.Insert(tableDags, &orphan); err != nil {
				return fmt.Errorf("insert dag %s: %w", row.DagID, err)
			}
		}
		return s.ensurePoolsTxn(txn, set.Pools, false)
	})
}

// AttachKeptDefinitions gives each restored row whose definition the
// snapshot kept (DagRow.Kept, or its definitions file) and the DAG
// folder no longer gives the DAG built from it, defs[dag_id], and marks
// it stale; or, defs[dag_id] nil when it could not be built, leaves the
// row without a definition, as a restart used to. A row that has a
// definition by now is left alone.
func (s *Store) AttachKeptDefinitions(defs map[string]*DAG) error {
	if len(defs) == 0 {
		return nil
	}
	return s.update(func(txn *memdb.Txn) error {
		for id, d := range defs {
			row, err := dagRowTxn(txn, id)
			if errors.Is(err, errNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if row.Def != nil {
				continue
			}
			built := *row
			built.Def, built.Kept = d, nil
			if d != nil {
				built.Stale = true
			}
			if err := txn.Insert(tableDags, &built); err != nil {
				return fmt.Errorf("attach the kept definition of %s: %w", id, err)
			}
		}
		return nil
	})
}

// DAGFolderChange is what one reload of the DAG folder changed
// (dag_reload.go), applied in one transaction.
type DAGFolderChange struct {
	Upsert []*DAG   // definitions read again, or new
	Drop   []string // dag ids the folder no longer gives: inactive, runs kept
	// KeepStale: a dropped DAG keeps its definition, marked stale
	// (editionRules.staleKeepsDefinition); else its definition goes.
	KeepStale bool
	Pools     []*Pool           // the pools of a pools file read again
	Read      []string          // files read again: their import errors set or cleared
	Failed    map[string]string // file -> import error, of those read
	Gone      []string          // files no longer listed: their import errors go
	Now       time.Time         // when the files were read
}

// ReloadDAGs applies a reload of the DAG folder: a definition read again
// replaces the row's and keeps its paused flag and runs (a new DAG takes
// is_paused_upon_creation; a stale one is not stale any more), and is a
// new DAG version when it differs from the latest; a dropped DAG keeps
// its row and runs, as Airflow deactivates DagModel rows (2.10.3
// models/dag.py:4036-4062 deactivate_deleted_dags), without a
// definition, or with KeepStale its definition marked stale. A row a DAG
// loaded through /_airlite/dags holds is not the folder's to drop.
func (s *Store) ReloadDAGs(ch DAGFolderChange) error {
	now := s.clock()
	return s.updateIDs(func(txn *memdb.Txn) error {
		for _, d := range ch.Upsert {
			row := &DagRow{DagID: d.DagID, IsPaused: d.IsPausedUponCreation, FileLoc: d.FilePath, RootDagID: d.ParentDagID, Def: d}
			if old, err := dagRowTxn(txn, d.DagID); err == nil {
				row.IsPaused = old.IsPaused
			}
			if err := txn.Insert(tableDags, row); err != nil {
				return fmt.Errorf("insert dag %s: %w", d.DagID, err)
			}
			// A definition that differs from the latest version is a
			// new one, as at the start (LoadDAGs).
			if err := recordVersionTxn(txn, d, now); err != nil {
				return err
			}
		}
		for _, id := range ch.Drop {
			row, err := dagRowTxn(txn, id)
			if errors.Is(err, errNotFound) {
				continue // deleted through the API meanwhile
			}
			if err != nil {
				return err
			}
			if !row.Active() || row.FileLoc == loadedDAGFileLoc {
				continue
			}
			inactive := *row
			if ch.KeepStale {
				inactive.Stale = true
			} else {
				inactive.Def = nil
			}
			if err := txn.Insert(tableDags, &inactive); err != nil {
				return fmt.Errorf("deactivate dag %s: %w", id, err)
			}
		}
		if err := s.ensurePoolsTxn(txn, ch.Pools, false); err != nil {
			return err
		}
		if err := forgetImportErrorsTxn(txn, ch.Gone); err != nil {
			return err
		}
		return recordParseTxn(txn, ch.Read, ch.Failed, ch.Now)
	})
}

// DagByID returns the DAG row, or errNotFound.
func (s *Store) DagByID(dagID string) (*DagRow, error) { return dagRowTxn(s.read(), dagID) }

func dagRowTxn(txn *memdb.Txn, dagID string) (*DagRow, error) {
	raw, err := txn.First(tableDags, indexID, dagID)
	if err != nil {
		return nil, fmt.Errorf("look up dag %s: %w", dagID, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*DagRow), nil
}

// Dags lists every DAG row by dag_id.
func (s *Store) Dags() ([]*DagRow, error) {
	rows, err := allDagRowsTxn(s.read())
	if s.rowsRead != nil {
		s.rowsRead(len(rows))
	}
	return rows, err
}

// AnyDagNamed says whether a DAG's definition has a display name of its
// own, found by a walk of the DAG rows once per version of the DAG table
// (a DAG listing ordered by display name asks at each page).
func (s *Store) AnyDagNamed() (bool, error) {
	txn := s.read()
	it, err := txn.Get(tableDags, indexID)
	if err != nil {
		return false, fmt.Errorf("list dags: %w", err)
	}
	n, err := s.counts.count(it.WatchCh(), "dags named", func() (int, error) {
		read := 0
		defer func() {
			if s.rowsRead != nil {
				s.rowsRead(read)
			}
		}()
		for raw := it.Next(); raw != nil; raw = it.Next() {
			read++
			if r := raw.(*DagRow); r.Def != nil && r.Def.DisplayName != "" {
				return 1, nil
			}
		}
		return 0, nil
	})
	return n > 0, err
}

func allDagRowsTxn(txn *memdb.Txn) ([]*DagRow, error) {
	it, err := txn.Get(tableDags, indexID)
	if err != nil {
		return nil, fmt.Errorf("list dags: %w", err)
	}
	var rows []*DagRow
	for raw := it.Next(); raw != nil; raw = it.Next() {
		rows = append(rows, raw.(*DagRow))
	}
	return rows, nil
}

// DagTags are the distinct tags of the DAGs' definitions, sorted, in a
// slice no caller may change. A stale DAG's count: Airflow 3 keeps its
// DagTag rows (routes/public/dag_tags.py reads them all). They are read
// from the DAG rows once per change of the DAG table and remembered, so
// that a page of /dagTags costs the tags, not the DAGs.
func (s *Store) DagTags() ([]string, error) {
	txn := s.read()
	all, err := txn.Get(tableDags, indexID)
	if err != nil {
		return nil, fmt.Errorf("list dag tags: %w", err)
	}
	return s.dagTags.get(all.WatchCh(), func() ([]string, error) {
		seen := map[string]bool{}
		tags := []string{}
		read := 0
		for raw := all.Next(); raw != nil; raw = all.Next() {
			read++
			if row := raw.(*DagRow); row.Def != nil {
				for _, t := range row.Def.Tags {
					if !seen[t] {
						seen[t] = true
						tags = append(tags, t)
					}
				}
			}
		}
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
		slices.Sort(tags)
		return tags, nil
	})
}

// SetPaused sets the paused flag of a DAG and, with withSubDAGs, of every
// sub-DAG below it.
func (s *Store) SetPaused(dagID string, paused, withSubDAGs bool) error {
	return s.update(func(txn *memdb.Txn) error {
		ids := []string{dagID}
		for i := 0; i < len(ids); i++ {
			row, err := dagRowTxn(txn, ids[i])
			if err != nil {
				return err
			}
			updated := *row
			updated.IsPaused = paused
			if err := txn.Insert(tableDags, &updated); err != nil {
				return fmt.Errorf("pause dag %s: %w", ids[i], err)
			}
			if !withSubDAGs {
				break
			}
			children, err := txn.Get(tableDags, indexRoot, ids[i])
			if err != nil {
				return fmt.Errorf("list sub-dags of %s: %w", ids[i], err)
			}
			for raw := children.Next(); raw != nil; raw = children.Next() {
				ids = append(ids, raw.(*DagRow).DagID)
			}
		}
		return nil
	})
}

// DeleteDag removes a DAG, its sub-DAGs ("<dag_id>.…") and every run, task
// instance and lineage record of them, and returns how many rows went, as
// Airflow counts them. refuse, when non-nil, is checked inside the same
// transaction and stops the deletion with its error.
func (s *Store) DeleteDag(dagID string, refuse func(v storeView, dagIDs []string) error) (int, error) {
	count := 0
	err := s.update(func(txn *memdb.Txn) error {
		count = 0
		ids, err := dagAndSubDagIDsTxn(txn, dagID)
		if err != nil {
			return err
		}
		if refuse != nil {
			if err := refuse(storeView{txn}, ids); err != nil {
				return err
			}
		}
		if len(ids) == 0 {
			return errNotFound
		}
		for _, id := range ids {
			n, err := txn.DeleteAll(tableDags, indexID, id)
			if err != nil {
				return fmt.Errorf("delete dag %s: %w", id, err)
			}
			count += n
			// Task instances count one each, not one per run's row.
			tis, err := countTaskInstancesTxn(txn, id, nil)
			if err != nil {
				return err
			}
			if _, err := txn.DeleteAll(tableTasks, indexID+"_prefix", id, ""); err != nil {
				return fmt.Errorf("delete task instances of %s: %w", id, err)
			}
			if err := deleteTIOrderTxn(txn, id); err != nil {
				return err
			}
			if err := forgetRunsOfTxn(txn, id); err != nil {
				return err
			}
			if err := deleteMarksOfTxn(txn, id); err != nil {
				return err
			}
			count += tis
			for _, del := range []struct{ table, index string }{
				{tableDagRuns, indexDagAfter + "_prefix"},
				{tableLineage, indexID + "_prefix"},
			} {
				n, err := txn.DeleteAll(del.table, del.index, id, prefixEnd(del.table))
				if err != nil {
					return fmt.Errorf("delete %s of %s: %w", del.table, id, err)
				}
				count += n
			}
			// Captured output is not a database row in Airflow: not
			// counted. Earlier tries go with their task instances, as
			// Airflow's foreign key cascades: not counted either.
			for _, table := range []string{tableTaskLogs, tableTryHistory} {
				if _, err := txn.DeleteAll(table, indexID+"_prefix", id, ""); err != nil {
					return fmt.Errorf("delete %s of %s: %w", table, id, err)
				}
			}
			// XCom rows go with their task instances, as Airflow's
			// foreign key cascades: not counted.
			if err := deleteXComsTxn(txn, id, ""); err != nil {
				return err
			}
			// Versions go with the DAG, as dag_version's foreign key
			// cascades: not counted.
			if err := deleteVersionsTxn(txn, id); err != nil {
				return err
			}
			if err := deleteFavoritesTxn(txn, id); err != nil {
				return err
			}
			n, err = deleteBackfillsOfTxn(txn, id)
			if err != nil {
				return err
			}
			count += n
			// Asset events queued for the DAG go with it
			// (asset_dag_run_queue's adrq_dag_fkey cascades): not
			// counted, the row has target_dag_id, no dag_id.
			if _, err := txn.DeleteAll(tableAssetQueue, indexID+"_prefix", id+"\x00"); err != nil {
				return fmt.Errorf("delete the asset events queued for %s: %w", id, err)
			}
			if err := forgetRunCountTxn(txn, id); err != nil {
				return err
			}
		}
		return nil
	})
	return count, err
}

// prefixEnd is the last argument of a (dag_id, …) prefix query that ends
// the prefix exactly after dag_id.
func prefixEnd(table string) any {
	if table == tableDagRuns {
		return nil
	}
	return ""
}

// dagAndSubDagIDsTxn lists dagID (when it exists) and every DAG id that
// starts with "dagID.", as Airflow's delete_dag does.
func dagAndSubDagIDsTxn(txn *memdb.Txn, dagID string) ([]string, error) {
	var ids []string
	if _, err := dagRowTxn(txn, dagID); err == nil {
		ids = append(ids, dagID)
	} else if !errors.Is(err, errNotFound) {
		return nil, err
	}
	it, err := txn.Get(tableDags, indexID+"_prefix", dagID+".")
	if err != nil {
		return nil, fmt.Errorf("list sub-dags of %s: %w", dagID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		ids = append(ids, raw.(*DagRow).DagID)
	}
	return ids, nil
}

// UpsertDAG adds or replaces one DAG definition. A replaced DAG keeps its
// paused flag and its runs; a changed definition is a new version. A new DAG loaded at runtime (FilePath
// loadedDAGFileLoc) is refused at the store's LoadedDAGs limit.
func (s *Store) UpsertDAG(d *DAG) (replaced bool, err error) {
	now := s.clock()
	err = s.update(func(txn *memdb.Txn) error {
		row := &DagRow{DagID: d.DagID, IsPaused: d.IsPausedUponCreation, FileLoc: d.FilePath, RootDagID: d.ParentDagID, Def: d}
		old, err := dagRowTxn(txn, d.DagID)
		switch {
		case err == nil:
			row.IsPaused, replaced = old.IsPaused, true
		case !errors.Is(err, errNotFound):
			return err
		case d.FilePath == loadedDAGFileLoc:
			if err := enforceLoadedDAGLimitTxn(txn, s.limits.LoadedDAGs); err != nil {
				return err
			}
		}
		if err := txn.Insert(tableDags, row); err != nil {
			return fmt.Errorf("insert dag %s: %w", d.DagID, err)
		}
		return recordVersionTxn(txn, d, now)
	})
	return replaced, err
}

// enforceLoadedDAGLimitTxn refuses one more DAG loaded at runtime at max
// such DAGs (--max-dags). The DAG table holds the DAG folder's DAGs and at
// most max more, so it counts them.
func enforceLoadedDAGLimitTxn(txn *memdb.Txn, max int) error {
	if max <= 0 {
		return nil
	}
	rows, err := allDagRowsTxn(txn)
	if err != nil {
		return err
	}
	n := 0
	for _, row := range rows {
		if row.FileLoc == loadedDAGFileLoc {
			n++
		}
	}
	if n < max {
		return nil
	}
	return &limitError{limit: limitDags, have: int64(n)}
}

// ResetPaused puts every DAG's paused flag back to what its definition
// says.
func (s *Store) ResetPaused() error {
	return s.update(func(txn *memdb.Txn) error {
		rows, err := allDagRowsTxn(txn)
		if err != nil {
			return err
		}
		for _, row := range rows {
			if row.Def == nil || row.IsPaused == row.Def.IsPausedUponCreation {
				continue
			}
			updated := *row
			updated.IsPaused = row.Def.IsPausedUponCreation
			if err := txn.Insert(tableDags, &updated); err != nil {
				return fmt.Errorf("reset paused flag of %s: %w", row.DagID, err)
			}
		}
		return nil
	})
}

// tableDagFavorites holds which users marked which DAGs as favorite
// (Airflow 3's dag_favorite table).
const tableDagFavorites = "dag_favorites"

// DagFavorite is one user's mark on one DAG.
type DagFavorite struct {
	DagID  string
	UserID string
}

// dagFavoritesTable holds favorites by (dag_id, user_id).
func dagFavoritesTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableDagFavorites,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				stringField[DagFavorite]{func(f *DagFavorite) string { return f.DagID }},
				stringField[DagFavorite]{func(f *DagFavorite) string { return f.UserID }},
			}}},
		},
	}
}

// SetFavorite marks (on) or unmarks a DAG as a user's favorite: errNotFound
// when the DAG has no row, errExists when marking a marked one, and
// errNotFound wrapped in a favoriteMissing when unmarking an unmarked one.
func (s *Store) SetFavorite(dagID, userID string, on bool) error {
	return s.update(func(txn *memdb.Txn) error {
		if _, err := dagRowTxn(txn, dagID); err != nil {
			return err
		}
		raw, err := txn.First(tableDagFavorites, indexID, dagID, userID)
		if err != nil {
			return fmt.Errorf("look up favorite %s of %s: %w", dagID, userID, err)
		}
		switch {
		case on && raw != nil:
			return errExists
		case on:
			if err := txn.Insert(tableDagFavorites, &DagFavorite{DagID: dagID, UserID: userID}); err != nil {
				return fmt.Errorf("mark favorite %s of %s: %w", dagID, userID, err)
			}
		case raw == nil:
			return errFavoriteMissing
		default:
			if err := txn.Delete(tableDagFavorites, raw); err != nil {
				return fmt.Errorf("unmark favorite %s of %s: %w", dagID, userID, err)
			}
		}
		return nil
	})
}

// errFavoriteMissing is an unmark of a DAG the user had not marked.
var errFavoriteMissing = errors.New("not a favorite")

// FavoriteDagIDs is the set of DAG ids a user marked.
func (s *Store) FavoriteDagIDs(userID string) (map[string]bool, error) {
	it, err := s.read().Get(tableDagFavorites, indexID)
	if err != nil {
		return nil, fmt.Errorf("list favorites: %w", err)
	}
	out := map[string]bool{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if f := raw.(*DagFavorite); f.UserID == userID {
			out[f.DagID] = true
		}
	}
	return out, nil
}

// IsFavorite reports whether a user marked a DAG: one lookup (rowsRead
// hears of it).
func (s *Store) IsFavorite(dagID, userID string) (bool, error) {
	raw, err := s.read().First(tableDagFavorites, indexID, dagID, userID)
	if err != nil {
		return false, fmt.Errorf("look up favorite %s of %s: %w", dagID, userID, err)
	}
	if s.rowsRead != nil && raw != nil {
		s.rowsRead(1)
	}
	return raw != nil, nil
}

// deleteFavoritesTxn removes a DAG's favorites, as deleting a DagModel
// cascades to dag_favorite.
func deleteFavoritesTxn(txn *memdb.Txn, dagID string) error {
	it, err := txn.Get(tableDagFavorites, indexID+"_prefix", dagID)
	if err != nil {
		return fmt.Errorf("list favorites of %s: %w", dagID, err)
	}
	var doomed []any
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if raw.(*DagFavorite).DagID == dagID {
			doomed = append(doomed, raw)
		}
	}
	for _, raw := range doomed {
		if err := txn.Delete(tableDagFavorites, raw); err != nil {
			return fmt.Errorf("delete favorite of %s: %w", dagID, err)
		}
	}
	return nil
}
