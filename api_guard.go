package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// browserPolicy says which browser requests airlite answers. airlite runs
// shell commands on request, so a web page the user happens to visit must
// never reach it: neither by sending requests across sites (a "simple"
// POST needs no preflight) nor by DNS rebinding (a name of the attacker's
// that resolves to 127.0.0.1 makes the page same-origin with airlite).
// Clients that are not browsers send no Origin and no Sec-Fetch-Site, and
// a Host naming the address they dialled: they pass unchanged.
type browserPolicy struct {
	// HostCheck refuses requests whose Host is not a loopback name, the
	// bound address or one of AllowedHosts. On when airlite listens on
	// loopback (or --allowed-hosts is given).
	HostCheck bool
	// AllowedHosts are further host names (no port) to answer; "*" turns
	// the Host check off.
	AllowedHosts []string
	// AllowedOrigins are origins (scheme://host[:port]) whose pages may use
	// the API; they get CORS headers so that they can read the answers.
	AllowedOrigins []string
}

// parseAllowedOrigins checks --allowed-origins: a comma-separated list of
// origins as browsers send them.
func parseAllowedOrigins(list string) ([]string, error) {
	var origins []string
	for _, o := range splitList(list) {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.Path != "" || u.RawQuery != "" || u.User != nil || u.Fragment != "" {
			return nil, fmt.Errorf("--allowed-origins %q: want origins such as https://dash.example or http://localhost:3000, separated by commas", o)
		}
		origins = append(origins, strings.ToLower(o))
	}
	return origins, nil
}

// parseAllowedHosts checks --allowed-hosts: host names without ports, or *.
func parseAllowedHosts(list string) ([]string, error) {
	var hosts []string
	for _, h := range splitList(list) {
		if h != "*" && (strings.ContainsAny(h, ":/ ") || strings.HasPrefix(h, ".")) {
			return nil, fmt.Errorf("--allowed-hosts %q: want host names without a port (e.g. airlite.lan), or *", h)
		}
		hosts = append(hosts, strings.ToLower(h))
	}
	return hosts, nil
}

func splitList(list string) []string {
	var out []string
	for _, item := range strings.Split(list, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// browserRefusal is why a request was refused; "" lets it through.
func (p *browserPolicy) browserRefusal(r *http.Request) string {
	if p.HostCheck && !p.hostAllowed(r.Host) {
		return fmt.Sprintf("host %q refused: airlite listens on loopback and answers only localhost, 127.0.0.1 and [::1] "+
			"(a page of another site could reach it through DNS rebinding); start airlite with --allowed-hosts to add a name", r.Host)
	}
	origin, cross := p.crossSite(r)
	if !cross {
		return ""
	}
	// A page of another site may still open the status pages (a link), but
	// never post a form, nor reach the API, edition 3's login routes (a
	// GET there hands out a token, or sets the token cookie) or the admin
	// endpoints.
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !guardedPath(r.URL.Path) {
		return ""
	}
	if origin == "" {
		return "cross-site request refused: the browser marked it Sec-Fetch-Site: " + firstHeader(r, "Sec-Fetch-Site") +
			"; airlite answers pages of its own origin only (--allowed-origins names others)"
	}
	return fmt.Sprintf("cross-site request refused: it came from a page at %s; airlite answers pages of its own origin only "+
		"(start airlite with --allowed-origins %s to allow that page)", origin, origin)
}

// guardedPath reports whether a path is one no page of another site may
// reach, even by a GET.
func guardedPath(p string) bool {
	return strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, authPrefix+"/") || strings.HasPrefix(p, "/_airlite/")
}

// crossSite reports whether a browser sent r from a page of another origin
// that is not allowed, and that origin when the browser named it.
func (p *browserPolicy) crossSite(r *http.Request) (origin string, cross bool) {
	origin = firstHeader(r, "Origin")
	if origin != "" && p.originAllowed(origin) {
		return origin, false
	}
	switch firstHeader(r, "Sec-Fetch-Site") {
	case "same-origin", "none":
		return origin, false
	case "":
	default: // cross-site, same-site (another port of localhost is another origin), anything new
		return origin, true
	}
	if origin == "" {
		return p.refererCrossSite(r)
	}
	// Older browsers: the Origin must be this server's own.
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || !strings.EqualFold(u.Host, r.Host) {
		return origin, true
	}
	return origin, false
}

// refererCrossSite judges a request that carries neither Origin nor
// Sec-Fetch-Site by its Referer. Browsers send fetch metadata to
// potentially trustworthy origins only (https, loopback): over plain
// http to a name that is not loopback (--allowed-hosts), Chromium 156
// sends an <img> or a <script> of another site's page with no
// Sec-Fetch-Site and no Origin, and only the Referer names that page
// (seen with airlite.lan loaded from a page of evil.example). A page
// that withholds its Referer (referrerpolicy="no-referrer") still looks
// like a client that is no browser: docs/operations.md says to put
// such a deployment behind TLS or authentication.
func (p *browserPolicy) refererCrossSite(r *http.Request) (origin string, cross bool) {
	referer := firstHeader(r, "Referer")
	if referer == "" {
		return "", false // not a browser, or a browser's own navigation
	}
	u, err := url.Parse(referer)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return referer, true // no page of this server's
	}
	origin = u.Scheme + "://" + u.Host
	if strings.EqualFold(u.Host, r.Host) || p.originAllowed(origin) {
		return origin, false
	}
	return origin, true
}

func (p *browserPolicy) originAllowed(origin string) bool {
	for _, o := range p.AllowedOrigins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// hostAllowed reports whether a Host header names this server: a loopback
// name or address, or a name allowed on purpose. A name no one can
// re-point (an IP address, localhost) is safe; any other could be the
// attacker's, rebound to 127.0.0.1.
func (p *browserPolicy) hostAllowed(hostport string) bool {
	if hostport == "" {
		return true // HTTP/1.0 without Host: no browser sends that
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	host = strings.TrimSuffix(host, ".")
	if host == "127.0.0.1" || host == "::1" { // the usual ones, before parsing
		return true
	}
	if strings.EqualFold(host, "localhost") || hasSuffixFold(host, ".localhost") {
		return true // browsers resolve *.localhost to loopback themselves
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, h := range p.AllowedHosts {
		if h == "*" || strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// firstHeader reads a header whose name is already canonical, without
// canonicalising it again.
func firstHeader(r *http.Request, canonicalName string) string {
	if v := r.Header[canonicalName]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// guarded applies the browser policy before routing: a refused request gets
// a 403 (JSON on the API and admin routes, the error page elsewhere) and
// reaches no handler. Pages of allowed origins get CORS headers.
func (s *server) guarded(next http.Handler) http.Handler {
	policy := &s.opts.Browser
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg := policy.browserRefusal(r); msg != "" {
			s.refuseBrowser(w, r, msg)
			return
		}
		if origin := firstHeader(r, "Origin"); origin != "" && policy.originAllowed(origin) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && firstHeader(r, "Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, PATCH, DELETE")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
				h.Set("Access-Control-Max-Age", "600")
				if s.rules().nullLogicalDate {
					// Airflow 3 (FastAPI) has no OPTIONS route: its
					// CORSMiddleware, added when CORS is configured,
					// answers a preflight itself, 200 "OK" in plain text.
					h.Set("Content-Type", "text/plain; charset=utf-8")
					w.WriteHeader(http.StatusOK)
					_, _ = io.WriteString(w, "OK")
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *server) refuseBrowser(w http.ResponseWriter, r *http.Request, msg string) {
	s.opts.Logger.Warn().Str("method", r.Method).Str("path", r.URL.Path).Str("host", r.Host).
		Str("origin", firstHeader(r, "Origin")).Str("reason", msg).Msg("browser request refused")
	s.setEditionHeaders(w, strings.HasPrefix(r.URL.Path, apiPrefix+"/"))
	if strings.HasPrefix(r.URL.Path, authPrefix+"/") {
		// An API's answer, as on /api/, not the status pages' error page.
		s.writeJSON(w, r, http.StatusForbidden, map[string]any{"error": msg})
		return
	}
	s.answerError(w, r, newAPIError(errForbidden, "%s", msg))
}
