// Package neterr says in a few words why a network connection failed,
// for the messages of toolwire's commands.
package neterr

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
)

// Reason is why a connection failed, in a few words: "connection
// refused", "no such host example.invalid", "no answer in time".
func Reason(err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return "no such host " + dns.Name
	case errors.Is(err, context.DeadlineExceeded), os.IsTimeout(err):
		return "no answer in time"
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	// The last words of the last line: the cause the driver wraps.
	msg := strings.TrimSpace(err.Error())
	if i := strings.LastIndex(msg, "\n"); i >= 0 {
		msg = msg[i+1:]
	}
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}
