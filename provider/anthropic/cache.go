package anthropic

import (
	"bytes"
	"errors"

	"github.com/go-json-experiment/json/jsontext"
)

// ephemeral is the cache breakpoint the client sets.
const ephemeral = `"cache_control":{"type":"ephemeral"}`

// maxBreakpoints is the most cache_control blocks one request may hold.
const maxBreakpoints = 4

// cacheControl starts a cache_control member, which counts against
// maxBreakpoints wherever it stands.
var cacheControl = []byte(`"cache_control":`)

// A mark says how an object, the last block of a content or the last
// tool, takes the client's breakpoint.
type mark byte

const (
	markNone   mark = iota // it takes none: a thinking block (or no block at all)
	markHeld               // it holds one already, which stands for the client's
	markAppend             // the breakpoint goes after its last member
	markEmpty              // it is {}: the breakpoint becomes its only member
)

// The bytes a breakpoint adds to an object, before its closing brace.
var (
	appendBreakpoint = []byte("," + ephemeral)
	onlyBreakpoint   = []byte(ephemeral)
)

// insert returns the bytes a breakpoint of mark m adds to its object.
func (m mark) insert() []byte {
	if m == markEmpty {
		return onlyBreakpoint
	}
	return appendBreakpoint
}

// blockMark returns how block, the last block of a message's content or
// of the system prompt, takes a breakpoint: thinking blocks cannot.
func blockMark(block []byte) mark {
	if bytes.Contains(block, []byte(`"type":"thinking"`)) || bytes.Contains(block, []byte(`"type":"redacted_thinking"`)) {
		return markNone
	}
	return objectMark(block)
}

// objectMark returns how a compact object takes a breakpoint.
func objectMark(obj []byte) mark {
	switch {
	case bytes.Contains(obj, cacheControl):
		return markHeld
	case len(obj) == 2:
		return markEmpty
	}
	return markAppend
}

// markCache sets the client's prompt-cache breakpoints in an encoded
// request body: the system prompt, the last tool, and the last block of
// the two newest user turns, without exceeding [maxBreakpoints] with the
// ones the body already holds. The rest of the body is kept byte for byte.
func markCache(body []byte) ([]byte, error) {
	top, err := members(body)
	if err != nil {
		return nil, err
	}
	budget := maxBreakpoints - bytes.Count(body, cacheControl)
	for i := range top {
		if budget <= 0 {
			break
		}
		var changed bool
		switch top[i].key {
		case "system":
			top[i].val, changed, err = markContent(top[i].val)
		case "tools":
			top[i].val, changed, err = markLast(top[i].val, func(v jsontext.Value) (jsontext.Value, bool, error) { return markObject(v), true, nil })
		default:
			continue
		}
		if err != nil {
			return nil, err
		}
		if changed {
			budget--
		}
	}
	for i := range top {
		if top[i].key == "messages" && budget > 0 {
			top[i].val, err = markMessages(top[i].val, min(budget, 2))
			if err != nil {
				return nil, err
			}
		}
	}
	return object(top), nil
}

type member struct {
	key string
	val jsontext.Value
}

// members reads a JSON object's members in order.
func members(v []byte) ([]member, error) {
	d := jsontext.NewDecoder(bytes.NewReader(v))
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, errors.New("not an object")
	}
	var ms []member
	for d.PeekKind() != '}' {
		k, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		key := k.String()
		val, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{key, val.Clone()})
	}
	return ms, nil
}

// object writes members back as a compact object.
func object(ms []member) []byte {
	b := []byte{'{'}
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := jsontext.AppendQuote(nil, m.key)
		b = append(append(append(b, k...), ':'), m.val...)
	}
	return append(b, '}')
}

// elements reads the elements of v, a JSON array, in order.
func elements(v []byte) ([]jsontext.Value, error) {
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	var elems []jsontext.Value
	for d.PeekKind() != ']' {
		e, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		elems = append(elems, e.Clone())
	}
	return elems, nil
}

// array writes elems back as a compact array.
func array(elems []jsontext.Value) []byte {
	b := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	return append(b, ']')
}

// markObject adds the breakpoint to a compact object that has none.
func markObject(v jsontext.Value) jsontext.Value {
	m := objectMark(v)
	if m == markHeld {
		return v
	}
	out := append([]byte(nil), v[:len(v)-1]...)
	out = append(out, m.insert()...)
	return append(out, '}')
}

// markLast applies mark to the last element of an array.
func markLast(v jsontext.Value, mark func(jsontext.Value) (jsontext.Value, bool, error)) (jsontext.Value, bool, error) {
	if v.Kind() != '[' {
		return v, false, nil
	}
	elems, err := elements(v)
	if err != nil {
		return nil, false, err
	}
	if len(elems) == 0 || elems[len(elems)-1].Kind() != '{' {
		return v, false, nil
	}
	last, changed, err := mark(elems[len(elems)-1])
	if err != nil || !changed {
		return v, false, err
	}
	elems[len(elems)-1] = last
	return array(elems), true, nil
}

// markContent marks a system prompt or a message's content: a string
// becomes one text block with the breakpoint, a block array has it added
// to its last block.
func markContent(v jsontext.Value) (jsontext.Value, bool, error) {
	switch v.Kind() {
	case '"':
		if string(v) == `""` {
			return v, false, nil // the API refuses a breakpoint on empty text
		}
		out := append([]byte(`[{"type":"text","text":`), v...)
		return append(append(out, ','), ephemeral+"}]"...), true, nil
	case '[':
		return markLast(v, func(b jsontext.Value) (jsontext.Value, bool, error) {
			if blockMark(b) == markNone {
				return b, false, nil // thinking blocks cannot be marked
			}
			return markObject(b), true, nil
		})
	}
	return v, false, nil
}

// markMessages marks the last block of the n newest user messages.
func markMessages(v jsontext.Value, n int) (jsontext.Value, error) {
	msgs, err := elements(v)
	if err != nil {
		return nil, err
	}
	for i := len(msgs) - 1; i >= 0 && n > 0; i-- {
		ms, err := members(msgs[i])
		if err != nil {
			return nil, err
		}
		user := false
		for _, m := range ms {
			if m.key == "role" && string(m.val) == `"user"` {
				user = true
			}
		}
		if !user {
			continue
		}
		for j := range ms {
			if ms[j].key != "content" {
				continue
			}
			var changed bool
			if ms[j].val, changed, err = markContent(ms[j].val); err != nil {
				return nil, err
			}
			if changed {
				n--
				msgs[i] = object(ms)
			}
		}
	}
	return array(msgs), nil
}
