package llm

import (
	"errors"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	root := Path{}.Key("messages").Index(4)
	tests := []struct {
		p               Path
		dotted, indexed string
	}{
		{Path{}, "", ""},
		{root, "messages.4", "messages[4]"},
		{root.Key("content").Index(0), "messages.4.content.0", "messages[4].content[0]"},
		{Path{}.Index(2).Key("role"), "2.role", "[2].role"},
		{Path{}.Key("tools").Join(Path{}.Index(1).Key("name")), "tools.1.name", "tools[1].name"},
	}
	for _, tt := range tests {
		if got := tt.p.Format(Dotted); got != tt.dotted {
			t.Errorf("Format(Dotted) = %q, want %q", got, tt.dotted)
		}
		if got := tt.p.String(); got != tt.dotted {
			t.Errorf("String() = %q, want %q", got, tt.dotted)
		}
		if got := tt.p.Format(Indexed); got != tt.indexed {
			t.Errorf("Format(Indexed) = %q, want %q", got, tt.indexed)
		}
		if got := ParsePath(tt.dotted).Format(Indexed); got != tt.indexed {
			t.Errorf("ParsePath(%q) = %q, want %q", tt.dotted, got, tt.indexed)
		}
	}
	// Paths that share a prefix do not share steps.
	a, b := root.Key("a"), root.Key("b")
	if a.String() != "messages.4.a" || b.String() != "messages.4.b" || root.String() != "messages.4" {
		t.Errorf("paths with a shared prefix changed each other: %s, %s, %s", a, b, root)
	}
	if name, i, isIndex := root.Step(1); name != "" || i != 4 || !isIndex {
		t.Errorf("Step(1) = %q, %d, %v, want an index 4", name, i, isIndex)
	}
	if ParsePath("messages.04").String() != "messages.04" {
		t.Errorf("ParsePath read 04 as an index")
	}
}

// TestDecodeErrorLongPath: the error of a value 100,000 levels deep, or
// under a member name of 10,000 bytes, is one short line that still says
// where: the first and last steps and the depth.
func TestDecodeErrorLongPath(t *testing.T) {
	deep := Path{steps: make([]pathStep, 100000)} // index 0, 100,000 times
	long := Path{}.Key("messages").Key(strings.Repeat("k", 10000)).Index(2)
	tests := []struct {
		path  Path
		style PathStyle
		want  string
	}{
		{deep, Dotted, "op: 0.0.0.0.….0.0.0.0 (100000 levels deep): bad"},
		{deep, Indexed, "op: [0][0][0][0]…[0][0][0][0] (100000 levels deep): bad"},
		{long, Dotted, "op: messages.kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk….2: bad"},
	}
	for _, tt := range tests {
		err := &DecodeError{Op: "op", Path: tt.path, Style: tt.style, Offset: -1, Err: errors.New("bad")}
		if got := err.Error(); got != tt.want {
			t.Errorf("DecodeError.Error() = %.200q, want %q", got, tt.want)
		}
	}
}
