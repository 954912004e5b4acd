package openai

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/answertest"
	"github.com/toolwire/toolwire/provider/internal/sdkcompat"
	tw "github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/transcript"
)

// The official SDK reads the same recorded answers as the clients, and
// the two must agree on the text, the calls and the usage. Cases of
// misbehaving servers are left out: the SDK does not handle them, which
// is why the clients do.

// sdkView is what the SDK and the clients are compared on.
type sdkView struct {
	Text                       string
	Calls                      []string // "id name arguments"
	Input, Output, Cached, Why int64
}

func ours(t *testing.T, r *llm.Response) sdkView {
	t.Helper()
	if r == nil {
		t.Fatal("no response")
	}
	s := sdkView{Text: r.Message.Text(), Input: int64(r.Usage.InputTokens), Output: int64(r.Usage.OutputTokens),
		Cached: int64(r.Usage.CacheReadTokens), Why: int64(r.Usage.ReasoningTokens)}
	for _, c := range r.Message.ToolCalls() {
		s.Calls = append(s.Calls, c.ID+" "+c.Name+" "+string(c.Input))
	}
	return s
}

// newChat and newResponses open the clients on a server's base URL,
// without retries: each recorded answer answers one request.
func newChat(url string, noStream bool) (llm.Model, error) {
	return tw.NewChat("gpt-4.1", &tw.Config{Options: provider.Options{BaseURL: url + "/v1", NoStream: noStream, MaxRetries: -1}})
}

func newResponses(url string, noStream bool) (llm.Model, error) {
	return tw.NewResponses("gpt-5", &tw.Config{Options: provider.Options{BaseURL: url + "/v1", NoStream: noStream, MaxRetries: -1}})
}

func TestChatAnswersAgreeWithSDK(t *testing.T) {
	agree := map[string]bool{"chat_openai_parallel": true, "chat_whole_tool_calls": true, "chat_deepseek_reasoning": true, "chat_length_mid_call": true}
	for _, c := range answertest.Cases(t, filepath.Join(testdata, "answers", "chat_*.txtar")) {
		if !agree[c.Name] {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			var cc openai.ChatCompletion
			if c.Stream {
				var acc openai.ChatCompletionAccumulator
				for _, data := range sdkcompat.Events(t, c.Body) {
					var chunk openai.ChatCompletionChunk
					if err := json.Unmarshal(data, &chunk); err != nil {
						t.Fatalf("SDK: %v", err)
					}
					acc.AddChunk(chunk)
				}
				cc = acc.ChatCompletion
			} else if err := json.Unmarshal(c.Body, &cc); err != nil {
				t.Fatalf("SDK: %v", err)
			}
			sdk := sdkView{Input: cc.Usage.PromptTokens, Output: cc.Usage.CompletionTokens,
				Cached: cc.Usage.PromptTokensDetails.CachedTokens, Why: cc.Usage.CompletionTokensDetails.ReasoningTokens}
			if c.Name == "chat_deepseek_reasoning" {
				sdk.Cached = 8 // DeepSeek's prompt_cache_hit_tokens, which the SDK does not know
			}
			if len(cc.Choices) > 0 {
				m := cc.Choices[0].Message
				sdk.Text = m.Content
				for _, tc := range m.ToolCalls {
					sdk.Calls = append(sdk.Calls, tc.ID+" "+tc.Function.Name+" "+tc.Function.Arguments)
				}
			}
			resp, _ := sdkcompat.Answer(t, c, transcript.OpenAIChat, newChat)
			if got := ours(t, resp); !reflect.DeepEqual(got, sdk) {
				t.Errorf("client: %+v\n   SDK: %+v", got, sdk)
			}
		})
	}
}

func TestResponsesAnswersAgreeWithSDK(t *testing.T) {
	for _, c := range answertest.Cases(t, filepath.Join(testdata, "answers", "responses_*.txtar")) {
		if strings.Contains(c.Name, "error") || strings.Contains(c.Name, "failed") {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			var sdk sdkView
			usage := func(u responses.ResponseUsage) {
				sdk.Input, sdk.Output = u.InputTokens, u.OutputTokens
				sdk.Cached, sdk.Why = u.InputTokensDetails.CachedTokens, u.OutputTokensDetails.ReasoningTokens
			}
			if c.Stream {
				args := map[int64]string{}
				var order []int64
				calls := map[int64]responses.ResponseFunctionToolCall{}
				for _, data := range sdkcompat.Events(t, c.Body) {
					var ev responses.ResponseStreamEventUnion
					if err := json.Unmarshal(data, &ev); err != nil {
						t.Fatalf("SDK: %v", err)
					}
					switch ev.Type {
					case "response.output_text.delta":
						sdk.Text += ev.Delta
					case "response.output_item.added":
						if ev.Item.Type == "function_call" {
							calls[ev.OutputIndex] = ev.Item.AsFunctionCall()
							order = append(order, ev.OutputIndex)
						}
					case "response.function_call_arguments.delta":
						args[ev.OutputIndex] += ev.Delta
					case "response.completed", "response.incomplete":
						usage(ev.Response.Usage)
					}
				}
				for _, i := range order {
					sdk.Calls = append(sdk.Calls, calls[i].CallID+" "+calls[i].Name+" "+args[i])
				}
			} else {
				var r responses.Response
				if err := json.Unmarshal(c.Body, &r); err != nil {
					t.Fatalf("SDK: %v", err)
				}
				sdk.Text = r.OutputText()
				for _, it := range r.Output {
					if it.Type == "function_call" {
						fc := it.AsFunctionCall()
						sdk.Calls = append(sdk.Calls, fc.CallID+" "+fc.Name+" "+fc.Arguments)
					}
				}
				usage(r.Usage)
			}
			resp, _ := sdkcompat.Answer(t, c, transcript.OpenAIResponses, newResponses)
			if got := ours(t, resp); !reflect.DeepEqual(got, sdk) {
				t.Errorf("client: %+v\n   SDK: %+v", got, sdk)
			}
		})
	}
}
