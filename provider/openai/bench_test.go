package openai

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/toolresult"
)

// benchTranscript builds a conversation of about n wire messages, a fifth
// of them tool calls (2,000 for n = 10,000): turns of a user question, an
// assistant making two parallel calls, their results (toolwire envelopes)
// and an answer, alternating with plain question-and-answer turns.
func benchTranscript(n int) []llm.Message {
	msgs := []llm.Message{llm.System("You are a support agent for an online shop. Use the tools to look up orders and stock; never guess.")}
	wire := 1
	calls := 0
	for i := 0; wire < n; i++ {
		msgs = append(msgs, llm.User(fmt.Sprintf("Hi, this is customer %d. Where is my order #%d, and is item SKU-%d back in stock? Thanks!", i, 100000+i, 5000+i)))
		wire++
		if wire >= n {
			break // end on a question
		}
		if calls < n/5 && wire+4 <= n {
			a, b := fmt.Sprintf("call_%024d", 2*i), fmt.Sprintf("call_%024d", 2*i+1)
			msgs = append(msgs,
				llm.Assistant(
					llm.ToolCall{ID: a, Name: "get_order_status", Input: jsontext.Value(fmt.Sprintf(`{"order_id":"%d","include_tracking":true}`, 100000+i))},
					llm.ToolCall{ID: b, Name: "check_stock", Input: jsontext.Value(fmt.Sprintf(`{"sku":"SKU-%d","warehouse":"eu-west"}`, 5000+i))},
				),
				llm.Tool(
					toolresult.Success(fmt.Sprintf("order %d shipped on 2025-03-%02d via DHL", 100000+i, i%28+1),
						map[string]any{"status": "shipped", "carrier": "DHL", "tracking": fmt.Sprintf("JD%018d", i), "eta": "2025-04-02"}).Result(a, "get_order_status"),
					toolresult.Success(fmt.Sprintf("SKU-%d: 12 in stock in eu-west", 5000+i), map[string]any{"sku": fmt.Sprintf("SKU-%d", 5000+i), "available": 12}).Result(b, "check_stock"),
				),
				llm.Assistant(llm.Text{Text: fmt.Sprintf("Your order #%d shipped with DHL (tracking JD%018d) and should arrive on April 2. Good news: SKU-%d is back in stock, with 12 units in our EU warehouse. Is there anything else I can help with?", 100000+i, i, 5000+i)}),
			)
			wire += 4
			calls += 2
			continue
		}
		msgs = append(msgs, llm.Assistant(llm.Text{Text: strings.Repeat("Thanks for your patience while I looked into this. ", 5)}))
		wire++
	}
	return msgs
}

func benchBodies(b *testing.B, n int) (chat, rs []byte) {
	b.Helper()
	msgs := benchTranscript(n)
	model := []Field{{"model", []byte(`"gpt-4o"`)}}
	chat, _, err := EncodeChat(&ChatRequest{Messages: msgs, Fields: model})
	if err != nil {
		b.Fatal(err)
	}
	rs, _, err = EncodeResponses(&ResponsesRequest{Messages: msgs, Fields: model})
	if err != nil {
		b.Fatal(err)
	}
	return chat, rs
}

func TestBenchTranscriptShape(t *testing.T) {
	msgs := benchTranscript(10000)
	body, _, err := EncodeChat(&ChatRequest{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	r, err := DecodeChat(body)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct{ Messages []jsontext.Value }
	if err := json.Unmarshal(body, &wire); err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, m := range r.Messages {
		calls += len(m.ToolCalls())
	}
	if len(wire.Messages) != 10000 || calls != 2000 {
		t.Errorf("benchTranscript(10000) = %d wire messages, %d calls, want 10000 and 2000", len(wire.Messages), calls)
	}
}

// The floors: encoding/json decoding the same bytes into any, or into
// plain structs of the wire format, and encoding them back.

type floorChat struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string         `json:"role"`
		Content    jsontext.Value `json:"content,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls,omitempty"`
	} `json:"messages"`
}

type floorResponses struct {
	Model string `json:"model"`
	Input []struct {
		Type      string         `json:"type"`
		Role      string         `json:"role,omitempty"`
		Content   jsontext.Value `json:"content,omitempty"`
		CallID    string         `json:"call_id,omitempty"`
		Name      string         `json:"name,omitempty"`
		Arguments string         `json:"arguments,omitempty"`
		Output    jsontext.Value `json:"output,omitempty"`
	} `json:"input"`
}

// BenchmarkDecodeEncode measures Decode+Encode of Chat Completions and
// Responses bodies of 1,000 and 10,000 messages and, for 10,000, the
// floors above.
func BenchmarkDecodeEncode(b *testing.B) {
	chatCodec := codectest.Codec[*ChatRequest]{Decode: DecodeChat, Encode: EncodeChat}
	rsCodec := codectest.Codec[*ResponsesRequest]{Decode: DecodeResponses, Encode: EncodeResponses}
	for _, n := range []int{1000, 10000} {
		chat, rs := benchBodies(b, n)
		b.Run(fmt.Sprintf("chat/n=%d", n), func(b *testing.B) { codectest.BenchDecodeEncode(b, chatCodec, chat) })
		b.Run(fmt.Sprintf("responses/n=%d", n), func(b *testing.B) { codectest.BenchDecodeEncode(b, rsCodec, rs) })
	}
	chat, rs := benchBodies(b, 10000)
	b.Run("chat/encoding_json", func(b *testing.B) { codectest.BenchFloor[any](b, chat) })
	b.Run("chat/encoding_json_struct", func(b *testing.B) { codectest.BenchFloor[floorChat](b, chat) })
	b.Run("responses/encoding_json", func(b *testing.B) { codectest.BenchFloor[any](b, rs) })
	b.Run("responses/encoding_json_struct", func(b *testing.B) { codectest.BenchFloor[floorResponses](b, rs) })
}
