package codec

import (
	"strconv"
	"strings"
)

// CutIndex splits a dotted path in the llm form's layout (as
// transcript.Layout computes it) at the index of its element of array:
// "messages.3.content.0" is 3 and "content.0" for array "messages", and
// "messages.3" is 3 and "". ok is false for a path outside array or
// without an index there.
func CutIndex(path, array string) (i int, tail string, ok bool) {
	rest, ok := strings.CutPrefix(path, array+".")
	if !ok {
		return 0, "", false
	}
	num, tail, _ := strings.Cut(rest, ".")
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 {
		return 0, "", false
	}
	return i, tail, true
}

// StringContent returns tail, a path inside a message as CutIndex leaves
// it, for a message whose content is a string in the body: the path of
// its one text, "content.0", is "content" there.
func StringContent(tail string) string {
	if after, ok := strings.CutPrefix(tail, "content.0"); ok && (after == "" || after[0] == '.') {
		return "content" + after
	}
	return tail
}
