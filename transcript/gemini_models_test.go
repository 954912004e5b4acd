package transcript

import "testing"

func TestGeminiFamily(t *testing.T) {
	for _, tt := range []struct {
		model string
		want  gemFamily
	}{
		{"", gemUnknown},
		{"gemini-2.5-flash", gemBefore3},
		{"models/gemini-2.0-flash-exp", gemBefore3},
		{"gemini-1.5-pro-002", gemBefore3},
		{"gemini-3-pro-preview", gem3},
		{"models/gemini-3-flash-preview", gem3},
		{"projects/p/locations/global/publishers/google/models/gemini-3.1-flash-lite", gem3},
		{"Gemini-3-Pro", gem3},
		{"gemini-10-ultra", gem3},
		{"gemini-3-pro-image-preview", gem3Image},
		{"gemini-flash-latest", gemUnknown},
		{"gemini-exp-1206", gemUnknown},
		{"gemini-pro", gemUnknown},
		{"gemma-3-27b-it", gemUnknown},
		{"gemini-3x", gemUnknown},
	} {
		if got := geminiFamily(tt.model); got != tt.want {
			t.Errorf("geminiFamily(%q) = %d, want %d", tt.model, got, tt.want)
		}
	}
}
