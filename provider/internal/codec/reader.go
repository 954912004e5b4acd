package codec

import (
	"fmt"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/transcript"
)

// A Reader reads a parsed request body for a codec's decoder: values of the
// kind wanted, or a *PathError that names their dotted path; and notes of
// what the body holds that the llm form does not.
type Reader struct {
	T         *jsontree.Tree
	unmodeled *[]transcript.Warning
	dialect   string
}

// NewReader returns a Reader of t whose notes go to unmodeled (a request's
// Unmodeled list) and say they are kept when re-encoding as dialect
// ("Anthropic").
func NewReader(t *jsontree.Tree, dialect string, unmodeled *[]transcript.Warning) Reader {
	return Reader{T: t, unmodeled: unmodeled, dialect: dialect}
}

// Errorf returns a *PathError for value n.
func (r *Reader) Errorf(n jsontree.Node, format string, args ...any) error {
	return &PathError{Path: r.T.Path(n), Offset: -1, Err: fmt.Errorf(format, args...)}
}

// Want returns the error for value n of the wrong kind: "want WHAT, got a
// number".
func (r *Reader) Want(n jsontree.Node, what string) error {
	return r.Errorf(n, "want %s, got %s", what, r.T.Kind(n).Phrase())
}

// Missing returns the error for the member key that object obj lacks; hint
// says what it should be.
func (r *Reader) Missing(obj jsontree.Node, key, hint string) error {
	p := r.T.Path(obj)
	if p != "" {
		p += "."
	}
	return &PathError{Path: p + key, Offset: -1, Err: fmt.Errorf("missing (%s)", hint)}
}

// Object checks that n is an object without repeated keys; what names the
// object wanted.
func (r *Reader) Object(n jsontree.Node, what string) error {
	if r.T.Kind(n) != jsontree.Object {
		return r.Want(n, what)
	}
	if dup := r.T.Duplicate(n); dup >= 0 {
		return r.Errorf(dup, "repeats a field of the same object")
	}
	return nil
}

// Str returns string n, or an error if n is not a string.
func (r *Reader) Str(n jsontree.Node) (string, error) {
	if r.T.Kind(n) != jsontree.String {
		return "", r.Want(n, "a string")
	}
	return r.T.Str(n), nil
}

// Note records that value n is something the llm form does not hold.
func (r *Reader) Note(n jsontree.Node, what string) {
	*r.unmodeled = append(*r.unmodeled, transcript.Warning{Path: r.T.Path(n),
		Message: what + "; kept when re-encoding as " + r.dialect + ", lost when converting to another dialect"})
}

// Member returns member c of an object as a [Member], and notes it.
func (r *Reader) Member(c jsontree.Node) Member {
	key := r.T.Key(c)
	r.Note(c, fmt.Sprintf("the %q field is not part of the llm form", key))
	return Member{Key: key, Val: r.T.Compact(c)}
}
