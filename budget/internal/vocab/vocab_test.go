package vocab

import (
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	toks := []Token{{0, "a"}, {1, "bc"}, {5, "\xff\x00"}, {300, strings.Repeat("x", 200)}}
	var got []Token
	data := string(Append(nil, toks))
	n, err := Read(data, func(rank uint32, off, size int) { got = append(got, Token{rank, data[off : off+size]}) })
	if err != nil || n != len(toks) {
		t.Fatalf("Read(Append(toks)) = %d, %v", n, err)
	}
	for i := range toks {
		if got[i] != toks[i] {
			t.Errorf("token %d = %+v, want %+v", i, got[i], toks[i])
		}
	}
}

func TestReadRefusesDamage(t *testing.T) {
	good := Append(nil, []Token{{0, "a"}, {1, "bc"}})
	for name, data := range map[string][]byte{
		"empty":      nil,
		"no magic":   []byte("vocab"),
		"cut":        good[:len(good)-1],
		"trailing":   append(append([]byte(nil), good...), 'x'),
		"rank again": Append(nil, []Token{{3, "a"}, {3, "b"}}),
	} {
		if _, err := Read(string(data), func(uint32, int, int) {}); err == nil {
			t.Errorf("Read(%s) = nil error, want one", name)
		}
	}
}
