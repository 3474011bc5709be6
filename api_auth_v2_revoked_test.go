package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRevokedTokens_File: revocations are written to the home's file and
// read back; a jti whose token expired is dropped at the next revocation
// (RevokedToken's cleanup); a line that is not "<jti> <seconds>" stops
// the load with the file and line named.
func TestRevokedTokens_File(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	r, err := loadRevokedTokens(home)
	if err != nil || r.has("a") {
		t.Fatalf("empty home: %v, has a %v", err, r.has("a"))
	}
	if err := r.add("old", now.Add(time.Minute), now); err != nil {
		t.Fatal(err)
	}
	if err := r.add("new", now.Add(2*time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	back, err := loadRevokedTokens(home)
	if err != nil {
		t.Fatal(err)
	}
	if !back.has("new") || back.has("old") || back.has("") {
		t.Errorf("read back: new %v, old %v; want the live jti only", back.has("new"), back.has("old"))
	}
	if err := os.WriteFile(filepath.Join(home, revokedTokensFile), []byte("new 1\nbroken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadRevokedTokens(home); err == nil || !strings.Contains(err.Error(), revokedTokensFile+":2") {
		t.Errorf("bad line: %v, want an error naming line 2", err)
	}
}

// TestTokenAuthority_RevokeIgnoresForeignTokens: revoke takes only tokens
// of the authority's key; another key's token, or no token, revokes
// nothing and is no error (logout goes on).
func TestTokenAuthority_RevokeIgnoresForeignTokens(t *testing.T) {
	t.Parallel()
	mine, err := newTokenAuthority(nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := newTokenAuthority(nil)
	if err != nil {
		t.Fatal(err)
	}
	token, err := other.issue("ann", roleUsersFile, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{token, "", "a.b.c"} {
		if err := mine.revoke(tok); err != nil || mine.revoked.any.Load() {
			t.Errorf("revoke(%q) = %v, revoked any %v; want nothing revoked", tok, err, mine.revoked.any.Load())
		}
	}
	own, err := mine.issue("ann", roleUsersFile, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mine.check(own); err != nil {
		t.Fatal(err)
	}
	if err := mine.revoke(own); err != nil {
		t.Fatal(err)
	}
	if _, err := mine.check(own); err != errTokenInvalid {
		t.Errorf("check of a revoked token (cached before) = %v, want errTokenInvalid", err)
	}
}
