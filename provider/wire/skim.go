package wire

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/toolwire/toolwire/transcript"
)

// Violations returns what [Decode] and [Body.Check] find in data, a request
// body of dialect d, and the same error for a body that cannot be read: the
// verdict alone, for a caller that forwards the body it judged (a gateway)
// and holds no decoded body after.
//
// It is faster than decoding for a body whose size is in its texts (tool
// results, long messages): the rules read of a text only whether it is
// empty, blank, and what its last character is, so Violations first skims
// the body, checking each long text as JSON without unquoting it, and
// decodes a copy of the body in which each long text stands as a short one
// that keeps those three facts. A body the skim is unsure of (an escape or
// invalid UTF-8 where the short form would need to read it) keeps its
// texts; a body that is not JSON is decoded as it is, for the codec's
// error.
func Violations(data []byte, d transcript.Dialect) ([]transcript.Violation, error) {
	return violations(data, d, skimLongest, "")
}

// ViolationsFor is [Violations] for a body whose model its request names
// elsewhere (a Gemini URL): see [Body.SetModel].
func ViolationsFor(data []byte, d transcript.Dialect, model string) ([]transcript.Violation, error) {
	return violations(data, d, skimLongest, model)
}

// skimLongest is the size, in bytes of JSON, above which a text is skimmed.
// Below it, decoding a text costs less than writing the copy around it.
const skimLongest = 256

func violations(data []byte, d transcript.Dialect, longest int, model string) ([]transcript.Violation, error) {
	var short []byte
	if texts, ok := textPaths[d]; ok {
		short, _ = skim(data, &texts, longest, nil)
	}
	return verdictOf(data, short, d, model)
}

// verdictOf judges data by short, its skimmed copy (nil when the skim
// refused it): a body short does not read as is decoded as it is, for the
// codec's error.
func verdictOf(data, short []byte, d transcript.Dialect, model string) ([]transcript.Violation, error) {
	if short != nil {
		if b, err := Decode(short, d); err == nil {
			b.SetModel(model)
			return b.Check(), nil
		}
	}
	b, err := Decode(data, d)
	if err != nil {
		return nil, err
	}
	b.SetModel(model)
	return b.Check(), nil
}

// A seg is one step of the path to a value in a body, as far as the skim
// tells steps apart: the member names on the paths of texts, any array
// element, and any other member.
type seg uint8

const (
	segRoot  seg = iota
	segElem      // an array element
	segOther     // a member not named below
	segMessages
	segInput
	segContents
	segContent
	segParts
	segText
	segOutput
	segError
	segFunctionResponse
	segResponse
)

func segOf(name []byte) seg {
	switch string(name) {
	case "messages":
		return segMessages
	case "input":
		return segInput
	case "contents":
		return segContents
	case "content":
		return segContent
	case "parts":
		return segParts
	case "text":
		return segText
	case "output":
		return segOutput
	case "error":
		return segError
	case "functionResponse":
		return segFunctionResponse
	case "response":
		return segResponse
	}
	return segOther
}

// Where a dialect's texts are: the member of a full body that holds the
// message array, and the paths of the string values that are message text
// (a text part, a string content, a tool's output) from an element of that
// array, the only values the skim shortens.
//
// A rule (of transcript or of a codec) that comes to read more of such a
// text than whether it is empty or blank and its last character — its
// length, say (Responses caps an output at 10,485,760 characters, which no
// rule checks today) — must take its path out of here, or teach the skim
// to keep that fact. TestViolationsAgree catches it only for a body of its
// corpus that breaks the rule.
type texts struct {
	array seg
	paths [][]seg
}

var textPaths = map[transcript.Dialect]texts{
	transcript.OpenAIChat: {segMessages, [][]seg{
		{segElem, segContent},
		{segElem, segContent, segElem, segText},
	}},
	transcript.OpenAIResponses: {segInput, [][]seg{
		{segElem, segContent},
		{segElem, segContent, segElem, segText},
		{segElem, segOutput},
	}},
	transcript.Anthropic: {segMessages, [][]seg{
		{segElem, segContent},
		{segElem, segContent, segElem, segText},
		{segElem, segContent, segElem, segContent},
		{segElem, segContent, segElem, segContent, segElem, segText},
	}},
	transcript.Gemini: {segContents, [][]seg{
		{segElem, segParts, segElem, segText},
		// A tool's output as toolwire (and most SDKs) send it:
		// {"output": "..."} or {"error": "..."}.
		{segElem, segParts, segElem, segFunctionResponse, segResponse, segOutput},
		{segElem, segParts, segElem, segFunctionResponse, segResponse, segError},
	}},
}

// isText reports whether path, from the root, is the path of a text: one
// of t's paths under the message array of a full body, or under a bare
// array.
func (t *texts) isText(path []seg) bool {
	if len(path) < 3 || path[0] != segRoot {
		return false
	}
	rest := path[1:]
	if rest[0] == t.array {
		rest = rest[1:]
	}
	for _, p := range t.paths {
		if slices.Equal(p, rest) {
			return true
		}
	}
	return false
}

// skim returns a copy of data in which each string value longer than
// longest bytes at one of texts' paths, whose first character is plain
// (so it is not blank), is written as "x" followed by its last character
// (so it is not empty, not blank, and ends as it did). It checks each
// string it shortens as JSON (its escapes, that it holds no control
// character, its UTF-8) and reports false, for a body that is not JSON or
// that it cannot walk, when the caller must decode data itself. The rest
// of data is copied as it is, for the codec to read; data itself is
// returned when no string was shortened. When at is not nil, skim sets
// it to where the message array of a full body is in data.
func skim(data []byte, texts *texts, longest int, at *arrayAt) ([]byte, bool) {
	var (
		out    []byte
		copied int   // data[:copied] is in out
		path   []seg // the path of the container at hand, from segRoot
		arrays []bool
		key    = segOther // the member name read last,
		keyEnd = -1       // and the offset after its colon
	)
	member := func(i int) bool { return keyEnd >= 0 && blankJSON(data[keyEnd:i]) }
	step := func(i int) seg {
		switch {
		case member(i):
			return key
		case len(arrays) > 0 && arrays[len(arrays)-1]:
			return segElem
		case len(arrays) == 0:
			return segRoot
		}
		return segOther
	}
	for i := 0; i < len(data); {
		switch data[i] {
		case '{', '[':
			path = append(path, step(i))
			arrays = append(arrays, data[i] == '[')
			i++
			if at != nil && len(path) == 2 && path[1] == texts.array && arrays[1] {
				at.open, at.last = i, i
				at.found++
			}
		case '}', ']':
			if len(path) == 0 {
				return nil, false
			}
			path, arrays = path[:len(path)-1], arrays[:len(arrays)-1]
			i++
			if at != nil && len(path) == 2 && path[1] == texts.array && arrays[1] {
				at.last = i // an element ends
				at.elems++
			}
		case '"':
			s, ok := scanString(data, i+1)
			if !ok {
				return nil, false
			}
			j := s.end + 1
			for j < len(data) && isSpace(data[j]) {
				j++
			}
			if j < len(data) && data[j] == ':' {
				key, keyEnd = segOf(data[i+1:s.end]), j+1
				i = j + 1
				continue
			}
			if s.end-i-1 > longest && s.short != nil && texts.isText(append(path, step(i))) {
				if out == nil {
					// Room for the whole copy at the share of the body
					// kept up to its first long text, rather than grown
					// by doubling from nothing.
					out = make([]byte, 0, len(data)*(i+4)/(s.end+1))
				}
				out = append(out, data[copied:i]...)
				out = append(append(append(out, '"', 'x'), s.short...), '"')
				copied = s.end + 1
			}
			i = s.end + 1
		default:
			i++
		}
	}
	if out == nil {
		return data, true
	}
	return append(out, data[copied:]...), true
}

// arrayAt is where skim found the message array of a full body: open is
// the offset just after its '[', last the offset just after its last
// element that is an object or an array (open when there is none), elems
// how many such elements it holds, found how many such arrays the body
// holds (a body with two does not decode, nor does one whose message is
// not an object).
type arrayAt struct{ open, last, elems, found int }

// A scanned string: end is the offset of its closing quote; short is its
// last character as JSON (a rune, or an escape), or nil when the string
// must not be shortened: its first character is white space, a control
// escape or not ASCII (it might be blank), or it holds a surrogate escape
// or invalid UTF-8 (which some codecs read and others refuse).
type scanned struct {
	end   int
	short []byte
}

// scanString scans the JSON string whose contents start at data[i]. It
// reports false when the string is not valid JSON: unterminated, with a
// control character, or a bad escape.
func scanString(data []byte, i int) (scanned, bool) {
	start := i
	var high uint64    // the OR of the bytes scanned: its top bits say if any was not ASCII
	lastEsc := -1      // the offset of the last escape,
	lastEscEnd := -1   // and the offset after it
	surrogate := false // whether an escape was \uD800-\uDFFF (half of a pair, or alone)
	for {
		// Skip eight plain bytes at a time: no quote, backslash or control
		// character among them.
		for i+8 <= len(data) {
			x := binary.LittleEndian.Uint64(data[i:])
			high |= x
			if m := special(x); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(data) {
			return scanned{}, false
		}
		switch c := data[i]; {
		case c == '"':
			s := scanned{end: i}
			if i > start && plainFirst(data[start]) && !surrogate &&
				(high&0x8080808080808080 == 0 || utf8.Valid(data[start:i])) {
				if lastEscEnd == i {
					s.short = data[lastEsc:i]
				} else {
					_, n := utf8.DecodeLastRune(data[start:i])
					s.short = data[i-n : i]
				}
			}
			return s, true
		case c == '\\':
			if i+1 >= len(data) {
				return scanned{}, false
			}
			lastEsc = i
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(data[i+2:])
				if !ok {
					return scanned{}, false
				}
				// A lone surrogate is JSON to some codecs and not to
				// others: such a string is left for the codec to read.
				surrogate = surrogate || r >= 0xD800 && r <= 0xDFFF
				i += 6
			default:
				return scanned{}, false
			}
			lastEscEnd = i
		case c < 0x20:
			return scanned{}, false
		default:
			high |= uint64(c)
			i++
		}
	}
}

// special returns the top bit of each byte of x (eight bytes of a string,
// the first in the low byte) that is a quote, a backslash or a control
// character. Only the lowest one set is certain (a borrow may set those
// above it), which is all the caller reads.
func special(x uint64) uint64 {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x) & tops
}

// plainFirst reports whether c, a string's first byte, is a character no
// blank text starts with: printable ASCII other than a space or a
// backslash.
func plainFirst(c byte) bool { return c > ' ' && c < 0x7f && c != '\\' }

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// blankJSON reports whether b is JSON white space only.
func blankJSON(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
