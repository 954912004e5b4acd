// Package syncbuf is a buffer that one goroutine may write while another
// reads it: a test's stand-in for the output of a command (an in-process
// server, a child process) that it reads as it comes.
package syncbuf

import (
	"bytes"
	"sync"
)

// A Buffer is a bytes.Buffer safe for concurrent use. The zero value is
// an empty buffer ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
