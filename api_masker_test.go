package main

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSecretsMasker_HidesAsContains holds hides, which rules names out
// by the masked names' first two bytes (newSecretsMasker), to
// should_hide_value_for_key's test: the name, trimmed and lower-cased,
// holds one of the names. Table rows and random names made of the
// masked names' pieces, for both releases' maskers and one with a name
// of one byte (no pairs: every name looked for).
func TestSecretsMasker_HidesAsContains(t *testing.T) {
	t.Parallel()
	naive := func(names []string, name string) bool {
		name = strings.ToLower(strings.TrimSpace(name))
		return slices.ContainsFunc(names, func(s string) bool { return strings.Contains(name, s) })
	}
	maskers := map[string][]string{"2.10.3": maskerNames2103, "3.2.1": maskerNames321, "one byte": {"x", "token"}}
	rows := []string{"", "a", "to", "tok", "toke", "token", "TOKEN", " Token\t", "my_token_x", "conf", "key",
		"logical_date", "dag_run_id", "note", "partition_key", "access_key", "ACCESS_KEY", "acces_key", "proxy",
		"proxies", "prox", "api_key", "apikey", "api-key", "PassWord", "passwd", "pass", "secret", "Secrets",
		"xyz", "x", "é_token", "\u212a", "to\u212aen", "sec\u0130ret", "_proxy_", "service_account", "keyfile_dict"}
	rng := rand.New(rand.NewPCG(21, 1))
	var pieces []string
	for _, n := range maskerNames321 {
		pieces = append(pieces, n, n[:len(n)/2], n[len(n)/2:], strings.ToUpper(n[:2]))
	}
	pieces = append(pieces, "_", " ", "a", "k", "\u212a", "é")
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		rows = append(rows, b.String())
	}
	for label, names := range maskers {
		m := newSecretsMasker(names)
		if (m.leads == nil) != (label == "one byte") {
			t.Errorf("%s: leads %v, want them only when every name has two bytes", label, m.leads != nil)
		}
		hidden := 0
		for _, name := range rows {
			got, want := m.hides(name), naive(names, name)
			if got != want {
				t.Errorf("%s: hides(%q) = %v, want %v", label, name, got, want)
			}
			if want {
				hidden++
			}
		}
		if hidden < 1000 || hidden > len(rows)-1000 {
			t.Errorf("%s: %d of %d names hidden: the rows test one side only", label, hidden, len(rows))
		}
	}
}
