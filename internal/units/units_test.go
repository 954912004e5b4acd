package units

import "testing"

func TestUnits(t *testing.T) {
	for _, tt := range []struct {
		n            int
		count, bytes string
	}{
		{0, "0", "0 bytes"},
		{999, "999", "999 bytes"},
		{1000, "1,000", "1.0 KB"},
		{30000, "30,000", "30.0 KB"},
		{-1234567, "-1,234,567", "-1234567 bytes"},
		{3944192, "3,944,192", "3.9 MB"},
		{1 << 30, "1,073,741,824", "1.1 GB"},
	} {
		if got := Count(tt.n); got != tt.count {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.count)
		}
		if got := Bytes(tt.n); got != tt.bytes {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.bytes)
		}
	}
}
