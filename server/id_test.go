package server

import (
	"testing"
)

func TestParseID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ID
		ok   bool
	}{
		{"", ID{}, true},
		{"0.0", ID{}, true},
		{"12.3", ID{12, 3}, true},
		{"999999999.999999999", ID{999999999, 999999999}, true},
		{"1000000000.1", ID{}, false},
		{"12", ID{}, false},
		{"12.", ID{}, false},
		{".3", ID{}, false},
		{"012.3", ID{}, false},
		{"-1.3", ID{}, false},
		{"+1.3", ID{}, false},
		{"1.3.4", ID{}, false},
		{" 1.3", ID{}, false},
		{"1.3\n", ID{}, false},
		{"１.３", ID{}, false},
	} {
		got, err := ParseID(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseID(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzParseID: an id that parses is written back as it was read, and
// ids order as their numbers do.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"", "0.0", "12.3", "3.12", "999999999.1", "01.2", "1..2", "1.2.3"} {
		f.Add(s, "12.3")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ia, err := ParseID(a)
		if err != nil {
			return
		}
		if a != "" && ia.String() != a {
			t.Fatalf("ParseID(%q).String() = %q", a, ia.String())
		}
		ib, err := ParseID(b)
		if err != nil {
			return
		}
		if c := ia.Compare(ib); c != -ib.Compare(ia) || (c == 0) != (ia == ib) {
			t.Fatalf("Compare(%v, %v) = %d, not antisymmetric", ia, ib, c)
		}
	})
}
