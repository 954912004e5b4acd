package openai_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/clienttest"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/openai"
)

// newResponses opens a Responses client on srv as [newChat] opens a Chat
// client.
func newResponses(t *testing.T, srv *llmtest.Server, cfg openai.Config) *openai.Responses {
	t.Helper()
	m, err := openai.NewResponses("gpt-4.1", onServer(srv, &cfg))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// withItemIDs sets the Responses item ids the server gives: fc_TURN_I.
func withItemIDs(turn string, calls ...llm.ToolCall) []llm.Part {
	var parts []llm.Part
	for i, c := range calls {
		c.ItemID = "fc_" + turn + "_" + string(rune('0'+i))
		parts = append(parts, c)
	}
	return parts
}

func TestResponsesAnswers(t *testing.T) {
	two := []llmtest.Call{{ID: "call_a", Name: "get_weather", Args: `{"city":"Paris"}`}, {ID: "call_b", Name: "get_weather", Args: `{"city":"Rome"}`}}
	tests := []clienttest.Answer{
		{Name: "text", Turn: llmtest.Turn{Text: "Sunny, 18°C."}, Want: llm.Assistant(llm.Text{Text: "Sunny, 18°C."}), Finish: llm.FinishStop},
		{Name: "calls", Turn: llmtest.Turn{Calls: two, Chunk: 3},
			Want: llm.Assistant(withItemIDs("1", clienttest.Call("call_a", "get_weather", `{"city":"Paris"}`), clienttest.Call("call_b", "get_weather", `{"city":"Rome"}`))...), Finish: llm.FinishToolCalls},
		{Name: "calls interleaved", Turn: llmtest.Turn{Calls: two, Chunk: 2, Interleave: true},
			Want: llm.Assistant(withItemIDs("1", clienttest.Call("call_a", "get_weather", `{"city":"Paris"}`), clienttest.Call("call_b", "get_weather", `{"city":"Rome"}`))...), Finish: llm.FinishToolCalls},
		{Name: "cut off by max_output_tokens", Turn: llmtest.Turn{Calls: two[:1], Misbehave: llmtest.LengthMidCall},
			Want: llm.Assistant(withItemIDs("1", clienttest.Call("call_a", "get_weather", `{"city":`))...), Finish: llm.FinishLength, WantErr: llm.ErrIncompleteCall},
		{Name: "empty message", Turn: llmtest.Turn{Text: "x", Misbehave: llmtest.EmptyMessage},
			Want: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{}}, Finish: llm.FinishStop, WantErr: llm.ErrEmptyMessage},
	}
	clienttest.Answers(t, tests, false, func(t *testing.T, srv *llmtest.Server, noStream bool) llm.Model {
		return newResponses(t, srv, openai.Config{Options: provider.Options{NoStream: noStream}})
	}, nil)
}

// TestResponsesReasoningReplayed: without Store, the reasoning item comes
// back whole (encrypted content included) and is sent again with the call
// it preceded, which OAI-RS-REASONING-PAIR requires.
func TestResponsesReasoningReplayed(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Turn{Reasoning: "Need the weather.", Calls: []llmtest.Call{{ID: "call_a", Name: "get_weather", Args: `{"city":"Paris"}`}}},
		llmtest.Turn{Text: "Sunny."})
	m := newResponses(t, srv, openai.Config{})
	req := clienttest.Ask("Weather?")
	resp, err := llm.Generate(context.Background(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := resp.Message.Parts[0].(llm.Reasoning)
	if !ok || r.Text != "Need the weather." || !strings.Contains(string(r.Data), `"encrypted_content":"gAAAAB1-encrypted"`) {
		t.Fatalf("first part = %#v, want the reasoning item with its encrypted content", resp.Message.Parts[0])
	}
	req.Messages = append(req.Messages, resp.Message, llm.Tool(llm.ToolResult{CallID: "call_a", Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "18C"}}}))
	if _, err := llm.Generate(context.Background(), m, req); err != nil {
		t.Fatal(err)
	}
	body := string(srv.Requests()[1].Body)
	for _, want := range []string{`"store":false`, `"include":["reasoning.encrypted_content"]`, `"type":"reasoning","id":"rs_1"`, `"encrypted_content":"gAAAAB1-encrypted"`} {
		if !strings.Contains(body, want) {
			t.Errorf("second request = %s\nwant it to contain %s", body, want)
		}
	}
}

// TestResponsesPreviousResponseID: with Store, each answer reports its
// stored id, and a request that continues it (Request.Previous) sends
// only its new messages after previous_response_id; when the server lost
// the response, the whole history goes instead.
func TestResponsesPreviousResponseID(t *testing.T) {
	weather := func(city string) llmtest.Turn {
		return llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"` + city + `"}`}}}
	}
	srv := llmtest.NewServer(t, weather("Paris"), weather("Rome"), weather("Oslo"), llmtest.Turn{Text: "Done."})
	m := newResponses(t, srv, openai.Config{Store: true})
	req := clienttest.Ask("Weather in Paris, Rome and Oslo?")
	for turn := 0; turn < 4; turn++ {
		if turn == 2 {
			srv.Lose("resp_") // no such id: nothing lost yet
			srv.Lose(lastResponse(t, srv))
		}
		resp, err := llm.Generate(context.Background(), m, req)
		if err != nil {
			t.Fatalf("turn %d: %v", turn+1, err)
		}
		req.Messages = append(req.Messages, resp.Message)
		if resp.ID == "" {
			t.Fatalf("turn %d: the answer reports no stored id", turn+1)
		}
		req.Previous = &llm.Previous{ID: resp.ID, Messages: len(req.Messages)} // as the loop keeps it
		for _, c := range resp.Message.ToolCalls() {
			req.Messages = append(req.Messages, llm.Tool(llm.ToolResult{CallID: c.ID, Name: c.Name, Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "18C"}}}))
		}
	}
	type sent struct {
		Prev  string `json:"previous_response_id"`
		Input []struct {
			Type   string `json:"type"`
			Role   string `json:"role"`
			CallID string `json:"call_id"`
		} `json:"input"`
	}
	var got []string
	for _, r := range srv.Requests() {
		var s sent
		if err := json.Unmarshal(r.Body, &s); err != nil {
			t.Fatal(err)
		}
		line := "prev=" + s.Prev + ":"
		for _, it := range s.Input {
			line += " " + it.Type + "/" + it.Role + it.CallID
		}
		if r.Rejected != "" {
			line += " REJECTED " + r.Rejected
		}
		got = append(got, line)
	}
	want := []string{
		"prev=: message/system message/user",
		"prev=resp_1: function_call_output/call_1_0",
		"prev=resp_2: function_call_output/call_2_0 REJECTED Previous response with id 'resp_2' not found.",
		"prev=: message/system message/user function_call/call_1_0 function_call_output/call_1_0 function_call/call_2_0 function_call_output/call_2_0",
		"prev=resp_3: function_call_output/call_3_0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func lastResponse(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	ids := srv.Stored()
	last := ""
	for _, id := range ids {
		if len(id) > len(last) || (len(id) == len(last) && id > last) {
			last = id
		}
	}
	return last
}

func TestResponsesErrors(t *testing.T) {
	tests := []clienttest.Failure{
		{Name: "context length", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.ContextLength}}}, Kind: llm.ContextLength, Requests: 1,
			Text: "openai responses: context length exceeded (HTTP 400 context_length_exceeded): Your input exceeds the context window of this model."},
		{Name: "error event", Turns: []llmtest.Turn{{Text: "partial", Error: &llmtest.Error{Kind: llm.Overloaded, InStream: true, After: 5}}}, Kind: llm.Overloaded, Requests: 1,
			Text: "openai responses: provider overloaded (server_error): The server had an error"},
		{Name: "truncated", Turns: []llmtest.Turn{{Text: "cut short", Misbehave: llmtest.Truncate}}, Kind: llm.Transport, Requests: 1,
			Text: "openai responses: transport failure: the stream ended before the answer did (no response.completed)"},
	}
	clienttest.Failures(t, tests, func(t *testing.T, srv *llmtest.Server) llm.Model { return newResponses(t, srv, openai.Config{}) })
}

// TestResponsesLostAfterReasonedText: with Store, an answer of reasoning
// then text, sent again whole after the server lost it, would give its
// stored reasoning item a follower without the id the server knows
// (OAI-RS-REASONING-FOLLOW); the reasoning is left out, and the request is
// accepted.
func TestResponsesLostAfterReasonedText(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Reasoning: "Greeting.", Text: "Hello."}, llmtest.Turn{Text: "Hello again."})
	m := newResponses(t, srv, openai.Config{Store: true})
	req := clienttest.Ask("Say hello.")
	resp, err := llm.Generate(context.Background(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.Parts) != 2 {
		t.Fatalf("answer = %+v, want reasoning then text", resp.Message)
	}
	req.Messages = append(req.Messages, resp.Message, llm.User("Again."))
	req.Previous = &llm.Previous{ID: resp.ID, Messages: len(req.Messages) - 1}
	srv.Lose(resp.ID)
	if _, err := llm.Generate(context.Background(), m, req); err != nil {
		t.Fatalf("after the server lost the response: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[1].Rejected == "" {
		t.Fatalf("%d requests, want 3: the answer, the one naming the lost response (rejected), the whole history", len(reqs))
	}
	if r := reqs[2]; r.Rejected != "" {
		t.Errorf("the whole history was rejected: %s", r.Rejected)
	}
}
