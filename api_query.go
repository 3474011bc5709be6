package main

import (
	"net/url"
	"strings"
)

// pyQuery parses a query string as Airflow's servers do: Starlette with
// urllib.parse.parse_qsl(keep_blank_values=True), Flask with Werkzeug's
// url_decode. Both keep a '%' that starts no escape as it is ("tut%",
// "%zz") and replace bytes that are no UTF-8 with U+FFFD; Go's
// url.ParseQuery drops the whole pair instead, which turned a pattern
// filter into no filter.
func pyQuery(raw string) url.Values {
	out := url.Values{}
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key := pyUnquotePlus(k)
		out[key] = append(out[key], pyUnquotePlus(v))
	}
	return out
}

// pyUnquotePlus is urllib.parse.unquote_plus: '+' is a space, then
// pyUnquote.
func pyUnquotePlus(s string) string {
	if strings.Contains(s, "+") {
		s = strings.ReplaceAll(s, "+", " ")
	}
	return pyUnquote(s)
}

// pyUnquote is urllib.parse.unquote: each %XX decoded, a % not followed by
// two hex digits kept, and the bytes read as UTF-8 (invalid sequences as
// U+FFFD).
func pyUnquote(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
