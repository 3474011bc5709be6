package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/crypto/bcrypt"
)

// Auth backends, named after Airflow's modules.
const (
	authDefault  = "default"       // airflow.api.auth.backend.default: allow all
	authDenyAll  = "deny_all"      // airflow.api.auth.backend.deny_all
	authBasic    = "basic_auth"    // Airflow 2's basic_auth (FAB users)
	authPassword = "password_auth" // Airflow 1.10's contrib password_auth
	// authSimple is Airflow 3's simple auth manager with users: /api/v2
	// takes bearer tokens from POST /auth/token (api_auth_v2.go). In
	// edition 3, default is the simple auth manager's all-admins mode.
	authSimple = "simple_auth_manager"
)

// An auth backend answers two questions, apart: who the caller is (an
// identifier reads the request: a user, or anonymous, and how it was
// found out) and whether to refuse the request (a refuser, given what the
// identifiers found: the backend's status, exact body and challenge). So
// a backend that identifies callers another way (Airflow 3's bearer
// tokens, issue #21) is one more identifier, and each API keeps its own
// refusal.

// caller is who sent a request.
type caller struct {
	user string // "" for anonymous
	via  string // how the caller was identified (viaAnonymous, viaBasic, viaPassword)
}

// How a caller was identified.
const (
	viaAnonymous = "anonymous" // nothing was asked: default, deny_all
	viaBasic     = "basic"     // Airflow 2's basic_auth: Authorization: Basic
	viaPassword  = "password"  // Airflow 1.10's password_auth: the header's words after the first
	viaToken     = "token"     // Airflow 3's simple auth manager: a JWT (api_auth_v2.go)
)

// loggedIn is the user the auth manager knows as logged in, whom its
// action log names (the event's owner): basic_auth's user, or the user a
// token names (Airflow 3). "" for nobody: password_auth is Airflow 1.10's
// backend, which logs nobody into Airflow 2's auth manager.
func (c caller) loggedIn() string {
	if c.via == viaBasic || c.via == viaToken {
		return c.user
	}
	return ""
}

// identifier finds out who sent a request. It answers a caller, or why it
// could not: errNoCredentials (the request names nobody this identifier
// reads, so another may), errBadCredentials, or *unreadableCredentials.
// It never says how to answer: that is the refuser's.
type identifier interface {
	identify(r *http.Request) (caller, error)
}

// refuser is a backend's decision on an identified request: a zero
// rejection lets it through. failure is the identification's error, nil
// when a caller was found.
type refuser interface {
	refuse(c caller, failure error) rejection
}

// Identification failures.
var (
	errNoCredentials  = errors.New("no credentials")
	errBadCredentials = errors.New("credentials do not pass")
)

// unreadableCredentials is a header an identifier cannot read at all.
type unreadableCredentials struct{ why string }

func (e *unreadableCredentials) Error() string { return e.why }

// authenticator applies one auth backend to API requests: its
// identifiers, tried in turn until one finds credentials it reads, then
// its refuser.
type authenticator struct {
	backend     string
	identifiers []identifier
	refuser     refuser
	*passwordBook
	// tokens issues and checks Airflow 3's tokens (edition 3's /auth and
	// /api/v2); every backend has one, so that edition 3 can use it.
	tokens *tokenAuthority
}

// passwordBook is the users file (--users): who may sign in with which
// password. Empty for the backends that read no credentials.
type passwordBook struct {
	users map[string]credential
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
	verified *verifiedCache
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
	// digest stays in memory only while someone uses it (verifiedCache).
	// The users file is read once at start, so no change to it waits on
	// the cache.
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

// newAuthenticator is the backend named by --auth-backend, with the users
// of --users, and a token key drawn for this process.
func newAuthenticator(backend, usersFile string) (*authenticator, error) {
	return newAuthenticatorWithKey(backend, usersFile, nil)
}

// newAuthenticatorWithKey is newAuthenticator whose tokens are signed with
// tokenKey (edition 3 keeps it in the home, loadTokenKey); nil draws one.
func newAuthenticatorWithKey(backend, usersFile string, tokenKey []byte) (*authenticator, error) {
	tokens, err := newTokenAuthority(tokenKey)
	if err != nil {
		return nil, err
	}
	book := &passwordBook{compareHash: bcrypt.CompareHashAndPassword}
	a := &authenticator{backend: backend, passwordBook: book, tokens: tokens}
	switch backend {
	case authDefault:
		a.identifiers, a.refuser = []identifier{anonymous{}}, allowAll{}
		return a, nil
	case authDenyAll:
		a.identifiers, a.refuser = []identifier{anonymous{}}, denyAll{}
		return a, nil
	case authBasic:
		a.identifiers, a.refuser = []identifier{basicIdentifier{book}}, basicRefusal{}
	case authPassword:
		a.identifiers, a.refuser = []identifier{passwordIdentifier{book}}, passwordRefusal{}
	case authSimple:
		a.identifiers, a.refuser = []identifier{jwtIdentifier{tokens: tokens}}, tokenRefusal{}
	default:
		return nil, fmt.Errorf("unknown auth backend %q: want default, deny_all, basic_auth, password_auth or simple_auth_manager", backend)
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
	book.users, book.unknownUser = users, unknownUser
	book.verified = newVerifiedCache(verifiedTTL)
	book.keySalt = rand.Text()
	book.hashChecks = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))
	return a, nil
}

// verifiedCache is the cache of passed checks, each forgotten ttl after
// it was added. Expiry is read on use, with no goroutine to sweep
// (expirable.LRU's sweeper can never be stopped, one more goroutine for
// every authenticator): a lookup drops an expired entry it finds, and
// every lookup and addition first drops the least recently used entries
// whose time is up, so a digest outlives its time only until the next
// request that checks a hashed password.
type verifiedCache struct {
	ttl    time.Duration
	passed *lru.Cache[[sha256.Size]byte, time.Time] // when each pair passed
}

func newVerifiedCache(ttl time.Duration) *verifiedCache {
	passed, _ := lru.New[[sha256.Size]byte, time.Time](verifiedMax) // fails only for a size below 1
	return &verifiedCache{ttl: ttl, passed: passed}
}

// has reports whether key passed within the time to live.
func (c *verifiedCache) has(key [sha256.Size]byte) bool {
	now := time.Now()
	c.dropExpired(now)
	at, ok := c.passed.Get(key)
	if ok && now.Sub(at) >= c.ttl {
		c.passed.Remove(key)
		return false
	}
	return ok
}

// add remembers that key passed now.
func (c *verifiedCache) add(key [sha256.Size]byte) {
	now := time.Now()
	c.dropExpired(now)
	c.passed.Add(key, now)
}

// dropExpired removes the least recently used entries while their time
// is up.
func (c *verifiedCache) dropExpired(now time.Time) {
	for {
		key, at, ok := c.passed.GetOldest()
		if !ok || now.Sub(at) < c.ttl {
			return
		}
		c.passed.Remove(key)
	}
}

// verifiedKey names a user:password pair in the verified cache: a SHA-256
// of both, so that the cache never holds a password, salted per process so
// that a copy of the process's memory is no fast hash to guess passwords
// against. A user name holds no ':' (the users file and the Authorization
// header both split at the first), so the pair is read back one way only.
func (a *passwordBook) verifiedKey(user, password string) [sha256.Size]byte {
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
func (a *passwordBook) valid(ctx context.Context, user, password string) bool {
	c, known := a.users[user]
	if strings.Contains(user, ":") {
		// No user's name holds one (verifiedKey's pairs rely on it): a
		// login body's "ann:b" with "c" is not ann with "b:c".
		c, known = a.unknownUser, false
	}
	if !known {
		c = a.unknownUser
	}
	if c.hash == nil {
		return subtle.ConstantTimeCompare(c.plain, []byte(password)) == 1 && known
	}
	key := a.verifiedKey(user, password)
	if known && a.verified.has(key) {
		return true // only a known user's passing pair is ever added
	}
	if !a.compareHashBounded(ctx, c.hash, password) || !known {
		return false
	}
	a.verified.add(key)
	return true
}

// compareHashBounded runs compareHash once a hashChecks token is free; it
// reports false without comparing when ctx ends first.
func (a *passwordBook) compareHashBounded(ctx context.Context, hash []byte, password string) bool {
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
	err             error  // a header Airflow cannot parse (500)
	caller          caller // who the identifiers found
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

// identify is who sent r: the first identifier that finds credentials it
// reads decides; errNoCredentials when none does.
func (a *authenticator) identify(r *http.Request) (caller, error) {
	for _, id := range a.identifiers {
		c, err := id.identify(r)
		if !errors.Is(err, errNoCredentials) {
			return c, err
		}
	}
	return caller{}, errNoCredentials
}

// check applies the backend to a request: identify, then refuse or not.
func (a *authenticator) check(r *http.Request) rejection {
	c, failure := a.identify(r)
	rej := a.refuser.refuse(c, failure)
	rej.caller = c
	return rej
}

// anonymous identifies every caller as nobody: the backends that read no
// credentials.
type anonymous struct{}

func (anonymous) identify(*http.Request) (caller, error) { return caller{via: viaAnonymous}, nil }

// allowAll is airflow.api.auth.backend.default: everything passes.
type allowAll struct{}

func (allowAll) refuse(caller, error) rejection { return rejection{} }

// denyAll is airflow.api.auth.backend.deny_all: a plain 403, always.
type denyAll struct{}

func (denyAll) refuse(caller, error) rejection {
	return rejection{status: http.StatusForbidden, body: "Forbidden"}
}

// basicIdentifier reads Airflow 2's basic_auth header: "Basic" (in any
// case) and base64(user:password), both non-empty, that the users file
// passes.
type basicIdentifier struct{ book *passwordBook }

func (b basicIdentifier) identify(r *http.Request) (caller, error) {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "basic") {
		return caller{}, errNoCredentials
	}
	decoded, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
	if err != nil {
		return caller{}, errBadCredentials
	}
	user, password, ok := strings.Cut(string(decoded), ":")
	if !ok || user == "" || password == "" || !b.book.valid(r.Context(), user, password) {
		return caller{}, errBadCredentials
	}
	return caller{user: user, via: viaBasic}, nil
}

// basicRefusal is basic_auth's answer: any failure is a 401 with a Basic
// challenge, never a 403.
type basicRefusal struct{}

func (basicRefusal) refuse(_ caller, failure error) rejection {
	if failure != nil {
		return rejection{status: http.StatusUnauthorized, body: "Unauthorized", wwwAuthenticate: "Basic"}
	}
	return rejection{}
}

// passwordIdentifier reads Airflow 1.10's password_auth header: whatever
// the first word, the words after it joined and base64-decoded to
// user:password.
type passwordIdentifier struct{ book *passwordBook }

func (p passwordIdentifier) identify(r *http.Request) (caller, error) {
	header := r.Header.Get("Authorization")
	if header == "" {
		return caller{}, errNoCredentials
	}
	fields := strings.Fields(header)
	userpass := ""
	if len(fields) > 1 {
		userpass = strings.Join(fields[1:], "")
	}
	decoded, err := base64.StdEncoding.DecodeString(userpass)
	if err != nil {
		return caller{}, &unreadableCredentials{fmt.Sprintf("Authorization header is not base64: %v", err)}
	}
	user, password, ok := strings.Cut(string(decoded), ":")
	if !ok {
		return caller{}, &unreadableCredentials{"Authorization header holds no user:password pair"}
	}
	if !p.book.valid(r.Context(), user, password) {
		return caller{}, errBadCredentials
	}
	return caller{user: user, via: viaPassword}, nil
}

// passwordRefusal is password_auth's answer: no header is a 401
// challenge, wrong credentials a 403, an unreadable header a crash (500).
type passwordRefusal struct{}

func (passwordRefusal) refuse(_ caller, failure error) rejection {
	var unreadable *unreadableCredentials
	switch {
	case failure == nil:
		return rejection{}
	case errors.Is(failure, errNoCredentials):
		return rejection{status: http.StatusUnauthorized, body: "Unauthorized", wwwAuthenticate: "Basic"}
	case errors.As(failure, &unreadable):
		return rejection{err: newAPIError(errCrash, "%s", unreadable.why)}
	}
	return rejection{status: http.StatusForbidden, body: "Forbidden"}
}
