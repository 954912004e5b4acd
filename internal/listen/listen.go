// Package listen holds what toolwire's servers (toolwire serve, toolwire
// gateway) share about who may reach them: the rule that only a loopback
// address may go without a token, and the constant-time token check.
package listen

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
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
