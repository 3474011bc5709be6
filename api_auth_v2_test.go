package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/julienschmidt/httprouter"
)

// newV2AuthServer is an edition-3 test server with the given backend and
// one more /api/v2 row that asks who the caller is (GET /api/v2/_whoami
// answers the caller's name), as every /api/v2 route but version and
// health does: /api/v2 and /auth behind the browser guard and the token
// cookie's middleware, as routes() puts them.
func newV2AuthServer(t *testing.T, backend, users string, options ...testOption) *testServer {
	t.Helper()
	ts := newTestServer(t, edition3, append([]testOption{withAuth(backend, users)}, options...)...)
	srv := ts.srv
	table := srv.v2Routes()
	table.add(http.MethodGet, "/_whoami", srv.dialV2.answer(srv, func(req *apiRequest) (any, error) {
		return map[string]string{"user": req.caller.user, "via": req.caller.via}, nil
	}))
	r := httprouter.New()
	srv.mount(r, table)
	srv.mount(r, srv.authRoutes())
	hs := httptest.NewServer(srv.guarded(srv.withTokenCookie(r)))
	t.Cleanup(hs.Close)
	return &testServer{Server: hs, srv: srv, store: ts.store, dags: ts.dags, edition: edition3}
}

// tokenOf reads the access_token of a 201 from POST or GET /auth/token.
func tokenOf(t *testing.T, res response) string {
	t.Helper()
	if res.status != http.StatusCreated {
		t.Fatalf("token: status %d %s, want 201", res.status, res.body)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.body), &out); err != nil || len(out) != 1 {
		t.Fatalf("token body %s: want {\"access_token\": ...} (%v)", res.body, err)
	}
	token, _ := out["access_token"].(string)
	return token
}

// payloadOf decodes a token's payload without checking it, keeping its
// keys' order as written.
func payloadOf(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q: want three parts", token)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("token payload: %v", err)
	}
	return string(raw)
}

func TestAuthV2_CreateToken(t *testing.T) {
	t.Parallel()
	simple := newV2AuthServer(t, authSimple, "ann:secret\nbob:"+bcryptHash(t, "hashed")+"\n")
	admins := newV2AuthServer(t, authDefault, "")
	form := "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		name        string
		ts          *testServer
		contentType string // "" sends none
		body        string
		wantStatus  int
		wantSub     string // for a 201
		wantRole    string
		wantBody    string // for an error
	}{
		{"json", simple, "application/json", `{"username":"ann","password":"secret"}`, 201, "ann", "admin", ""},
		{"json without a content type", simple, "", `{"username":"ann","password":"secret"}`, 201, "ann", "admin", ""},
		{"json with a charset", simple, "application/json; charset=utf-8", `{"username":"ann","password":"secret"}`, 201, "ann", "admin", ""},
		{"bcrypt user", simple, "application/json", `{"username":"bob","password":"hashed"}`, 201, "bob", "admin", ""},
		{"form", simple, form, "username=ann&password=secret", 201, "ann", "admin", ""},
		{"form, last value wins", simple, form, "username=bob&username=ann&password=secret", 201, "ann", "admin", ""},
		{"wrong password", simple, "application/json", `{"username":"ann","password":"nope"}`, 401, "", "", `{"detail":"Invalid credentials"}`},
		{"unknown user", simple, "application/json", `{"username":"zed","password":"secret"}`, 401, "", "", `{"detail":"Invalid credentials"}`},
		{"empty user", simple, "application/json", `{"username":"","password":"secret"}`, 400, "", "", `{"detail":"Username and password must be provided"}`},
		{"empty password", simple, form, "username=ann&password=", 400, "", "", `{"detail":"Username and password must be provided"}`},
		{"text body", simple, "text/plain", "ann:secret", 415, "", "", `{"detail":"Only application/json or application/x-www-form-urlencoded is supported"}`},
		{"multipart", simple, "multipart/form-data; boundary=x", "--x--", 415, "", "", `{"detail":"Only application/json or application/x-www-form-urlencoded is supported"}`},
		{"missing password", simple, "application/json", `{"username":"ann"}`, 422, "", "", `{"detail":"1 validation error for LoginBody\npassword\n  Field required [type=missing, input_value={'username': 'ann'}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.12/v/missing"}`},
		{"wrong type and extra field", simple, "application/json", `{"username":1,"password":"x","x":null}`, 422, "", "", `{"detail":"2 validation errors for LoginBody\nusername\n  Input should be a valid string [type=string_type, input_value=1, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.12/v/string_type\nx\n  Extra inputs are not permitted [type=extra_forbidden, input_value=None, input_type=NoneType]\n    For further information visit https://errors.pydantic.dev/2.12/v/extra_forbidden"}`},
		{"long input cut", simple, "application/json", `{"username":"ann","password":"s","extra":"` + strings.Repeat("ab", 40) + `"}`, 422, "", "", `{"detail":"1 validation error for LoginBody\nextra\n  Extra inputs are not permitted [type=extra_forbidden, input_value='abababababababababababab...bababababababababababab', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.12/v/extra_forbidden"}`},
		{"form without fields", simple, form, "", 422, "", "", `{"detail":"2 validation errors for LoginBody\nusername\n  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]\n    For further information visit https://errors.pydantic.dev/2.12/v/string_type\npassword\n  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]\n    For further information visit https://errors.pydantic.dev/2.12/v/string_type"}`},
		// request.json() and LoginBody(**body) raise, uncaught: Starlette's 500.
		{"invalid json", simple, "application/json", `{"username":`, 500, "", "", "Internal Server Error"},
		{"empty json body", simple, "application/json", "", 500, "", "", "Internal Server Error"},
		{"json list", simple, "application/json", `[]`, 500, "", "", "Internal Server Error"},
		// All-admins mode: the anonymous admin, whatever the credentials.
		{"all admins", admins, "application/json", `{"username":"who","password":"ever"}`, 201, "Anonymous", "ADMIN", ""},
		{"all admins, empty", admins, "application/json", `{"username":"","password":""}`, 201, "Anonymous", "ADMIN", ""},
		{"all admins still checks the body", admins, "application/json", `{"username":"x"}`, 422, "", "", `{"detail":"1 validation error for LoginBody\npassword\n  Field required [type=missing, input_value={'username': 'x'}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.12/v/missing"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var header []string
			if tc.contentType != "" {
				header = []string{"Content-Type", tc.contentType}
			}
			res := postRaw(t, tc.ts, "/auth/token", tc.body, header...)
			if res.status != tc.wantStatus {
				t.Fatalf("status %d %s, want %d", res.status, res.body, tc.wantStatus)
			}
			if tc.wantStatus != http.StatusCreated {
				if res.body != tc.wantBody {
					t.Errorf("body\n%s\nwant\n%s", res.body, tc.wantBody)
				}
				return
			}
			if ct := res.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			checkIssued(t, tokenOf(t, res), tc.wantSub, tc.wantRole, jwtExpiration)
		})
	}
}

// postRaw posts body as it is: ts.do sends no body for "".
func postRaw(t *testing.T, ts *testServer, path, body string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Del("Content-Type")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

var jtiRe = regexp.MustCompile(`^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$`)

// checkIssued checks a token as Airflow signs it: HS512, the claims in
// Airflow's order, ttl between iat and exp, a uuid4 hex jti.
func checkIssued(t *testing.T, token, sub, role string, ttl time.Duration) {
	t.Helper()
	header, _ := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	if string(header) != `{"alg":"HS512","typ":"JWT"}` {
		t.Errorf("header %s", header)
	}
	payload := payloadOf(t, token)
	var c struct {
		Sub, Role, JTI, Aud string
		NBF, Exp, IAT       int64
	}
	if err := json.Unmarshal([]byte(payload), &c); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^\{"sub":"[^"]*","role":"[^"]*","jti":"[0-9a-f]{32}","aud":"apache-airflow","nbf":\d+,"exp":\d+,"iat":\d+\}$`)
	if !want.MatchString(payload) {
		t.Errorf("payload %s: want Airflow's claims in its order", payload)
	}
	if c.Sub != sub || c.Role != role || !jtiRe.MatchString(c.JTI) || c.NBF != c.IAT || c.Exp-c.IAT != int64(ttl/time.Second) {
		t.Errorf("claims %s: want sub %q, role %q, a uuid4 jti, nbf = iat, exp = iat + %s", payload, sub, role, ttl)
	}
	if now := time.Now().Unix(); c.IAT < now-60 || c.IAT > now+1 {
		t.Errorf("iat %d, want about %d", c.IAT, now)
	}
}

func TestAuthV2_GetToken(t *testing.T) {
	t.Parallel()
	admins := newV2AuthServer(t, authDefault, "")
	simple := newV2AuthServer(t, authSimple, "ann:secret\n")
	t.Run("all admins", func(t *testing.T) {
		checkIssued(t, tokenOf(t, admins.do(t, http.MethodGet, "/auth/token", "")), "Anonymous", "ADMIN", jwtExpiration)
	})
	const notAllAdmins = `{"detail":"This method is only allowed if ` + "``[core] simple_auth_manager_all_admins``" + ` is True"}`
	for _, path := range []string{"/auth/token", "/auth/token/login"} {
		t.Run(path+" with users", func(t *testing.T) {
			res := simple.do(t, http.MethodGet, path, "")
			if res.status != http.StatusForbidden || res.body != notAllAdmins {
				t.Errorf("GET %s = %d %s, want 403 %s", path, res.status, res.body, notAllAdmins)
			}
		})
	}
	t.Run("login sets the cookie", func(t *testing.T) {
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Get(admins.URL + "/auth/token/login")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		cookie := res.Header.Get("Set-Cookie")
		m := regexp.MustCompile(`^_token=([A-Za-z0-9_.-]+); HttpOnly; Path=/; SameSite=lax$`).FindStringSubmatch(cookie)
		if res.StatusCode != http.StatusTemporaryRedirect || res.Header.Get("Location") != "/" || m == nil {
			t.Fatalf("GET /auth/token/login = %d, Location %q, Set-Cookie %q; want 307 to / with the token cookie",
				res.StatusCode, res.Header.Get("Location"), cookie)
		}
		checkIssued(t, m[1], "Anonymous", "ADMIN", jwtExpiration)
	})
	t.Run("other methods", func(t *testing.T) {
		res := simple.do(t, http.MethodDelete, "/auth/token", "")
		if res.status != http.StatusMethodNotAllowed {
			t.Errorf("DELETE /auth/token = %d %s, want 405", res.status, res.body)
		}
	})
}

// TestAuthV2_Caller walks core_api/security.py get_user's cases on a row
// that asks who the caller is.
func TestAuthV2_Caller(t *testing.T) {
	t.Parallel()
	simple := newV2AuthServer(t, authSimple, "ann:secret\n")
	admins := newV2AuthServer(t, authDefault, "")
	good := tokenOf(t, postRaw(t, simple, "/auth/token", "username=ann&password=secret", "Content-Type", "application/x-www-form-urlencoded"))
	expired := expiredToken(t, simple)
	other := tokenOf(t, newV2AuthServer(t, authSimple, "ann:secret\n").do(t, http.MethodPost, "/auth/token", `{"username":"ann","password":"secret"}`))
	const (
		notAuth = `{"detail":"Not authenticated"}`
		expBody = `{"detail":"Token Expired"}`
		invalid = `{"detail":"Invalid JWT token"}`
		ann     = `{"user":"ann","via":"token"}`
		anon    = `{"user":"Anonymous","via":"token"}`
	)
	for _, tc := range []struct {
		name       string
		ts         *testServer
		header     []string
		wantStatus int
		wantBody   string
		wantClear  bool // the answer clears the _token cookie
	}{
		{"no token", simple, nil, 401, notAuth, false},
		{"bearer", simple, []string{"Authorization", "Bearer " + good}, 200, ann, false},
		{"bearer, any case", simple, []string{"Authorization", "bEaReR " + good}, 200, ann, false},
		{"bearer without a token", simple, []string{"Authorization", "Bearer"}, 401, notAuth, false},
		{"basic", simple, []string{"Authorization", "Basic " + base64Std("ann:secret")}, 401, notAuth, false},
		{"expired", simple, []string{"Authorization", "Bearer " + expired}, 401, expBody, false},
		{"garbage", simple, []string{"Authorization", "Bearer not.a.token"}, 403, invalid, false},
		{"another server's key", simple, []string{"Authorization", "Bearer " + other}, 403, invalid, false},
		{"cookie", simple, []string{"Cookie", "_token=" + good}, 200, ann, false},
		{"bad cookie", simple, []string{"Cookie", "_token=nope"}, 403, invalid, true},
		{"expired cookie", simple, []string{"Cookie", "_token=" + expired}, 401, expBody, true},
		{"empty cookie", simple, []string{"Cookie", "_token="}, 401, notAuth, true},
		{"good cookie wins over a bad bearer", simple, []string{"Cookie", "_token=" + good, "Authorization", "Bearer nope"}, 200, ann, false},
		{"bearer wins over a bad cookie", simple, []string{"Cookie", "_token=nope", "Authorization", "Bearer " + good}, 200, ann, true},
		// All-admins mode: no Authorization header is the anonymous admin;
		// a header of the caller's own is judged (Starlette reads the first).
		{"all admins, nothing", admins, nil, 200, anon, false},
		{"all admins, bad bearer", admins, []string{"Authorization", "Bearer nope"}, 403, invalid, false},
		{"all admins, basic", admins, []string{"Authorization", "Basic " + base64Std("a:b")}, 401, notAuth, false},
		{"all admins, bad cookie", admins, []string{"Cookie", "_token=nope"}, 200, anon, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := tc.ts.do(t, http.MethodGet, "/api/v2/_whoami", "", tc.header...)
			if res.status != tc.wantStatus || res.body != tc.wantBody {
				t.Errorf("= %d %s, want %d %s", res.status, res.body, tc.wantStatus, tc.wantBody)
			}
			if got := res.header.Get("WWW-Authenticate"); got != "" {
				t.Errorf("WWW-Authenticate %q: Airflow's schemes send none (auto_error=False)", got)
			}
			clear := `_token=""; HttpOnly; Max-Age=0; Path=/; SameSite=lax`
			if got := res.header.Get("Set-Cookie"); (got == clear) != tc.wantClear || (got != "" && got != clear) {
				t.Errorf("Set-Cookie %q, want cleared: %v", got, tc.wantClear)
			}
		})
	}
	t.Run("version and health need no token", func(t *testing.T) {
		for _, path := range []string{"/api/v2/version", "/api/v2/monitor/health"} {
			if res := simple.do(t, http.MethodGet, path, ""); res.status != http.StatusOK {
				t.Errorf("GET %s = %d %s, want 200", path, res.status, res.body)
			}
		}
	})
}

// expiredToken is a token of ts's key that expired a minute (beyond the
// leeway) ago.
func expiredToken(t *testing.T, ts *testServer) string {
	t.Helper()
	past := *ts.srv.opts.Auth.tokens
	past.now = func() time.Time { return time.Now().Add(-jwtExpiration - time.Minute) }
	token, err := past.issue("ann", roleUsersFile, jwtExpiration)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// The claims are checked as PyJWT checks them, with Airflow's 10 s of
// leeway, and an expired token is a 401 only when nothing checked before
// the expiry fails.
func TestTokenAuthority_Check(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	ta, err := newTokenAuthority(nil)
	if err != nil {
		t.Fatal(err)
	}
	ta.now = func() time.Time { return now }
	sign := func(claims jwt.MapClaims) string {
		token, err := jwt.NewWithClaims(jwt.SigningMethodHS512, claims).SignedString(ta.key)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	base := func(edit func(jwt.MapClaims)) string {
		c := jwt.MapClaims{"sub": "ann", "role": "admin", "aud": jwtAudience, "nbf": now.Unix(), "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
		edit(c)
		return sign(c)
	}
	s := func(d time.Duration) int64 { return now.Add(d).Unix() }
	for _, tc := range []struct {
		name  string
		token string
		want  error
	}{
		{"good", base(func(jwt.MapClaims) {}), nil},
		{"audience in a list", base(func(c jwt.MapClaims) { c["aud"] = []string{"x", jwtAudience} }), nil},
		{"expired within the leeway", base(func(c jwt.MapClaims) { c["exp"] = s(-9 * time.Second) }), nil},
		{"expired at the leeway", base(func(c jwt.MapClaims) { c["exp"] = s(-10 * time.Second) }), errTokenExpired},
		{"nbf within the leeway", base(func(c jwt.MapClaims) { c["nbf"] = s(10 * time.Second) }), nil},
		{"nbf beyond it", base(func(c jwt.MapClaims) { c["nbf"] = s(11 * time.Second) }), errTokenInvalid},
		{"iat beyond it", base(func(c jwt.MapClaims) { c["iat"] = s(11 * time.Second) }), errTokenInvalid},
		{"no exp", base(func(c jwt.MapClaims) { delete(c, "exp") }), errTokenInvalid},
		{"no iat", base(func(c jwt.MapClaims) { delete(c, "iat") }), errTokenInvalid},
		{"no nbf", base(func(c jwt.MapClaims) { delete(c, "nbf") }), errTokenInvalid},
		{"null exp", base(func(c jwt.MapClaims) { c["exp"] = nil }), errTokenInvalid},
		{"exp a string", base(func(c jwt.MapClaims) { c["exp"] = "soon" }), errTokenInvalid},
		{"no aud", base(func(c jwt.MapClaims) { delete(c, "aud") }), errTokenInvalid},
		{"another aud", base(func(c jwt.MapClaims) { c["aud"] = "urn:airflow.apache.org:task" }), errTokenInvalid},
		{"no sub", base(func(c jwt.MapClaims) { delete(c, "sub") }), errTokenInvalid},
		{"no role", base(func(c jwt.MapClaims) { delete(c, "role") }), errTokenInvalid},
		// PyJWT checks the required claims first, the audience last.
		{"expired without iat", base(func(c jwt.MapClaims) { c["exp"] = s(-time.Hour); delete(c, "iat") }), errTokenInvalid},
		{"expired, another aud", base(func(c jwt.MapClaims) { c["exp"] = s(-time.Hour); c["aud"] = "x" }), errTokenExpired},
		{"expired, no sub", base(func(c jwt.MapClaims) { c["exp"] = s(-time.Hour); delete(c, "sub") }), errTokenExpired},
		{"expired, nbf ahead", base(func(c jwt.MapClaims) { c["exp"] = s(-time.Hour); c["nbf"] = s(time.Hour) }), errTokenInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := ta.check(tc.token)
			if err != tc.want {
				t.Fatalf("check = %+v, %v; want %v", c, err, tc.want)
			}
			if err == nil && (c.user != "ann" || c.via != viaToken) {
				t.Errorf("caller %+v, want ann by token", c)
			}
		})
	}
}

// The key stays in the home: a second start reads it, so that a token
// outlives a restart; another home has another key.
func TestLoadTokenKey(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	first, err := loadTokenKey(home)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(home, tokenKeyFile))
	if err != nil || info.Mode().Perm() != 0o600 || len(first) != tokenKeyBytes {
		t.Fatalf("key file %v %v, key of %d bytes: want 0600 and %d bytes", info, err, len(first), tokenKeyBytes)
	}
	a, err := newAuthenticatorWithKey(authSimple, writeUsers(t, "ann:secret\n"), first)
	if err != nil {
		t.Fatal(err)
	}
	token, err := a.tokens.issue("ann", roleUsersFile, jwtExpiration)
	if err != nil {
		t.Fatal(err)
	}
	again, err := loadTokenKey(home)
	if err != nil {
		t.Fatal(err)
	}
	restarted, _ := newAuthenticatorWithKey(authSimple, writeUsers(t, "ann:secret\n"), again)
	if c, err := restarted.tokens.check(token); err != nil || c.user != "ann" {
		t.Errorf("after a restart: %+v, %v; want ann", c, err)
	}
	otherKey, err := loadTokenKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	elsewhere, _ := newAuthenticatorWithKey(authSimple, writeUsers(t, "ann:secret\n"), otherKey)
	if _, err := elsewhere.tokens.check(token); err != errTokenInvalid {
		t.Errorf("another home's airlite: %v, want %v", err, errTokenInvalid)
	}
}

// Airlites starting on one home at once agree on one key.
func TestLoadTokenKey_Concurrent(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	keys := make([][]byte, 8)
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() { keys[i], errs[i] = loadTokenKey(home) })
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil || string(keys[i]) != string(keys[0]) {
			t.Fatalf("start %d: %v, same key %v", i, errs[i], string(keys[i]) == string(keys[0]))
		}
	}
	if temps, _ := filepath.Glob(filepath.Join(home, tokenKeyFile+".tmp*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

func TestLoadTokenKey_Bad(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"not base64!", base64.StdEncoding.EncodeToString([]byte("short"))} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, tokenKeyFile), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := loadTokenKey(home); err == nil || !strings.Contains(err.Error(), "remove the file") {
			t.Errorf("key %q: %v, want a refusal that says what to do", text, err)
		}
	}
}

// Edition 3 takes the simple auth manager's backends only, and the
// simple auth manager is edition 3's only.
func TestParseConfig_AuthBackendByEdition(t *testing.T) {
	t.Parallel()
	users := writeUsers(t, "ann:secret\n")
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--edition", "3"}, ""},
		{[]string{"--edition", "3", "--auth-backend", "simple_auth_manager", "--users", users}, ""},
		{[]string{"--edition", "3", "--auth-backend", "simple_auth_manager"}, "needs --users"},
		{[]string{"--edition", "3", "--auth-backend", "basic_auth", "--users", users}, "edition 3 (Airflow 3) takes default"},
		{[]string{"--edition", "3", "--auth-backend", "deny_all"}, "edition 3 (Airflow 3) takes default"},
		{[]string{"--edition", "2", "--auth-backend", "simple_auth_manager", "--users", users}, "use it with --edition 3"},
		{[]string{"--edition", "2", "--auth-backend", "basic_auth", "--users", users}, ""},
	} {
		_, err := parseConfig(tc.args, func(string) string { return "" }, &strings.Builder{})
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("parseConfig(%q) = %v, want %q", tc.args, err, tc.wantErr)
		}
	}
}

func TestCaller_LoggedInByToken(t *testing.T) {
	t.Parallel()
	if got := (caller{user: "ann", via: viaToken}).loggedIn(); got != "ann" {
		t.Errorf("loggedIn = %q, want ann: Airflow 3 logs the token's user", got)
	}
}

// A token that passed is remembered until it expires, then refused as
// expired like any other: the cache never outlives a token.
func TestTokenAuthority_CacheExpires(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	ta, err := newTokenAuthority(nil)
	if err != nil {
		t.Fatal(err)
	}
	ta.now = func() time.Time { return now }
	token, err := ta.issue("ann", roleUsersFile, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at   time.Duration
		want error
	}{
		{0, nil},
		{time.Hour, nil}, // within the leeway
		{time.Hour + jwtLeeway - time.Second, nil},
		{time.Hour + jwtLeeway, errTokenExpired},
		{0, nil}, // a clock set back: the token passes again
	} {
		ta.now = func() time.Time { return now.Add(tc.at) }
		if _, err := ta.check(token); err != tc.want {
			t.Errorf("at +%s: %v, want %v", tc.at, err, tc.want)
		}
		if tc.want == nil && ta.passed.Len() != 1 {
			t.Errorf("at +%s: %d tokens cached, want 1", tc.at, ta.passed.Len())
		}
	}
}

// POST /auth/token/cli (airflowctl's login) takes a JSON body as FastAPI
// checks one, and hands out tokens of [api_auth] jwt_cli_expiration_time.
func TestAuthV2_CreateTokenCLI(t *testing.T) {
	t.Parallel()
	simple := newV2AuthServer(t, authSimple, "ann:secret\n")
	admins := newV2AuthServer(t, authDefault, "")
	for _, tc := range []struct {
		name        string
		ts          *testServer
		contentType string
		body        string
		wantStatus  int
		wantSub     string
		wantRole    string
		wantBody    string
	}{
		{"good", simple, "application/json", `{"username":"ann","password":"secret"}`, 201, "ann", "admin", ""},
		{"all admins", admins, "application/json", `{"username":"x","password":"y"}`, 201, "Anonymous", "ADMIN", ""},
		{"wrong password", simple, "application/json", `{"username":"ann","password":"nope"}`, 401, "", "", `{"detail":"Invalid credentials"}`},
		{"empty password", simple, "application/json", `{"username":"ann","password":""}`, 400, "", "", `{"detail":"Username and password must be provided"}`},
		{"missing password", simple, "application/json", `{"username":"ann"}`, 422, "", "", `{"detail":[{"type":"missing","loc":["body","password"],"msg":"Field required","input":{"username":"ann"}}]}`},
		{"no body", simple, "application/json", ``, 422, "", "", `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"a form", simple, "application/x-www-form-urlencoded", `username=ann&password=secret`, 422, "", "", `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":"username=ann&password=secret"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := postRaw(t, tc.ts, "/auth/token/cli", tc.body, "Content-Type", tc.contentType)
			if res.status != tc.wantStatus {
				t.Fatalf("status %d %s, want %d", res.status, res.body, tc.wantStatus)
			}
			if tc.wantStatus != http.StatusCreated {
				if res.body != tc.wantBody {
					t.Errorf("body\n%s\nwant\n%s", res.body, tc.wantBody)
				}
				return
			}
			checkIssued(t, tokenOf(t, res), tc.wantSub, tc.wantRole, jwtCLIExpiration)
		})
	}
}

// A token outlives a restart of airlite on the same home, and an airlite
// on another home refuses it (the binary's wiring: loadEditionTokenKey).
// The admin endpoints take the simple auth manager's tokens too.
func TestRun_Edition3TokenSurvivesRestart(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	users := writeUsers(t, "ann:secret\n")
	args := func(home string) []string {
		return []string{"--edition", "3", "--auth-backend", "simple_auth_manager", "--users", users,
			"--home", home, "--snapshot", filepath.Join(home, "snapshot.json")}
	}
	get := func(base, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+"/_airlite/requests", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	first := startRun(t, args(home)...)
	res, err := http.Post(first.baseURL+"/auth/token", "application/json", strings.NewReader(`{"username":"ann","password":"secret"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	token := tokenOf(t, response{status: res.StatusCode, body: string(body)})
	if err := first.stop(t); err != nil {
		t.Fatal(err)
	}
	again := startRun(t, args(home)...)
	if status, body := get(again.baseURL, token); status != http.StatusOK {
		t.Errorf("after a restart: %d %s, want 200", status, body)
	}
	if status, body := get(again.baseURL, ""); status != http.StatusUnauthorized || body != "Not authenticated" {
		t.Errorf("without a token: %d %q, want 401 Not authenticated", status, body)
	}
	other := startRun(t, args(t.TempDir())...)
	if status, body := get(other.baseURL, token); status != http.StatusForbidden || body != "Invalid JWT token" {
		t.Errorf("another home: %d %q, want 403 Invalid JWT token", status, body)
	}
}

// With --snapshot off airlite writes nothing in the home, the key
// included.
func TestRun_Edition3SnapshotOffKeepsNoKey(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	s := startRun(t, "--edition", "3", "--home", home, "--snapshot", "off")
	if err := s.stop(t); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, tokenKeyFile)); !os.IsNotExist(err) {
		t.Errorf("key file: %v, want none", err)
	}
}

// bearer is an Authorization header, as name/value for ts.do, with a
// token of ts's key for user: for tests of edition 3 under
// --auth-backend simple_auth_manager (withAuth(authSimple, users)).
func (ts *testServer) bearer(t *testing.T, user string) []string {
	t.Helper()
	token, err := ts.srv.opts.Auth.tokens.issue(user, roleUsersFile, jwtExpiration)
	if err != nil {
		t.Fatal(err)
	}
	return []string{"Authorization", "Bearer " + token}
}

func TestTestServer_Bearer(t *testing.T) {
	t.Parallel()
	ts := newV2AuthServer(t, authSimple, "ann:secret\n")
	if res := ts.do(t, http.MethodGet, "/api/v2/_whoami", "", ts.bearer(t, "ann")...); res.body != `{"user":"ann","via":"token"}` {
		t.Errorf("= %d %s, want ann", res.status, res.body)
	}
}

// TestAuthV2_LoginLogoutRedirects follows Airflow's test_auth.py: GET
// /api/v2/auth/login is a 307 to the simple auth manager's login URL,
// with next url-encoded when it is safe (the request's own host) and a
// 400 when it is not; /auth/logout is a 307 there that deletes the
// _token cookie. Neither needs a token.
func TestAuthV2_LoginLogoutRedirects(t *testing.T) {
	t.Parallel()
	admins := newV2AuthServer(t, authDefault, "")
	simple := newV2AuthServer(t, authSimple, "ann:secret\n")
	host := strings.TrimPrefix(admins.URL, "http://")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(t *testing.T, base, path string) (*http.Response, string) {
		t.Helper()
		res, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, string(body)
	}
	const unsafe = `{"detail":"Invalid or unsafe next URL"}`
	for _, tc := range []struct {
		name, base, path string
		wantStatus       int
		wantLocation     string
	}{
		{"all admins", admins.URL, "/api/v2/auth/login", 307, "/auth/token/login"},
		{"users", simple.URL, "/api/v2/auth/login", 307, "/auth/login"},
		{"empty next", simple.URL, "/api/v2/auth/login?next=", 307, "/auth/login"},
		{"next on this host, encoded", admins.URL, "/api/v2/auth/login?next=" + url.QueryEscape("http://"+host+"/dags/d/runs/manual__2026-03-02T12:45:13+00:00"),
			307, "/auth/token/login?next=" + url.QueryEscape("http://"+host+"/dags/d/runs/manual__2026-03-02T12:45:13+00:00")},
		{"a relative next", admins.URL, "/api/v2/auth/login?next=%2Fdags", 307, "/auth/token/login?next=%2Fdags"},
		{"another host", admins.URL, "/api/v2/auth/login?next=" + url.QueryEscape("http://fake_domain.com:8080"), 400, ""},
		{"another port", admins.URL, "/api/v2/auth/login?next=" + url.QueryEscape("http://127.0.0.1:1/"), 400, ""},
		{"scheme-relative", admins.URL, "/api/v2/auth/login?next=" + url.QueryEscape("//evil.example/x"), 400, ""},
		{"scheme-relative, encoded twice", admins.URL, "/api/v2/auth/login?next=" + url.QueryEscape("%2F%2Fevil.example"), 400, ""},
		{"backslashes", admins.URL, "/api/v2/auth/login?next=" + url.QueryEscape(`/\evil.example`), 400, ""},
		{"javascript", admins.URL, "/api/v2/auth/login?next=" + url.QueryEscape("javascript:alert(1)"), 400, ""},
		{"user info", admins.URL, "/api/v2/auth/login?next=" + url.QueryEscape("http://"+host+"@evil.example/"), 400, ""},
		{"logout, all admins", admins.URL, "/api/v2/auth/logout", 307, "/auth/token/login"},
		{"logout, users", simple.URL, "/api/v2/auth/logout", 307, "/auth/login"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := get(t, tc.base, tc.path)
			if res.StatusCode != tc.wantStatus || res.Header.Get("Location") != tc.wantLocation {
				t.Errorf("GET %s = %d, Location %q, %s; want %d, %q", tc.path, res.StatusCode, res.Header.Get("Location"), body, tc.wantStatus, tc.wantLocation)
			}
			if tc.wantStatus == 400 && body != unsafe {
				t.Errorf("GET %s = %s, want %s", tc.path, body, unsafe)
			}
		})
	}
	t.Run("logout deletes the cookie", func(t *testing.T) {
		res, _ := get(t, admins.URL, "/api/v2/auth/logout")
		cookie := res.Header.Get("Set-Cookie")
		if !regexp.MustCompile(`^_token=""; expires=\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT; HttpOnly; Max-Age=0; Path=/; SameSite=lax$`).MatchString(cookie) {
			t.Errorf("Set-Cookie %q, want Starlette's delete_cookie of _token", cookie)
		}
	})
}

// TestAuthV2_LogoutRevokesToken follows Airflow 3.2.1's logout (the
// revoked_token table came in 3.2.0, apache/airflow#61339; test_auth.py
// TestLogoutTokenRevocation): GET /api/v2/auth/logout revokes the token
// of the _token cookie it is sent with, and that token is refused from
// then on, as a bearer token or a cookie, with the 403 of any other bad
// token (get_user_from_token raises InvalidTokenError for a revoked jti);
// other tokens of the user still pass. A bearer token sent to logout is
// not revoked (3.2.1 reads the cookie only; #72649 came after), and a bad
// cookie does not stop the logout.
func TestAuthV2_LogoutRevokesToken(t *testing.T) {
	t.Parallel()
	ts := newV2AuthServer(t, authSimple, "ann:secret\n")
	login := func() string {
		return tokenOf(t, ts.do(t, http.MethodPost, "/auth/token", `{"username": "ann", "password": "secret"}`, "Content-Type", "application/json"))
	}
	whoami := func(header ...string) response {
		t.Helper()
		return ts.do(t, http.MethodGet, "/api/v2/_whoami", "", header...)
	}
	revoked, kept, bearerOnly := login(), login(), login()
	for _, header := range [][]string{{"Cookie", "_token=" + revoked}, {"Authorization", "Bearer " + bearerOnly}, {"Cookie", "_token=not-a-valid-jwt"}} {
		if res := ts.doNoRedirect(t, http.MethodGet, "/api/v2/auth/logout", "", header...); res.status != http.StatusTemporaryRedirect {
			t.Fatalf("logout with %s = %d %s, want 307", header[0], res.status, res.body)
		}
	}
	if res := whoami("Authorization", "Bearer "+revoked); res.status != http.StatusForbidden || res.body != `{"detail":"Invalid JWT token"}` {
		t.Errorf("revoked token as bearer = %d %s, want 403 Invalid JWT token", res.status, res.body)
	}
	res := whoami("Cookie", "_token="+revoked)
	if res.status != http.StatusForbidden || res.header.Get("Set-Cookie") != `_token=""; HttpOnly; Max-Age=0; Path=/; SameSite=lax` {
		t.Errorf("revoked token as cookie = %d %s, Set-Cookie %q; want 403 and the cookie cleared", res.status, res.body, res.header.Get("Set-Cookie"))
	}
	for name, token := range map[string]string{"another token": kept, "a token logout saw as bearer": bearerOnly} {
		if res := whoami("Authorization", "Bearer "+token); res.status != http.StatusOK {
			t.Errorf("%s = %d %s, want 200", name, res.status, res.body)
		}
	}
}

// TestRun_Edition3RevocationSurvivesRestart: a token revoked by logout
// stays refused after a restart, as Airflow keeps revoked_token in its
// database, for as long as its key is kept (the home).
func TestRun_Edition3RevocationSurvivesRestart(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	users := writeUsers(t, "ann:secret\n")
	args := []string{"--edition", "3", "--auth-backend", "simple_auth_manager", "--users", users,
		"--home", home, "--snapshot", filepath.Join(home, "snapshot.json")}
	do := func(method, url string, header ...string) int {
		t.Helper()
		req, _ := http.NewRequest(method, url, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	first := startRun(t, args...)
	res, err := http.Post(first.baseURL+"/auth/token", "application/json", strings.NewReader(`{"username":"ann","password":"secret"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	token := tokenOf(t, response{status: res.StatusCode, body: string(body)})
	if status := do(http.MethodGet, first.baseURL+"/api/v2/auth/logout", "Cookie", "_token="+token); status != http.StatusTemporaryRedirect {
		t.Fatalf("logout = %d, want 307", status)
	}
	if err := first.stop(t); err != nil {
		t.Fatal(err)
	}
	again := startRun(t, args...)
	if status := do(http.MethodGet, again.baseURL+"/api/v2/pools", "Authorization", "Bearer "+token); status != http.StatusForbidden {
		t.Errorf("revoked token after a restart = %d, want 403", status)
	}
}
