// Package units writes counts and sizes for people and models: 30,000
// and 3.9 MB.
package units

import "strconv"

// Count writes n with thousands separators: 30,000.
func Count(n int) string {
	if n < 0 {
		return "-" + Count(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Bytes writes a size in decimal units, one decimal: 812 bytes, 12.3 KB,
// 3.9 MB, 1.1 GB.
func Bytes(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n) + " bytes"
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " KB"
	case n < 1_000_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + " GB"
}
