package gateway

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// A DiffLine is one line of the difference between two request bodies:
// a value removed ("-", with its path in the body received) or added
// ("+", with its path in the body sent).
type DiffLine struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value string `json:"value"` // compact JSON, cut to diffValueMax bytes
}

// diffValueMax bounds the JSON a diff line shows of a value.
const diffValueMax = 400

// diffCells bounds the table of the longest common subsequence of two
// arrays; past it, what differs between their common start and end is
// shown as removed and added whole.
const diffCells = 1 << 20

// Diff returns how body b differs from body a, two JSON objects (request
// bodies): the top-level fields removed, added or changed, and for a field
// that is an array in both (the messages, the tools), the elements removed
// and added, found as the longest common subsequence of the two arrays.
// Values compare byte for byte: a repair keeps the bytes of what it left
// alone, so an element it did not touch is equal. A body that is not a
// JSON object is compared as one value.
func Diff(a, b []byte) []DiffLine {
	fa, oka := members(a)
	fb, okb := members(b)
	if !oka || !okb {
		if bytes.Equal(a, b) {
			return nil
		}
		return []DiffLine{line("-", "", a), line("+", "", b)}
	}
	var out []DiffLine
	for _, m := range fa {
		i := slices.IndexFunc(fb, func(n member) bool { return n.name == m.name })
		if i < 0 {
			out = append(out, line("-", m.name, m.value))
			continue
		}
		n := fb[i]
		if bytes.Equal(m.value, n.value) {
			continue
		}
		ea, oka := elements(m.value)
		eb, okb := elements(n.value)
		if !oka || !okb {
			out = append(out, line("-", m.name, m.value), line("+", n.name, n.value))
			continue
		}
		out = append(out, diffArrays(m.name, ea, eb)...)
	}
	for _, n := range fb {
		if !slices.ContainsFunc(fa, func(m member) bool { return m.name == n.name }) {
			out = append(out, line("+", n.name, n.value))
		}
	}
	return out
}

// diffArrays returns the lines of the elements removed from a and added
// in b, in order, with paths name.INDEX.
func diffArrays(name string, a, b [][]byte) []DiffLine {
	// The common start and end need no table.
	pre := 0
	for pre < len(a) && pre < len(b) && bytes.Equal(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && bytes.Equal(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	path := func(i int) string { return name + "." + strconv.Itoa(i) }
	var out []DiffLine
	if len(ma)*len(mb) > diffCells {
		for i, v := range ma {
			out = append(out, line("-", path(pre+i), v))
		}
		for j, v := range mb {
			out = append(out, line("+", path(pre+j), v))
		}
		return out
	}
	// lcs[i][j] is the length of the longest common subsequence of
	// ma[i:] and mb[j:].
	w := len(mb) + 1
	lcs := make([]int32, (len(ma)+1)*w)
	for i := len(ma) - 1; i >= 0; i-- {
		for j := len(mb) - 1; j >= 0; j-- {
			if bytes.Equal(ma[i], mb[j]) {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		switch {
		case i < len(ma) && j < len(mb) && bytes.Equal(ma[i], mb[j]):
			i, j = i+1, j+1
		case j == len(mb) || i < len(ma) && lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			out = append(out, line("-", path(pre+i), ma[i]))
			i++
		default:
			out = append(out, line("+", path(pre+j), mb[j]))
			j++
		}
	}
	return out
}

// line is a diff line showing v compactly, cut to diffValueMax bytes.
func line(op, path string, v []byte) DiffLine {
	c := jsontext.Value(bytes.Clone(v))
	if err := c.Compact(); err != nil {
		c = v
	}
	s := string(c)
	if len(s) > diffValueMax {
		cut := diffValueMax
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return DiffLine{Op: op, Path: path, Value: s}
}

// A member is a top-level field of a JSON object, its value as written.
type member struct {
	name  string
	value []byte
}

// members returns the fields of data, a JSON object, in order; ok is false
// when data is not one.
func members(data []byte) (ms []member, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		name := tok.String() // before the next read, which reuses the token's bytes
		v, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		ms = append(ms, member{name, in(data, dec, v)})
	}
	return ms, true
}

// elements returns the elements of data, a JSON array; ok is false when
// data is not one.
func elements(data []byte) (es [][]byte, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return nil, false
	}
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		es = append(es, in(data, dec, v))
	}
	return es, true
}

// in returns the bytes of data that v, the value dec just read, was read
// from: the decoder's own buffer is reused by its next read.
func in(data []byte, dec *jsontext.Decoder, v jsontext.Value) []byte {
	end := dec.InputOffset()
	return data[end-int64(len(v)) : end]
}
