// Package redirect is the redirect policy of the HTTP clients toolwire
// sends requests with: the HTTP tools' and the provider clients'. Both
// carry secrets in headers (an HTTP binding's X-Api-Key, a provider's
// x-api-key or x-goog-api-key) that Go's http.Client forwards to any
// redirect target: it drops only Authorization and Cookie, and follows up
// to 10 redirects to any host or scheme.
//
// [Client] gives a client two guarantees. Under [Check], its default
// policy, a redirect is followed only to the origin (scheme, host and
// port) of the first request, never from https to http, at most [Max]
// times. And whatever the policy, a request that leaves that origin
// carries none of the first request's headers but a few generic ones
// ([Client] lists them).
package redirect

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Max is how many redirects one request may follow under [Check].
const Max = 5

// ErrRefused is wrapped by every error [Check] returns. An http.Client
// returns it inside a *url.Error, so errors.Is finds it there too.
var ErrRefused = errors.New("redirect refused")

// Check is a CheckRedirect function for an http.Client: it allows a
// redirect to the origin (scheme, host and port) of the first request,
// at most [Max] in a row, and refuses one to another origin or from https
// to http with an error wrapping [ErrRefused] that names both origins.
func Check(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	from, to := via[0].URL, req.URL
	switch {
	case len(via) > Max:
		return fmt.Errorf("%w: more than %d redirects in a row, starting at %s", ErrRefused, Max, Origin(from))
	case strings.EqualFold(from.Scheme, "https") && !strings.EqualFold(to.Scheme, "https"):
		return fmt.Errorf("%w: %s redirected to %s, from https to %s", ErrRefused, Origin(from), Origin(to), strings.ToLower(to.Scheme))
	case !SameOrigin(from, to):
		return fmt.Errorf("%w: %s redirected to another origin, %s; redirects are followed within the origin of the request only", ErrRefused, Origin(from), Origin(to))
	}
	return nil
}

// Client returns the client to send requests with: a shallow copy of c
// (a new client when c is nil) whose CheckRedirect is c's own, or [Check]
// when c sets none; c itself is not changed. Before that policy sees a
// redirect to another origin than the first request's, the request loses
// every header except Accept, Accept-Encoding, Accept-Language,
// Content-Type and User-Agent: a caller's own policy may follow such a
// redirect, but the credentials stay behind. (A policy may set headers
// again; that is its choice.)
func Client(c *http.Client) *http.Client {
	var out http.Client
	if c != nil {
		out = *c
	}
	policy := out.CheckRedirect
	if policy == nil {
		policy = Check
	}
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && !SameOrigin(via[0].URL, req.URL) {
			for k := range req.Header {
				if !generic[k] {
					delete(req.Header, k)
				}
			}
		}
		return policy(req, via)
	}
	return &out
}

// generic are the headers a request keeps when it leaves its origin, by
// their canonical names.
var generic = map[string]bool{
	"Accept":          true,
	"Accept-Encoding": true,
	"Accept-Language": true,
	"Content-Type":    true,
	"User-Agent":      true,
}

// SameOrigin reports whether a and b have the same scheme, host and
// port, an absent port meaning the scheme's default (80 for http, 443
// for https). Schemes and host names compare without regard to case.
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) &&
		strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

// Origin writes u's origin: "https://api.example.com" or
// "http://127.0.0.1:8080", without user information, path or query.
func Origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// port returns u's port, or its scheme's default.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}
