package wire

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/transcript"
)

// TestCheckFields covers the rules on a body's top-level fields: a field
// the dialect's API does not document is a warning that names it and the
// nearest known field, and a generation option outside the range the
// provider documents is a warning, or a rejection with the provider's
// text where a 400 for it is recorded. Each rule has a body that breaks it
// and one that does not.
func TestCheckFields(t *testing.T) {
	const (
		chatMsgs = `"messages":[{"role":"user","content":"q"}]`
		rsInput  = `"input":[{"role":"user","content":"q"}]`
		antMsgs  = `"messages":[{"role":"user","content":"q"}]`
		gemConts = `"contents":[{"role":"user","parts":[{"text":"q"}]}]`
	)
	tests := []struct {
		name string
		d    transcript.Dialect
		body string
		// want lists "RULE@path", "(warning)" after a warning, in order.
		want []string
		// say is a fragment of the first violation's message; provider, of
		// its provider error.
		say, provider string
	}{
		// Unknown top-level fields.
		{name: "Chat misspelt temperature", d: chat,
			body: `{"model":"gpt-4o","temprature":0.2,` + chatMsgs + `}`,
			want: []string{"OAI-CC-UNKNOWN-FIELD@temprature (warning)"},
			say:  `"temprature" is not a field of an openai-chat request; did you mean "temperature"?`},
		{name: "Chat camelCase max tokens", d: chat,
			body: `{"model":"gpt-4o","maxTokens":10,` + chatMsgs + `}`,
			want: []string{"OAI-CC-UNKNOWN-FIELD@maxTokens (warning)"}, say: `did you mean "max_tokens"?`},
		{name: "Chat field nothing is near", d: chat,
			body: `{"model":"gpt-4o","frobnicate":true,` + chatMsgs + `}`,
			want: []string{"OAI-CC-UNKNOWN-FIELD@frobnicate (warning)"}, say: `"frobnicate" is not a field of an openai-chat request; the API may reject it`},
		{name: "Chat documented fields", d: chat,
			body: `{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"n":2,"seed":1,"user":"u","logit_bias":{},"response_format":{"type":"text"},"parallel_tool_calls":false,"store":false,"metadata":{},"service_tier":"auto","prediction":null,"verbosity":"low",` + chatMsgs + `}`},
		{name: "Responses field of Chat", d: rs,
			body: `{"model":"gpt-4o","max_tokens":100,` + rsInput + `}`,
			want: []string{"OAI-RS-UNKNOWN-FIELD@max_tokens (warning)"}, say: `"max_tokens" is not a field of an openai-responses request`},
		{name: "Responses documented fields", d: rs,
			body: `{"model":"gpt-4o","instructions":"be brief","previous_response_id":"resp_1","store":true,"include":[],"reasoning":{"effort":"low"},"text":{"format":{"type":"text"}},"truncation":"auto","background":false,"max_tool_calls":3,"stream":false,` + rsInput + `}`},
		{name: "Anthropic misspelt stop_sequences", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":100,"stop_sequence":["x"],` + antMsgs + `}`,
			want: []string{"ANT-UNKNOWN-FIELD@stop_sequence (warning)"}, say: `did you mean "stop_sequences"?`},
		{name: "Anthropic documented fields", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":100,"system":"s","temperature":0.5,"top_p":0.9,"top_k":5,"stream":true,"metadata":{"user_id":"u"},"service_tier":"auto","thinking":{"type":"enabled","budget_tokens":1024},"output_config":{},"container":"c","cache_control":{"type":"ephemeral"},"mcp_servers":[],` + antMsgs + `}`},
		{name: "Gemini option outside generationConfig", d: gem,
			body: `{"temperature":0.2,` + gemConts + `}`,
			want: []string{"GEM-UNKNOWN-FIELD@temperature (warning)"}, say: `did you mean "generationConfig.temperature"?`},
		{name: "Gemini misspelt systemInstruction", d: gem,
			body: `{"systemInstructions":{"parts":[{"text":"s"}]},` + gemConts + `}`,
			want: []string{"GEM-UNKNOWN-FIELD@systemInstructions (warning)"}, say: `did you mean "systemInstruction"?`},
		{name: "Gemini documented fields in both spellings", d: gem,
			body: `{"model":"gemini-2.5-flash","safety_settings":[],"toolConfig":{},"cachedContent":"cachedContents/1","labels":{},"generation_config":{"max_output_tokens":10},` + gemConts + `}`},
		// Generation options outside their range.
		{name: "Chat max_tokens below 1", d: chat,
			body: `{"model":"gpt-4o","max_tokens":-5,` + chatMsgs + `}`,
			want: []string{"OAI-CC-OPTION-RANGE@max_tokens (warning)"}, say: "max_tokens is -5; the openai-chat API takes at least 1"},
		{name: "Chat options out of range", d: chat,
			body: `{"model":"gpt-4o","max_completion_tokens":0,"temperature":2.5,"top_p":1.5,"n":0,"presence_penalty":-3,"frequency_penalty":3,` + chatMsgs + `}`,
			want: []string{"OAI-CC-OPTION-RANGE@frequency_penalty (warning)", "OAI-CC-OPTION-RANGE@max_completion_tokens (warning)",
				"OAI-CC-OPTION-RANGE@n (warning)", "OAI-CC-OPTION-RANGE@presence_penalty (warning)",
				"OAI-CC-OPTION-RANGE@temperature (warning)", "OAI-CC-OPTION-RANGE@top_p (warning)"}},
		{name: "Chat options at their bounds", d: chat,
			body: `{"model":"gpt-4o","max_completion_tokens":1,"temperature":2,"top_p":0,"n":1,"presence_penalty":-2,"frequency_penalty":2,` + chatMsgs + `}`},
		{name: "Chat option that is not a number is not judged here", d: chat,
			body: `{"model":"gpt-4o","temperature":null,"max_tokens":"5",` + chatMsgs + `}`},
		{name: "Responses temperature below 0", d: rs,
			body: `{"model":"gpt-4o","temperature":-1,` + rsInput + `}`,
			want: []string{"OAI-RS-OPTION-RANGE@temperature"}, say: "temperature is -1; the openai-responses API takes at least 0",
			provider: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead."},
		{name: "Responses max_output_tokens below 16", d: rs,
			body:     `{"model":"gpt-4o-mini","max_output_tokens":5,` + rsInput + `}`,
			want:     []string{"OAI-RS-OPTION-RANGE@max_output_tokens"},
			provider: "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 5 instead."},
		{name: "Responses temperature above 2", d: rs,
			body: `{"model":"gpt-4o","temperature":2.1,"top_p":-0.5,` + rsInput + `}`,
			want: []string{"OAI-RS-OPTION-RANGE@temperature (warning)", "OAI-RS-OPTION-RANGE@top_p (warning)"}, say: "temperature is 2.1; the openai-responses API takes at most 2"},
		{name: "Responses options in range", d: rs,
			body: `{"model":"gpt-4o","temperature":0,"max_output_tokens":16,"top_p":1,` + rsInput + `}`},
		{name: "Anthropic options out of range", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":0,"temperature":1.5,"top_p":2,"thinking":{"type":"enabled","budget_tokens":500},` + antMsgs + `}`,
			want: []string{"ANT-OPTION-RANGE@max_tokens (warning)", "ANT-OPTION-RANGE@temperature (warning)",
				"ANT-OPTION-RANGE@thinking.budget_tokens (warning)", "ANT-OPTION-RANGE@top_p (warning)"},
			say: "max_tokens is 0; the anthropic API takes at least 1"},
		{name: "Anthropic options in range", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":1,"temperature":1,"top_p":0.5,` + antMsgs + `}`},
		{name: "Anthropic thinking budget at its least", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":2048,"temperature":1,"thinking":{"type":"enabled","budget_tokens":1024},` + antMsgs + `}`},
		{name: "Gemini options out of range", d: gem,
			body: `{"generationConfig":{"maxOutputTokens":0,"temperature":3,"topP":1.1,"topK":0,"candidateCount":0},` + gemConts + `}`,
			want: []string{"GEM-OPTION-RANGE@generationConfig.candidateCount (warning)", "GEM-OPTION-RANGE@generationConfig.maxOutputTokens (warning)",
				"GEM-OPTION-RANGE@generationConfig.temperature (warning)", "GEM-OPTION-RANGE@generationConfig.topK (warning)",
				"GEM-OPTION-RANGE@generationConfig.topP (warning)"},
			say: "generationConfig.candidateCount is 0; the gemini API takes at least 1"},
		{name: "Gemini snake_case option out of range", d: gem,
			body: `{"generation_config":{"max_output_tokens":-1},` + gemConts + `}`,
			want: []string{"GEM-OPTION-RANGE@generation_config.max_output_tokens (warning)"}},
		{name: "Gemini options in range", d: gem,
			body: `{"generationConfig":{"maxOutputTokens":1,"temperature":2,"topP":1,"topK":1,"candidateCount":1},` + gemConts + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, got := checked(t, tt.body, tt.d)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Check(%s) = %q, want %q", tt.body, got, tt.want)
			}
			if len(got) == 0 {
				return
			}
			if v := rep.Violations[0]; !strings.Contains(v.Message, tt.say) {
				t.Errorf("Check(%s) message = %q, want it to contain %q", tt.body, v.Message, tt.say)
			}
			if v := rep.Violations[0]; v.ProviderError != tt.provider {
				t.Errorf("Check(%s) provider error = %q, want %q", tt.body, v.ProviderError, tt.provider)
			}
		})
	}
}
