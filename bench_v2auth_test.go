package main

// The cost of edition 3's token check (issue #21: at most 10 µs added to
// a request), twin style: the same /api/v2 row asked with a bearer token
// under --auth-backend simple_auth_manager, and without one in all-admins
// mode (--auth-backend default), which checks no token.

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/rs/zerolog"
)

// benchV2AuthServer is an edition-3 handler, as routes() builds it, with
// one more /api/v2 row that asks who the caller is and answers a small
// constant body (GET /api/v2/_bench), so that the request's cost is the
// framework's and the caller's.
func benchV2AuthServer(b *testing.B, auth *authenticator) *httptest.Server {
	b.Helper()
	store, dags := benchStoreWith(b)
	srv, err := newServer(serverOptions{Edition: edition3, Store: store, DAGs: dags, Auth: auth,
		Logger: zerolog.New(io.Discard), Now: time.Now, Unixname: "bench", Browser: browserPolicy{HostCheck: true}})
	if err != nil {
		b.Fatal(err)
	}
	srv.ready.Store(true)
	table := srv.v2Routes()
	table.add(http.MethodGet, "/_bench", srv.dialV2.answer(srv, func(req *apiRequest) (any, error) {
		return v2VersionInfo{Version: req.caller.user}, nil
	}))
	r := httprouter.New()
	srv.mount(r, table)
	ts := httptest.NewServer(srv.guarded(srv.withTokenCookie(r)))
	b.Cleanup(ts.Close)
	return ts
}

// bearerTransport sends every request with a bearer token.
type bearerTransport struct {
	base  http.RoundTripper
	token string
}

func (t bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

// BenchmarkV2TokenCheck: "check" is the caller's identification alone
// (the v2 dialect's authenticator) with a token a client keeps sending
// (the passed cache), with a token seen for the first time (parse,
// HMAC-SHA512, claims), and in all-admins mode, which reads no token;
// "http" is a whole request over loopback with a token against one
// without, on the same row.
func BenchmarkV2TokenCheck(b *testing.B) {
	simple, err := newAuthenticator(authSimple, writeBenchUsers(b))
	if err != nil {
		b.Fatal(err)
	}
	admins, err := newAuthenticator(authDefault, "")
	if err != nil {
		b.Fatal(err)
	}
	token, err := simple.tokens.issue("ann", roleUsersFile, jwtExpiration)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("check/bearer", func(b *testing.B) {
		a := simple.v2()
		r := httptest.NewRequest(http.MethodGet, "/api/v2/_bench", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		b.ReportAllocs()
		for b.Loop() {
			if rej := a.check(r); rej.status != 0 {
				b.Fatalf("refused: %+v", rej)
			}
		}
	})
	b.Run("check/bearer_uncached", func(b *testing.B) {
		// Every check parses and verifies the token: a client's first
		// request with it.
		a := simple.v2()
		r := httptest.NewRequest(http.MethodGet, "/api/v2/_bench", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		b.ReportAllocs()
		for b.Loop() {
			a.tokens.passed.Purge()
			if rej := a.check(r); rej.status != 0 {
				b.Fatalf("refused: %+v", rej)
			}
		}
	})
	b.Run("check/all_admins", func(b *testing.B) {
		a := admins.v2()
		r := httptest.NewRequest(http.MethodGet, "/api/v2/_bench", nil)
		b.ReportAllocs()
		for b.Loop() {
			if rej := a.check(r); rej.status != 0 {
				b.Fatalf("refused: %+v", rej)
			}
		}
	})
	b.Run("http", func(b *testing.B) {
		withToken := benchV2AuthServer(b, simple)
		without := benchV2AuthServer(b, admins)
		client := benchClient()
		bearer := &http.Client{Transport: bearerTransport{base: client.Transport, token: token}}
		compare(b, target{client: bearer, url: withToken.URL + "/api/v2/_bench"},
			target{client: client, url: without.URL + "/api/v2/_bench"}, "no_token")
	})
}

// writeBenchUsers is a users file with ann:secret.
func writeBenchUsers(b *testing.B) string {
	b.Helper()
	path := b.TempDir() + "/users"
	if err := writeFileAtomic(path, []byte("ann:secret\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}
