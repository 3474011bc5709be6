package main

// The first check of a token airlite signed (issue #21: a token check adds
// at most 10 µs to a request). golang-jwt's parser decodes the header into
// a map and the claims through encoding/json's reflection (NumericDate and
// ClaimStrings each decode their value a second time), and builds a new
// HMAC for every token: about 60 allocations, most of a first check's
// time. airlite writes one header and one shape of claims, so a token in
// that form is read here without the generic decoders, and every other
// token still goes through golang-jwt.
//
// The short path is as strict as the library's, and never more lenient:
//   - it is taken only for the header airlite signs with, byte for byte
//     (alg HS512), so the algorithm is never in doubt; any other header,
//     "none" or another alg included, is the library's to refuse;
//   - the signature is decoded as the library decodes it (unpadded
//     base64url) and compared with hmac.Equal, in constant time, before
//     any claim is read (the library reads the claims first);
//   - it reads only a flat object of the seven claims airlite writes, each
//     at most once, exactly named, strings of printable ASCII without
//     escapes and times of whole non-negative seconds; anything else
//     (another claim, an escape, a list, a float, a repeated or
//     differently cased name, white space) falls back to golang-jwt, which
//     decides. Within that form encoding/json would read the same values,
//     and TestTokenVerify_SameAsLibrary and FuzzTokenVerify check it.
// The claims are then validated by tokenClaims.validate, as before.

import (
	"crypto/hmac"
	"crypto/sha512"
	"encoding/base64"
	"hash"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ownTokenHeader is the first segment of every token airlite signs:
// golang-jwt's header for HS512, {"alg":"HS512","typ":"JWT"} (PyJWT
// writes the same bytes: sorted keys, no spaces).
var ownTokenHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"` + jwtAlgorithm + `","typ":"JWT"}`))

// verdict is what the short path says of a token.
type verdict int

const (
	// verdictUndecided: not in airlite's form; golang-jwt decides.
	verdictUndecided verdict = iota
	verdictPassed
	verdictRefused
)

// tokenVerifier checks tokens with one key.
type tokenVerifier struct {
	key    []byte
	parser *jwt.Parser
	// macs holds HMAC-SHA512 states keyed with key: hmac.New hashes the
	// key into its pads each time, Reset goes back to them.
	macs sync.Pool
}

func newTokenVerifier(key []byte) *tokenVerifier {
	v := &tokenVerifier{
		key: key,
		// Only HS512 is accepted: "none", another HMAC, or an RSA or EC
		// method (the key confusion attack) are refused before any key is
		// used. Claims are checked by tokenClaims.validate, in PyJWT's
		// order.
		parser: jwt.NewParser(jwt.WithValidMethods([]string{jwtAlgorithm}), jwt.WithoutClaimsValidation()),
	}
	v.macs.New = func() any { return hmac.New(sha512.New, key) }
	return v
}

// verify is the claims of a token signed with the key, or errTokenInvalid.
func (v *tokenVerifier) verify(token string, claims *tokenClaims) error {
	switch v.verifyOwnForm(token, claims) {
	case verdictPassed:
		return nil
	case verdictRefused:
		return errTokenInvalid
	}
	*claims = tokenClaims{}
	return v.verifyWithLibrary(token, claims)
}

// verifyWithLibrary is golang-jwt's parse and signature check.
func (v *tokenVerifier) verifyWithLibrary(token string, claims *tokenClaims) error {
	if _, err := v.parser.ParseWithClaims(token, claims, v.keyFunc); err != nil {
		return errTokenInvalid
	}
	return nil
}

// keyFunc hands the parser the key; the parser has already refused every
// method but HS512 (WithValidMethods).
func (v *tokenVerifier) keyFunc(*jwt.Token) (any, error) { return v.key, nil }

// verifyOwnForm is the short path: undecided unless token has airlite's
// header; then refused unless the signature is the key's; then passed,
// claims filled, when they are in airlite's form, else undecided.
func (v *tokenVerifier) verifyOwnForm(token string, claims *tokenClaims) verdict {
	rest, ok := strings.CutPrefix(token, ownTokenHeader+".")
	if !ok {
		return verdictUndecided
	}
	payload, sigText, ok := strings.Cut(rest, ".")
	if !ok {
		return verdictRefused // two segments: the library's "invalid number of segments"
	}
	// Decoded as the library decodes it (RawURLEncoding, which skips CR
	// and LF); a third dot fails to decode here as it fails to split there.
	sig, err := base64.RawURLEncoding.DecodeString(sigText)
	if err != nil {
		return verdictRefused
	}
	mac := v.macs.Get().(hash.Hash)
	mac.Reset()
	mac.Write([]byte(token[:len(ownTokenHeader)+1+len(payload)]))
	var sum [sha512.Size]byte
	good := hmac.Equal(sig, mac.Sum(sum[:0]))
	v.macs.Put(mac)
	if !good {
		return verdictRefused
	}
	claimBytes, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return verdictRefused // the library's "could not base64 decode claim"
	}
	if !parseOwnClaims(claimBytes, claims) {
		return verdictUndecided
	}
	return verdictPassed
}

// The claims of airlite's form, as bits of a set.
const (
	claimSub = 1 << iota
	claimRole
	claimJTI
	claimAud
	claimNBF
	claimExp
	claimIAT
)

// parseOwnClaims reads a payload of airlite's form: a JSON object without
// white space whose members are sub, role, jti and aud with plain strings
// and nbf, exp and iat with whole seconds, each at most once, in any
// order, into c. It is false for anything else, c then half filled.
func parseOwnClaims(p []byte, c *tokenClaims) bool {
	if len(p) < 2 || p[0] != '{' {
		return false
	}
	seen := 0
	for i := 1; ; {
		name, next, ok := plainJSONString(p, i)
		if !ok || next >= len(p) || p[next] != ':' {
			return false
		}
		i = next + 1
		bit, isTime := ownClaimBit(string(name)) // no copy: the compiler converts for the switch only
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		if isTime {
			secs, next, ok := plainJSONSeconds(p, i)
			if !ok {
				return false
			}
			date := jwt.NewNumericDate(time.Unix(secs, 0))
			switch bit {
			case claimNBF:
				c.NBF = date
			case claimExp:
				c.Exp = date
			default:
				c.IAT = date
			}
			i = next
		} else {
			text, next, ok := plainJSONString(p, i)
			if !ok {
				return false
			}
			value := string(text)
			switch bit {
			case claimSub:
				c.Sub = &value
			case claimRole:
				c.Role = &value
			case claimJTI:
				c.JTI = value
			default:
				c.Aud = jwt.ClaimStrings{value}
			}
			i = next
		}
		switch {
		case i < len(p) && p[i] == ',':
			i++
		case i == len(p)-1 && p[i] == '}':
			return true
		default:
			return false
		}
	}
}

// ownClaimBit is the bit of a claim of airlite's form, 0 for any other
// name (encoding/json would match names in any case: those fall back).
func ownClaimBit(name string) (bit int, isTime bool) {
	switch name {
	case "sub":
		return claimSub, false
	case "role":
		return claimRole, false
	case "jti":
		return claimJTI, false
	case "aud":
		return claimAud, false
	case "nbf":
		return claimNBF, true
	case "exp":
		return claimExp, true
	case "iat":
		return claimIAT, true
	}
	return 0, false
}

// plainJSONString reads a JSON string at p[i] made of printable ASCII
// without escapes, which decodes to its bytes; next is past its quote.
func plainJSONString(p []byte, i int) (text []byte, next int, ok bool) {
	if i >= len(p) || p[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(p); j++ {
		switch b := p[j]; {
		case b == '"':
			return p[i+1 : j], j + 1, true
		case b < 0x20 || b > 0x7e || b == '\\':
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// maxPlainSecondsDigits bounds the whole seconds read: 15 digits are
// exact in a float64, so golang-jwt's NumericDate (a float of seconds)
// reads them as the same second.
const maxPlainSecondsDigits = 15

// plainJSONSeconds reads a JSON number at p[i] that is a non-negative
// integer of at most 15 digits (0, or no leading zero); next is past it.
func plainJSONSeconds(p []byte, i int) (secs int64, next int, ok bool) {
	j := i
	for j < len(p) && '0' <= p[j] && p[j] <= '9' {
		secs = secs*10 + int64(p[j]-'0')
		j++
	}
	digits := j - i
	if digits == 0 || digits > maxPlainSecondsDigits || digits > 1 && p[i] == '0' {
		return 0, 0, false
	}
	// A fraction or an exponent would make it another number.
	if j < len(p) && (p[j] == '.' || p[j] == 'e' || p[j] == 'E') {
		return 0, 0, false
	}
	return secs, j, true
}
