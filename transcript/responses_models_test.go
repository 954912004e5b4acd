package transcript

import "testing"

func TestOpenAIReasoningModels(t *testing.T) {
	tests := []struct {
		model, effort string
		yes, known    bool
	}{
		{"gpt-5", "", true, true},
		{"gpt-5", "minimal", true, true},
		{"gpt-5-mini", "", true, true},
		{"gpt-5-nano-2025-08-07", "", true, true},
		{"openai/gpt-5", "", true, true},
		{"o3", "", true, true},
		{"o4-mini", "high", true, true},
		{"o1-preview", "", true, true},
		{"gpt-5-chat-latest", "", false, true},
		{"gpt-5.2", "", false, true},
		{"gpt-5.2", "none", false, true},
		{"gpt-5.4", "low", true, true},
		{"gpt-5.6-sol", "medium", true, true},
		{"gpt-5.1-codex", "", false, false},
		{"gpt-5.1-codex", "high", true, true},
		{"gpt-4o", "", false, true},
		{"gpt-4o-mini", "", false, true},
		{"gpt-4.1", "", false, true},
		{"gpt-4", "", false, true},
		{"gpt-3.5-turbo", "", false, true},
		{"o30", "", false, false}, // not o3: the name goes on with a digit
		{"acme-1", "", false, false},
		{"", "", false, false},
	}
	for _, tt := range tests {
		if yes, known := reasons(tt.model, tt.effort); yes != tt.yes || known != tt.known {
			t.Errorf("reasons(%q, %q) = %v, %v; want %v, %v", tt.model, tt.effort, yes, known, tt.yes, tt.known)
		}
	}
}
