package main

// The tokens logout revoked: Airflow 3.2.0 added the revoked_token table
// (apache/airflow#61339, models/revoked_token.py): logout stores the jti
// of the _token cookie's token with its expiry, and get_user_from_token
// refuses a revoked jti. airlite keeps the jtis in memory and, when it
// keeps its token key in the home, in a file beside it, so that a revoked
// token stays refused for as long as the key would take it.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// revokedTokensFile is the revoked jtis' file in the home, beside the key.
const revokedTokensFile = "api_auth_revoked_tokens"

// revokedTokens are revoked jtis with their tokens' expiry.
type revokedTokens struct {
	mu  sync.RWMutex
	exp map[string]time.Time
	// any is whether exp holds a jti: the check of a token reads only
	// this while nothing was ever revoked.
	any atomic.Bool
	// path is the file they are kept in; "" keeps them in memory only
	// (--snapshot off, where the key lasts as long as the process).
	path string
}

// has reports whether jti was revoked.
func (r *revokedTokens) has(jti string) bool {
	if !r.any.Load() || jti == "" {
		return false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.exp[jti]
	return ok
}

// add revokes jti until exp, drops the jtis whose tokens expired (as
// RevokedToken's cleanup), and writes the file.
func (r *revokedTokens) add(jti string, exp, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exp == nil {
		r.exp = map[string]time.Time{}
	}
	r.exp[jti] = exp
	for j, e := range r.exp {
		if e.Before(now.Add(-jwtLeeway)) {
			delete(r.exp, j)
		}
	}
	r.any.Store(len(r.exp) > 0)
	if r.path == "" {
		return nil
	}
	var b bytes.Buffer
	for j, e := range r.exp {
		fmt.Fprintf(&b, "%s %d\n", j, e.Unix())
	}
	if err := writeFileAtomic(r.path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write revoked tokens: %w", err)
	}
	return nil
}

// loadRevokedTokens reads the revoked jtis kept in home, none when there
// is no file yet; revocations go to that file from then on.
func loadRevokedTokens(home string) (*revokedTokens, error) {
	r := &revokedTokens{exp: map[string]time.Time{}, path: filepath.Join(home, revokedTokensFile)}
	f, err := os.Open(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read revoked tokens: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		jti, exp, ok := strings.Cut(sc.Text(), " ")
		secs, err := strconv.ParseInt(exp, 10, 64)
		if !ok || jti == "" || err != nil {
			return nil, fmt.Errorf("read revoked tokens %s:%d: want \"<jti> <expiry in unix seconds>\"", r.path, n)
		}
		r.exp[jti] = time.Unix(secs, 0)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read revoked tokens: %w", err)
	}
	r.any.Store(len(r.exp) > 0)
	return r, nil
}
