package main

import (
	"io"
	"strings"
	"testing"
)

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// endless is an input that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestReadLimitedStopsAtTheLimit: an input over the limit is refused as
// soon as it crosses it: reading stops at limit+1 bytes, whatever follows.
func TestReadLimitedStopsAtTheLimit(t *testing.T) {
	const limit = 1 << 20
	for _, size := range []int{limit - 1, limit, limit + 1, -1} {
		var src io.Reader = endless{}
		if size >= 0 {
			src = strings.NewReader(strings.Repeat("x", size))
		}
		cr := &countingReader{r: src}
		e := &env{stdin: cr, maxInput: limit}
		data, _, err := readLimited(e, "-", "")
		tooBig := size < 0 || size > limit
		if (err != nil) != tooBig {
			t.Errorf("readLimited(%d bytes) error = %v, want an error: %v", size, err, tooBig)
		}
		if tooBig && (cr.n != limit+1 || data != nil) {
			t.Errorf("readLimited(%d bytes) read %d bytes and kept %d, want it to stop at %d and keep none", size, cr.n, len(data), limit+1)
		}
		if tooBig && err != nil && !strings.Contains(err.Error(), "larger than the 1 MiB toolwire reads") {
			t.Errorf("readLimited(%d bytes) error = %v, want it to name the limit", size, err)
		}
		if !tooBig && len(data) != size {
			t.Errorf("readLimited(%d bytes) = %d bytes, want all of them", size, len(data))
		}
	}
}
