package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/toolwire/toolwire/provider"
)

// TestTransportError: a failure to reach the provider reads as what
// happened to the connection, in the user's terms, without Go's
// `Post "URL": dial tcp` wording; errors.Is and errors.As still see the
// cause.
func TestTransportError(t *testing.T) {
	const u = "http://127.0.0.1:1/v1/chat/completions"
	dial := func(err error) error {
		return &url.Error{Op: "Post", URL: u, Err: &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, Err: err}}
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"refused", dial(&net.OpError{Err: syscall.ECONNREFUSED}), "cannot connect to 127.0.0.1:1: connection refused (is the server running, and is --base-url right?)"},
		{"no such host", &url.Error{Op: "Post", URL: "https://api.example.invalid/v1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example.invalid", IsNotFound: true}}},
			"cannot connect to api.example.invalid: no such host (is --base-url right?)"},
		{"reset", &url.Error{Op: "Post", URL: u, Err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}}, "the connection to 127.0.0.1:1 was reset by the server"},
		{"closed", &url.Error{Op: "Post", URL: u, Err: io.EOF}, "the server at 127.0.0.1:1 closed the connection before it answered"},
		{"certificate", &url.Error{Op: "Post", URL: "https://api.example.com/v1", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, "the TLS certificate of api.example.com is not trusted: x509: certificate signed by unknown authority"},
		{"other", &url.Error{Op: "Post", URL: u, Err: errors.New("something odd")}, "cannot reach 127.0.0.1:1: something odd"},
		{"not a url.Error", errors.New("plain"), "plain"},
	}
	for _, tt := range tests {
		got := transportError(tt.err)
		if got.Error() != tt.want {
			t.Errorf("transportError(%s) = %q, want %q", tt.name, got, tt.want)
		}
		if !errors.Is(got, tt.err) {
			t.Errorf("transportError(%s) does not wrap its cause", tt.name)
		}
	}
}

// TestTransportErrorRealRefusal dials a port nothing listens on.
func TestTransportErrorRealRefusal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := Open("test", provider.Options{BaseURL: "http://" + addr + "/v1", MaxRetries: -1}, "", &Errors{Provider: "Test"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Do(context.Background(), func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, "POST", c.URL("/x"), strings.NewReader("{}"))
	})
	if err == nil || !strings.Contains(err.Error(), "cannot connect to "+addr+": connection refused") || strings.Contains(err.Error(), "dial tcp") {
		t.Errorf("Do(closed port) error = %v, want it to say it cannot connect, in plain words", err)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Do(closed port) error = %v, want errors.Is ECONNREFUSED", err)
	}
}

// TestTransportErrorRealTLS: an https server whose certificate the client
// does not trust, and an http server reached over https.
func TestTransportErrorRealTLS(t *testing.T) {
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	tests := []struct{ base, want string }{
		{tlsSrv.URL, "is not trusted: x509: certificate signed by unknown authority"},
		{strings.Replace(plain.URL, "http://", "https://", 1), "did not answer in TLS (is the scheme of --base-url right, http or https?)"},
	}
	for _, tt := range tests {
		c, err := Open("test", provider.Options{BaseURL: tt.base, MaxRetries: -1}, "", &Errors{Provider: "Test"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Do(context.Background(), func(ctx context.Context) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, "POST", c.URL("/x"), strings.NewReader("{}"))
		})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Do(%s) error = %v, want it to contain %q", tt.base, err, tt.want)
		}
	}
}
