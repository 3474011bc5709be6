package main

// Attacks on edition 3's tokens and login routes: forged, expired and
// unsigned tokens, algorithm swaps, another airlite's tokens, tokens in
// the query string, cross-site requests and DNS rebinding. Each is
// refused as Airflow 3.2.1 refuses it, or by airlite's browser guard.

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// goodClaims are the claims of a token that passes, now. Times are an
// hour off where they must fail: parallel subtests of a loaded suite may
// run a minute after their table was built.
func goodClaims() jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{"sub": "ann", "role": "admin", "jti": newJTI(), "aud": jwtAudience,
		"nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()}
}

// b64 is a JWT segment of text.
func b64(text string) string { return base64.RawURLEncoding.EncodeToString([]byte(text)) }

func TestSecurity_V2Tokens(t *testing.T) {
	t.Parallel()
	ts := newV2AuthServer(t, authSimple, "ann:secret\n")
	key := ts.srv.opts.Auth.tokens.key
	good := tokenOf(t, ts.do(t, http.MethodPost, "/auth/token", `{"username":"ann","password":"secret"}`))
	parts := strings.Split(good, ".")
	sign := func(method jwt.SigningMethod, signKey any, claims jwt.MapClaims) string {
		t.Helper()
		token, err := jwt.NewWithClaims(method, claims).SignedString(signKey)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	withClaim := func(k string, v any) jwt.MapClaims {
		c := goodClaims()
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	otherHome, err := loadTokenKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	payload := b64(`{"sub":"mallory","role":"ADMIN","aud":"apache-airflow","nbf":1,"iat":1,"exp":99999999999}`)
	const (
		expired = `{"detail":"Token Expired"}`
		invalid = `{"detail":"Invalid JWT token"}`
		notAuth = `{"detail":"Not authenticated"}`
	)
	for _, tc := range []struct {
		name, token string
		wantStatus  int
		wantBody    string
	}{
		{"the good token", good, 200, `{"user":"ann","via":"token"}`},
		{"payload swapped, signature kept", parts[0] + "." + payload + "." + parts[2], 403, invalid},
		{"signature of another token", parts[0] + "." + parts[1] + "." + strings.Split(sign(jwt.SigningMethodHS512, key, goodClaims()), ".")[2], 403, invalid},
		{"signature cut", parts[0] + "." + parts[1] + ".", 403, invalid},
		{"signature flipped", parts[0] + "." + parts[1] + "." + flipMiddle(parts[2]), 403, invalid},
		{"alg none", b64(`{"alg":"none","typ":"JWT"}`) + "." + payload + ".", 403, invalid},
		{"alg None", b64(`{"alg":"None","typ":"JWT"}`) + "." + payload + ".", 403, invalid},
		{"alg none by the library", sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, goodClaims()), 403, invalid},
		{"HS256 with the right key", sign(jwt.SigningMethodHS256, key, goodClaims()), 403, invalid},
		{"HS384 with the right key", sign(jwt.SigningMethodHS384, key, goodClaims()), 403, invalid},
		{"RS256 header over an HMAC", b64(`{"alg":"RS256","typ":"JWT"}`) + "." + parts[1] + "." + parts[2], 403, invalid},
		{"another airlite home's key", sign(jwt.SigningMethodHS512, otherHome, goodClaims()), 403, invalid},
		{"an empty key", sign(jwt.SigningMethodHS512, []byte{}, goodClaims()), 403, invalid},
		{"expired", sign(jwt.SigningMethodHS512, key, withClaim("exp", time.Now().Add(-time.Minute).Unix())), 401, expired},
		{"not yet valid", sign(jwt.SigningMethodHS512, key, withClaim("nbf", time.Now().Add(time.Hour).Unix())), 403, invalid},
		{"issued in the future", sign(jwt.SigningMethodHS512, key, withClaim("iat", time.Now().Add(time.Hour).Unix())), 403, invalid},
		{"no expiry", sign(jwt.SigningMethodHS512, key, withClaim("exp", nil)), 403, invalid},
		{"wrong audience", sign(jwt.SigningMethodHS512, key, withClaim("aud", "urn:airflow.apache.org:task")), 403, invalid},
		{"no audience", sign(jwt.SigningMethodHS512, key, withClaim("aud", nil)), 403, invalid},
		// Airflow checks no issuer unless [api_auth] jwt_issuer is set.
		{"any issuer", sign(jwt.SigningMethodHS512, key, withClaim("iss", "https://evil.example")), 200, `{"user":"ann","via":"token"}`},
		{"not a JWT", "eyJhbGciOiJIUzUxMiJ9", 403, invalid},
		{"huge", strings.Repeat("A", 32<<10), 403, invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := ts.do(t, http.MethodGet, "/api/v2/_whoami", "", "Authorization", "Bearer "+tc.token)
			if res.status != tc.wantStatus || res.body != tc.wantBody {
				t.Errorf("= %d %s, want %d %s", res.status, res.body, tc.wantStatus, tc.wantBody)
			}
		})
	}
	// FastAPI's schemes read the Authorization header and the cookie only:
	// a token in the query string names nobody.
	for _, name := range []string{"token", "access_token", "_token", "jwt", "Authorization"} {
		t.Run("query "+name, func(t *testing.T) {
			t.Parallel()
			res := ts.do(t, http.MethodGet, "/api/v2/_whoami?"+url.Values{name: {good}}.Encode(), "")
			if res.status != http.StatusUnauthorized || res.body != notAuth {
				t.Errorf("token in ?%s= : %d %s, want 401 %s", name, res.status, res.body, notAuth)
			}
		})
	}
}

// flipMiddle changes a segment's middle character to another of the
// alphabet. (Not the last: its low bits are padding, which base64
// decoders, PyJWT's as golang-jwt's, ignore, so some changes there decode
// to the same signature.)
func flipMiddle(seg string) string {
	i := len(seg) / 2
	repl := byte('A')
	if seg[i] == 'A' {
		repl = 'B'
	}
	return seg[:i] + string(repl) + seg[i+1:]
}

// A page of another site reaches neither the login routes nor /api/v2,
// even with the user's cookie, and a name rebound to 127.0.0.1 is refused
// before any route: the token the routes would hand out never reaches it.
func TestSecurity_V2BrowserGuard(t *testing.T) {
	t.Parallel()
	admins := newV2AuthServer(t, authDefault, "")
	simple := newV2AuthServer(t, authSimple, "ann:secret\n")
	cookie := "_token=" + tokenOf(t, simple.do(t, http.MethodPost, "/auth/token", `{"username":"ann","password":"secret"}`))
	host := strings.TrimPrefix(admins.URL, "http://")
	evil := "https://evil.example"
	for _, tc := range []struct {
		name, method, path, body string
		ts                       *testServer
		header                   []string
	}{
		{"all-admins token, cross-site GET", http.MethodGet, "/auth/token", "", admins, []string{"Sec-Fetch-Site", "cross-site", "Origin", evil}},
		{"all-admins token, same-site page of another port", http.MethodGet, "/auth/token", "", admins, []string{"Sec-Fetch-Site", "same-site"}},
		{"cookie login, cross-site navigation", http.MethodGet, "/auth/token/login", "", admins, []string{"Sec-Fetch-Site", "cross-site"}},
		{"form login, cross-site POST", http.MethodPost, "/auth/token", "username=ann&password=secret", simple,
			[]string{"Origin", evil, "Content-Type", "application/x-www-form-urlencoded"}},
		{"login, old browser's Origin", http.MethodPost, "/auth/token", `{"username":"ann","password":"secret"}`, simple, []string{"Origin", evil}},
		{"api with the user's cookie, cross-site", http.MethodGet, "/api/v2/_whoami", "", simple, []string{"Sec-Fetch-Site", "cross-site", "Cookie", cookie}},
		{"rebinding, login", http.MethodPost, "/auth/token", `{"username":"ann","password":"secret"}`, simple, []string{"Host", "evil.example"}},
		{"rebinding, all-admins token", http.MethodGet, "/auth/token", "", admins, []string{"Host", "evil.example:" + strings.Split(host, ":")[1]}},
		{"rebinding, api", http.MethodGet, "/api/v2/_whoami", "", admins, []string{"Host", "attacker.example"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := doWithHost(t, tc.ts, tc.method, tc.path, tc.body, tc.header...)
			if res.status != http.StatusForbidden || strings.Contains(res.body, "access_token") || res.header.Get("Set-Cookie") != "" {
				t.Errorf("= %d %s (Set-Cookie %q), want a 403 without a token", res.status, res.body, res.header.Get("Set-Cookie"))
			}
			if !strings.HasPrefix(res.body, `{"error":`) {
				t.Errorf("body %s, want the guard's JSON", res.body)
			}
		})
	}
	t.Run("same origin passes", func(t *testing.T) {
		res := doWithHost(t, admins, http.MethodGet, "/auth/token", "", "Sec-Fetch-Site", "same-origin", "Origin", admins.URL)
		if res.status != http.StatusCreated {
			t.Errorf("= %d %s, want 201", res.status, res.body)
		}
	})
}

// doWithHost is ts.do with a Host header of the caller's choosing.
func doWithHost(t *testing.T, ts *testServer, method, path, body string, header ...string) response {
	t.Helper()
	var rest []string
	host := ""
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			host = header[i+1]
			continue
		}
		rest = append(rest, header[i], header[i+1])
	}
	if host == "" {
		return ts.do(t, method, path, body, rest...)
	}
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(rest); i += 2 {
		req.Header.Set(rest[i], rest[i+1])
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b := new(strings.Builder)
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return response{status: res.StatusCode, header: res.Header, body: b.String()}
}
