package llmtest_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// post sends body to path with the dialect's headers and returns the
// status and body.
func post(t *testing.T, srv *llmtest.Server, path, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const antVersion = "anthropic-version"

// Each dialect's body with a result that answers no call: the provider
// rejects it, and so does the server, in the provider's own shape.
var rejected = []struct {
	name, path, body string
	header           []string
	shape            func(t *testing.T, body string) string // returns the message
}{
	{"openai chat", "/v1/chat/completions",
		`{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_x","content":"18C"}]}`, nil, openaiShape},
	{"openai responses", "/v1/responses",
		`{"model":"gpt-4.1","input":[{"role":"user","content":"hi"},{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`, nil, openaiShape},
	{"anthropic", "/v1/messages",
		`{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"18C"}]}]}`,
		[]string{antVersion, "2023-06-01"}, anthropicShape},
	{"gemini", "/v1beta/models/gemini-2.5-flash:generateContent",
		`{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"18C"}}}]}]}`, nil, geminiShape},
}

func openaiShape(t *testing.T, body string) string {
	var e struct {
		Error *struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e, json.RejectUnknownMembers(true)); err != nil || e.Error == nil || e.Error.Type == "" {
		t.Fatalf("body %s is not OpenAI's error shape: %v", body, err)
	}
	return e.Error.Message
}

func anthropicShape(t *testing.T, body string) string {
	var e struct {
		Type  string `json:"type"`
		Error *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal([]byte(body), &e, json.RejectUnknownMembers(true)); err != nil || e.Type != "error" || e.Error == nil || e.Error.Type == "" {
		t.Fatalf("body %s is not Anthropic's error shape: %v", body, err)
	}
	return e.Error.Message
}

func geminiShape(t *testing.T, body string) string {
	var e struct {
		Error *struct {
			Code    int              `json:"code"`
			Message string           `json:"message"`
			Status  string           `json:"status"`
			Details []map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e, json.RejectUnknownMembers(true)); err != nil || e.Error == nil || e.Error.Code == 0 || e.Error.Status == "" {
		t.Fatalf("body %s is not Gemini's error shape: %v", body, err)
	}
	return e.Error.Message
}

func TestRejectsWhatTheProviderRejects(t *testing.T) {
	for _, tt := range rejected {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Turn{Text: "never sent"})
			status, body := post(t, srv, tt.path, tt.body, tt.header...)
			if status != http.StatusBadRequest {
				t.Fatalf("status = %d (%s), want 400", status, body)
			}
			if msg := tt.shape(t, body); msg == "" {
				t.Errorf("error message is empty: %s", body)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Rejected == "" || reqs[0].Body == nil || srv.Remaining() != 1 {
				t.Errorf("requests = %+v, remaining %d; want the request recorded as rejected and the turn kept", reqs, srv.Remaining())
			}
		})
	}
}

func TestErrorShapes(t *testing.T) {
	bodies := map[string]string{
		"openai chat":      `{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}`,
		"openai responses": `{"model":"gpt-4.1","input":"hi"}`,
		"anthropic":        `{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`,
		"gemini":           `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
	}
	wantStatus := map[llm.ErrorKind]map[string]int{
		llm.RateLimited:   {"openai chat": 429, "openai responses": 429, "anthropic": 429, "gemini": 429},
		llm.Overloaded:    {"openai chat": 500, "openai responses": 500, "anthropic": 529, "gemini": 503},
		llm.ContextLength: {"openai chat": 400, "openai responses": 400, "anthropic": 400, "gemini": 400},
		llm.Auth:          {"openai chat": 401, "openai responses": 401, "anthropic": 401, "gemini": 400},
	}
	for _, tt := range rejected {
		for kind, statuses := range wantStatus {
			t.Run(tt.name+" "+string(kind), func(t *testing.T) {
				srv := llmtest.NewServer(t, llmtest.Turn{Error: &llmtest.Error{Kind: kind}})
				status, body := post(t, srv, tt.path, bodies[tt.name], tt.header...)
				if status != statuses[tt.name] {
					t.Errorf("status = %d, want %d", status, statuses[tt.name])
				}
				if msg := tt.shape(t, body); msg == "" {
					t.Errorf("error message is empty: %s", body)
				}
			})
		}
	}
}

func TestAPIKey(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
	srv.APIKey = "secret"
	status, body := post(t, srv, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "Authorization", "Bearer wrong")
	if status != 401 || !strings.Contains(body, "Incorrect API key") {
		t.Errorf("wrong key: %d %s", status, body)
	}
	status, _ = post(t, srv, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "Authorization", "Bearer secret")
	if status != 200 {
		t.Errorf("right key: status %d", status)
	}
}

func TestAnthropicChecks(t *testing.T) {
	five := `{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}`
	tests := []struct {
		body, version, want string
	}{
		{`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "", "anthropic-version: header is required"},
		{`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "2023-06-01", "max_tokens: Field required"},
		{`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[` + strings.Repeat(five+",", 4) + five + `]}]}`, "2023-06-01",
			"A maximum of 4 blocks with cache_control may be provided. Found 5."},
	}
	for _, tt := range tests {
		srv := llmtest.NewServer(t)
		status, body := post(t, srv, "/v1/messages", tt.body, antVersion, tt.version)
		if status != 400 || anthropicShape(t, body) != tt.want {
			t.Errorf("post %s: %d %s, want 400 %q", tt.body, status, body, tt.want)
		}
	}
}

func TestResponsesStore(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Calls: []llmtest.Call{{ID: "call_1", Name: "get_weather", Args: `{"city":"Paris"}`}}}, llmtest.Turn{Text: "18C"})
	status, body := post(t, srv, "/v1/responses", `{"model":"gpt-4.1","previous_response_id":"resp_nope","input":"hi"}`)
	if status != 400 || !strings.Contains(body, `"code":"previous_response_not_found"`) {
		t.Fatalf("unknown previous_response_id: %d %s", status, body)
	}
	status, body = post(t, srv, "/v1/responses", `{"model":"gpt-4.1","input":"Weather in Paris?"}`)
	var r struct {
		ID string `json:"id"`
	}
	if status != 200 || json.Unmarshal([]byte(body), &r) != nil || r.ID == "" {
		t.Fatalf("first turn: %d %s", status, body)
	}
	// Sending the stored call again is a duplicate.
	status, body = post(t, srv, "/v1/responses", `{"model":"gpt-4.1","previous_response_id":"`+r.ID+`","input":[{"type":"function_call","id":"fc_1_0","call_id":"call_1","name":"get_weather","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"18C"}]}`)
	if status != 400 || !strings.Contains(body, "Duplicate item found with id fc_1_0") {
		t.Fatalf("duplicate item: %d %s", status, body)
	}
	status, body = post(t, srv, "/v1/responses", `{"model":"gpt-4.1","previous_response_id":"`+r.ID+`","input":[{"type":"function_call_output","call_id":"call_1","output":"18C"}]}`)
	if status != 200 {
		t.Fatalf("continuation: %d %s", status, body)
	}
	srv.Lose(r.ID)
	status, _ = post(t, srv, "/v1/responses", `{"model":"gpt-4.1","previous_response_id":"`+r.ID+`","input":[{"type":"function_call_output","call_id":"call_1","output":"18C"}]}`)
	if status != 400 {
		t.Fatalf("lost response: status %d, want 400", status)
	}
}

// stream posts a streamed Chat request and returns the SSE data lines.
func stream(t *testing.T, turn llmtest.Turn) []string {
	t.Helper()
	srv := llmtest.NewServer(t, turn)
	status, body := post(t, srv, "/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "data: ") {
			lines = append(lines, strings.TrimPrefix(l, "data: "))
		}
	}
	return lines
}

func TestChatMisbehaviourShapes(t *testing.T) {
	calls := []llmtest.Call{{ID: "call_a", Name: "f", Args: `{"x":1}`}, {ID: "call_b", Name: "g", Args: `{"y":2}`}}
	tests := []struct {
		m       llmtest.Misbehaviour
		want    []string // substrings of the stream
		wantNot []string
	}{
		{0, []string{`"index":1`, `"id":"call_b"`, `"arguments":"{\"x\""`, `"finish_reason":"tool_calls"`, `[DONE]`}, nil},
		{llmtest.IndexZero, []string{`"id":"call_b"`}, []string{`"index":1`}},
		{llmtest.NoCallIDs, []string{`"name":"g"`}, []string{`"id":"call_`}},
		{llmtest.ArgsAsObject, []string{`"arguments":{"x":1}`}, []string{`"arguments":"`}},
		{llmtest.DuplicateIDs, []string{`"index":1,"id":"call_a"`}, []string{`"id":"call_b"`}},
		{llmtest.EmptyMessage, []string{`"finish_reason":"stop"`}, []string{`tool_calls`}},
		{llmtest.LengthMidCall, []string{`"finish_reason":"length"`, `"arguments":"{\"y"`}, []string{`"arguments":"2}"`, `"arguments":":2}"`}},
		{llmtest.Truncate, nil, []string{`[DONE]`, `finish_reason":"`}},
	}
	for _, tt := range tests {
		s := strings.Join(stream(t, llmtest.Turn{Calls: calls, Chunk: 4, Misbehave: tt.m}), "\n")
		for _, w := range tt.want {
			if !strings.Contains(s, w) {
				t.Errorf("misbehaviour %b: stream lacks %s:\n%s", tt.m, w, s)
			}
		}
		for _, w := range tt.wantNot {
			if strings.Contains(s, w) {
				t.Errorf("misbehaviour %b: stream has %s:\n%s", tt.m, w, s)
			}
		}
	}
}

func TestGeminiStreamWithoutSSE(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "Hello there", Chunk: 5})
	status, body := post(t, srv, "/v1beta/models/gemini-2.5-flash:streamGenerateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	var arr []map[string]any
	if status != 200 || json.Unmarshal([]byte(body), &arr) != nil || len(arr) != 4 {
		t.Fatalf("status %d, body %s: want a JSON array of 4 responses", status, body)
	}
	if !bytes.Contains([]byte(body), []byte(`"finishReason":"STOP"`)) {
		t.Errorf("body %s has no finishReason", body)
	}
}
