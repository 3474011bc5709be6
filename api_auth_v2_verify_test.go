package main

import (
	"crypto/hmac"
	"crypto/sha512"
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// signRaw is a token of header and payload (JSON text, any bytes) signed
// with key as HS512 signs, whatever the header says.
func signRaw(key []byte, header, payload string) string {
	text := b64(header) + "." + b64(payload)
	mac := hmac.New(sha512.New, key)
	mac.Write([]byte(text))
	return text + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// sameClaims reports whether two paths read the same claims.
func sameClaims(a, b *tokenClaims) bool {
	strPtr := func(x, y *string) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	date := func(x, y *jwt.NumericDate) bool {
		return x == nil && y == nil || x != nil && y != nil && x.Equal(y.Time)
	}
	return strPtr(a.Sub, b.Sub) && strPtr(a.Role, b.Role) && a.JTI == b.JTI && slices.Equal(a.Aud, b.Aud) &&
		date(a.NBF, b.NBF) && date(a.Exp, b.Exp) && date(a.IAT, b.IAT)
}

// checkSameAsLibrary fails unless the short path's verdict on token is
// golang-jwt's (or undecided), with the same claims when both pass, and
// returns the verdict.
func checkSameAsLibrary(t testing.TB, v *tokenVerifier, token string) verdict {
	t.Helper()
	var own, lib tokenClaims
	verdict := v.verifyOwnForm(token, &own)
	libErr := v.verifyWithLibrary(token, &lib)
	switch verdict {
	case verdictRefused:
		if libErr == nil {
			t.Errorf("%q: short path refuses, golang-jwt passes %+v", token, lib)
		}
	case verdictPassed:
		if libErr != nil {
			t.Errorf("%q: short path passes, golang-jwt refuses: %v", token, libErr)
		} else if !sameClaims(&own, &lib) {
			t.Errorf("%q: short path reads %+v, golang-jwt %+v", token, own, lib)
		}
	}
	return verdict
}

// The short path decides only tokens in airlite's form, and decides them
// as golang-jwt does: the same refusals, the same claims.
func TestTokenVerify_SameAsLibrary(t *testing.T) {
	t.Parallel()
	ta, err := newTokenAuthority(nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := newTokenAuthority(nil)
	if err != nil {
		t.Fatal(err)
	}
	v, key := ta.verifier, ta.key
	issued, err := ta.issue("ann", roleUsersFile, jwtExpiration)
	if err != nil {
		t.Fatal(err)
	}
	fromOther, err := other.issue("ann", roleUsersFile, jwtExpiration)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(issued, ".")
	const hs512 = `{"alg":"HS512","typ":"JWT"}`
	const claims = `{"sub":"ann","role":"admin","jti":"0f","aud":"apache-airflow","nbf":1700000000,"exp":1700003600,"iat":1700000000}`
	for _, tc := range []struct {
		name, token string
		want        verdict
	}{
		{"issued by airlite", issued, verdictPassed},
		{"PyJWT's order of claims", signRaw(key, hs512, claims), verdictPassed},
		{"claims sorted", signRaw(key, hs512, `{"aud":"apache-airflow","exp":9,"iat":0,"nbf":0,"role":"admin","sub":"ann"}`), verdictPassed},
		{"some claims only", signRaw(key, hs512, `{"sub":"ann"}`), verdictPassed},
		{"15 digits", signRaw(key, hs512, `{"exp":999999999999999}`), verdictPassed},
		{"another home's key", fromOther, verdictRefused},
		{"signature flipped", parts[0] + "." + parts[1] + "." + flipMiddle(parts[2]), verdictRefused},
		{"signature cut", parts[0] + "." + parts[1] + ".", verdictRefused},
		{"signature padded", issued + "==", verdictRefused},
		{"signature with a newline", parts[0] + "." + parts[1] + "." + parts[2][:10] + "\n" + parts[2][10:], verdictPassed},
		{"four segments", issued + ".x", verdictRefused},
		{"two segments", parts[0] + "." + parts[1], verdictRefused},
		{"payload not base64", signRawText(key, parts[0]+".!!!"), verdictRefused},
		{"payload not JSON", signRaw(key, hs512, `{"sub":`), verdictUndecided},
		{"payload empty", signRaw(key, hs512, ``), verdictUndecided},
		{"empty object", signRaw(key, hs512, `{}`), verdictUndecided},
		{"alg none", b64(`{"alg":"none","typ":"JWT"}`) + "." + parts[1] + ".", verdictUndecided},
		{"HS256", signRaw(key, `{"alg":"HS256","typ":"JWT"}`, claims), verdictUndecided},
		{"header with spaces", signRaw(key, `{"alg": "HS512", "typ": "JWT"}`, claims), verdictUndecided},
		{"header without typ", signRaw(key, `{"alg":"HS512"}`, claims), verdictUndecided},
		{"white space", signRaw(key, hs512, `{"sub": "ann"}`), verdictUndecided},
		{"trailing bytes", signRaw(key, hs512, claims+" "), verdictUndecided},
		{"escaped string", signRaw(key, hs512, `{"sub":"a\u006en"}`), verdictUndecided},
		{"UTF-8 user", signRaw(key, hs512, `{"sub":"änn"}`), verdictUndecided},
		{"invalid UTF-8", signRaw(key, hs512, "{\"sub\":\"\xff\"}"), verdictUndecided},
		{"name in capitals", signRaw(key, hs512, `{"SUB":"ann"}`), verdictUndecided},
		{"claim twice", signRaw(key, hs512, `{"sub":"ann","sub":"bob"}`), verdictUndecided},
		{"another claim", signRaw(key, hs512, `{"sub":"ann","iss":"x"}`), verdictUndecided},
		{"audience list", signRaw(key, hs512, `{"aud":["apache-airflow"]}`), verdictUndecided},
		{"null", signRaw(key, hs512, `{"exp":null}`), verdictUndecided},
		{"negative", signRaw(key, hs512, `{"exp":-1}`), verdictUndecided},
		{"fraction", signRaw(key, hs512, `{"exp":1.5}`), verdictUndecided},
		{"exponent", signRaw(key, hs512, `{"exp":1e9}`), verdictUndecided},
		{"leading zero", signRaw(key, hs512, `{"exp":01}`), verdictUndecided},
		{"16 digits", signRaw(key, hs512, `{"exp":9999999999999999}`), verdictUndecided},
		{"time a string", signRaw(key, hs512, `{"exp":"9"}`), verdictUndecided},
		{"sub a number", signRaw(key, hs512, `{"sub":1}`), verdictUndecided},
		{"trailing comma", signRaw(key, hs512, `{"sub":"ann",}`), verdictUndecided},
		{"two objects", signRaw(key, hs512, `{"sub":"ann"}{}`), verdictUndecided},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := checkSameAsLibrary(t, v, tc.token); got != tc.want {
				t.Errorf("verdict %d, want %d", got, tc.want)
			}
		})
	}
}

// signRawText signs text (two segments, as they stand) with key.
func signRawText(key []byte, text string) string {
	mac := hmac.New(sha512.New, key)
	mac.Write([]byte(text))
	return text + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// FuzzTokenVerify: for any payload signed with the key, and any token at
// all, the short path agrees with golang-jwt.
func FuzzTokenVerify(f *testing.F) {
	ta, err := newTokenAuthority(nil)
	if err != nil {
		f.Fatal(err)
	}
	issued, err := ta.issue("ann", roleUsersFile, jwtExpiration)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(`{"sub":"ann","role":"admin","jti":"0f","aud":"apache-airflow","nbf":1,"exp":2,"iat":1}`, issued)
	f.Add(`{"exp":1.0,"aud":["a"]}`, issued+".")
	f.Add(`{"Sub":"x","sub":"y"}`, "a.b.c")
	f.Fuzz(func(t *testing.T, payload, token string) {
		checkSameAsLibrary(t, ta.verifier, signRaw(ta.key, `{"alg":"HS512","typ":"JWT"}`, payload))
		checkSameAsLibrary(t, ta.verifier, token)
	})
}

// A token's first check reads it without golang-jwt's generic decoders
// (issue #21: at most 10 µs): 20 allocations with Go 1.26 (the caller's
// strings and dates, the decoded segments, the cache's entry), where the
// library path made 61.
func TestTokenAuthority_FirstCheckAllocs(t *testing.T) {
	ta, err := newTokenAuthority(nil)
	if err != nil {
		t.Fatal(err)
	}
	token, err := ta.issue("ann", roleUsersFile, jwtExpiration)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(200, func() {
		ta.passed.Purge()
		if _, err := ta.check(token); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 24 {
		t.Errorf("first check: %.0f allocations, want at most 24", allocs)
	}
}
