package server

import (
	"fmt"
	"net"
	"net/http"
	"strings"
)

// browserGuard protects the server from the pages of other sites that a
// browser on the same machine has open, which the bearer token does not
// cover when the server runs without one (on loopback):
//
//   - a request that changes state (POST, DELETE) that the browser marks
//     as coming from another origin (Sec-Fetch-Site, Origin) is refused,
//     unless Config.AllowOrigins names that origin (net/http's
//     CrossOriginProtection): a page cannot start a run or approve a
//     call with a form or a no-cors fetch;
//   - a server without a token answers only to loopback host names
//     (localhost, 127.0.0.1, ::1), so that a site whose name is pointed
//     at 127.0.0.1 (DNS rebinding) cannot read what it serves.
func (s *Server) browserGuard(next http.Handler) (http.Handler, error) {
	cop := http.NewCrossOriginProtection()
	trustAll := false
	for _, o := range s.cfg.AllowOrigins {
		if o == "*" {
			trustAll = true
			continue
		}
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("server: AllowOrigins: %w", err)
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errorf(http.StatusForbidden, codeCrossOrigin,
			"a page of another site (%s) may not %s %s; allow its origin in the server's configuration if it is yours", cut(originOf(r), 100), r.Method, cut(r.URL.Path, 100)))
	}))
	guarded := next
	if !trustAll {
		guarded = cop.Handler(next)
	}
	if s.cfg.Token != "" {
		return guarded, nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			s.writeError(w, r, errorf(http.StatusForbidden, codeCrossOrigin,
				"this server has no token, so it answers only to localhost, 127.0.0.1 or [::1], not to %q; open it by one of those names, or start it with a token", cut(r.Host, 100)))
			return
		}
		guarded.ServeHTTP(w, r)
	}), nil
}

// loopbackHost reports whether host, a Host header (with or without a
// port), names this machine's loopback interface.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originOf is where a refused request came from, as the browser said.
func originOf(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		return o
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return "Sec-Fetch-Site: " + site
	}
	return "unknown origin"
}
