package wire

import (
	"bytes"
	"hash/maphash"

	"github.com/go-json-experiment/json/jsontext"
)

// splice returns enc, a body the codec wrote (compact), written with the
// bytes of orig, the body it was decoded from, wherever the two hold the
// same JSON: a value of enc that equals the value in the same place of orig
// (same bytes but for white space between tokens) is copied from orig, so
// that what a repair did not touch keeps its bytes, formatting included.
// Containers that differ are written member by member, with orig's white
// space around their members. The result always holds exactly enc's JSON.
//
// An object's members are matched by name; an array's elements in order:
// each element of enc takes the next equal element of orig, so that the
// messages a repair kept, moved past an inserted one or reordered keep
// their bytes.
func splice(orig, enc []byte) []byte {
	s := splicer{seed: maphash.MakeSeed()}
	return s.value(make([]byte, 0, len(orig)+len(enc)/8), orig, enc)
}

type splicer struct {
	seed maphash.Seed
}

func (s *splicer) value(dst, orig, enc []byte) []byte {
	if sameJSON(orig, enc) {
		return append(dst, orig...)
	}
	oc, ok1 := members(orig)
	ec, ok2 := members(enc)
	if !ok1 || !ok2 || oc.open != ec.open {
		return append(dst, enc...)
	}
	dst = append(dst, ec.open)
	var counterpart func(i int) []byte
	if ec.open == '{' {
		byKey := make(map[string][]byte, len(oc.elems))
		for _, m := range oc.elems {
			if _, dup := byKey[m.key]; !dup {
				byKey[m.key] = m.val
			}
		}
		counterpart = func(i int) []byte { return byKey[ec.elems[i].key] }
	} else {
		counterpart = s.arrayMatcher(oc.elems, ec.elems)
	}
	for i, m := range ec.elems {
		if i > 0 {
			dst = append(dst, oc.sep...)
		} else {
			dst = append(dst, oc.lead...)
		}
		if ec.open == '{' {
			dst = append(dst, m.keyRaw...)
			dst = append(dst, oc.colon...)
		}
		if o := counterpart(i); o != nil {
			dst = s.value(dst, o, m.val)
		} else {
			dst = append(dst, m.val...)
		}
	}
	if len(ec.elems) > 0 && len(oc.elems) > 0 {
		dst = append(dst, oc.trail...)
	}
	return append(dst, ec.close)
}

// arrayMatcher returns, for each element of enc in turn, the element of
// orig to write it from: the next unused equal one, else (for an element a
// repair changed) the next unused one that no later element of enc equals,
// else nil.
//
// The elements before the first that differs in its bytes (all of them in
// a compact body whose last messages a repair changed) are matched with no
// hashing: each is the next unused equal one.
func (s *splicer) arrayMatcher(orig, enc []elem) func(int) []byte {
	same := 0
	for same < min(len(orig), len(enc)) && bytes.Equal(orig[same].val, enc[same].val) {
		same++
	}
	at := map[uint64][]int{} // hash of an element of orig → its indices, ascending
	for k := same; k < len(orig); k++ {
		h := s.hash(orig[k].val)
		at[h] = append(at[h], k)
	}
	wanted := map[uint64]int{} // hash → how many elements of enc still to come have it
	hashes := make([]uint64, len(enc))
	for i := same; i < len(enc); i++ {
		hashes[i] = s.hash(enc[i].val)
		wanted[hashes[i]]++
	}
	used := make([]bool, len(orig))
	next := same // orig before next is used or passed
	return func(i int) []byte {
		if i < same {
			return orig[i].val
		}
		h := hashes[i]
		wanted[h]--
		// What comes before next is used or passed: dropping it keeps a
		// long run of equal elements from being scanned again for each.
		list := at[h]
		for len(list) > 0 && (list[0] < next || used[list[0]]) {
			list = list[1:]
		}
		at[h] = list
		for _, k := range list {
			if k >= next && !used[k] && sameJSON(orig[k].val, enc[i].val) {
				used[k] = true
				if k == next {
					next++
				}
				return orig[k].val
			}
		}
		for next < len(orig) && used[next] {
			next++
		}
		if next < len(orig) && wanted[s.hash(orig[next].val)] == 0 {
			used[next] = true
			next++
			return orig[next-1].val
		}
		return nil
	}
}

// hash hashes v's bytes outside white space, so that values sameJSON calls
// equal hash the same.
func (s *splicer) hash(v []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(s.seed)
	forTokens(v, func(b []byte) { h.Write(b) })
	return h.Sum64()
}

// sameJSON reports whether a and b are the same bytes once the white space
// between their tokens is left out. It compares them in place: a and b may
// be the whole body.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	i, j := 0, 0
	inStr := false
	for {
		if !inStr {
			for i < len(a) && isSpace(a[i]) {
				i++
			}
			for j < len(b) && isSpace(b[j]) {
				j++
			}
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		c := a[i]
		if c != b[j] {
			return false
		}
		i, j = i+1, j+1
		switch {
		case inStr && c == '\\':
			if i == len(a) || j == len(b) || a[i] != b[j] {
				return i == len(a) && j == len(b)
			}
			i, j = i+1, j+1
		case c == '"':
			inStr = !inStr
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// forTokens calls f with the runs of v's bytes that are not white space
// between tokens, in order. v is valid JSON, so a quote outside a string
// starts one and an unescaped quote ends it.
func forTokens(v []byte, f func([]byte)) {
	start, inStr := 0, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if i > start {
				f(v[start:i])
			}
			start = i + 1
		}
	}
	if start < len(v) {
		f(v[start:])
	}
}

// A container is a JSON object or array split into its members, with the
// white space its members are written with.
type container struct {
	open, close byte
	elems       []elem
	lead        []byte // the white space before the first member
	sep         []byte // from the end of the first member to the second: "," or ",\n  "
	colon       []byte // from the end of the first key to its value: ":" or ": "
	trail       []byte // the white space before the closing bracket
}

type elem struct {
	key    string // an object member's name, unescaped
	keyRaw []byte // the name as written
	val    []byte // the value as written
}

// members splits v, an object or array, into its members; false when v is
// neither (or is not valid JSON).
func members(v []byte) (container, bool) {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 || (v[0] != '{' && v[0] != '[') {
		return container{}, false
	}
	c := container{open: v[0], close: ']', colon: []byte(":"), sep: []byte(",")}
	if c.open == '{' {
		c.close = '}'
	}
	// A bytes.Buffer lets the decoder read v in place, without a copy.
	dec := jsontext.NewDecoder(bytes.NewBuffer(v), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	if _, err := dec.ReadToken(); err != nil {
		return container{}, false
	}
	firstEnd := 0 // where the first member ends
	for i := 0; dec.PeekKind() != jsontext.KindEndObject && dec.PeekKind() != jsontext.KindEndArray; i++ {
		var e elem
		before := int(dec.InputOffset())
		if i == 1 {
			c.sep = nil // set below, from the second member's start
		}
		if c.open == '{' {
			tok, err := dec.ReadToken()
			if err != nil {
				return container{}, false
			}
			end := int(dec.InputOffset())
			e.key = tok.String()
			e.keyRaw = bytes.TrimLeft(v[before:end], ", \t\r\n")
			switch i {
			case 0:
				c.lead = v[before : end-len(e.keyRaw)]
			case 1:
				c.sep = v[firstEnd : end-len(e.keyRaw)]
			}
			before = end
		}
		val, err := dec.ReadValue()
		if err != nil {
			return container{}, false
		}
		end := int(dec.InputOffset())
		e.val = v[end-len(val) : end]
		switch {
		case i == 0 && c.open == '{':
			c.colon = v[before : end-len(val)]
		case i == 0:
			c.lead = v[before : end-len(val)]
		case i == 1 && c.open == '[':
			c.sep = v[firstEnd : end-len(val)]
		}
		if i == 0 {
			firstEnd = end
		}
		c.elems = append(c.elems, e)
	}
	before := int(dec.InputOffset())
	if _, err := dec.ReadToken(); err != nil {
		return container{}, false
	}
	end := int(dec.InputOffset())
	c.trail = v[before : end-1]
	if len(c.elems) == 1 {
		c.sep = append([]byte(","), c.lead...) // one member: the style of the first
	}
	return c, true
}
