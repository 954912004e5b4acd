package listen

import "testing"

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8787", "", true},
		{"127.0.0.9:8787", "", true},
		{"[::1]:8787", "", true},
		{"localhost:8787", "", true},
		{":8787", "", false},
		{"0.0.0.0:8787", "", false},
		{"192.0.2.1:8787", "", false},
		{"0.0.0.0:8787", "t", true},
		{"8787", "t", false},
	} {
		if err := CheckAddr(tc.addr, tc.token); (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%q, %q) = %v, want ok %v", tc.addr, tc.token, err, tc.ok)
		}
	}
}

func TestToken(t *testing.T) {
	if !(Token{}).Match("anything") || (Token{}).Set() {
		t.Error("the zero Token must match every value and not be set")
	}
	tok := NewToken("s3cret")
	for _, tc := range []struct {
		got  string
		want bool
	}{{"s3cret", true}, {" s3cret\n", true}, {"s3cre", false}, {"", false}, {"s3cret2", false}} {
		if got := tok.Match(tc.got); got != tc.want {
			t.Errorf("Match(%q) = %v, want %v", tc.got, got, tc.want)
		}
	}
	if NewToken("") != (Token{}) {
		t.Error(`NewToken("") is a token`)
	}
}
