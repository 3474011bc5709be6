package main

// Airflow 3's simple auth manager (issue #21): the JWTs it issues through
// POST /auth/token, and how /api/v2 finds the caller in them.
//
// Airflow signs with [api_auth] jwt_secret, HS512 (auth/tokens.py
// JWTGenerator: "GUESS" is HS512 for a secret), claims sub and role
// (simple_auth_manager.py serialize_user) then jti, aud, nbf, exp and iat,
// no iss unless [api_auth] jwt_issuer is set; it validates with
// JWTValidator: HS512 only, exp, iat and nbf required, the audience
// checked, 10 s of leeway ([api_auth] jwt_leeway). airlite keeps its
// secret in a file of the home, so that tokens outlive a restart.
//
// Tokens are signed by github.com/golang-jwt/jwt/v5, and checked by it
// (HMAC compared with hmac.Equal, so in constant time) unless they are in
// the form airlite signs, which api_auth_v2_verify.go reads as strictly
// without the library's generic decoders. The claims
// are then checked here in PyJWT's order (api_jwt.py _validate_claims:
// required claims, iat, nbf, exp, aud), because the order decides
// Airflow's answer: an expired token is a 401, any other fault a 403.

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	lru "github.com/hashicorp/golang-lru/v2"
)

// The defaults of Airflow 3.2.1's [api_auth] section
// (config_templates/config.yml) and base_auth_manager.py.
const (
	// jwtAudience is the aud claim Airflow signs and requires when
	// [api_auth] jwt_audience is not set (base_auth_manager.py
	// _get_jwt_audience).
	jwtAudience = "apache-airflow"
	// jwtExpiration is [api_auth] jwt_expiration_time: 86400 seconds.
	jwtExpiration = 24 * time.Hour
	// jwtCLIExpiration is [api_auth] jwt_cli_expiration_time, the tokens
	// of POST /auth/token/cli: 3600 seconds.
	jwtCLIExpiration = time.Hour
	// jwtLeeway is [api_auth] jwt_leeway: 10 seconds either way.
	jwtLeeway = 10 * time.Second
	// jwtAlgorithm is what JWTGenerator and JWTValidator guess for a
	// secret key.
	jwtAlgorithm = "HS512"
	// tokenKeyBytes is the size of the signing key: HS512's block, as RFC
	// 7518 §3.2 asks of an HMAC key (at least the hash's output).
	tokenKeyBytes = 64
	// tokenKeyFile is the key's file in the home (--home).
	tokenKeyFile = "api_auth_jwt_secret"
)

// The simple auth manager's users and roles (simple_auth_manager.py,
// services/login.py _create_anonymous_admin_user).
const (
	// anonymousAdmin is the user of all-admins mode's tokens.
	anonymousAdmin = "Anonymous"
	roleAllAdmins  = "ADMIN"
	// roleUsersFile is the role of a --users user: as Airflow's default
	// [core] simple_auth_manager_users "admin:admin" gives it, lower case.
	// airlite has no roles: every user may do everything.
	roleUsersFile = "admin"
)

// The answers of core_api/security.py resolve_user_from_token and of the
// simple auth manager's login service (auth/managers/simple/services/
// login.py, utils.py, common/headers.py).
const (
	v2NotAuthenticated   = "Not authenticated"
	v2TokenExpired       = "Token Expired"
	v2InvalidToken       = "Invalid JWT token"
	v2InvalidCredentials = "Invalid credentials"
	v2MissingCredentials = "Username and password must be provided"
	v2NotAllAdmins       = "This method is only allowed if ``[core] simple_auth_manager_all_admins`` is True"
	v2LoginMediaType     = "Only application/json or application/x-www-form-urlencoded is supported"
)

// Token faults: an expired token (PyJWT's ExpiredSignatureError) and any
// other (InvalidTokenError).
var (
	errTokenExpired = errors.New("token expired")
	errTokenInvalid = errors.New("invalid token")
)

// tokenAuthority issues and checks the simple auth manager's tokens.
type tokenAuthority struct {
	key []byte
	// now is the wall clock: tokens expire in real time, whatever
	// --clock says of the runs' dates. Tests move it.
	now      func() time.Time
	verifier *tokenVerifier
	// passed holds the tokens that passed lately, by their SHA-256, with
	// who they name and when they expire: a client sends one token with
	// every request, and parsing and checking it again would cost more
	// than the rest of a short request. Only a passing token goes in, and
	// nothing a token holds can start to fail before its expiry (the key
	// is the process's), so a hit is the answer check would give.
	passed *lru.Cache[[sha256.Size]byte, passedToken]
	// revoked are the tokens logout revoked (revokedTokens).
	revoked *revokedTokens
}

// passedToken is an entry of the passed cache.
type passedToken struct {
	caller caller
	exp    time.Time
	jti    string
}

// tokenCacheSize bounds the passed cache: tokens of one airlite's clients.
const tokenCacheSize = 1024

func newTokenAuthority(key []byte) (*tokenAuthority, error) {
	if key == nil {
		key = make([]byte, tokenKeyBytes)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("draw token key: %w", err)
		}
	}
	passed, err := lru.New[[sha256.Size]byte, passedToken](tokenCacheSize)
	if err != nil {
		return nil, fmt.Errorf("new token cache: %w", err)
	}
	return &tokenAuthority{key: key, now: time.Now, passed: passed, verifier: newTokenVerifier(key), revoked: &revokedTokens{}}, nil
}

// tokenClaims is the payload of a token being checked: pointers tell an
// absent claim from a zero one, and the audience may be a string or a
// list (PyJWT takes both).
type tokenClaims struct {
	Sub  *string          `json:"sub,omitempty"`
	Role *string          `json:"role,omitempty"`
	JTI  string           `json:"jti,omitempty"`
	Aud  jwt.ClaimStrings `json:"aud,omitempty"`
	NBF  *jwt.NumericDate `json:"nbf,omitempty"`
	Exp  *jwt.NumericDate `json:"exp,omitempty"`
	IAT  *jwt.NumericDate `json:"iat,omitempty"`
}

// The jwt.Claims methods: the library's own validation is off
// (WithoutClaimsValidation), so these only satisfy the interface.
func (c *tokenClaims) GetExpirationTime() (*jwt.NumericDate, error) { return c.Exp, nil }
func (c *tokenClaims) GetIssuedAt() (*jwt.NumericDate, error)       { return c.IAT, nil }
func (c *tokenClaims) GetNotBefore() (*jwt.NumericDate, error)      { return c.NBF, nil }
func (c *tokenClaims) GetAudience() (jwt.ClaimStrings, error)       { return c.Aud, nil }

// GetIssuer: Airflow signs no iss unless [api_auth] jwt_issuer is set, and
// checks none then.
func (c *tokenClaims) GetIssuer() (string, error) { return "", nil }
func (c *tokenClaims) GetSubject() (string, error) {
	if c.Sub == nil {
		return "", nil
	}
	return *c.Sub, nil
}

// issue signs a token for user in role, valid for ttl from now
// (JWTGenerator.generate).
func (t *tokenAuthority) issue(user, role string, ttl time.Duration) (string, error) {
	now := t.now().Unix()
	claims := &issuedClaims{Sub: user, Role: role, JTI: newJTI(), Aud: jwtAudience, NBF: now, Exp: now + int64(ttl/time.Second), IAT: now}
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS512, claims).SignedString(t.key)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return token, nil
}

// issuedClaims is a token's payload as Airflow writes it: the fields in
// its order (extras | claims), the audience a string (PyJWT writes it as
// given), the times whole seconds.
type issuedClaims struct {
	Sub  string `json:"sub"`
	Role string `json:"role"`
	JTI  string `json:"jti"`
	Aud  string `json:"aud"`
	NBF  int64  `json:"nbf"`
	Exp  int64  `json:"exp"`
	IAT  int64  `json:"iat"`
}

// The jwt.Claims methods, which signing does not call.
func (c *issuedClaims) GetExpirationTime() (*jwt.NumericDate, error) { return nil, nil }
func (c *issuedClaims) GetIssuedAt() (*jwt.NumericDate, error)       { return nil, nil }
func (c *issuedClaims) GetNotBefore() (*jwt.NumericDate, error)      { return nil, nil }
func (c *issuedClaims) GetAudience() (jwt.ClaimStrings, error)       { return nil, nil }
func (c *issuedClaims) GetIssuer() (string, error)                   { return "", nil }
func (c *issuedClaims) GetSubject() (string, error)                  { return c.Sub, nil }

// newJTI is uuid.uuid4().hex: 32 hexadecimal digits, version 4.
func newJTI() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return hex.EncodeToString(b[:])
}

// check is who a token names, or why it names nobody: errTokenExpired, or
// errTokenInvalid for any other fault (a signature of another key, an
// algorithm other than HS512, a claim missing or wrong).
func (t *tokenAuthority) check(token string) (caller, error) {
	now := t.now()
	// The cache is looked up by a hash of the token: how long a lookup
	// takes says nothing of the tokens that passed.
	digest := sha256.Sum256([]byte(token))
	if hit, ok := t.passed.Get(digest); ok && hit.exp.After(now.Add(-jwtLeeway)) {
		if t.revoked.has(hit.jti) {
			return caller{}, errTokenInvalid
		}
		return hit.caller, nil
	}
	var claims tokenClaims
	if err := t.verifier.verify(token, &claims); err != nil {
		return caller{}, err
	}
	if err := claims.validate(now); err != nil {
		return caller{}, err
	}
	// get_user_from_token: a revoked jti is an InvalidTokenError, after
	// the claims' checks (an expired revoked token is still "expired").
	if t.revoked.has(claims.JTI) {
		return caller{}, errTokenInvalid
	}
	c := caller{user: *claims.Sub, via: viaToken}
	t.passed.Add(digest, passedToken{caller: c, exp: claims.Exp.Time, jti: claims.JTI})
	return c, nil
}

// revoke is the auth manager's revoke_token: the jti of a token signed
// with the key is refused from now until the token expires. Anything
// else (not a token of this key, no jti or exp) is ignored, as logout
// goes on whatever the cookie held.
func (t *tokenAuthority) revoke(token string) error {
	var claims tokenClaims
	if err := t.verifier.verify(token, &claims); err != nil || claims.JTI == "" || claims.Exp == nil {
		return nil
	}
	return t.revoked.add(claims.JTI, claims.Exp.Time, t.now())
}

// validate checks the claims as JWTValidator.avalidated_claims and
// SimpleAuthManager.deserialize_user do, in PyJWT's order
// (api_jwt.py _validate_claims), so that an expired token that is also
// faulty otherwise gets the answer Airflow gives it.
func (c *tokenClaims) validate(now time.Time) error {
	if c.Exp == nil || c.IAT == nil || c.NBF == nil { // options={"require": ["exp", "iat", "nbf"]}
		return errTokenInvalid
	}
	if c.IAT.After(now.Add(jwtLeeway)) { // _validate_iat: ImmatureSignatureError
		return errTokenInvalid
	}
	if c.NBF.After(now.Add(jwtLeeway)) { // _validate_nbf
		return errTokenInvalid
	}
	if !c.Exp.After(now.Add(-jwtLeeway)) { // _validate_exp: exp <= now - leeway
		return errTokenExpired
	}
	audOK := false // _validate_aud: any of the token's audiences
	for _, a := range c.Aud {
		audOK = audOK || a == jwtAudience
	}
	if !audOK {
		return errTokenInvalid
	}
	if c.Sub == nil || c.Role == nil { // deserialize_user: token["sub"], token["role"]
		return errTokenInvalid
	}
	return nil
}

// tokenCookie is the cookie Airflow 3's UI keeps its token in
// (base_auth_manager.py COOKIE_NAME_JWT_TOKEN).
const tokenCookie = "_token"

// cookieToken is the _token cookie's value, and whether the request has
// one. Only requests with a Cookie header pay for parsing it.
func cookieToken(r *http.Request) (string, bool) {
	if len(r.Header["Cookie"]) == 0 {
		return "", false
	}
	c, err := r.Cookie(tokenCookie)
	if err != nil {
		return "", false
	}
	return c.Value, true
}

// bearerToken is the first Authorization header's token when its scheme
// is Bearer (in any case) and a token follows, as FastAPI's HTTPBearer and
// OAuth2PasswordBearer read it (security/utils.py
// get_authorization_scheme_param: the value split at its first space).
func bearerToken(header string) (string, bool) {
	scheme, token, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "bearer") || token == "" {
		return "", false
	}
	return token, true
}

// jwtIdentifier finds the caller as Airflow 3.2.1's api-server does:
// JWTRefreshMiddleware builds the user from a _token cookie that holds a
// good token, and that user wins (security.py get_user reads
// request.state.user first); otherwise the Authorization header's bearer
// token, else the cookie's. In all-admins mode, SimpleAllAdminMiddleware
// appends an "Authorization: Bearer <admin token>" header to every
// request, and Starlette reads the first: so a request with no
// Authorization header of its own is the anonymous admin, and one with a
// header of its own is judged by that header.
type jwtIdentifier struct {
	tokens    *tokenAuthority
	allAdmins bool
}

func (ti jwtIdentifier) identify(r *http.Request) (caller, error) {
	cookie, hasCookie := cookieToken(r)
	if hasCookie && cookie != "" {
		if c, err := ti.tokens.check(cookie); err == nil {
			return c, nil
		}
	}
	if auth := r.Header["Authorization"]; len(auth) > 0 {
		if token, ok := bearerToken(auth[0]); ok {
			return ti.tokens.check(token)
		}
	} else if ti.allAdmins {
		return caller{user: anonymousAdmin, via: viaToken}, nil
	}
	if !hasCookie || cookie == "" {
		return caller{}, errNoCredentials
	}
	return ti.tokens.check(cookie)
}

// tokenRefusal is security.py resolve_user_from_token's answer: no token
// is a 401 "Not authenticated", an expired one a 401 "Token Expired", any
// other fault a 403 "Invalid JWT token". The refusal carries no
// WWW-Authenticate: the schemes are built with auto_error=False.
type tokenRefusal struct{}

func (tokenRefusal) refuse(_ caller, failure error) rejection {
	switch {
	case failure == nil:
		return rejection{}
	case errors.Is(failure, errNoCredentials):
		return rejection{status: http.StatusUnauthorized, body: v2NotAuthenticated}
	case errors.Is(failure, errTokenExpired):
		return rejection{status: http.StatusUnauthorized, body: v2TokenExpired}
	}
	return rejection{status: http.StatusForbidden, body: v2InvalidToken}
}

// withTokenCookie is JWTRefreshMiddleware's cookie handling: a request
// whose _token cookie holds no good token is answered, whatever the
// answer, with that cookie cleared, as Starlette's set_cookie writes it
// with max_age=0 (an empty value quoted by http.cookies). Airflow's
// middleware wraps the whole app; airlite's wraps edition 3's.
func (s *server) withTokenCookie(next http.Handler) http.Handler {
	tokens := s.opts.Auth.tokens
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token, ok := cookieToken(r); ok {
			if _, err := tokens.check(token); err != nil {
				w.Header().Add("Set-Cookie", tokenCookieHeader(`""`, r, "; Max-Age=0"))
			}
		}
		next.ServeHTTP(w, r)
	})
}

// tokenCookieHeader is the Set-Cookie of Starlette's Response.set_cookie
// for the _token cookie (httponly, path "/", samesite "lax", secure over
// https), its attributes in the order http.cookies' Morsel writes them
// (sorted by name); extra is placed as Max-Age sorts.
func tokenCookieHeader(value string, r *http.Request, maxAge string) string {
	h := tokenCookie + "=" + value + "; HttpOnly" + maxAge + "; Path=/; SameSite=lax"
	if r.TLS != nil {
		h += "; Secure"
	}
	return h
}

// loadTokenKey reads the token key from the home, or draws one and keeps
// it there when there is none. Two airlites starting on one home at once
// agree on one key: each writes its own temporary file and links it into
// place, and the one that finds a key there already reads that key.
func loadTokenKey(home string) ([]byte, error) {
	path := filepath.Join(home, tokenKeyFile)
	key, err := readTokenKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	key = make([]byte, tokenKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("draw token key: %w", err)
	}
	tmp, err := os.CreateTemp(home, tokenKeyFile+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("write token key: %w", err)
	}
	defer os.Remove(tmp.Name())
	text := base64.StdEncoding.EncodeToString(key) + "\n"
	_, err = tmp.WriteString(text)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write token key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readTokenKey(path) // another airlite's, written first
		}
		return nil, fmt.Errorf("write token key: %w", err)
	}
	if err := syncDir(home); err != nil {
		return nil, fmt.Errorf("write token key: %w", err)
	}
	return key, nil
}

// readTokenKey reads a key file: base64 text of at least tokenKeyBytes.
func readTokenKey(path string) ([]byte, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read token key: %w", err)
	}
	key, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(text)))
	if err != nil || len(key) < tokenKeyBytes {
		return nil, fmt.Errorf("read token key %s: want %d or more bytes in base64; "+
			"remove the file to draw a new key (tokens signed with the old one stop working)", path, tokenKeyBytes)
	}
	return key, nil
}

// v2 is the authenticator of edition 3's /api/v2 and /auth: Airflow 3's
// simple auth manager over this backend's token key and users. default is
// the all-admins mode ([core] simple_auth_manager_all_admins); every other
// backend asks for tokens, which the users of --users get from
// POST /auth/token.
func (a *authenticator) v2() *authenticator {
	return &authenticator{
		backend: a.backend, passwordBook: a.passwordBook, tokens: a.tokens,
		identifiers: []identifier{jwtIdentifier{tokens: a.tokens, allAdmins: a.allAdmins()}},
		refuser:     tokenRefusal{},
	}
}

// allAdmins reports whether the simple auth manager runs in all-admins
// mode: everyone is the anonymous admin, no credentials asked.
func (a *authenticator) allAdmins() bool { return a.backend == authDefault }

// authPrefix is where Airflow 3's app mounts the auth manager's own
// application (api_fastapi/app.py AUTH_MANAGER_FASTAPI_APP_PREFIX).
const authPrefix = "/auth"

// authRoutes is the simple auth manager's login routes
// (auth/managers/simple/routes/login.py), in the v2 dialect's words. None
// asks who the caller is. The application's HTML login page (GET
// /auth/{rest_of_path}) is not served: airlite has no UI for it.
func (s *server) authRoutes() *routeTable {
	d := *s.dialV2
	d.name, d.prefix = "auth", authPrefix
	t := &routeTable{dialect: &d}
	t.add(http.MethodPost, "/token", s.handleCreateToken, openRoute, withRawBody)
	t.add(http.MethodGet, "/token", s.handleCreateTokenAllAdmins, openRoute)
	t.add(http.MethodGet, "/token/login", s.handleLoginAllAdmins, openRoute)
	t.add(http.MethodPost, "/token/cli", s.handleCreateTokenCLI, openRoute, v2Body(v2LoginBody))
	return t
}

// v2LoginBody is datamodels/login.py LoginBody (a StrictBaseModel) as
// FastAPI checks a body parameter of it.
var v2LoginBody = &v2Model{name: "LoginBody", fields: []v2Field{
	{name: "username", typ: v2TStr, required: true},
	{name: "password", typ: v2TStr, required: true},
}}

// v2LoginResponse is datamodels/login.py LoginResponse.
type v2LoginResponse struct {
	AccessToken string `json:"access_token"`
}

// loginBody is datamodels/login.py LoginBody, as checked.
type loginBody struct{ username, password string }

// handleCreateToken is login.py create_token: POST /auth/token with a JSON
// or form body, 201 and a token valid for [api_auth] jwt_expiration_time.
func (s *server) handleCreateToken(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	body, err := parseLoginBody(r, req.raw)
	if err == nil {
		var token string
		if token, err = s.createToken(r, body, jwtExpiration); err == nil {
			writeV2JSON(w, r, http.StatusCreated, v2LoginResponse{AccessToken: token})
			return
		}
	}
	writeV2Error(w, r, err)
}

// handleCreateTokenCLI is login.py create_token_cli: POST /auth/token/cli
// (airflowctl's login) with a JSON body FastAPI checks (its 422 lists),
// 201 and a token valid for [api_auth] jwt_cli_expiration_time.
func (s *server) handleCreateTokenCLI(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	user, _ := req.body["username"].(string)
	password, _ := req.body["password"].(string)
	token, err := s.createToken(r, loginBody{username: user, password: password}, jwtCLIExpiration)
	if err != nil {
		writeV2Error(w, r, err)
		return
	}
	writeV2JSON(w, r, http.StatusCreated, v2LoginResponse{AccessToken: token})
}

// handleCreateTokenAllAdmins is login.py create_token_all_admins: GET
// /auth/token hands the anonymous admin a token in all-admins mode only.
func (s *server) handleCreateTokenAllAdmins(w http.ResponseWriter, r *http.Request, _ *apiRequest) {
	token, err := s.allAdminsToken()
	if err != nil {
		writeV2Error(w, r, err)
		return
	}
	writeV2JSON(w, r, http.StatusCreated, v2LoginResponse{AccessToken: token})
}

// handleLoginAllAdmins is login.py login_all_admins: in all-admins mode, a
// 307 to [api] base_url ("/" unset) that sets the _token cookie.
func (s *server) handleLoginAllAdmins(w http.ResponseWriter, r *http.Request, _ *apiRequest) {
	token, err := s.allAdminsToken()
	if err != nil {
		writeV2Error(w, r, err)
		return
	}
	w.Header().Add("Set-Cookie", tokenCookieHeader(token, r, ""))
	w.Header().Set("Location", "/")
	w.WriteHeader(http.StatusTemporaryRedirect)
}

// allAdminsToken is services/login.py create_token_all_admins: the
// anonymous admin's token, or a 403 outside all-admins mode.
func (s *server) allAdminsToken() (string, error) {
	auth := s.dialV2.auth
	if !auth.allAdmins() {
		return "", &v2Error{status: http.StatusForbidden, detail: v2NotAllAdmins}
	}
	return auth.tokens.issue(anonymousAdmin, roleAllAdmins, jwtExpiration)
}

// createToken is services/login.py create_token: in all-admins mode the
// anonymous admin's token whatever the credentials; otherwise a 400 for
// an empty user name or password, a 401 for credentials the users file
// does not pass (an unknown user costs what a wrong password costs).
func (s *server) createToken(r *http.Request, body loginBody, ttl time.Duration) (string, error) {
	auth := s.dialV2.auth
	if auth.allAdmins() {
		return auth.tokens.issue(anonymousAdmin, roleAllAdmins, ttl)
	}
	if body.username == "" || body.password == "" {
		return "", &v2Error{status: http.StatusBadRequest, detail: v2MissingCredentials}
	}
	if !auth.valid(r.Context(), body.username, body.password) {
		return "", &v2Error{status: http.StatusUnauthorized, detail: v2InvalidCredentials}
	}
	return auth.tokens.issue(body.username, roleUsersFile, ttl)
}

// Media types of the login body (common/types.py Mimetype).
const (
	mimeJSON = "application/json"
	mimeForm = "application/x-www-form-urlencoded"
)

// parseLoginBody is simple/utils.py parse_login_body: the body read as its
// Content-Type says (common/headers.py: JSON when absent, a 415 for
// anything but JSON or a form), then LoginBody(**body). A JSON body that
// json.loads refuses, or that is not an object, makes Airflow crash (the
// JSONDecodeError and the TypeError of ** are not caught): a 500. A form
// gives its last username and password, None when absent. Pydantic's
// errors are a 422 whose detail is the text of the ValidationError
// (RequestValidationError(repr(e))), not its list.
func parseLoginBody(r *http.Request, raw []byte) (loginBody, error) {
	contentType := mimeJSON
	if v := r.Header["Content-Type"]; len(v) > 0 {
		contentType = v[0]
	}
	var fields pyDict
	switch {
	case strings.HasPrefix(contentType, mimeJSON):
		v, err := decodePyJSON(raw)
		if err != nil {
			return loginBody{}, newAPIError(errCrash, "login body: %v", err)
		}
		dict, ok := v.(pyDict)
		if !ok {
			return loginBody{}, newAPIError(errCrash, "login body: LoginBody(**body) of a JSON %s", jsonKind(raw))
		}
		fields = dict
	case strings.HasPrefix(contentType, mimeForm):
		form, _ := url.ParseQuery(string(raw)) // what parses is kept, as python-multipart keeps it
		for _, name := range []string{"username", "password"} {
			var v any // form.get(name): None when absent
			if vals := form[name]; len(vals) > 0 {
				v = vals[len(vals)-1]
			}
			fields = append(fields, pyField{key: name, val: v})
		}
	default:
		return loginBody{}, &v2Error{status: http.StatusUnsupportedMediaType, detail: v2LoginMediaType}
	}
	return validateLoginBody(fields)
}

// validateLoginBody is pydantic's LoginBody(**fields) (a StrictBaseModel:
// two str fields, unknown ones forbidden): the fields in the model's
// order, then the unknown ones in the body's.
func validateLoginBody(fields pyDict) (loginBody, error) {
	var out loginBody
	var lines []string
	for _, name := range []string{"username", "password"} {
		i := slices.IndexFunc(fields, func(f pyField) bool { return f.key == name })
		if i < 0 {
			lines = append(lines, pydanticLine(name, "Field required", "missing", fields))
			continue
		}
		s, ok := fields[i].val.(string)
		if !ok {
			lines = append(lines, pydanticLine(name, "Input should be a valid string", "string_type", fields[i].val))
			continue
		}
		if name == "username" {
			out.username = s
		} else {
			out.password = s
		}
	}
	for _, f := range fields {
		if f.key != "username" && f.key != "password" {
			lines = append(lines, pydanticLine(f.key, "Extra inputs are not permitted", "extra_forbidden", f.val))
		}
	}
	if len(lines) == 0 {
		return out, nil
	}
	plural := "s"
	if len(lines) == 1 {
		plural = ""
	}
	detail := fmt.Sprintf("%d validation error%s for LoginBody\n%s", len(lines), plural, strings.Join(lines, "\n"))
	return loginBody{}, &v2Error{status: http.StatusUnprocessableEntity, detail: detail}
}

// pydanticErrorsURL is where pydantic's messages point, for the pydantic
// release Airflow 3.2.1 runs with (pydantic_core's url_prefix:
// https://errors.pydantic.dev/<major.minor>/v/).
const pydanticErrorsURL = "https://errors.pydantic.dev/2.12/v/"

// pydanticLine is one error of a ValidationError's text (pydantic_core
// validation_exception.rs PyLineError.pretty): the location, then the
// message, type, input (its repr cut to 25 and 24 bytes around "..." when
// longer than 50) and input type, then the error's URL.
func pydanticLine(loc, msg, typ string, input any) string {
	value := pyReprValue(input)
	if len(value) > 50 {
		start, end := 25, len(value)-24
		for start > 0 && !utf8.RuneStart(value[start]) {
			start--
		}
		for end < len(value) && !utf8.RuneStart(value[end]) {
			end++
		}
		value = value[:start] + "..." + value[end:]
	}
	return fmt.Sprintf("%s\n  %s [type=%s, input_value=%s, input_type=%s]\n    For further information visit %s%s",
		loc, msg, typ, value, jsonPyTypeName(input), pydanticErrorsURL, typ)
}

// jsonPyTypeName is the name of the type json.loads gives a decoded value.
func jsonPyTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case string:
		return "str"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "float"
		}
		return "int"
	case pyDict:
		return "dict"
	case []any:
		return "list"
	}
	return fmt.Sprintf("%T", v)
}

// v2AuthRoutes is core_api/routes/public/auth.py (auth_router): GET
// /api/v2/auth/login and /logout send the browser to the auth manager's
// pages. Neither asks who the caller is (the document gives them no
// security).
func (s *server) v2AuthRoutes(t *routeTable) {
	t.add(http.MethodGet, "/auth/login", s.handleV2Login, openRoute, withQuery(qV2Str("next")))
	t.add(http.MethodGet, "/auth/logout", s.handleV2Logout, openRoute)
}

// v2UnsafeNext is auth.py login's 400 for a next URL is_safe_url refuses.
const v2UnsafeNext = "Invalid or unsafe next URL"

// simpleLoginURL is the simple auth manager's get_url_login
// (simple_auth_manager.py): its token-and-cookie route in all-admins
// mode, its login page otherwise, both under the sub-application's
// prefix. It has no get_url_logout (base_auth_manager.py: None), so a
// logout goes to the same place.
func (s *server) simpleLoginURL() string {
	if s.dialV2.auth.allAdmins() {
		return authPrefix + "/token/login"
	}
	return authPrefix + "/login"
}

// handleV2Login is auth.py login: a 307 to the login URL, with next
// (urlencode'd, as test_auth.py test_next_url_correctly_encoded wants)
// when it is given and safe; an unsafe one is a 400.
func (s *server) handleV2Login(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	loc := s.simpleLoginURL()
	if next, _ := req.query.str("next"); next != "" {
		if !isSafeURL(next, r) {
			writeV2Error(w, r, &v2Error{status: http.StatusBadRequest, detail: v2UnsafeNext})
			return
		}
		loc += "?" + url.Values{"next": {next}}.Encode()
	}
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusTemporaryRedirect)
}

// handleV2Logout is auth.py logout: it revokes the token of the _token
// cookie (3.2.1 reads the cookie only: a bearer token is revoked from
// apache/airflow#72649 on), then answers a 307 to the login URL that
// deletes the cookie, as Starlette's delete_cookie writes it (an expires
// of now, Max-Age=0, httponly, path "/" with [api] base_url unset, secure
// over https).
func (s *server) handleV2Logout(w http.ResponseWriter, r *http.Request, _ *apiRequest) {
	if token, ok := cookieToken(r); ok && token != "" {
		if err := s.dialV2.auth.tokens.revoke(token); err != nil {
			// The jti is refused from now on all the same; only the file
			// that keeps it past a restart was not written.
			s.opts.Logger.Warn().Err(err).Msg("revoke token")
		}
	}
	expires := "; expires=" + s.opts.Now().UTC().Format(http.TimeFormat)
	w.Header().Add("Set-Cookie", tokenCookie+`=""`+expires+"; HttpOnly; Max-Age=0; Path=/; SameSite=lax"+secureFlag(r))
	w.Header().Set("Location", s.simpleLoginURL())
	w.WriteHeader(http.StatusTemporaryRedirect)
}

func secureFlag(r *http.Request) string {
	if r.TLS != nil {
		return "; Secure"
	}
	return ""
}

// isSafeURL is core_api/security.py is_safe_url with [api] base_url unset:
// target, unquoted, must not start as a scheme-relative URL (//, /\, \/,
// \\, which browsers read as one), and, resolved against the request's
// base URL, must be http or https on the request's own host (netloc:
// user info, host and port, compared as written).
func isSafeURL(target string, r *http.Request) bool {
	target = strings.TrimSpace(pyUnquote(target))
	for _, p := range []string{"//", `/\`, `\/`, `\\`} {
		if strings.HasPrefix(target, p) {
			return false
		}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	base := &url.URL{Scheme: scheme, Host: r.Host, Path: "/"}
	ref, err := url.Parse(pyUnquote(target))
	if err != nil {
		return false
	}
	resolved := base.ResolveReference(ref)
	netloc := resolved.Host
	if resolved.User != nil {
		netloc = resolved.User.String() + "@" + netloc
	}
	return (resolved.Scheme == "http" || resolved.Scheme == "https") && netloc == r.Host
}
