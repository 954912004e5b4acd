package clients

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/gateway/internal/broken"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

const answer = "Paris is sunny, Rome is rainy."

// sdkCall sends body, a request body of dialect d, with the official SDK
// of its provider to base, and returns the answer's text or the SDK's
// error (its status, its message).
type sdkCall func(t *testing.T, base string, body []byte, stream bool) (text string, status int, message string)

var sdks = map[transcript.Dialect]sdkCall{
	transcript.OpenAIChat:      chatSDK,
	transcript.OpenAIResponses: responsesSDK,
	transcript.Anthropic:       anthropicSDK,
}

func chatSDK(t *testing.T, base string, body []byte, stream bool) (string, int, string) {
	var p openai.ChatCompletionNewParams
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("the body does not read as the SDK's ChatCompletionNewParams: %v", err)
	}
	c := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
	if stream {
		s := c.Chat.Completions.NewStreaming(context.Background(), p)
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			if c := s.Current(); !acc.AddChunk(c) {
				t.Errorf("the SDK's accumulator refused chunk %s: it reads as part of another answer", c.RawJSON())
			}
		}
		if err := s.Err(); err != nil {
			return openAIFailure(t, err)
		}
		return acc.Choices[0].Message.Content, 200, ""
	}
	r, err := c.Chat.Completions.New(context.Background(), p)
	if err != nil {
		return openAIFailure(t, err)
	}
	return r.Choices[0].Message.Content, 200, ""
}

func responsesSDK(t *testing.T, base string, body []byte, stream bool) (string, int, string) {
	var p responses.ResponseNewParams
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("the body does not read as the SDK's ResponseNewParams: %v", err)
	}
	c := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
	if stream {
		s := c.Responses.NewStreaming(context.Background(), p)
		var text string
		for s.Next() {
			if ev := s.Current(); ev.Type == "response.completed" {
				text = ev.Response.OutputText()
			}
		}
		if err := s.Err(); err != nil {
			return openAIFailure(t, err)
		}
		return text, 200, ""
	}
	r, err := c.Responses.New(context.Background(), p)
	if err != nil {
		return openAIFailure(t, err)
	}
	return r.OutputText(), 200, ""
}

func openAIFailure(t *testing.T, err error) (string, int, string) {
	var e *openai.Error
	if !errors.As(err, &e) {
		t.Fatalf("the SDK failed without an API error: %v", err)
	}
	return "", e.StatusCode, e.Message
}

func anthropicSDK(t *testing.T, base string, body []byte, stream bool) (string, int, string) {
	var p anthropic.MessageNewParams
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("the body does not read as the SDK's MessageNewParams: %v", err)
	}
	c := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("sk-ant-test"), aoption.WithMaxRetries(0))
	var m anthropic.Message
	if stream {
		s := c.Messages.NewStreaming(context.Background(), p)
		for s.Next() {
			if err := m.Accumulate(s.Current()); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Err(); err != nil {
			return anthropicFailure(t, err)
		}
	} else {
		r, err := c.Messages.New(context.Background(), p)
		if err != nil {
			return anthropicFailure(t, err)
		}
		m = *r
	}
	var text strings.Builder
	for _, b := range m.Content {
		text.WriteString(b.Text)
	}
	return text.String(), 200, ""
}

func anthropicFailure(t *testing.T, err error) (string, int, string) {
	var e *anthropic.Error
	if !errors.As(err, &e) {
		t.Fatalf("the SDK failed without an API error: %v", err)
	}
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(e.RawJSON()), &body); err != nil {
		t.Fatalf("the SDK's error has no body: %v", err)
	}
	return "", e.StatusCode, body.Error.Message
}

// TestOfficialSDKs sends the classic broken histories with the official
// SDKs through the gateway: with repair each completes, streamed and not;
// with reject each gets the SDK's API error with status 400 and the rule
// ID in its message; with pass the upstream's own 400 reaches the SDK
// with the upstream's own message.
func TestOfficialSDKs(t *testing.T) {
	for d, send := range sdks {
		for _, h := range broken.Histories() {
			body, err := broken.Body(d, h.Messages, false)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := wire.Check(body, d)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Accepted() {
				continue // this dialect takes this history
			}
			first := string(rep.Violations[0].Rule)
			t.Run(string(d)+"/"+h.Name+"/repair", func(t *testing.T) {
				base, _ := Start(t, gateway.Repair, llmtest.Turn{Text: answer})
				if text, status, msg := send(t, base, body, false); status != 200 || text != answer {
					t.Errorf("got %q, status %d (%s); want the answer", text, status, msg)
				}
			})
			t.Run(string(d)+"/"+h.Name+"/repair-stream", func(t *testing.T) {
				base, _ := Start(t, gateway.Repair, llmtest.Turn{Text: answer})
				sbody, _ := broken.Body(d, h.Messages, true)
				if text, status, msg := send(t, base, sbody, true); status != 200 || text != answer {
					t.Errorf("got %q, status %d (%s); want the answer", text, status, msg)
				}
			})
			t.Run(string(d)+"/"+h.Name+"/reject", func(t *testing.T) {
				base, up := Start(t, gateway.Reject)
				_, status, msg := send(t, base, body, false)
				if status != 400 || !strings.Contains(msg, first) || !strings.Contains(msg, "toolwire gateway") {
					t.Errorf("status %d, message %q; want 400 naming %s", status, msg, first)
				}
				if n := len(up.Requests()); n != 0 {
					t.Errorf("the upstream got %d requests", n)
				}
			})
			t.Run(string(d)+"/"+h.Name+"/pass", func(t *testing.T) {
				base, up := Start(t, gateway.Pass)
				_, status, msg := send(t, base, body, false)
				_, dstatus, dmsg := send(t, up.URL, body, false)
				if status != 400 || status != dstatus || msg != dmsg || strings.Contains(msg, "toolwire") {
					t.Errorf("through the gateway: %d %q; direct: %d %q", status, msg, dstatus, dmsg)
				}
			})
		}
	}
}
