package openai

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// TestDecodeChatAfter decodes every Chat test body split in two at each
// element of its messages array, the second part after the first, and
// wants the request decoding it whole gives.
func TestDecodeChatAfter(t *testing.T) {
	files, _ := filepath.Glob("testdata/chat/*.txtar")
	if len(files) == 0 {
		t.Fatal("no test bodies")
	}
	for _, f := range files {
		in := codectest.Input(t, f)
		s, ok := codectest.SplitArray(in, "messages")
		if !ok {
			t.Fatalf("%s: no messages array", f)
		}
		for k := range len(s.Elems) + 1 {
			checkAfter(t, f, s, k)
		}
	}
}

// FuzzDecodeChatAfter is TestDecodeChatAfter for any body and split.
func FuzzDecodeChatAfter(f *testing.F) {
	codectest.Seed(f, "testdata/chat/*.txtar")
	f.Fuzz(func(t *testing.T, body []byte) {
		s, ok := codectest.SplitArray(body, "messages")
		if !ok {
			return
		}
		for k := range len(s.Elems) + 1 {
			checkAfter(t, "fuzz", s, k)
		}
	})
}

// checkAfter decodes s's first k elements, then the others after them.
func checkAfter(t *testing.T, name string, s codectest.Split, k int) {
	t.Helper()
	whole, err := DecodeChat(s.Join(s.Elems))
	if err != nil {
		return // a body that does not decode has no request to continue
	}
	first, err := DecodeChat(s.Join(s.Elems[:k]))
	if err != nil {
		// The first part alone may break a rule the whole keeps (none
		// today makes it an error); nothing to continue from.
		return
	}
	got, err := DecodeChatAfter(first, s.Join(s.Elems[k:]))
	if err != nil {
		t.Fatalf("%s, after %d of %d messages: %v", name, k, len(s.Elems), err)
	}
	got.src.size, whole.src.size = 0, 0
	if !reflect.DeepEqual(got, whole) {
		t.Fatalf("%s, after %d of %d messages:\ngot  %+v\nwant %+v", name, k, len(s.Elems), got, whole)
	}
}
