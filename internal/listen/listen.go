// Package listen holds what toolwire's servers (toolwire serve, toolwire
// gateway) share about who may reach them: the rule that only a loopback
// address may go without a token, the constant-time token check, and the
// guard against the pages of other sites a browser on the machine has open.
package listen

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// CheckAddr returns an error when a server with token (maybe "") must
// not listen on addr, a host:port: without a token, only a loopback
// address (127.0.0.0/8, ::1, localhost) is allowed. An empty host, as
// in ":8080", listens on every interface.
func CheckAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("the address %q is not host:port, such as 127.0.0.1:8080", addr)
	}
	if token != "" || Loopback(host) {
		return nil
	}
	shown := host
	if shown == "" {
		shown = "every interface"
	}
	return fmt.Errorf("listening on %s needs a token: without one, only a loopback address such as 127.0.0.1 is allowed", shown)
}

// Loopback reports whether host is a loopback address or localhost.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// A Token is a server's secret, kept as its SHA-256 sum. The zero Token
// is no token: every value matches it.
type Token struct {
	sum [32]byte
	set bool
}

// NewToken returns the Token of s; "" is no token.
func NewToken(s string) Token {
	if s == "" {
		return Token{}
	}
	return Token{sum: sha256.Sum256([]byte(s)), set: true}
}

// Set reports whether t is a token.
func (t Token) Set() bool { return t.set }

// Match reports whether got, with surrounding white space removed, is the
// token, or whether there is no token. It compares SHA-256 sums in
// constant time, so that neither the token nor its length shows in the
// time it takes.
func (t Token) Match(got string) bool {
	if !t.set {
		return true
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
	return subtle.ConstantTimeCompare(sum[:], t.sum[:]) == 1
}

// A Browser guards a server from the pages of other sites that a browser
// on the same machine has open, which a token does not cover when the
// server runs without one (on loopback):
//
//   - a request that changes state (POST, DELETE, ...) that the browser
//     marks as coming from another origin (Sec-Fetch-Site, Origin) is
//     refused, unless its origin is trusted (net/http's
//     CrossOriginProtection): a page cannot post to the server with a
//     form or a no-cors fetch;
//   - a server without a token answers only to loopback host names
//     (localhost, 127.0.0.1, ::1), so that a site whose name is pointed
//     at 127.0.0.1 (DNS rebinding) cannot read what it serves.
//
// Clients that are not browsers send neither header, and pass.
type Browser struct {
	cop      *http.CrossOriginProtection // nil when every origin is trusted
	loopback bool                        // answer only to loopback host names
}

// NewBrowser returns the guard of a server with a token or without
// (token), trusting the origins trusted ("https://app.example"; "*"
// trusts every origin).
func NewBrowser(token bool, trusted []string) (*Browser, error) {
	b := &Browser{cop: http.NewCrossOriginProtection(), loopback: !token}
	trustAll := false
	for _, o := range trusted {
		if o == "*" {
			trustAll = true
			continue
		}
		if err := b.cop.AddTrustedOrigin(o); err != nil {
			return nil, err
		}
	}
	if trustAll {
		b.cop = nil
	}
	return b, nil
}

// A Refusal says why a [Browser] refuses a request.
type Refusal struct {
	// Origin is set for a request from a page of another site: where it
	// came from, as the browser said ("https://evil.example", or
	// "Sec-Fetch-Site: cross-site").
	Origin string
	// Host is set for a request to a host name that is not loopback, on
	// a server without a token.
	Host string
}

// Check returns why r is refused, or nil.
func (b *Browser) Check(r *http.Request) *Refusal {
	if b.loopback && !loopbackHost(r.Host) {
		return &Refusal{Host: r.Host}
	}
	if b.cop != nil && b.cop.Check(r) != nil {
		return &Refusal{Origin: originOf(r)}
	}
	return nil
}

// loopbackHost reports whether host, a Host header (with or without a
// port), names this machine's loopback interface.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return Loopback(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
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
