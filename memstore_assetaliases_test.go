package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// groupAliasEventsPairwise is the grouping recordAliasEventsTxn did
// before groupAliasEvents: each event compared with every group so far,
// both extras decoded and encoded again for each comparison. The tests
// hold groupAliasEvents to its answers.
func groupAliasEventsPairwise(events []aliasEvent) []*aliasEventGroup {
	var groups []*aliasEventGroup
	for _, e := range events {
		i := slices.IndexFunc(groups, func(g *aliasEventGroup) bool {
			return g.asset.Name == e.Asset.Name && g.asset.URI == e.Asset.URI && canonicalExtra(g.extra) == canonicalExtra(e.Extra)
		})
		if i < 0 {
			groups = append(groups, &aliasEventGroup{asset: e.Asset, extra: e.Extra})
			i = len(groups) - 1
		}
		if !slices.ContainsFunc(groups[i].aliases, func(a aliasRef) bool { return a.Name == e.Alias.Name }) {
			groups[i].aliases = append(groups[i].aliases, e.Alias)
		}
	}
	return groups
}

// groupSummary is a group as the tests compare it: asset name, extra as
// given, alias names and groups.
func groupSummary(groups []*aliasEventGroup) []string {
	var out []string
	for _, g := range groups {
		s := g.asset.Name + "|" + g.asset.URI + "|" + string(g.extra)
		for _, a := range g.aliases {
			s += "|" + a.Name + "/" + a.Group
		}
		out = append(out, s)
	}
	return out
}

func TestGroupAliasEvents(t *testing.T) {
	t.Parallel()
	ev := func(alias, group, asset, extra string) aliasEvent {
		e := aliasEvent{Alias: aliasRef{Name: alias, Group: group}, Asset: assetRef{Name: asset, URI: "s3://b/" + asset}}
		if extra != "" {
			e.Extra = json.RawMessage(extra)
		}
		return e
	}
	cases := []struct {
		name   string
		events []aliasEvent
		want   []string
	}{
		{"none", nil, nil},
		{"one", []aliasEvent{ev("x", "", "a", `{"k": 1}`)}, []string{`a|s3://b/a|{"k": 1}|x/`}},
		{
			"same asset and extra, keys in another order and spacing: one event through both aliases",
			[]aliasEvent{ev("x", "", "a", `{"k": 1, "j": [2, 3]}`), ev("y", "g", "a", `{"j":[2,3],"k":1}`)},
			[]string{`a|s3://b/a|{"k": 1, "j": [2, 3]}|x/|y/g`},
		},
		{
			"another extra or another asset: events of their own, in the order they came",
			[]aliasEvent{ev("x", "", "a", `{"k": 1}`), ev("x", "", "b", `{"k": 1}`), ev("x", "", "a", `{"k": 2}`), ev("y", "", "a", `{"k": 1}`)},
			[]string{`a|s3://b/a|{"k": 1}|x/|y/`, `b|s3://b/b|{"k": 1}|x/`, `a|s3://b/a|{"k": 2}|x/`},
		},
		{
			"an alias named twice for one event counts once, with the group it came with first",
			[]aliasEvent{ev("x", "g1", "a", ""), ev("x", "g2", "a", "")},
			[]string{`a|s3://b/a||x/g1`},
		},
		{
			"no extra and an empty object stay apart, as before",
			[]aliasEvent{ev("x", "", "a", ""), ev("x", "", "a", `{}`)},
			[]string{`a|s3://b/a||x/`, `a|s3://b/a|{}|x/`},
		},
		{
			"an extra that does not decode is compared as given",
			[]aliasEvent{ev("x", "", "a", `{bad`), ev("y", "", "a", `{bad`), ev("z", "", "a", `{ bad`)},
			[]string{`a|s3://b/a|{bad|x/|y/`, `a|s3://b/a|{ bad|z/`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := groupSummary(groupAliasEvents(tc.events))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("groups\n got %q\nwant %q", got, tc.want)
			}
			if old := groupSummary(groupAliasEventsPairwise(tc.events)); !reflect.DeepEqual(got, old) {
				t.Errorf("groups %q, the pairwise grouping's %q", got, old)
			}
		})
	}
}

// Random events over few assets, aliases and extras (keys in either
// order) group as the pairwise grouping grouped them.
func TestGroupAliasEvents_AsPairwise(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 3))
	extras := []string{"", `{}`, `{"a": 1, "b": 2}`, `{"b":2,"a":1}`, `{"a": 1}`, `{"a": 1.0}`, `[1]`}
	for round := range 200 {
		events := make([]aliasEvent, r.IntN(30))
		for i := range events {
			asset := fmt.Sprintf("asset_%d", r.IntN(4))
			events[i] = aliasEvent{Alias: aliasRef{Name: fmt.Sprintf("alias_%d", r.IntN(5)), Group: fmt.Sprintf("g%d", r.IntN(2))},
				Asset: assetRef{Name: asset, URI: "s3://b/" + asset}}
			if x := extras[r.IntN(len(extras))]; x != "" {
				events[i].Extra = json.RawMessage(x)
			}
		}
		got, want := groupSummary(groupAliasEvents(events)), groupSummary(groupAliasEventsPairwise(events))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: groups\n got %q\nwant %q", round, got, want)
		}
	}
}
