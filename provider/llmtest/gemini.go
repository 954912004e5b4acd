package llmtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/sse"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// gemini is the Gemini API: POST /v1beta/models/MODEL:generateContent
// and :streamGenerateContent.
var gemini = &dialect{
	id: transcript.Gemini,
	authorized: func(r *http.Request, key string) bool {
		return r.Header.Get("x-goog-api-key") == key || r.URL.Query().Get("key") == key
	},
	failures:    geminiFailures,
	errorBody:   geminiErrorBody,
	check:       geminiCheck,
	whole:       geminiWhole,
	events:      geminiEvents,
	arrayStream: true,
}

type geminiError struct {
	Error struct {
		Code    int              `json:"code"`
		Message string           `json:"message"`
		Status  string           `json:"status"`
		Details []map[string]any `json:"details,omitzero"`
	} `json:"error"`
}

func grpcStatus(status int) string {
	switch status {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	return "INTERNAL"
}

func geminiErrorBody(status int, code, message string, retryAfter time.Duration) []byte {
	var e geminiError
	e.Error.Code, e.Error.Message, e.Error.Status = status, message, grpcStatus(status)
	if code == "API_KEY_INVALID" {
		e.Error.Details = append(e.Error.Details, map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": code, "domain": "googleapis.com"})
	}
	if retryAfter > 0 {
		e.Error.Details = append(e.Error.Details, map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": strconv.FormatFloat(retryAfter.Seconds(), 'f', -1, 64) + "s"})
	}
	return marshal(e)
}

// geminiFailures are the errors this provider answers with.
var geminiFailures = failures{
	llm.RateLimited:   {429, "", "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."},
	llm.Overloaded:    {503, "", "The model is overloaded. Please try again later."},
	llm.ContextLength: {400, "", "The input token count (1245184) exceeds the maximum number of tokens allowed (1048576)."},
	llm.Auth:          {400, "API_KEY_INVALID", "API key not valid. Please pass a valid API key."},
	"":                {400, "", "Request contains an invalid argument."},
}

func geminiCheck(x *exchange) (string, string) {
	if geminiModel(x.r) == "" {
		return "", "model is not specified"
	}
	return "", ""
}

func geminiModel(r *http.Request) string {
	p := r.URL.Path
	i := strings.LastIndex(p, "/models/")
	if i < 0 {
		return ""
	}
	m := p[i+len("/models/"):]
	if j := strings.IndexByte(m, ':'); j >= 0 {
		m = m[:j]
	}
	return m
}

type gemResponse struct {
	Candidates    []gemCandidate `json:"candidates"`
	UsageMetadata *gemUsage      `json:"usageMetadata,omitzero"`
	ModelVersion  string         `json:"modelVersion"`
	ResponseID    string         `json:"responseId"`
}

type gemCandidate struct {
	Content      gemContent `json:"content"`
	FinishReason string     `json:"finishReason,omitzero"`
	Index        int        `json:"index"`
}

type gemContent struct {
	Parts []gemPart `json:"parts,omitzero"`
	Role  string    `json:"role"`
}

type gemPart struct {
	Text             *string  `json:"text,omitzero"`
	Thought          bool     `json:"thought,omitzero"`
	FunctionCall     *gemCall `json:"functionCall,omitzero"`
	ThoughtSignature string   `json:"thoughtSignature,omitzero"`
}

type gemCall struct {
	ID   string         `json:"id,omitzero"`
	Name string         `json:"name"`
	Args jsontext.Value `json:"args"`
}

type gemUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	TotalTokenCount         int `json:"totalTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount,omitzero"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount,omitzero"`
}

func newGemUsage(u llm.Usage) *gemUsage {
	return &gemUsage{PromptTokenCount: u.InputTokens, CandidatesTokenCount: u.OutputTokens - u.ReasoningTokens,
		TotalTokenCount: u.InputTokens + u.OutputTokens, CachedContentTokenCount: u.CacheReadTokens, ThoughtsTokenCount: u.ReasoningTokens}
}

// gemCalls returns the call parts: ids only where the script set them (the
// Gemini API sends none), a thought signature on the first, and for
// LengthMidCall the last call left out (Gemini sends calls whole).
func (x *exchange) gemCalls() []gemPart {
	var parts []gemPart
	calls := x.turn.Calls
	if x.turn.Misbehave&EmptyMessage != 0 {
		return nil
	}
	if x.turn.Misbehave&LengthMidCall != 0 && len(calls) > 0 {
		calls = calls[:len(calls)-1]
	}
	for i, c := range calls {
		args := c.Args
		if args == "" {
			args = "{}"
		}
		p := gemPart{FunctionCall: &gemCall{ID: c.ID, Name: c.Name, Args: jsontext.Value(args)}}
		if i == 0 {
			p.ThoughtSignature = "CiQB0e2Kb" + strconv.Itoa(x.n)
		}
		parts = append(parts, p)
	}
	return parts
}

func (x *exchange) gemFinish() string {
	if x.turn.Misbehave&LengthMidCall != 0 {
		return "MAX_TOKENS"
	}
	return "STOP"
}

func (x *exchange) gemResponse(parts []gemPart, finish string, u *gemUsage) gemResponse {
	return gemResponse{Candidates: []gemCandidate{{Content: gemContent{Parts: parts, Role: "model"}, FinishReason: finish}},
		UsageMetadata: u, ModelVersion: x.answerModel(geminiModel(x.r)), ResponseID: "llmtest-" + strconv.Itoa(x.n)}
}

func geminiWhole(x *exchange) []byte {
	var parts []gemPart
	if r := x.turn.Reasoning; r != "" {
		parts = append(parts, gemPart{Text: &r, Thought: true})
	}
	if t := x.text(); t != "" {
		parts = append(parts, gemPart{Text: &t})
	}
	parts = append(parts, x.gemCalls()...)
	return marshal(x.gemResponse(parts, x.gemFinish(), newGemUsage(x.usage())))
}

func geminiEvents(x *exchange) ([]sse.Event, []sse.Event) {
	var evs []sse.Event
	if r := x.turn.Reasoning; r != "" {
		for _, f := range chunks(r, x.turn.Chunk) {
			evs = append(evs, sse.Event{Data: marshal(x.gemResponse([]gemPart{{Text: &f, Thought: true}}, "", nil))})
		}
	}
	if t := x.text(); t != "" {
		for _, f := range chunks(t, x.turn.Chunk) {
			evs = append(evs, sse.Event{Data: marshal(x.gemResponse([]gemPart{{Text: &f}}, "", nil))})
		}
	}
	calls := x.gemCalls()
	if len(calls) > 0 {
		evs = append(evs, sse.Event{Data: marshal(x.gemResponse(calls, "", nil))})
	}
	last := []sse.Event{{Data: marshal(x.gemResponse(nil, x.gemFinish(), newGemUsage(x.usage())))}}
	return evs, last
}
