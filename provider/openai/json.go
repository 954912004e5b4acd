package openai

// This file maps the shared JSON tree (internal/jsontree) onto this
// package's errors and its canonical form. encoding/json matches keys
// case-insensitively, lets a duplicate key overwrite an earlier one and
// reports type errors without the path of the value; a lossless codec can
// do none of that.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// A DecodeError says where a request body could not be decoded and why.
type DecodeError struct {
	// Path is the dotted path of the offending value ("messages.3.content"),
	// "" for the body itself.
	Path string
	// Offset is the byte offset in the body where the problem was found.
	Offset int
	// Err says what is wrong.
	Err error
}

// Error returns "openai: PATH: what is wrong".
func (e *DecodeError) Error() string { return codec.ErrorText("openai", e.Path, e.Err) }

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// ErrSyntax is wrapped by every [DecodeError] caused by input that is not
// valid JSON.
var ErrSyntax = errors.New("invalid JSON")

// body is a parsed request body, or a JSON value of a request.
type body struct {
	t *jsontree.Tree
	// prefix is what paths start with: "messages" or "input" for a bare
	// array, so that its paths are those of a full body.
	prefix string
}

// parseBody parses src strictly; bare is the prefix of paths when src is
// an array. Duplicate keys are errors; invalid UTF-8 in strings is not, as
// encoding/json (and so the OpenAI SDKs) accept it, and it is kept as it
// is. Every error is a [*DecodeError].
func parseBody(src []byte, bare string) (*body, error) {
	b := &body{}
	if s := bytes.TrimLeft(src, " \t\r\n"); len(s) > 0 && s[0] == '[' {
		b.prefix = bare
	}
	t, err := jsontree.Parse(src, &jsontree.Options{AllowInvalidUTF8: true})
	if err != nil {
		var se *jsontree.SyntaxError
		if errors.As(err, &se) {
			return nil, &DecodeError{Path: b.prefixed(se.Path), Offset: se.Offset,
				Err: fmt.Errorf("%w at line %d, column %d (byte %d): %s", ErrSyntax, se.Line, se.Column, se.Offset, se.Msg)}
		}
		return nil, &DecodeError{Err: err}
	}
	b.t = t
	if dup := t.FirstDuplicate(); dup != jsontree.None {
		return nil, &DecodeError{Path: b.path(t.Parent(dup)), Offset: t.KeyOffset(dup), Err: fmt.Errorf("duplicate key %q", t.Key(dup))}
	}
	return b, nil
}

func (b *body) prefixed(p string) string {
	switch {
	case b.prefix == "":
		return p
	case p == "":
		return b.prefix
	}
	return b.prefix + "." + p
}

// path returns the dotted path of n in the body.
func (b *body) path(n jsontree.Node) string { return b.prefixed(b.t.Path(n)) }

// errorf returns a DecodeError for value n.
func (b *body) errorf(n jsontree.Node, format string, args ...any) error {
	return &DecodeError{Path: b.path(n), Offset: b.t.Offset(n), Err: fmt.Errorf(format, args...)}
}

// missing returns the error for a member key that obj lacks.
func (b *body) missing(obj jsontree.Node, key string, err error) error {
	return &DecodeError{Path: b.path(obj) + "." + key, Offset: b.t.Offset(obj), Err: err}
}

// want returns the error for value n of the wrong kind.
func (b *body) want(n jsontree.Node, what string) error {
	return b.errorf(n, "want %s, got %s", what, b.t.Kind(n).Phrase())
}

// isNull reports whether n is null.
func (b *body) isNull(n jsontree.Node) bool { return b.t.Kind(n) == jsontree.Null }

// str returns string n, or an error if n is not a string.
func (b *body) str(n jsontree.Node) (string, error) {
	if b.t.Kind(n) != jsontree.String {
		return "", b.want(n, "a string")
	}
	return b.t.Str(n), nil
}

// boolean returns boolean n, or an error if n is not a boolean.
func (b *body) boolean(n jsontree.Node) (bool, error) {
	if b.t.Kind(n) != jsontree.Bool {
		return false, b.want(n, "a boolean")
	}
	return b.t.IsTrue(n), nil
}

// key returns the key of member n, unescaped. It aliases the body unless
// the key has escapes; convert it to a string to keep it.
func (b *body) key(n jsontree.Node) []byte {
	raw, esc := b.t.RawKey(n)
	if !esc {
		return raw
	}
	return []byte(b.t.Key(n))
}

// extra classifies the value of a key the codec does not model. noted: the
// value says something (it is neither null nor an empty array or object);
// quiet: it is an empty array or object, kept with its element but not
// worth a note.
func (b *body) extra(n jsontree.Node) (noted, quiet bool) {
	switch b.t.Kind(n) {
	case jsontree.Null:
		return false, false
	case jsontree.Array, jsontree.Object:
		if b.t.Len(n) == 0 {
			return false, true
		}
	}
	return true, false
}

// unmodeled files member f, whose key the codec does not model: the key
// goes to extra when the value says something, and quiet is set when the
// value is an empty array or object.
func (b *body) unmodeled(f jsontree.Node, key []byte, extra *[]string, quiet *bool) {
	noted, q := b.extra(f)
	if noted {
		*extra = append(*extra, string(key))
	}
	*quiet = *quiet || q
}

// canon appends the canonical form of n to dst; see [appendCanonical].
func (b *body) canon(dst []byte, n jsontree.Node) []byte { return appendCanonical(dst, b.t, n) }

// appendCanonical appends the canonical compact form of value n: no white
// space, strings re-encoded as [llm.AppendJSONString] writes them (so <, >
// and & stay unescaped and invalid UTF-8 becomes U+FFFD), numbers and key
// order as they were. The canonical form of canonical output is the same
// bytes.
func appendCanonical(dst []byte, t *jsontree.Tree, n jsontree.Node) []byte {
	switch t.Kind(n) {
	case jsontree.Object:
		dst = append(dst, '{')
		for c := t.First(n); c != jsontree.None; c = t.Next(c) {
			if c != t.First(n) {
				dst = append(dst, ',')
			}
			dst, _ = llm.AppendJSONString(dst, t.Key(c))
			dst = append(dst, ':')
			dst = appendCanonical(dst, t, c)
		}
		return append(dst, '}')
	case jsontree.Array:
		dst = append(dst, '[')
		for c := t.First(n); c != jsontree.None; c = t.Next(c) {
			if c != t.First(n) {
				dst = append(dst, ',')
			}
			dst = appendCanonical(dst, t, c)
		}
		return append(dst, ']')
	case jsontree.String:
		dst, _ = llm.AppendJSONString(dst, t.Str(n))
		return dst
	}
	return append(dst, t.Raw(n)...) // a number, true, false or null
}

// compactJSON returns the canonical form of a JSON document, or a
// [*DecodeError] if it is not one valid JSON value without duplicate keys.
func compactJSON(src []byte) ([]byte, error) {
	b, err := parseBody(src, "")
	if err != nil {
		return nil, err
	}
	return b.canon(make([]byte, 0, len(src)), b.t.Root()), nil
}

// toolField reads member f of a function tool definition into spec when
// its key is one the llm form models: name, description, parameters or
// strict (a null description, parameters or strict is absent). modeled is
// false for any other key.
func (b *body) toolField(spec *llm.ToolSpec, key []byte, f jsontree.Node) (modeled bool, err error) {
	null := b.isNull(f)
	switch string(key) {
	case "name":
		spec.Name, err = b.str(f)
	case "description":
		if !null {
			spec.Description, err = b.str(f)
		}
	case "parameters":
		switch b.t.Kind(f) {
		case jsontree.Null:
		case jsontree.Object:
			spec.Parameters = b.canon(nil, f)
		default:
			err = b.want(f, "a JSON Schema object")
		}
	case "strict":
		if !null {
			spec.Strict, err = b.boolean(f)
		}
	default:
		return false, nil
	}
	return true, err
}

// an returns s with the indefinite article it takes.
func an(s string) string {
	if s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])) && !strings.HasPrefix(s, "us") {
		return "an " + s
	}
	return "a " + s
}

// appendParameters appends the canonical form of a tool's parameters, which
// are valid JSON (decoded, or accepted by checkParameters); anything else
// is appended as it is.
func appendParameters(dst, params []byte) []byte {
	b, err := parseBody(params, "")
	if err != nil {
		return append(dst, params...)
	}
	return b.canon(dst, b.t.Root())
}
