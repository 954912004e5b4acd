package clients

import (
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/gateway/internal/broken"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/transcript"
)

// refPattern matches the reference the gateway gives a shaped result.
var refPattern = regexp.MustCompile(`r-[a-z2-7]{14}`)

// TestShapingSDKs sends a history with a large tool result, streamed and
// not, with the official SDKs through a gateway that shapes it; the model
// reads the result back with read_result before it answers. The SDK must
// read one answer, the text said before each read and the final text,
// and its own stream reader must take the joined stream as one answer
// (the Chat accumulator refuses a chunk of another completion id, the
// Anthropic one a content block index out of order, and the Responses
// answer is the one response.completed).
func TestShapingSDKs(t *testing.T) {
	var orders strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&orders, `{"id":"o-%05d","status":"refunded"},`, i)
	}
	history := broken.OK("[" + strings.TrimSuffix(orders.String(), ",") + "]")
	for d, send := range sdks {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", d, stream), func(t *testing.T) {
				up := llmtest.NewServer(t, llmtest.Turn{Text: "first"})
				g, err := gateway.New(&gateway.Config{OpenAI: up.URL, Anthropic: up.URL, Gemini: up.URL,
					Routes: map[transcript.Dialect]gateway.Route{d: {Shape: &gateway.Shaping{Budget: 1000}}}})
				if err != nil {
					t.Fatal(err)
				}
				srv := httptest.NewServer(g)
				t.Cleanup(srv.Close)
				body, err := broken.Body(d, history, stream)
				if err != nil {
					t.Fatal(err)
				}
				if text, status, msg := send(t, srv.URL, body, stream); status != 200 || text != "first" {
					t.Fatalf("first answer: %q, status %d (%s)", text, status, msg)
				}
				ref := refPattern.FindString(string(up.Requests()[0].Body))
				if ref == "" {
					t.Fatalf("the request was not shaped: %.300s", up.Requests()[0].Body)
				}
				read := func(offset int) []llmtest.Call {
					return []llmtest.Call{{Name: "read_result", Args: fmt.Sprintf(`{"ref":%q,"offset":%d,"limit":5}`, ref, offset)}}
				}
				up.Add(llmtest.Turn{Text: "Let me look. ", Calls: read(100)}, llmtest.Turn{Text: "Still looking. ", Calls: read(200)}, llmtest.Turn{Text: "3000 orders were refunded."})
				want := "Let me look. Still looking. 3000 orders were refunded."
				if !stream {
					want = "3000 orders were refunded." // a whole answer is the last one alone
				}
				if text, status, msg := send(t, srv.URL, body, stream); status != 200 || text != want {
					t.Errorf("got %q, status %d (%s); want %q", text, status, msg, want)
				}
				if n := len(up.Requests()); n != 4 {
					t.Errorf("the upstream got %d requests, want 4", n)
				}
			})
		}
	}
}
