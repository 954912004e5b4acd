// Package sse reads and writes server-sent events (the text/event-stream
// format of the HTML Living Standard, §9.2), as the provider APIs stream
// their answers.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// An Event is one dispatched server-sent event.
type Event struct {
	// Type is the event's "event" field, "" when it had none (the
	// standard's "message").
	Type string
	// Data is the event's data lines, joined with "\n".
	Data []byte
	// ID is the event's "id" field, "" when it had none.
	ID string
}

// DefaultMaxEvent is the size limit of one event's data when NewReader is
// given 0.
const DefaultMaxEvent = 32 << 20

// ErrTooLarge is wrapped by the error Next returns for an event or a line
// larger than the reader's limit.
var ErrTooLarge = errors.New("sse: event too large")

// A Reader reads events from a stream. It is not safe for concurrent use.
type Reader struct {
	s     *bufio.Scanner
	max   int
	first bool
	// The event being read.
	typ, id string
	data    []byte
	hasData bool
	err     error
}

// NewReader returns a Reader of r whose events may hold up to max bytes of
// data (0 means [DefaultMaxEvent]).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxEvent
	}
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 4096), max+len("data: \r\n"))
	s.Split(splitLine)
	return &Reader{s: s, max: max, first: true}
}

// splitLine splits at "\r\n", "\n" or "\r", the three line endings of the
// format.
func splitLine(data []byte, atEOF bool) (advance int, token []byte, err error) {
	i := bytes.IndexAny(data, "\r\n")
	if i < 0 {
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	}
	if data[i] == '\n' {
		return i + 1, data[:i], nil
	}
	// "\r": a "\n" may follow, in data not read yet.
	if i+1 < len(data) {
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	}
	if atEOF {
		return i + 1, data[:i], nil
	}
	return 0, nil, nil
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// an event whose last line ends the stream without the blank line that
// should follow it is returned first, so that the caller, not the reader,
// decides whether the stream was cut short. Comments and events without
// data are skipped, as the standard says; "retry" fields are ignored.
//
// The Data of an event is valid until the next call to Next.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	for r.s.Scan() {
		line := r.s.Bytes()
		if r.first {
			r.first = false
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		if len(line) == 0 {
			if ev, ok := r.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if err := r.field(line); err != nil {
			r.err = err
			return Event{}, err
		}
	}
	if err := r.s.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("%w: a line is longer than %d bytes", ErrTooLarge, r.max)
		}
		r.err = err
		return Event{}, err
	}
	r.err = io.EOF
	if ev, ok := r.dispatch(); ok {
		return ev, nil
	}
	return Event{}, io.EOF
}

// field processes one non-empty line of the event being read.
func (r *Reader) field(line []byte) error {
	if line[0] == ':' {
		return nil // a comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		r.typ = string(value)
	case "data":
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		r.hasData = true
		if len(r.data)+len(value) > r.max {
			return fmt.Errorf("%w: more than %d bytes of data", ErrTooLarge, r.max)
		}
		r.data = append(r.data, value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id = string(value)
		}
	}
	return nil
}

// dispatch ends the event being read; ok is false when it had no data.
func (r *Reader) dispatch() (Event, bool) {
	ev := Event{Type: r.typ, Data: r.data, ID: r.id}
	ok := r.hasData
	r.typ, r.hasData, r.data = "", false, r.data[:0]
	return ev, ok
}

// AppendEvent appends ev in the format, one "data" line per line of its
// data, and the blank line that dispatches it.
func AppendEvent(dst []byte, ev Event) []byte {
	if ev.Type != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, ev.Type...)
		dst = append(dst, '\n')
	}
	if ev.ID != "" {
		dst = append(dst, "id: "...)
		dst = append(dst, ev.ID...)
		dst = append(dst, '\n')
	}
	data := ev.Data
	for {
		i := bytes.IndexAny(data, "\r\n")
		dst = append(dst, "data: "...)
		if i < 0 {
			dst = append(dst, data...)
			dst = append(dst, '\n')
			break
		}
		dst = append(dst, data[:i]...)
		dst = append(dst, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return append(dst, '\n')
}
