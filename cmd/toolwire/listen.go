package main

import (
	"net"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/listen"
	"github.com/toolwire/toolwire/internal/neterr"
)

// serverToken returns the token of a server that toolwire serve or
// toolwire gateway runs on addr: token, the --token flag, else
// TOOLWIRE_TOKEN. An address other than a loopback one needs a token;
// without one it is a usage error that suggests def, the command's
// default address.
func serverToken(e *env, addr, token, def string) (string, error) {
	if token == "" {
		token = e.env("TOOLWIRE_TOKEN")
	}
	if err := listen.CheckAddr(addr, token); err != nil {
		return "", exitcode.Usagef("--addr %s: %s; pass --token or set TOOLWIRE_TOKEN, or listen on %s", addr, err, def)
	}
	return token, nil
}

// listenAddr listens on addr, the --addr flag; an address it cannot take
// is a usage error.
func listenAddr(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, exitcode.Usagef("--addr %s: cannot listen there (%v); pick another port", addr, neterr.Reason(err))
	}
	return ln, nil
}
