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
	prefix    string
}

// NewReader returns a Reader of t whose notes go to unmodeled (a request's
// Unmodeled list) and say they are kept when re-encoding as dialect
// ("Anthropic"). When t is an array, a bare message array, paths start with
// bare ("messages"): they are the paths of the same values in a full body,
// as transcript names them.
func NewReader(t *jsontree.Tree, dialect, bare string, unmodeled *[]transcript.Warning) Reader {
	r := Reader{T: t, unmodeled: unmodeled, dialect: dialect}
	if t.Kind(t.Root()) == jsontree.Array {
		r.prefix = bare
	}
	return r
}

// Path returns the dotted path of n.
func (r *Reader) Path(n jsontree.Node) string { return prefixed(r.prefix, r.T.Path(n)) }

// Errorf returns a *PathError for value n.
func (r *Reader) Errorf(n jsontree.Node, format string, args ...any) error {
	return &PathError{Path: r.Path(n), Offset: -1, Err: fmt.Errorf(format, args...)}
}

// Want returns the error for value n of the wrong kind: "want WHAT, got a
// number".
func (r *Reader) Want(n jsontree.Node, what string) error {
	return r.Errorf(n, "want %s, got %s", what, r.T.Kind(n).Phrase())
}

// Missing returns the error for the member key that object obj lacks; hint
// says what it should be.
func (r *Reader) Missing(obj jsontree.Node, key, hint string) error {
	return &PathError{Path: prefixed(r.Path(obj), key), Offset: -1, Err: fmt.Errorf("missing (%s)", hint)}
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
	*r.unmodeled = append(*r.unmodeled, transcript.Warning{Path: r.Path(n),
		Message: what + "; kept when re-encoding as " + r.dialect + ", lost when converting to another dialect"})
}

// Member returns member c of an object as a [Member], and notes it.
func (r *Reader) Member(c jsontree.Node) Member {
	key := r.T.Key(c)
	r.Note(c, fmt.Sprintf("the %q field is not part of the llm form", key))
	return Member{Key: key, Val: r.T.Compact(c)}
}
