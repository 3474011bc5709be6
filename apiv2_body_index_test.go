package main

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestPyDictIndex_AsMaps holds pyDictIndex, which reads a dict of up to
// pyDictIndexed fields in place, to the maps v2Model.validate built
// before: a key's last value, and whether it came before a place.
// Random dicts with repeated keys, shorter and longer than
// pyDictIndexed.
func TestPyDictIndex_AsMaps(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 2))
	for n := range 3 * pyDictIndexed {
		for range 20 {
			dict := make(pyDict, n)
			last, first := map[string]any{}, map[string]int{}
			for i := range dict {
				key := "k" + strconv.Itoa(rng.IntN(n/2+1))
				dict[i] = pyField{key, i}
				last[key] = i
				if _, ok := first[key]; !ok {
					first[key] = i
				}
			}
			x := dictIndex(dict)
			if (x.last != nil) != (n > pyDictIndexed) {
				t.Fatalf("%d fields: indexed %v", n, x.last != nil)
			}
			for k := range n/2 + 2 {
				key := "k" + strconv.Itoa(k)
				got, ok := x.get(key)
				want, wantOK := last[key]
				if got != want || ok != wantOK {
					t.Errorf("%d fields %v: get(%s) = %v, %v, want %v, %v", n, dict, key, got, ok, want, wantOK)
				}
			}
			for i, f := range dict {
				if got, want := x.before(f.key, i), first[f.key] < i; got != want {
					t.Errorf("%d fields %v: before(%s, %d) = %v, want %v", n, dict, f.key, i, got, want)
				}
			}
		}
	}
}
