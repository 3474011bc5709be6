package main

// Asset aliases (Airflow 3's AssetAliasModel, airflow/models/asset.py): an
// alias is registered the first time a DAG names it (a task's outlet or
// inlet, or its schedule) or an event comes through it; an event a task
// adds through an alias (outlet_events[AssetAlias(name)].add(asset))
// attaches the asset to the alias and records the event with the alias
// among its sources (assets/manager.py register_asset_change,
// _add_asset_alias_association).

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

const (
	tableAssetAliases      = "asset_aliases"
	counterAssetAliasID    = "asset_alias"
	assetAliasDefaultGroup = "asset"
)

// AssetAlias is an asset alias: its identity is its name. AssetIDs are
// the assets events came to through it, in the order they first came
// (the asset_alias_asset association).
type AssetAlias struct {
	ID       int64
	Name     string
	Group    string
	AssetIDs []int64
}

// aliasRef is an alias as a DAG names it.
type aliasRef struct {
	Name, Group string
}

// aliasEvent is one event a task added through an alias: the asset it
// names (registered if new) and the event's extra (a JSON object).
type aliasEvent struct {
	Alias aliasRef
	Asset assetRef
	Extra json.RawMessage
}

// assetAliasesTable holds aliases by id, and by name.
func assetAliasesTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableAssetAliases,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: intField[AssetAlias]{func(a *AssetAlias) int64 { return a.ID }}},
			"name":  {Name: "name", Unique: true, Indexer: stringField[AssetAlias]{func(a *AssetAlias) string { return a.Name }}},
		},
	}
}

// AssetAliases lists every alias by id.
func (s *Store) AssetAliases() ([]*AssetAlias, error) {
	return allRows[AssetAlias](s.read(), tableAssetAliases, "asset aliases")
}

// AssetAliasByID is one alias, or errNotFound.
func (s *Store) AssetAliasByID(id int64) (*AssetAlias, error) {
	txn := s.read()
	raw, err := txn.First(tableAssetAliases, indexID, id)
	if err != nil {
		return nil, fmt.Errorf("look up asset alias %d: %w", id, err)
	}
	if s.rowsRead != nil {
		s.rowsRead(1)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*AssetAlias), nil
}

// EnsureAssetAliases registers the aliases refs name that are not
// registered yet, in the order given.
func (s *Store) EnsureAssetAliases(refs []aliasRef) error {
	txn := s.read()
	missing := slices.DeleteFunc(slices.Clone(refs), func(r aliasRef) bool {
		raw, err := txn.First(tableAssetAliases, "name", r.Name)
		return err == nil && raw != nil
	})
	if len(missing) == 0 {
		return nil // nothing to write: reads stay reads
	}
	return s.update(func(txn *memdb.Txn) error {
		for _, r := range missing {
			if _, err := ensureAliasTxn(txn, r); err != nil {
				return err
			}
		}
		return nil
	})
}

// ensureAliasTxn is the alias r names, registered if new.
func ensureAliasTxn(txn *memdb.Txn, r aliasRef) (*AssetAlias, error) {
	raw, err := txn.First(tableAssetAliases, "name", r.Name)
	if err != nil {
		return nil, fmt.Errorf("look up asset alias %s: %w", r.Name, err)
	}
	if raw != nil {
		return raw.(*AssetAlias), nil
	}
	id, err := nextCounter(txn, counterAssetAliasID)
	if err != nil {
		return nil, err
	}
	a := &AssetAlias{ID: id, Name: r.Name, Group: r.group()}
	if err := txn.Insert(tableAssetAliases, a); err != nil {
		return nil, fmt.Errorf("store asset alias %s: %w", r.Name, err)
	}
	return a, nil
}

// recordAliasEventsTxn records the events a successful try added
// through aliases: each one's asset registered if new (the task runner
// creates an asset an alias names for the first time), attached to its
// alias, and an event of it with the alias among its sources; events of
// one asset with the same extra are one event through every alias that
// named them (register_asset_changes_in_db groups them so).
func recordAliasEventsTxn(txn *memdb.Txn, ti *TaskInstance, events []aliasEvent, at time.Time) error {
	if ti.State != TaskSuccess {
		return nil
	}
	for _, g := range groupAliasEvents(events) {
		a, err := ensureAssetTxn(txn, g.asset, at)
		if err != nil {
			return err
		}
		var aliasIDs []int64
		for _, r := range g.aliases {
			alias, err := ensureAliasTxn(txn, r)
			if err != nil {
				return err
			}
			if !slices.Contains(alias.AssetIDs, a.ID) {
				linked := *alias
				linked.AssetIDs = append(slices.Clone(alias.AssetIDs), a.ID)
				if err := txn.Insert(tableAssetAliases, &linked); err != nil {
					return fmt.Errorf("attach %s to asset alias %s: %w", a.URI, r.Name, err)
				}
			}
			aliasIDs = append(aliasIDs, alias.ID)
		}
		extra := g.extra
		if len(extra) == 0 {
			extra = json.RawMessage("{}")
		}
		dagID, taskID, runID := ti.DagID, ti.TaskID, ti.RunID
		if _, err := insertAssetEventTxn(txn, AssetEvent{AssetID: a.ID, Extra: extra, SourceDagID: &dagID, SourceTaskID: &taskID,
			SourceRunID: &runID, SourceMapIndex: ti.MapIndex, SourceAliasIDs: aliasIDs, Timestamp: at}); err != nil {
			return err
		}
	}
	return nil
}

// aliasEventGroup is the events of one asset with one extra that a try
// added through aliases: one event, through each of the aliases.
type aliasEventGroup struct {
	asset   assetRef
	extra   json.RawMessage
	aliases []aliasRef
}

// groupAliasEvents groups events by asset (name and uri) and extra (the
// same keys and values, in any order: canonicalExtra), the groups in the
// order of their first events, each group's aliases once by name in the
// order they came. It reads each event once; an extra is encoded again
// only when another event of its asset came, once.
func groupAliasEvents(events []aliasEvent) []*aliasEventGroup {
	type assetGroups struct {
		first   *aliasEventGroup            // the group of the asset's first event
		byExtra map[string]*aliasEventGroup // from its second event on: its groups by canonicalExtra
	}
	type aliasKey struct {
		group *aliasEventGroup
		name  string
	}
	var groups []*aliasEventGroup
	byAsset := map[[2]string]*assetGroups{}
	named := map[aliasKey]bool{}
	for _, e := range events {
		k := [2]string{e.Asset.Name, e.Asset.URI}
		ag := byAsset[k]
		var g *aliasEventGroup
		if ag == nil {
			g = &aliasEventGroup{asset: e.Asset, extra: e.Extra}
			byAsset[k] = &assetGroups{first: g}
			groups = append(groups, g)
		} else {
			if ag.byExtra == nil {
				ag.byExtra = map[string]*aliasEventGroup{canonicalExtra(ag.first.extra): ag.first}
			}
			c := canonicalExtra(e.Extra)
			if g = ag.byExtra[c]; g == nil {
				g = &aliasEventGroup{asset: e.Asset, extra: e.Extra}
				ag.byExtra[c] = g
				groups = append(groups, g)
			}
		}
		if ak := (aliasKey{g, e.Alias.Name}); !named[ak] {
			named[ak] = true
			g.aliases = append(g.aliases, e.Alias)
		}
	}
	return groups
}

// canonicalExtra is an extra (a JSON object, empty for none) written with
// its keys sorted and no spaces, so that two extras with the same keys and
// values are equal; what does not decode stays as given.
func canonicalExtra(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	out, _ := json.Marshal(v) // maps marshal with sorted keys
	return string(out)
}

// aliasNamesTxn are the names of the aliases with ids.
func aliasNamesTxn(txn *memdb.Txn, ids []int64) ([]string, error) {
	var names []string
	for _, id := range ids {
		raw, err := txn.First(tableAssetAliases, indexID, id)
		if err != nil {
			return nil, fmt.Errorf("look up asset alias %d: %w", id, err)
		}
		if raw != nil {
			names = append(names, raw.(*AssetAlias).Name)
		}
	}
	return names, nil
}

// AliasAssets are the assets attached to the alias named name (none for
// an alias not registered).
func (v storeView) AliasAssets(name string) ([]*Asset, error) {
	raw, err := v.txn.First(tableAssetAliases, "name", name)
	if err != nil || raw == nil {
		return nil, err
	}
	var out []*Asset
	for _, id := range raw.(*AssetAlias).AssetIDs {
		a, err := v.txn.First(tableAssets, indexID, id)
		if err != nil {
			return nil, fmt.Errorf("look up asset %d: %w", id, err)
		}
		if a != nil {
			out = append(out, a.(*Asset))
		}
	}
	return out, nil
}

// aliasOf reads an outlet or an inlet as an alias: {"alias": name} (or
// {"alias": {"name", "group"}}) as a YAML file writes it, or as Airflow
// serializes an AssetAlias or a DatasetAlias ({"__type": "asset_alias",
// "__var": {"name", "group"}}).
func aliasOf(v any) (aliasRef, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return aliasRef{}, false
	}
	if typ, ok := m["__type"].(string); ok {
		if typ != "asset_alias" && typ != "dataset_alias" {
			return aliasRef{}, false
		}
		if inner, ok := m["__var"].(map[string]any); ok {
			m = inner
		}
		name, _ := m["name"].(string)
		group, _ := m["group"].(string)
		return aliasRef{Name: name, Group: group}, name != ""
	}
	switch a := m["alias"].(type) {
	case string:
		return aliasRef{Name: a}, a != "" && len(m) == 1
	case map[string]any:
		name, _ := a["name"].(string)
		group, _ := a["group"].(string)
		return aliasRef{Name: name, Group: group}, name != "" && len(m) == 1
	}
	return aliasRef{}, false
}

// checkAssetAlias is what a restored alias must be.
func checkAssetAlias(obj any) error {
	a := obj.(*AssetAlias)
	if err := checkRowKeys("name", a.Name); err != nil {
		return err
	}
	return checkRowID("id", a.ID)
}
