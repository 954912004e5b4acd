package anthropic

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
)

// TestDocuments checks both sides of a document's mapping: an Anthropic
// document decodes to an llm.Image whose MediaType is not an image type
// (what other dialects write as their file part), and an llm.Image with a
// non-image MediaType from another dialect is written as a document block,
// never an image block, in a message and in a tool result.
func TestDocuments(t *testing.T) {
	body := `{"max_tokens":9,"messages":[{"role":"user","content":[` +
		`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}},` +
		`{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}},` +
		`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hello"}}]}]}`
	r, err := Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range []llm.Image{
		{MediaType: "application/pdf", Data: []byte("%PDF-")},
		{MediaType: "application/pdf", URL: "https://example.com/a.pdf"},
		{MediaType: "text/plain", Data: []byte("hello")},
	} {
		got, ok := r.Messages[0].Parts[j].(llm.Image)
		if !ok || got.MediaType != want.MediaType || got.URL != want.URL || string(got.Data) != string(want.Data) {
			t.Errorf("Decode(%s) part %d = %#v, want %#v", body, j, r.Messages[0].Parts[j], want)
		}
	}

	tests := []struct {
		name string
		img  llm.Image
		want string // the block written; "" when dropped
		warn string // a fragment of the warning, if any
	}{
		{"a PDF", llm.Image{MediaType: "application/pdf", Data: []byte("%PDF-")},
			`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}`, ""},
		{"a PDF by URL", llm.Image{MediaType: "application/pdf", URL: "https://example.com/a.pdf"},
			`{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}}`, ""},
		{"a PDF data URL", llm.Image{URL: "data:application/pdf;base64,JVBERi0="},
			`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}`, ""},
		{"plain text", llm.Image{MediaType: "text/plain", Data: []byte("hello")},
			`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hello"}}`, ""},
		{"markdown", llm.Image{MediaType: "text/markdown", Data: []byte("# hi")},
			`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"# hi"}}`, `written as a text/plain document`},
		{"an image", llm.Image{MediaType: "image/png", Data: []byte{1}},
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AQ=="}}`, ""},
		{"audio", llm.Image{MediaType: "audio/wav", Data: []byte("RIFF")}, "", `media type "audio/wav" cannot be expressed`},
		{"a text file by URL", llm.Image{MediaType: "text/plain", URL: "https://example.com/a.txt"}, "", `media type "text/plain" cannot be expressed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Request{Fields: []Field{{Key: "max_tokens", Value: []byte("9")}, {Key: "messages"}}, Messages: []llm.Message{
				{Role: llm.RoleUser, Parts: []llm.Part{llm.Text{Text: "q"}, tt.img}},
				llm.Assistant(llm.ToolCall{ID: "t1", Name: "f", Input: jsontext.Value(`{}`)}),
				llm.Tool(llm.ToolResult{CallID: "t1", Status: llm.StatusSuccess, Content: []llm.Part{tt.img}}),
			}}
			enc, warns, err := Encode(r)
			if err != nil {
				t.Fatal(err)
			}
			inMessage := `{"role":"user","content":[{"type":"text","text":"q"}` + prefixed(tt.want) + `]}`
			inResult := `{"type":"tool_result","tool_use_id":"t1","content":[` + tt.want + `]}`
			if !strings.Contains(string(enc), inMessage) || !strings.Contains(string(enc), inResult) {
				t.Errorf("Encode(%s) = %s\nwant %s in the message and %s in the result", tt.name, enc, inMessage, inResult)
			}
			if strings.Contains(tt.img.MediaType, "/") && !strings.HasPrefix(tt.img.MediaType, "image/") && strings.Contains(string(enc), `"type":"image"`) {
				t.Errorf("Encode(%s) = %s, wrote an image block for a %s", tt.name, enc, tt.img.MediaType)
			}
			if tt.warn == "" && len(warns) > 0 || tt.warn != "" && (len(warns) != 2 || !strings.Contains(warns[0].Message, tt.warn)) {
				t.Errorf("Encode(%s) warnings = %v, want %q (once per place)", tt.name, warns, tt.warn)
			}
		})
	}
}

func prefixed(block string) string {
	if block == "" {
		return ""
	}
	return "," + block
}
