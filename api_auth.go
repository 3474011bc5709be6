package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/crypto/bcrypt"
)

// Auth backends, named after Airflow's modules.
const (
	authDefault  = "default"       // airflow.api.auth.backend.default: allow all
	authDenyAll  = "deny_all"      // airflow.api.auth.backend.deny_all
	authBasic    = "basic_auth"    // Airflow 2's basic_auth (FAB users)
	authPassword = "password_auth" // Airflow 1.10's contrib password_auth
)

// authenticator applies one auth backend to API requests.
type authenticator struct {
	backend string
	users   map[string]credential
	// unknownUser is compared against when a user is unknown, so that an
	// unknown user costs the same time as a wrong password: a bcrypt hash
	// at the users file's highest cost when the file holds hashes, plain
	// text when it holds none.
	unknownUser credential
	// compareHash is bcrypt.CompareHashAndPassword; tests count its calls.
	compareHash func(hash, password []byte) error
	// verified holds the keys (verifiedKey) of user:password pairs that
	// passed a bcrypt check lately, so that a client sending the same
	// credentials with every request pays for bcrypt once per
	// verifiedTTL, not per request. Only successes go in.
	verified *expirable.LRU[[sha256.Size]byte, struct{}]
	// keySalt is mixed into verifiedKey, per process and random.
	keySalt string
	// hashChecks holds a token per bcrypt compare under way; its capacity,
	// half the cores (at least one), bounds them so that a flood of wrong
	// passwords leaves cores for everything else. A cached success takes
	// no token.
	hashChecks chan struct{}
}

const (
	// verifiedTTL is how long a passed bcrypt check stands. Clients poll
	// (a run's state, /test) every few seconds with the same credentials;
	// a minute turns that into one bcrypt a minute, and a proven pair's
	// digest stays in memory only while someone uses it. The users file is
	// read once at start, so no change to it waits on the cache.
	verifiedTTL = time.Minute
	// verifiedMax bounds the cache. Only passing pairs go in, but bcrypt
	// reads only a password's first 72 bytes, so one user can pass with
	// endless different passwords.
	verifiedMax = 1024
)

// credential is a password as given in the users file: plain text or a
// bcrypt hash.
type credential struct {
	plain []byte
	hash  []byte
}

func newAuthenticator(backend, usersFile string) (*authenticator, error) {
	a := &authenticator{backend: backend, compareHash: bcrypt.CompareHashAndPassword}
	switch backend {
	case authDefault, authDenyAll:
		return a, nil
	case authBasic, authPassword:
	default:
		return nil, fmt.Errorf("unknown auth backend %q: want default, deny_all, basic_auth or password_auth", backend)
	}
	if usersFile == "" {
		return nil, fmt.Errorf("auth backend %s needs --users (a file of user:password lines)", backend)
	}
	users, err := loadUsers(usersFile)
	if err != nil {
		return nil, err
	}
	unknownUser, err := unknownUserCredential(users)
	if err != nil {
		return nil, err
	}
	a.users, a.unknownUser = users, unknownUser
	a.verified = newVerifiedCache(verifiedTTL)
	a.keySalt = rand.Text()
	a.hashChecks = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))
	return a, nil
}

// newVerifiedCache is the cache of passed checks, each forgotten ttl after
// it was added.
func newVerifiedCache(ttl time.Duration) *expirable.LRU[[sha256.Size]byte, struct{}] {
	return expirable.NewLRU[[sha256.Size]byte, struct{}](verifiedMax, nil, ttl)
}

// verifiedKey names a user:password pair in the verified cache: a SHA-256
// of both, so that the cache never holds a password, salted per process so
// that a copy of the process's memory is no fast hash to guess passwords
// against. A user name holds no ':' (the users file and the Authorization
// header both split at the first), so the pair is read back one way only.
func (a *authenticator) verifiedKey(user, password string) [sha256.Size]byte {
	buf := make([]byte, 0, len(a.keySalt)+len(user)+1+len(password))
	buf = append(append(append(append(buf, a.keySalt...), user...), ':'), password...)
	key := sha256.Sum256(buf)
	clear(buf) // the copy of the password
	return key
}

// unknownUserCredential is what an unknown user's password is compared
// against: a hash of a random password at the highest cost among the
// users' hashes, so that refusing an unknown user takes as long as
// refusing a wrong password for the slowest user, or random plain text
// when no user has a hash. Making it costs one bcrypt hash at start.
func unknownUserCredential(users map[string]credential) (credential, error) {
	maxCost := 0
	for _, c := range users {
		if c.hash == nil {
			continue
		}
		// loadUsers has checked every hash, so Cost cannot fail here.
		if cost, err := bcrypt.Cost(c.hash); err == nil && cost > maxCost {
			maxCost = cost
		}
	}
	password := []byte(rand.Text())
	if maxCost == 0 {
		return credential{plain: password}, nil
	}
	hash, err := bcrypt.GenerateFromPassword(password, maxCost)
	if err != nil {
		return credential{}, fmt.Errorf("hash the unknown-user password: %w", err)
	}
	return credential{hash: hash}, nil
}

// loadUsers reads "user:password" or "user:<bcrypt hash>" lines; blank
// lines and lines starting with # are skipped.
func loadUsers(path string) (map[string]credential, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read users file: %w", err)
	}
	users := map[string]credential{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		user, pass, ok := strings.Cut(text, ":")
		if !ok || user == "" || pass == "" {
			return nil, fmt.Errorf("users file %s line %d: want user:password", path, line)
		}
		if _, dup := users[user]; dup {
			return nil, fmt.Errorf("users file %s line %d: user %q is listed twice", path, line, user)
		}
		c := credential{plain: []byte(pass)}
		if strings.HasPrefix(pass, "$2a$") || strings.HasPrefix(pass, "$2b$") || strings.HasPrefix(pass, "$2y$") {
			if _, err := bcrypt.Cost([]byte(pass)); err != nil {
				return nil, fmt.Errorf("users file %s line %d: bad bcrypt hash: %w", path, line, err)
			}
			c = credential{hash: []byte(pass)}
		}
		users[user] = c
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read users file: %w", err)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("users file %s lists no users", path)
	}
	return users, nil
}

// valid reports whether password is user's. An unknown user costs what a
// wrong password costs: plain text is compared in constant time, and a
// hash by bcrypt unless the pair passed lately (the verified cache). A
// bcrypt compare waits for a hashChecks token, or gives up (false) when
// ctx ends first.
func (a *authenticator) valid(ctx context.Context, user, password string) bool {
	c, known := a.users[user]
	if !known {
		c = a.unknownUser
	}
	if c.hash == nil {
		return subtle.ConstantTimeCompare(c.plain, []byte(password)) == 1 && known
	}
	key := a.verifiedKey(user, password)
	if _, ok := a.verified.Get(key); ok {
		return true // only a known user's passing pair is ever added
	}
	if !a.compareHashBounded(ctx, c.hash, password) || !known {
		return false
	}
	a.verified.Add(key, struct{}{})
	return true
}

// compareHashBounded runs compareHash once a hashChecks token is free; it
// reports false without comparing when ctx ends first.
func (a *authenticator) compareHashBounded(ctx context.Context, hash []byte, password string) bool {
	select {
	case a.hashChecks <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-a.hashChecks }()
	return a.compareHash(hash, []byte(password)) == nil
}

// rejection is what a backend answers instead of the endpoint: Airflow's
// plain-text bodies. A zero status means the request may go on.
type rejection struct {
	status          int
	body            string
	wwwAuthenticate string
	err             error // a header Airflow cannot parse (500)
	// user is who passed basic_auth, the one Airflow's auth manager
	// knows as logged in (the owner of the event log); "" for nobody.
	user string
}

func (rej rejection) Error() string { return rej.body }

// asError is the refusal as an error for answerError: nil when the request
// may go on, the unreadable header's error, or the refusal itself.
func (rej rejection) asError() error {
	switch {
	case rej.err != nil:
		return rej.err
	case rej.status != 0:
		return rej
	}
	return nil
}

// check applies the backend to a request.
func (a *authenticator) check(r *http.Request) rejection {
	switch a.backend {
	case authDenyAll:
		return rejection{status: http.StatusForbidden, body: "Forbidden"}
	case authBasic:
		return a.checkBasic(r)
	case authPassword:
		return a.checkPassword(r)
	}
	return rejection{}
}

// checkBasic is Airflow 2's basic_auth: any failure is a 401 with a Basic
// challenge.
func (a *authenticator) checkBasic(r *http.Request) rejection {
	deny := rejection{status: http.StatusUnauthorized, body: "Unauthorized", wwwAuthenticate: "Basic"}
	scheme, rest, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "basic") {
		return deny
	}
	decoded, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
	if err != nil {
		return deny
	}
	user, password, ok := strings.Cut(string(decoded), ":")
	if !ok || user == "" || password == "" || !a.valid(r.Context(), user, password) {
		return deny
	}
	return rejection{user: user}
}

// checkPassword is Airflow 1.10's password_auth: no header is a 401
// challenge, wrong credentials a 403, an unreadable header a 500.
func (a *authenticator) checkPassword(r *http.Request) rejection {
	header := r.Header.Get("Authorization")
	if header == "" {
		return rejection{status: http.StatusUnauthorized, body: "Unauthorized", wwwAuthenticate: "Basic"}
	}
	fields := strings.Fields(header)
	userpass := ""
	if len(fields) > 1 {
		userpass = strings.Join(fields[1:], "")
	}
	decoded, err := base64.StdEncoding.DecodeString(userpass)
	if err != nil {
		return rejection{err: newAPIError(errCrash, "Authorization header is not base64: %v", err)}
	}
	user, password, ok := strings.Cut(string(decoded), ":")
	if !ok {
		return rejection{err: newAPIError(errCrash, "Authorization header holds no user:password pair")}
	}
	if !a.valid(r.Context(), user, password) {
		return rejection{status: http.StatusForbidden, body: "Forbidden"}
	}
	return rejection{}
}
