package main

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestJSONPlainLen_AsByteLoop holds jsonPlainLen, which tests eight
// bytes at a time, to the byte loop it replaced: every byte value at
// every place of strings up to three words long (the word tests' borrows
// and carries run from a byte to the ones above it), a second odd byte
// after it, and random strings of the bytes at the class's edges.
func TestJSONPlainLen_AsByteLoop(t *testing.T) {
	t.Parallel()
	naive := func(s string) int {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				return i
			}
		}
		return len(s)
	}
	check := func(s string) {
		t.Helper()
		if got, want := jsonPlainLen(s), naive(s); got != want {
			t.Fatalf("jsonPlainLen(%q) = %d, want %d", s, got, want)
		}
	}
	for n := range 25 {
		base := []byte(strings.Repeat("a~ !", 7)[:n])
		check(string(base))
		for at := range n {
			for c := range 256 {
				s := append([]byte(nil), base...)
				s[at] = byte(c)
				check(string(s))
				if at+1 < n {
					s[at+1] = '"'
					check(string(s))
				}
			}
		}
	}
	edges := []byte{0x00, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 0x7e, 0x7f, 0x80, 0xfe, 0xff, 'a'}
	rng := rand.New(rand.NewPCG(21, 3))
	for range 200000 {
		s := make([]byte, rng.IntN(40))
		for i := range s {
			s[i] = edges[rng.IntN(len(edges))]
			if rng.IntN(4) > 0 {
				s[i] = 'a' + byte(rng.IntN(26))
			}
		}
		check(string(s))
	}
}
