package codec

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
)

// A Reader reads a request body for a codec's decoder, with the module's one
// JSON layer (a jsontext.Decoder with internal/jsonx's strict options), in
// one pass in document order. It reads an object member by member
// ([Reader.Object]) or whole ([Reader.ReadObject], for an object whose
// members must be looked at in another order, such as a content block whose
// "type" decides what its other members mean), an array element by element
// ([Reader.Array]), and any value as its bytes ([Reader.Raw]).
//
// Every value a Reader returns is its bytes in the body, compact: the body's
// own bytes when it has no white space outside strings (no copy is made),
// else a compacted copy. So a codec writes back what it did not change by
// copying those bytes, and Encode(Decode(x)) is x compacted.
//
// A Reader knows the path of the value it is at (the object members and
// array elements it is inside of), for errors, which are
// [*llm.DecodeError]s of the Reader's Op in the [llm.Dotted] style, and
// for the notes of what the body holds that the llm form does not
// ([Reader.Note], to Notes).
type Reader struct {
	// Notes receives the notes of [Reader.Note]: what the body holds that
	// the llm form does not. They say it is kept when re-encoding as
	// Dialect ("Anthropic").
	Notes   *[]provider.Warning
	Dialect string

	op    string
	src   []byte
	d     *jsontext.Decoder
	opts  []jsontext.Options
	last  []byte // the token or scalar value read last
	end   int64  // the offset just after it
	start int64  // the offset of the array or object read last
	ws    int64  // the offset of the last token that white space came before, or -1
	stack []step // the path of the value at hand
	baseN int    // how many steps of stack lead to src
	names map[string]string
	child *Reader // reused by Enter
}

// step is one step of a path: a member name, or an array index.
type step struct {
	key   string
	index int // -1 for a member
}

// NewReader returns a Reader of body whose errors have the given Op
// ("anthropic"). When body is an array (a bare message array), paths start
// with bare ("messages"): they are the paths of the same values in a full
// body. opts are added to jsonx's strict options.
func NewReader(op string, body []byte, bare string, opts ...jsontext.Options) *Reader {
	r := &Reader{op: op, opts: append(jsonx.Strict(), opts...), names: make(map[string]string)}
	r.reset(body)
	if s := bytes.TrimLeft(body, " \t\r\n"); len(s) > 0 && s[0] == '[' && bare != "" {
		r.stack = append(r.stack, step{key: bare, index: -1})
		r.baseN = 1
	}
	return r
}

func (r *Reader) reset(src []byte) {
	r.src, r.end, r.ws, r.last = src, 0, -1, nil
	if r.d == nil {
		r.d = jsontext.NewDecoder(bytes.NewBuffer(src), r.opts...)
	} else {
		r.d.Reset(bytes.NewBuffer(src), r.opts...)
	}
}

// Enter returns a Reader of v, the value of member key of the value at
// hand (a member [Reader.ReadObject] returned): its paths go on from
// there. It is valid until the next call of Enter on r.
func (r *Reader) Enter(key string, v []byte) *Reader {
	if r.child == nil {
		r.child = &Reader{op: r.op, opts: r.opts, names: r.names}
	}
	c := r.child
	c.Notes, c.Dialect = r.Notes, r.Dialect
	c.reset(v)
	c.stack = append(append(c.stack[:0], r.stack...), step{key: key, index: -1})
	c.baseN = len(c.stack)
	return c
}

// Kind returns the kind of the next value, as jsontext names it ('"', '0',
// 't', 'f', 'n', '{', '['), or 0 when there is none.
func (r *Reader) Kind() jsontext.Kind { return r.d.PeekKind() }

// read reads the next token: a delimiter or a scalar value (a member name
// included), so that the Reader sees the white space between any two
// tokens.
func (r *Reader) read() (jsontext.Kind, error) {
	k := r.d.PeekKind()
	var err error
	n := int64(1)
	switch k {
	case '{', '[', '}', ']':
		_, err = r.d.ReadToken()
	default:
		var v jsontext.Value
		v, err = r.d.ReadValue()
		n = int64(len(v))
	}
	if err != nil {
		return 0, r.syntax(err)
	}
	end := r.d.InputOffset()
	start := end - n
	r.space(start)
	r.last, r.end = r.src[start:end], end
	return k, nil
}

// space notes white space between the token read last and the one at
// start.
func (r *Reader) space(start int64) {
	if gap := start - r.end; gap > 1 || gap == 1 && r.src[r.end] != ',' && r.src[r.end] != ':' {
		r.ws = start
	}
}

// syntax returns the error of reading invalid JSON.
func (r *Reader) syntax(err error) error {
	de := jsonx.Error(r.op, llm.Dotted, r.src, err)
	if r.baseN > 0 && de.Offset >= 0 {
		// A bare array, or a Reader of a value: the path goes on from
		// there.
		de.Path = r.base(r.baseN).Join(de.Path)
	}
	return de
}

// base returns the path of the first n steps of the stack.
func (r *Reader) base(n int) llm.Path {
	var p llm.Path
	for _, s := range r.stack[:max(0, min(n, len(r.stack)))] {
		if s.index < 0 {
			p = p.Key(s.key)
		} else {
			p = p.Index(s.index)
		}
	}
	return p
}

// Span returns the bytes of the array or object that [Reader.Object] or
// [Reader.Array] read last, compact: the body's own bytes when they are,
// else a compacted copy.
func (r *Reader) Span() []byte {
	v := r.src[r.start:r.end]
	if r.ws > r.start {
		return compacted(v)
	}
	return v
}

// End reads what follows the document: nothing but white space. (A
// jsontext.Decoder reads a stream of values, so it would take what follows
// for the start of a next one.)
func (r *Reader) End() error {
	if err := jsonx.End(r.d, r.src); err != nil {
		return r.syntax(err)
	}
	return nil
}

// syntaxAt returns the error of invalid JSON at offset in the body, which
// the decoder does not see (what follows the document, an empty body),
// worded as [Reader.syntax] words the decoder's own.
func (r *Reader) syntaxAt(offset int64, what string) error {
	return r.syntax(&jsontext.SyntacticError{ByteOffset: offset, Err: errors.New(what)})
}

// Drain reads the rest of the document, for the syntax error it may hold:
// a document that is not JSON is reported as such, whatever the decoder
// found wrong before. It returns nil when the rest is valid.
func (r *Reader) Drain() error {
	if r.last == nil {
		if err := r.Skip(); err != nil {
			return err
		}
	}
	for r.d.StackDepth() > 0 {
		if _, err := r.read(); err != nil {
			return err
		}
	}
	return r.End()
}

// Raw reads the next value whole and returns its bytes, compact.
func (r *Reader) Raw() ([]byte, error) {
	v, compact, err := r.raw()
	if err != nil || compact {
		return v, err
	}
	return compacted(v), nil
}

// WholeSyntax returns err, a syntax error found reading r's body (an
// object) member by member, as reading its members' values whole words it
// (as [Reader.ReadObject] does): a jsontext.Decoder words some errors
// otherwise when it reads token by token. A decoder that reads what it
// used to read whole as it comes calls it, so that what a broken body is
// told does not change; it is run only on that error.
func (r *Reader) WholeSyntax(err error) error {
	w := &Reader{op: r.op, opts: r.opts}
	w.reset(r.src)
	if _, werr := w.ReadObject(); IsSyntax(werr) {
		return werr
	}
	return err
}

// Value reads the next value whole and returns its bytes as the body has
// them, white space included: for a value to read later with
// [Reader.Enter].
func (r *Reader) Value() ([]byte, error) {
	v, _, err := r.raw()
	return v, err
}

// compacted returns v, a JSON value, compact.
func compacted(v []byte) []byte {
	if c, ok := AppendCompact(nil, v); ok {
		return c
	}
	return v
}

// raw reads the next value whole and returns its bytes as the body has
// them, and whether they are compact. An array or object is read in one
// call of the decoder (which checks all of it) and then scanned for white
// space, rather than token by token.
func (r *Reader) raw() (v []byte, compact bool, err error) {
	if k := r.d.PeekKind(); k != '{' && k != '[' {
		if _, err := r.read(); err != nil {
			return nil, false, err
		}
		return r.last, true, nil
	}
	val, err := r.d.ReadValue()
	if err != nil {
		return nil, false, r.syntax(err)
	}
	end := r.d.InputOffset()
	start := end - int64(len(val))
	r.space(start)
	v = r.src[start:end]
	compact = isCompact(v)
	if !compact {
		r.ws = start + 1 // the containers around v are not compact either
	}
	r.last, r.end, r.start = v, end, start
	return v, compact, nil
}

// isCompact reports whether v, a valid JSON value, has no white space
// outside its strings.
func isCompact(v []byte) bool {
	for len(v) > 0 {
		q := bytes.IndexByte(v, '"')
		if q < 0 {
			q = len(v)
		}
		if bytes.ContainsAny(v[:q], " \t\r\n") {
			return false
		}
		if q == len(v) {
			return true
		}
		v = v[q+1:]
		for { // to the end of the string
			e := bytes.IndexByte(v, '"')
			if e < 0 {
				return true
			}
			n := 0 // the backslashes before the quote
			for n < e && v[e-1-n] == '\\' {
				n++
			}
			v = v[e+1:]
			if n%2 == 0 {
				break
			}
		}
	}
	return true
}

// Skip reads the next value and drops it.
func (r *Reader) Skip() error {
	_, err := r.Raw()
	return err
}

// Str reads the next value, which must be a string.
func (r *Reader) Str() (string, error) {
	if k := r.Kind(); k != '"' {
		if k == 0 {
			_, err := r.read()
			return "", err
		}
		return "", r.Want("a string")
	}
	if _, err := r.read(); err != nil {
		return "", err
	}
	s, _ := String(r.last)
	return s, nil
}

// Object reads an object member by member: each is called with the
// member's name and the Reader at its value, which each reads (a value it
// leaves is skipped). [Reader.Span] then returns the object's bytes. The
// next value must be an object.
func (r *Reader) Object(each func(name string) error) error {
	return r.container('}', func(int) (step, error) {
		if _, err := r.read(); err != nil {
			return step{}, err
		}
		return step{key: r.name(r.last), index: -1}, nil
	}, func(s step) error { return each(s.key) })
}

// Array reads an array element by element: each is called with the
// element's index and the Reader at the element, which each reads (an
// element it leaves is skipped). [Reader.Span] then returns the array's
// bytes. The next value must be an array.
func (r *Reader) Array(each func(i int) error) error { return r.ArrayFrom(0, each) }

// ArrayFrom is [Reader.Array] for an array that holds the elements of
// another from its element first on (a body that leaves out what the
// codec read before): the elements are numbered, in paths and for each,
// as in that other array.
func (r *Reader) ArrayFrom(first int, each func(i int) error) error {
	return r.container(']', func(i int) (step, error) {
		return step{index: first + i}, nil
	}, func(s step) error { return each(s.index) })
}

// container reads the object or array that close ends: for each member or
// element, next reads what comes before its value (a member's name) and
// returns its step of the path, and each reads the value with that step on
// the path, or leaves it, or the rest of it, to be read past (so that each
// may stop at an error it keeps for later and return nil).
func (r *Reader) container(close jsontext.Kind, next func(i int) (step, error), each func(step) error) error {
	depth := r.d.StackDepth()
	if _, err := r.read(); err != nil {
		return err
	}
	start := r.end - 1
	for i := 0; r.d.PeekKind() != close; i++ {
		s, err := next(i)
		if err != nil {
			return err
		}
		_, before := r.d.StackIndex(depth + 1)
		r.stack = append(r.stack, s)
		err = each(s)
		for err == nil && r.d.StackDepth() > depth+1 {
			_, err = r.read() // the rest of a value each left half read
		}
		if err == nil {
			if _, n := r.d.StackIndex(depth + 1); n == before {
				err = r.Skip()
			}
		}
		r.stack = r.stack[:len(r.stack)-1]
		if err != nil {
			return err
		}
	}
	if _, err := r.read(); err != nil {
		return err
	}
	r.start = start
	return nil
}

// An Object is an object read whole: its members in their order.
type Object struct {
	Members []Member
	raw     []byte
	compact bool
}

// Raw returns the object's bytes, compact: the body's own bytes when they
// are, else a compacted copy.
func (o *Object) Raw() []byte {
	if !o.compact {
		o.raw, o.compact = compacted(o.raw), true
	}
	return o.raw
}

// A Member is a member of an object: its name and its value's bytes as the
// body has them, white space included (so a tool call's input is the
// caller's JSON as it was).
type Member struct {
	Key     string
	Val     []byte
	compact bool
}

// Compact returns the value's bytes, compact: Val when they are, else a
// compacted copy.
func (m Member) Compact() []byte {
	if m.compact {
		return m.Val
	}
	return compacted(m.Val)
}

// Get returns the value of the member named key, or nil.
func (o *Object) Get(key string) []byte { return o.Member(key).Val }

// Member returns the member named key; its Val is nil when there is none.
func (o *Object) Member(key string) Member {
	for _, m := range o.Members {
		if m.Key == key {
			return m
		}
	}
	return Member{}
}

// ReadObjectOf is ReadObject for a value that must be an object: any
// other value is an error that wants what ("a tool object").
func (r *Reader) ReadObjectOf(what string) (Object, error) {
	if r.Kind() != '{' {
		return Object{}, r.Want(what)
	}
	return r.ReadObject()
}

// ReadObject reads the next value, an object, whole. A Reader reads all of
// its members' values before the caller looks at any, so that a body that
// is not JSON is reported as such, not as what the caller found wrong.
func (r *Reader) ReadObject() (Object, error) {
	var o Object
	err := r.Object(func(name string) error {
		v, compact, err := r.raw()
		o.Members = append(o.Members, Member{Key: name, Val: v, compact: compact})
		return err
	})
	if err == nil {
		o.raw, o.compact = r.src[r.start:r.end], r.ws <= r.start
	}
	return o, err
}

// name returns the member name that raw, a JSON string, holds.
func (r *Reader) name(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		inner := raw[1 : len(raw)-1]
		if s, ok := r.names[string(inner)]; ok {
			return s
		}
		s := string(inner)
		if r.names != nil && len(r.names) < 1024 {
			r.names[s] = s
		}
		return s
	}
	s, _ := String(raw)
	return s
}

// Path returns the path of the value at hand.
func (r *Reader) Path() llm.Path { return r.base(len(r.stack)) }

// PathString returns the path of the value at hand, dotted.
func (r *Reader) PathString() string { return r.Path().String() }

// At returns the path of member key of the value at hand, dotted.
func (r *Reader) At(key string) string { return r.Path().Key(key).String() }

// Errorf returns the error of the value at hand.
func (r *Reader) Errorf(format string, args ...any) error {
	return &llm.DecodeError{Op: r.op, Path: r.Path(), Style: llm.Dotted, Offset: -1, Err: fmt.Errorf(format, args...)}
}

// ErrorAt returns the error of member key of the value at hand.
func (r *Reader) ErrorAt(key, format string, args ...any) error {
	return &llm.DecodeError{Op: r.op, Path: r.Path().Key(key), Style: llm.Dotted, Offset: -1, Err: fmt.Errorf(format, args...)}
}

// Want returns the error for the next value, of the wrong kind: "want
// WHAT, got a number".
func (r *Reader) Want(what string) error {
	return r.Errorf("want %s, got %s", what, Phrase(r.Kind()))
}

// WantAt returns the error for v, the value of member key of the value at
// hand, of the wrong kind.
func (r *Reader) WantAt(key string, v []byte, what string) error {
	return r.ErrorAt(key, "want %s, got %s", what, Phrase(jsontext.Value(v).Kind()))
}

// Missing returns the error for the member key that the object at hand
// lacks; hint says what it should be.
func (r *Reader) Missing(key, hint string) error { return r.ErrorAt(key, "missing (%s)", hint) }

// StrAt returns v, the value of member key of the value at hand, which
// must be a string.
func (r *Reader) StrAt(key string, v []byte) (string, error) {
	s, ok := String(v)
	if !ok {
		return "", r.WantAt(key, v, "a string")
	}
	return s, nil
}

// Note records that the value at hand is something the llm form does not
// hold.
func (r *Reader) Note(what string) { r.note(r.PathString(), what) }

// NoteAt records that member key of the value at hand is something the llm
// form does not hold.
func (r *Reader) NoteAt(key, what string) { r.note(r.At(key), what) }

func (r *Reader) note(path, what string) {
	*r.Notes = append(*r.Notes, provider.Warning{Path: path,
		Message: what + "; kept when re-encoding as " + r.Dialect + ", lost when converting to another dialect"})
}

// Extra returns m, a member of the object at hand that the llm form does
// not model, compact, and notes it.
func (r *Reader) Extra(m Member) Member {
	r.NoteAt(m.Key, fmt.Sprintf("the %q field is not part of the llm form", m.Key))
	return m.Kept()
}

// Kept returns m with its value compact, to be written back.
func (m Member) Kept() Member { return Member{Key: m.Key, Val: m.Compact(), compact: true} }

// Phrase names a kind of JSON value as errors do: "null", "a boolean", "a
// number", "a string", "an array", "an object", or "nothing".
func Phrase(k jsontext.Kind) string { return jsonx.KindPhrase(k) }

// String returns the text of v when it is a JSON string.
func String(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	b, _ := jsontext.AppendUnquote(make([]byte, 0, len(v)), v)
	return string(b), true
}

// Bool returns the value of v when it is true or false.
func Bool(v []byte) (value, ok bool) {
	switch jsontext.Value(v).Kind() {
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}

// IsNull reports whether v is null.
func IsNull(v []byte) bool { return jsontext.Value(v).Kind() == 'n' }

// Kind returns the kind of v, as jsontext names it.
func Kind(v []byte) jsontext.Kind { return jsontext.Value(v).Kind() }

// compactOpts keep what a value holds as it is: strings byte for byte,
// duplicate names and invalid UTF-8 (which a reader refuses, or accepts,
// where it reads them).
var compactOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true), jsontext.PreserveRawStrings(true)}

// AppendCompact appends v, a JSON value, without white space outside its
// strings and without the white space around it; strings, numbers and
// escapes are copied as they are. It reports false, appending nothing,
// when v is not one JSON value.
func AppendCompact(dst, v []byte) ([]byte, bool) {
	out, err := jsontext.AppendFormat(dst, v, compactOpts...)
	if err != nil {
		return dst, false
	}
	return out, true
}

// ValidObject returns v less the white space around it, and reports whether
// it is one JSON object (strings valid UTF-8).
func ValidObject(v []byte) ([]byte, bool) {
	v = bytes.Trim(v, " \t\r\n")
	return v, len(v) > 1 && v[0] == '{' && jsontext.Value(v).IsValid(jsontext.AllowDuplicateNames(true))
}

// Members returns the members of v, a JSON object that a Reader read (it
// is not checked), in their order; nil for any other value.
func Members(v []byte) []Member {
	if jsontext.Value(v).Kind() != '{' {
		return nil
	}
	r := &Reader{op: "codec", opts: compactOpts}
	r.reset(v)
	o, err := r.ReadObject()
	if err != nil {
		return nil
	}
	return o.Members
}

// Elems returns the elements of v, a compact JSON array that a Reader read
// (it is not checked); nil for any other value.
func Elems(v []byte) [][]byte {
	if jsontext.Value(v).Kind() != '[' {
		return nil
	}
	r := &Reader{op: "codec", opts: compactOpts}
	r.reset(v)
	var out [][]byte
	err := r.Array(func(int) error {
		e, err := r.Raw()
		out = append(out, e)
		return err
	})
	if err != nil {
		return nil
	}
	return out
}

// Get returns the value of member key of v, a JSON object that a Reader
// read, or nil.
func Get(v []byte, key string) []byte {
	for _, m := range Members(v) {
		if m.Key == key {
			return m.Val
		}
	}
	return nil
}

// IsSyntax reports whether err is a Reader's error of a body that is not
// JSON, which comes before any other.
func IsSyntax(err error) bool {
	de := (*llm.DecodeError)(nil)
	return errors.As(err, &de) && de.Offset >= 0
}

// A Dialect says how [Decode] reads a dialect's bodies.
type Dialect struct {
	// Op starts its errors: "anthropic".
	Op string
	// Name is how notes name it: "Anthropic".
	Name string
	// Bare is the top-level field a bare array stands for: "messages".
	Bare string
	// Want says what a body is, for a body of the wrong kind: "a request
	// body (an object) or a messages array".
	Want string
	// Notes receives the notes of what the body holds that the llm form
	// does not.
	Notes *[]provider.Warning
	// Options are added to jsonx's strict options.
	Options []jsontext.Options
}

// Decode reads body, a request body of dialect dl, with object (for a body
// that is an object) or array (a bare array), each given a Reader at the
// body. A body that is not JSON is a syntax error (with its line, column
// and byte offset) whatever else is wrong with it.
func Decode(dl Dialect, body []byte, array, object func(*Reader) error) error {
	r := NewReader(dl.Op, body, dl.Bare, dl.Options...)
	r.Notes, r.Dialect = dl.Notes, dl.Name
	var err error
	switch k := r.Kind(); k {
	case '{':
		err = object(r)
	case '[':
		err = array(r)
	case 0:
		if len(bytes.TrimLeft(body, " \t\r\n")) == 0 {
			return r.syntaxAt(int64(len(body)), "empty input")
		}
		_, err = r.read()
		return err
	default:
		err = r.Errorf("want %s, got %s", dl.Want, Phrase(k))
	}
	if err != nil {
		if IsSyntax(err) {
			return err
		}
		if serr := r.Drain(); serr != nil {
			return serr
		}
		return err
	}
	return r.End()
}
