package callid

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScheme(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	tests := []struct{ name, got, want string }{
		{"made", Made("toolu_", 3, 1), "toolu_3_1"},
		{"sanitize", Sanitize("call|1", "toolu"), "call_1" + HashSuffix("call|1")},
		{"sanitize trims and joins runs", Sanitize("..a::b..", "toolu"), "a_b" + HashSuffix("..a::b..")},
		{"sanitize of nothing left", Sanitize("...", "toolu"), "toolu" + HashSuffix("...")},
		{"shorten", Shorten(strings.Repeat("x", 70), 64), strings.Repeat("x", 52) + HashSuffix(strings.Repeat("x", 70))},
		{"shorten at a character boundary", Shorten(long, 64), strings.Repeat("é", 26) + HashSuffix(long)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if s := Shorten(long, 64); len(s) > 61 || !utf8.ValidString(s) {
		t.Errorf("Shorten(%q) = %q: %d bytes, want at most 61, valid UTF-8", long, s, len(s))
	}
	taken := map[string]bool{"c1": true, "c1_2": true}
	if got := Unique("c1", taken, 0); got != "c1_3" || !taken["c1_3"] {
		t.Errorf("Unique(c1) = %q, want c1_3, taken", got)
	}
	if got := Unique("fresh", taken, 0); got != "fresh" {
		t.Errorf("Unique(fresh) = %q, want it as it is", got)
	}
	if got := Unique(strings.Repeat("y", 40), map[string]bool{strings.Repeat("y", 40): true}, 40); got != strings.Repeat("y", 38)+"_2" {
		t.Errorf("Unique at the length limit = %q, want it cut to make room for _2", got)
	}
}
