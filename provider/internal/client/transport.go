package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// transportError returns err, a failure of http.Client.Do, worded as what
// happened to the connection ("cannot connect to 127.0.0.1:1: connection
// refused"), not as Go's `Post "URL": dial tcp ...`; it wraps err, so
// that errors.Is and errors.As still find the cause. An error that is not
// a *url.Error is returned as it is.
func transportError(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	host := ue.URL
	if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
		host = u.Host
	}
	return &connError{what: connProblem(host, ue.Err), err: err}
}

// connProblem words cause, the error under a *url.Error, for host.
func connProblem(host string, cause error) string {
	var dns *net.DNSError
	var op *net.OpError
	var verify *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var record tls.RecordHeaderError
	switch {
	case errors.As(cause, &dns):
		return "cannot connect to " + dns.Name + ": " + dns.Err + " (is --base-url right?)"
	case errors.Is(cause, syscall.ECONNREFUSED):
		return "cannot connect to " + host + ": connection refused (is the server running, and is --base-url right?)"
	case errors.Is(cause, syscall.ECONNRESET):
		return "the connection to " + host + " was reset by the server"
	case errors.Is(cause, io.EOF), errors.Is(cause, io.ErrUnexpectedEOF):
		return "the server at " + host + " closed the connection before it answered"
	case errors.As(cause, &verify):
		return "the TLS certificate of " + host + " is not trusted: " + verify.Err.Error()
	case errors.As(cause, &unknownCA), errors.As(cause, &hostname), errors.As(cause, &invalid):
		return "the TLS certificate of " + host + " is not trusted: " + cause.Error()
	case errors.As(cause, &record), strings.Contains(cause.Error(), "server gave HTTP response to HTTPS client"): // net/http's words, no type
		return host + " did not answer in TLS (is the scheme of --base-url right, http or https?)"
	case errors.As(cause, &op) && op.Timeout():
		return "no answer from " + host + " in time"
	}
	return "cannot reach " + host + ": " + cause.Error()
}

// A connError is a transport failure worded for people; it wraps the
// error the HTTP client returned.
type connError struct {
	what string
	err  error
}

func (e *connError) Error() string { return e.what }
func (e *connError) Unwrap() error { return e.err }
