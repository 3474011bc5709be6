package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// bcryptHash hashes a password at the cheapest cost, for users files.
func bcryptHash(t *testing.T, password string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

func writeUsers(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNewAuthenticator_Errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		backend string
		users   *string // nil: no --users
		wantErr string
	}{
		{name: "unknown backend", backend: "kerberos_auth", wantErr: `unknown auth backend "kerberos_auth"`},
		{name: "basic without users", backend: authBasic, wantErr: "auth backend basic_auth needs --users"},
		{name: "password without users", backend: authPassword, wantErr: "auth backend password_auth needs --users"},
		{name: "line without colon", backend: authBasic, users: strPtr("alice:a\nbob\n"), wantErr: "line 2: want user:password"},
		{name: "empty password", backend: authBasic, users: strPtr("alice:\n"), wantErr: "line 1: want user:password"},
		{name: "empty user", backend: authBasic, users: strPtr(":pw\n"), wantErr: "line 1: want user:password"},
		{name: "duplicate user", backend: authBasic, users: strPtr("alice:a\n\nalice:b\n"), wantErr: `line 3: user "alice" is listed twice`},
		{name: "bad bcrypt hash", backend: authBasic, users: strPtr("alice:$2a$10$short\n"), wantErr: "line 1: bad bcrypt hash"},
		{name: "no users", backend: authPassword, users: strPtr("# nobody\n\n"), wantErr: "lists no users"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := ""
			if tc.users != nil {
				file = writeUsers(t, *tc.users)
			}
			_, err := newAuthenticator(tc.backend, file)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("newAuthenticator error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		t.Parallel()
		_, err := newAuthenticator(authBasic, filepath.Join(t.TempDir(), "absent"))
		if err == nil || !strings.Contains(err.Error(), "read users file") {
			t.Fatalf("error = %v, want read users file", err)
		}
	})
}

func TestAuthenticator_Check(t *testing.T) {
	t.Parallel()
	users := "# comment\n\nalice:plain:with:colons\nbob:" + bcryptHash(t, "hashed") + "\n"
	const (
		ok           = 0
		unauthorized = http.StatusUnauthorized
		forbidden    = http.StatusForbidden
		crash        = -1
	)
	tests := []struct {
		backend string
		header  string // "" sends none
		want    int
	}{
		{authDefault, "", ok},
		{authDefault, "Basic garbage", ok},
		{authDenyAll, "", forbidden},
		{authDenyAll, "Basic " + base64Std("alice:plain:with:colons"), forbidden},
		{authBasic, "Basic " + base64Std("alice:plain:with:colons"), ok},
		{authBasic, "Basic " + base64Std("bob:hashed"), ok},
		{authBasic, "BASIC   " + base64Std("bob:hashed") + "  ", ok},
		{authBasic, "Basic " + base64Std("bob:"+"wrong"), unauthorized},
		{authBasic, "Basic " + base64Std("alice:plain"), unauthorized},
		{authBasic, "", unauthorized},
		{authBasic, "Digest x", unauthorized},
		{authPassword, "Basic " + base64Std("bob:hashed"), ok},
		{authPassword, "x " + base64Std("alice:plain:with:colons"), ok},
		{authPassword, "Basic " + base64Std("alice:wrong"), forbidden},
		{authPassword, "Basic " + base64Std("carol:x"), forbidden},
		{authPassword, "", unauthorized},
		{authPassword, "Basic %%%", crash},
		{authPassword, "Basic " + base64Std("alice"), crash},
	}
	for _, tc := range tests {
		t.Run(tc.backend+"/"+tc.header, func(t *testing.T) {
			t.Parallel()
			a, r := authRequest(t, tc.backend, users, "/api/experimental/test", tc.header)
			rej := a.check(r)
			switch tc.want {
			case crash:
				if rej.err == nil {
					t.Fatalf("check = %+v, want an error (500)", rej)
				}
			case ok:
				if rej.status != 0 || rej.err != nil {
					t.Fatalf("check = %+v, want accepted", rej)
				}
			default:
				if rej.status != tc.want || rej.err != nil {
					t.Fatalf("check = %+v, want status %d", rej, tc.want)
				}
				wantBody, wantChallenge := "Forbidden", ""
				if tc.want == unauthorized {
					wantBody, wantChallenge = "Unauthorized", "Basic"
				}
				if rej.body != wantBody || rej.wwwAuthenticate != wantChallenge {
					t.Errorf("check = %+v, want body %q and challenge %q", rej, wantBody, wantChallenge)
				}
			}
		})
	}
}

// medianOf is the middle of some durations (it sorts them in place).
func medianOf(durations []time.Duration) time.Duration {
	slices.Sort(durations)
	return durations[len(durations)/2]
}

// Refusing an unknown user does the same work as refusing a bcrypt user's
// wrong password, so that timing does not tell which users exist: each
// refusal runs exactly one bcrypt comparison, at the same cost. The work
// is counted, not timed: a timed check failed on a loaded machine while
// the code was right.
func TestAuthenticator_RefusalWorkHidesUsers(t *testing.T) {
	t.Parallel()
	users := writeUsers(t, "alice:plain\nbob:"+bcryptHash(t, "hashed")+"\n")
	for _, backend := range []string{authBasic, authPassword} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			a, err := newAuthenticator(backend, users)
			if err != nil {
				t.Fatal(err)
			}
			var costs []int
			compare := a.compareHash
			a.compareHash = func(hash, password []byte) error {
				cost, err := bcrypt.Cost(hash)
				if err != nil {
					t.Errorf("compared against something that is no bcrypt hash: %v", err)
				}
				costs = append(costs, cost)
				return compare(hash, password)
			}
			refusalCosts := func(userpass string) []int {
				t.Helper()
				costs = nil
				r := httptest.NewRequest(http.MethodGet, "/api/experimental/test", nil)
				r.Header.Set("Authorization", "Basic "+base64Std(userpass))
				if rej := a.check(r); rej.status == 0 || rej.err != nil {
					t.Fatalf("check(%q) = %+v, want a refusal", userpass, rej)
				}
				return costs
			}
			unknown, wrong := refusalCosts("nobody:hashed"), refusalCosts("bob:wrong")
			if len(wrong) != 1 || !slices.Equal(unknown, wrong) {
				t.Errorf("bcrypt comparisons (costs): unknown user %v, wrong password %v; want one each, at the same cost", unknown, wrong)
			}
		})
	}
}

// An unknown user is compared against a hash as slow as the slowest user's,
// or against plain text when no user has a hash.
func TestUnknownUserCredential(t *testing.T) {
	t.Parallel()
	costlier, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost+1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		users    string
		wantCost int // 0: plain text
	}{
		{name: "plain text only", users: "alice:a\nbob:b\n"},
		{name: "one hash", users: "alice:a\nbob:" + bcryptHash(t, "b") + "\n", wantCost: bcrypt.MinCost},
		{name: "highest cost wins", users: "bob:" + bcryptHash(t, "b") + "\ncarol:" + string(costlier) + "\n", wantCost: bcrypt.MinCost + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := newAuthenticator(authBasic, writeUsers(t, tc.users))
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantCost == 0 {
				if a.unknownUser.hash != nil || len(a.unknownUser.plain) == 0 {
					t.Fatalf("unknown-user credential = %+v, want plain text", a.unknownUser)
				}
				return
			}
			cost, err := bcrypt.Cost(a.unknownUser.hash)
			if err != nil || cost != tc.wantCost {
				t.Fatalf("unknown-user hash cost = %d (%v), want %d", cost, err, tc.wantCost)
			}
		})
	}
}

// countingAuthenticator is a basic_auth authenticator for a users file
// whose bcrypt compares it counts.
func countingAuthenticator(t *testing.T, users string) (*authenticator, *atomic.Int64) {
	t.Helper()
	a, err := newAuthenticator(authBasic, writeUsers(t, users))
	if err != nil {
		t.Fatal(err)
	}
	calls := new(atomic.Int64)
	compare := a.compareHash
	a.compareHash = func(hash, password []byte) error {
		calls.Add(1)
		return compare(hash, password)
	}
	return a, calls
}

// checkAs sends one request with user:password through the backend and
// reports whether it was let through.
func checkAs(t *testing.T, a *authenticator, userpass string) bool {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/api/experimental/test", nil)
	r.Header.Set("Authorization", "Basic "+base64Std(userpass))
	rej := a.check(r)
	if rej.err != nil {
		t.Fatalf("check(%q): %v", userpass, rej.err)
	}
	return rej.status == 0
}

// A bcrypt check that passes is remembered; one that fails never is.
func TestAuthenticator_VerifiedCache(t *testing.T) {
	t.Parallel()
	users := "alice:plain\nbob:" + bcryptHash(t, "hashed") + "\ncarol:" + bcryptHash(t, "other") + "\n"
	type step struct {
		userpass  string
		wantOK    bool
		wantCalls int64 // bcrypt compares so far
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "success skips bcrypt the second time", steps: []step{
			{"bob:hashed", true, 1}, {"bob:hashed", true, 1}, {"bob:hashed", true, 1}}},
		{name: "failure is not cached", steps: []step{
			{"bob:wrong", false, 1}, {"bob:wrong", false, 2}, {"bob:hashed", true, 3}, {"bob:wrong", false, 4}}},
		{name: "unknown user is not cached", steps: []step{
			{"nobody:hashed", false, 1}, {"nobody:hashed", false, 2}}},
		{name: "one entry per user and password", steps: []step{
			{"bob:hashed", true, 1}, {"carol:hashed", false, 2}, {"carol:other", true, 3}, {"bob:other", false, 4},
			{"carol:other", true, 4}, {"bob:hashed", true, 4}}},
		{name: "plain-text users never reach bcrypt", steps: []step{
			{"alice:plain", true, 0}, {"alice:wrong", false, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, calls := countingAuthenticator(t, users)
			for i, s := range tc.steps {
				if ok := checkAs(t, a, s.userpass); ok != s.wantOK {
					t.Fatalf("step %d (%s): accepted = %v, want %v", i, s.userpass, ok, s.wantOK)
				}
				if got := calls.Load(); got != s.wantCalls {
					t.Fatalf("step %d (%s): %d bcrypt compares, want %d", i, s.userpass, got, s.wantCalls)
				}
			}
		})
	}
}

// A passed check is forgotten once its time is up, not before: the next
// request pays for bcrypt again. The checks run in a synctest bubble, so
// the cache reads the bubble's clock and its hour passes at once.
func TestAuthenticator_VerifiedCacheExpires(t *testing.T) {
	t.Parallel()
	const ttl = time.Hour
	a, calls := countingAuthenticator(t, "bob:"+bcryptHash(t, "hashed")+"\n")
	a.verified = newVerifiedCache(ttl)
	synctest.Test(t, func(t *testing.T) {
		if !checkAs(t, a, "bob:hashed") || calls.Load() != 1 {
			t.Fatalf("first check: %d compares, want 1 and accepted", calls.Load())
		}
		time.Sleep(ttl - time.Second) // the bubble's clock
		if !checkAs(t, a, "bob:hashed") || calls.Load() != 1 {
			t.Fatalf("within the time to live: %d compares, want 1 (remembered)", calls.Load())
		}
		time.Sleep(time.Second + time.Millisecond)
		if checkAs(t, a, "bob:wrong") || a.verified.passed.Len() != 0 {
			t.Fatalf("after the time to live, another pair's check leaves %d entries, want 0", a.verified.passed.Len())
		}
		if !checkAs(t, a, "bob:hashed") || calls.Load() != 3 {
			t.Fatalf("after the time to live: %d compares, want 3 (the wrong pair's, then its own)", calls.Load())
		}
	})
}

// An authenticator starts no goroutine: nothing could stop one, and
// every run (and every test server) makes an authenticator.
// expirable.LRU's sweeper, which the verified cache was, never ends.
func TestAuthenticator_LeavesNoGoroutine(t *testing.T) {
	t.Parallel()
	if _, err := newAuthenticator(authBasic, writeUsers(t, "bob:"+bcryptHash(t, "hashed")+"\n")); err != nil {
		t.Fatal(err)
	}
	var dump strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&dump, 2); err != nil {
		t.Fatal(err)
	}
	for g := range strings.SplitSeq(dump.String(), "\n\n") {
		if strings.Contains(g, "golang-lru") {
			t.Fatalf("a cache's goroutine runs on:\n%s", g)
		}
	}
}

// The cache key is a salted digest of user and password: never the
// password, never the same for another pair or another process.
func TestAuthenticator_VerifiedKey(t *testing.T) {
	t.Parallel()
	users := writeUsers(t, "bob:"+bcryptHash(t, "hashed")+"\n")
	a, err := newAuthenticator(authBasic, users)
	if err != nil {
		t.Fatal(err)
	}
	other, err := newAuthenticator(authBasic, users)
	if err != nil {
		t.Fatal(err)
	}
	for _, password := range []string{"hashed", "x", strings.Repeat("p", sha256.Size), string(make([]byte, sha256.Size))} {
		key := a.verifiedKey("bob", password)
		if string(key[:]) == password || (len(password) > 1 && bytes.Contains(key[:], []byte(password))) {
			t.Errorf("key for %q holds the password: %x", password, key)
		}
		if key != a.verifiedKey("bob", password) {
			t.Errorf("key for %q changes between calls", password)
		}
		if key == a.verifiedKey("bob", password+"!") || key == a.verifiedKey("bobby", password) {
			t.Errorf("key for %q is shared with another pair", password)
		}
		if key == other.verifiedKey("bob", password) {
			t.Errorf("key for %q is the same in two authenticators: no salt", password)
		}
	}
}

// Eight clients sending wrong passwords without a pause slow an
// authenticated client's /test by less than 5x: bcrypt checks run on at
// most half the cores, and the client's own pair is cached (bob) or plain
// text (alice). Not parallel: it measures time, and compares medians under
// flood with medians measured idle in the same run.
func TestServer_AuthFloodLeavesRoomForUsers(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("bcrypt checks leave a core free only when there are two")
	}
	users := "alice:plain\nbob:" + bcryptHash(t, "hashed") + "\n"
	for _, tc := range []struct {
		backend string
		edition edition
	}{{authBasic, edition2}, {authPassword, edition110}} {
		t.Run(tc.backend, func(t *testing.T) {
			ts := newTestServer(t, tc.edition, withAuth(tc.backend, users))
			// Enough samples to span several bcrypt compares of the flood
			// (~12 ms each under -race), fewer when requests are slow.
			const samples, minSamples, sampling = 150, 15, time.Second
			medianTest := func(userpass string) time.Duration {
				t.Helper()
				header := "Basic " + base64Std(userpass)
				ts.do(t, http.MethodGet, apiPrefix+"/test", "", "Authorization", header) // warms the cache
				var took []time.Duration
				for begin := time.Now(); len(took) < samples && (len(took) < minSamples || time.Since(begin) < sampling); {
					start := time.Now()
					res := ts.do(t, http.MethodGet, apiPrefix+"/test", "", "Authorization", header)
					took = append(took, time.Since(start))
					if res.status != http.StatusOK {
						t.Fatalf("%s: status %d, want 200", userpass, res.status)
					}
				}
				return medianOf(took)
			}
			idle := map[string]time.Duration{"alice:plain": medianTest("alice:plain"), "bob:hashed": medianTest("bob:hashed")}

			stopFlood := startAuthFlood(t, ts.URL+apiPrefix+"/test", "Basic "+base64Std("bob:wrong"), 8)
			defer stopFlood()
			for userpass, idleMedian := range idle {
				flooded := medianTest(userpass)
				ratio := float64(flooded) / float64(idleMedian)
				t.Logf("%s: median /test %v idle, %v under flood (%.1fx)", userpass, idleMedian, flooded, ratio)
				if ratio > 5 {
					t.Errorf("%s: median /test %v under flood, more than 5x its idle %v", userpass, flooded, idleMedian)
				}
			}
		})
	}
}

// startAuthFlood has clients send a refused request to url without pause
// until the returned stop is called; it returns once every client has had
// an answer.
func startAuthFlood(t *testing.T, url, authorization string, clients int) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	client := &http.Client{Transport: transport}
	var answered atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				if err != nil {
					t.Errorf("flood request: %v", err)
					return
				}
				req.Header.Set("Authorization", authorization)
				res, err := client.Do(req)
				if err != nil {
					continue // cancelled at the end
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					t.Errorf("flood request let through")
				}
				answered.Add(1)
			}
		})
	}
	stop = func() {
		cancel()
		wg.Wait()
		transport.CloseIdleConnections()
	}
	if !pollUntil(10*time.Second, func() bool { return answered.Load() >= int64(clients) }) {
		stop()
		t.Fatalf("flood: %d answers in 10 s", answered.Load())
	}
	return stop
}

// No more bcrypt compares run at once than hashChecks has tokens.
func TestAuthenticator_HashChecksBounded(t *testing.T) {
	t.Parallel()
	a, err := newAuthenticator(authBasic, writeUsers(t, "bob:"+bcryptHash(t, "hashed")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	a.hashChecks = make(chan struct{}, 2)
	var (
		mu             sync.Mutex
		inFlight, most int
	)
	underWay := func() int { mu.Lock(); defer mu.Unlock(); return inFlight }
	release := make(chan struct{})
	a.compareHash = func(hash, password []byte) error {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		<-release
		mu.Lock()
		inFlight--
		mu.Unlock()
		return bcrypt.ErrMismatchedHashAndPassword
	}
	var wg sync.WaitGroup
	for range 4 * cap(a.hashChecks) {
		wg.Go(func() { a.valid(context.Background(), "bob", "wrong") })
	}
	if !pollUntil(5*time.Second, func() bool { return underWay() >= cap(a.hashChecks) }) {
		t.Fatalf("%d compares under way, want %d", underWay(), cap(a.hashChecks))
	}
	close(release)
	wg.Wait()
	if most != cap(a.hashChecks) {
		t.Errorf("at most %d compares at once, want %d", most, cap(a.hashChecks))
	}
}

// A check waiting for a token gives up, refused and without comparing, when
// its request's context ends; a cached success needs no token.
func TestAuthenticator_HashCheckWaitEndsWithRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		cancel func(cancel context.CancelFunc) // how the context ends
	}{
		{name: "ended before", cancel: func(cancel context.CancelFunc) { cancel() }},
		{name: "ends while waiting", cancel: func(cancel context.CancelFunc) { go cancel() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, calls := countingAuthenticator(t, "bob:"+bcryptHash(t, "hashed")+"\n")
			if !a.valid(context.Background(), "bob", "hashed") {
				t.Fatal("bob refused")
			}
			for range cap(a.hashChecks) { // every token taken
				a.hashChecks <- struct{}{}
			}
			t.Cleanup(func() {
				for range cap(a.hashChecks) {
					<-a.hashChecks
				}
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tc.cancel(cancel)
			if a.valid(ctx, "bob", "wrong") {
				t.Error("a check that never compared let bob in")
			}
			if !a.valid(context.Background(), "bob", "hashed") {
				t.Error("the cached pair waited for a token")
			}
			if got := calls.Load(); got != 1 {
				t.Errorf("%d bcrypt compares, want 1 (the first check)", got)
			}
		})
	}
}

// authRequest is an authenticator of backend (with users' file for the
// backends that read one) and a request to path carrying header as its
// Authorization ("" for none).
func authRequest(t *testing.T, backend, users, path, header string) (*authenticator, *http.Request) {
	t.Helper()
	file := ""
	if backend == authBasic || backend == authPassword {
		file = writeUsers(t, users)
	}
	a, err := newAuthenticator(backend, file)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if header != "" {
		r.Header.Set("Authorization", header)
	}
	return a, r
}

// A user name holds no ':' (the users file and Basic credentials split at
// the first), but a login body may send one: it is no user, and a pair
// that passed cannot be read back as another (ann with "b:c" is not
// "ann:b" with "c").
func TestAuthenticator_UserWithColonIsUnknown(t *testing.T) {
	t.Parallel()
	a, err := newAuthenticator(authBasic, writeUsers(t, "ann:"+bcryptHash(t, "b:c")+"\nplain:x\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if !a.valid(ctx, "ann", "b:c") {
		t.Fatal("ann's own password refused")
	}
	for _, pair := range [][2]string{{"ann:b", "c"}, {"ann:", "b:c"}, {"plain:", "x"}} {
		if a.valid(ctx, pair[0], pair[1]) {
			t.Errorf("user %q with password %q accepted", pair[0], pair[1])
		}
	}
}
