package anthropic

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	tw "github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/internal/answertest"
	"github.com/toolwire/toolwire/provider/internal/sdkcompat"
)

// The official SDK reads the same recorded answers as the client (with its
// Message.Accumulate for streams), and the two must agree on every block
// and the usage.

type sdkView struct {
	Blocks                               []string
	Input, Output, CacheRead, CacheWrite int64
	Stop                                 string
}

// newClient opens the client on a server's base URL, without retries:
// each recorded answer answers one request.
func newClient(url string, noStream bool) (llm.Model, error) {
	return tw.NewClient("claude-sonnet-4-5", &tw.Config{Options: provider.Options{BaseURL: url, NoStream: noStream, MaxRetries: -1}})
}

func TestAnswersAgreeWithSDK(t *testing.T) {
	for _, c := range answertest.Cases(t, filepath.Join(testdata, "answers", "*.txtar")) {
		if c.Name == "overloaded_event" || c.Name == "truncated" {
			continue // errors: the SDK has no message to compare
		}
		t.Run(c.Name, func(t *testing.T) {
			var m anthropic.Message
			if c.Stream {
				for _, data := range sdkcompat.Events(t, c.Body) {
					var e anthropic.MessageStreamEventUnion
					if err := json.Unmarshal(data, &e); err != nil {
						t.Fatalf("SDK: %v", err)
					}
					if err := m.Accumulate(e); err != nil {
						t.Fatalf("SDK Accumulate: %v", err)
					}
				}
			} else if err := json.Unmarshal(c.Body, &m); err != nil {
				t.Fatalf("SDK: %v", err)
			}
			sdk := sdkView{Input: m.Usage.InputTokens + m.Usage.CacheReadInputTokens + m.Usage.CacheCreationInputTokens,
				Output: m.Usage.OutputTokens, CacheRead: m.Usage.CacheReadInputTokens, CacheWrite: m.Usage.CacheCreationInputTokens, Stop: string(m.StopReason)}
			for _, b := range m.Content {
				switch b.Type {
				case "text":
					sdk.Blocks = append(sdk.Blocks, "text "+b.Text)
				case "thinking":
					sdk.Blocks = append(sdk.Blocks, "thinking "+b.Thinking+" "+b.Signature)
				case "tool_use":
					in := string(b.Input)
					if c.Name == "max_tokens_mid_tool" {
						// The SDK keeps the {} placeholder when the input does
						// not parse; the client keeps the fragment, and
						// reports the call as incomplete.
						if in != "{}" {
							t.Errorf("SDK input = %s, want its placeholder", in)
						}
						in = `{"path": "a.txt", "text": "Hel`
					}
					sdk.Blocks = append(sdk.Blocks, "tool_use "+b.ID+" "+b.Name+" "+compact(in))
				default:
					sdk.Blocks = append(sdk.Blocks, "opaque "+b.Type)
				}
			}
			resp, err := sdkcompat.Answer(t, c, tw.Dialect, newClient)
			if resp == nil {
				t.Fatalf("client: no response, error %v", err)
			}
			got := sdkView{Input: int64(resp.Usage.InputTokens), Output: int64(resp.Usage.OutputTokens),
				CacheRead: int64(resp.Usage.CacheReadTokens), CacheWrite: int64(resp.Usage.CacheWriteTokens), Stop: resp.Finish.Raw}
			for _, p := range resp.Message.Parts {
				switch p := p.(type) {
				case llm.Text:
					got.Blocks = append(got.Blocks, "text "+p.Text)
				case llm.Reasoning:
					if p.Data != nil {
						var b struct{ Type string }
						_ = json.Unmarshal(p.Data, &b)
						got.Blocks = append(got.Blocks, "opaque "+b.Type)
					} else {
						got.Blocks = append(got.Blocks, "thinking "+p.Text+" "+p.Signature)
					}
				case llm.ToolCall:
					got.Blocks = append(got.Blocks, "tool_use "+p.ID+" "+p.Name+" "+compact(string(p.Input)))
				}
			}
			if !reflect.DeepEqual(got, sdk) {
				t.Errorf("client: %+v\n   SDK: %+v", got, sdk)
			}
		})
	}
}

func compact(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}
