package main

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/toolwire/toolwire/bench/loop/internal/peer"
)

// OpenAI Responses: POST {url}/responses, with "store": false and the
// whole history in "input" each turn: the answer's output items are
// appended to it (without their ids, which only a stored response can
// resolve), then a function_call_output item for each call.

// rsItem is an input or output item: a message, a function_call or a
// function_call_output.
type rsItem struct {
	Type      string   `json:"type"`
	Role      string   `json:"role,omitempty"`
	Content   []rsPart `json:"content,omitempty"`
	CallID    string   `json:"call_id,omitempty"`
	Name      string   `json:"name,omitempty"`
	Arguments string   `json:"arguments,omitempty"`
	Output    *string  `json:"output,omitempty"`
}

type rsPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type rsTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type rsRequest struct {
	Model  string   `json:"model"`
	Input  []rsItem `json:"input"`
	Tools  []rsTool `json:"tools"`
	Store  bool     `json:"store"`
	Stream bool     `json:"stream,omitempty"`
}

// rsResponse is the part of a response the loop reads.
type rsResponse struct {
	Status string   `json:"status"`
	Output []rsItem `json:"output"`
}

// runResponses runs the loop in the Responses API.
func runResponses(client *http.Client, f *peer.Flags, r *peer.Result) error {
	tool := rsTool{Type: "function", Name: lookupName, Description: lookupDescription, Parameters: lookupParameters}
	input := []rsItem{{Type: "message", Role: "user", Content: []rsPart{{Type: "input_text", Text: prompt}}}}
	var calls []rsItem
	ask := func() ([]string, string, error) {
		body, err := json.Marshal(rsRequest{Model: "gpt-4o", Input: input, Tools: []rsTool{tool}, Stream: f.Stream})
		if err != nil {
			return nil, "", err
		}
		output, err := askResponses(client, f, body)
		if err != nil {
			return nil, "", err
		}
		input = append(input, output...)
		calls = nil
		var args []string
		var text string
		for _, it := range output {
			if it.Type == "function_call" {
				calls = append(calls, it)
				args = append(args, it.Arguments)
			}
			for _, p := range it.Content {
				text += p.Text
			}
		}
		return args, text, nil
	}
	return loop(f, r, ask, func(outs [][]byte) {
		for i, out := range outs {
			input = append(input, rsItem{Type: "function_call_output", CallID: calls[i].CallID, Output: str(string(out))})
		}
	})
}

// askResponses sends one request and reads the answer's output items.
func askResponses(client *http.Client, f *peer.Flags, body []byte) ([]rsItem, error) {
	resp, err := post(client, f.URL+"/responses", body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if !f.Stream {
		var out rsResponse
		if err := readJSON(resp, &out); err != nil {
			return nil, err
		}
		if out.Status != "completed" {
			return nil, fmt.Errorf("response %s", out.Status)
		}
		return out.Output, nil
	}
	var output []rsItem
	err = events(resp, func(data []byte) (bool, error) {
		var ev struct {
			Type     string     `json:"type"`
			Item     rsItem     `json:"item"`
			Response rsResponse `json:"response"`
			Message  string     `json:"message"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			return false, err
		}
		switch ev.Type {
		case "response.output_item.done":
			output = append(output, ev.Item)
		case "response.completed":
			return true, nil
		case "response.incomplete", "response.failed", "error":
			return false, fmt.Errorf("%s: %s", ev.Type, ev.Message)
		}
		return false, nil
	})
	return output, err
}
