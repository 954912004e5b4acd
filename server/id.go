package server

import (
	"cmp"
	"errors"
	"strconv"
	"strings"
)

// An ID names an event of a session's stream, in order: Step is the
// number of the session's latest committed step when the event was
// made, Seq counts the events made since that step's commit, from 1.
// A step's stored events (what its commit wrote: messages, calls,
// results, the end) come first, numbered the same way each time they
// are read from the store; the live events of the effect performed
// after it (the model's text as it streams, tool calls starting and
// ending) follow them. So an ID read back from Last-Event-ID says
// exactly what a client has seen, whether the events it resumes come
// from the run going on or from the store.
type ID struct {
	Step, Seq int
}

// String writes the ID as the stream's id field: "STEP.SEQ".
func (id ID) String() string { return strconv.Itoa(id.Step) + "." + strconv.Itoa(id.Seq) }

// Compare orders IDs as the stream sends them.
func (id ID) Compare(o ID) int {
	if c := cmp.Compare(id.Step, o.Step); c != 0 {
		return c
	}
	return cmp.Compare(id.Seq, o.Seq)
}

// Less reports whether id comes before o.
func (id ID) Less(o ID) bool { return id.Compare(o) < 0 }

// ParseID reads an ID as [ID.String] writes it: two decimal numbers of
// at most nine digits joined by a dot, without signs, spaces or leading
// zeros. "" is the zero ID, before every event.
func ParseID(s string) (ID, error) {
	if s == "" {
		return ID{}, nil
	}
	a, b, ok := strings.Cut(s, ".")
	if !ok {
		return ID{}, errors.New("an event id is two numbers joined by a dot, such as 12.3")
	}
	step, err1 := part(a)
	seq, err2 := part(b)
	if err := errors.Join(err1, err2); err != nil {
		return ID{}, err
	}
	return ID{Step: step, Seq: seq}, nil
}

func part(s string) (int, error) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, errors.New("an event id's numbers are 1 to 9 digits without leading zeros, such as 12.3")
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, errors.New("an event id is two numbers joined by a dot, such as 12.3")
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}
