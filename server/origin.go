package server

import (
	"fmt"
	"net/http"

	"github.com/toolwire/toolwire/internal/listen"
)

// browserGuard protects the server from the pages of other sites that a
// browser on the same machine has open (listen.Browser): a page cannot
// start a run or approve a call with a form or a no-cors fetch, unless
// Config.AllowOrigins names its origin, and a server without a token
// answers only to loopback host names, against DNS rebinding.
func (s *Server) browserGuard(next http.Handler) (http.Handler, error) {
	guard, err := listen.NewBrowser(s.cfg.Token != "", s.cfg.AllowOrigins)
	if err != nil {
		return nil, fmt.Errorf("server: AllowOrigins: %w", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch no := guard.Check(r); {
		case no == nil:
			next.ServeHTTP(w, r)
		case no.Host != "":
			s.writeError(w, r, errorf(http.StatusForbidden, codeCrossOrigin,
				"this server has no token, so it answers only to localhost, 127.0.0.1 or [::1], not to %q; open it by one of those names, or start it with a token", cut(no.Host, 100)))
		default:
			s.writeError(w, r, errorf(http.StatusForbidden, codeCrossOrigin,
				"a page of another site (%s) may not %s %s; allow its origin in the server's configuration if it is yours", cut(no.Origin, 100), r.Method, cut(r.URL.Path, 100)))
		}
	}), nil
}
