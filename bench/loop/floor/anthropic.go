package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/bench/loop/internal/peer"
)

// Anthropic Messages: POST {url}/v1/messages. The answer's content blocks
// are appended as the assistant message, the results as one user message
// of tool_result blocks.

type antMessage struct {
	Role    string     `json:"role"`
	Content []antBlock `json:"content"`
}

// antBlock is a text, tool_use or tool_result block.
type antBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type antTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type antRequest struct {
	Model     string       `json:"model"`
	MaxTokens int          `json:"max_tokens"`
	Messages  []antMessage `json:"messages"`
	Tools     []antTool    `json:"tools"`
	Stream    bool         `json:"stream,omitempty"`
}

// runAnthropic runs the loop in the Messages API.
func runAnthropic(client *http.Client, f *peer.Flags, r *peer.Result) error {
	tool := antTool{Name: lookupName, Description: lookupDescription, InputSchema: lookupParameters}
	msgs := []antMessage{{Role: "user", Content: []antBlock{{Type: "text", Text: prompt}}}}
	var calls []antBlock
	ask := func() ([]string, string, error) {
		body, err := json.Marshal(antRequest{Model: "claude-sonnet-4-5", MaxTokens: 8192, Messages: msgs, Tools: []antTool{tool}, Stream: f.Stream})
		if err != nil {
			return nil, "", err
		}
		reply, err := askAnthropic(client, f, body)
		if err != nil {
			return nil, "", err
		}
		msgs = append(msgs, reply)
		calls = nil
		var args []string
		var text string
		for _, b := range reply.Content {
			if b.Type == "tool_use" {
				calls = append(calls, b)
				args = append(args, string(b.Input))
			}
			text += b.Text
		}
		return args, text, nil
	}
	return loop(f, r, ask, func(outs [][]byte) {
		results := antMessage{Role: "user"}
		for i, out := range outs {
			results.Content = append(results.Content, antBlock{Type: "tool_result", ToolUseID: calls[i].ID, Content: string(out)})
		}
		msgs = append(msgs, results)
	})
}

// askAnthropic sends one request and reads the assistant message.
func askAnthropic(client *http.Client, f *peer.Flags, body []byte) (antMessage, error) {
	resp, err := post(client, f.URL+"/v1/messages", body, "anthropic-version", "2023-06-01")
	if err != nil {
		return antMessage{}, err
	}
	defer resp.Body.Close()
	if !f.Stream {
		var out antMessage
		if err := readJSON(resp, &out); err != nil {
			return antMessage{}, err
		}
		return antMessage{Role: "assistant", Content: out.Content}, nil
	}
	msg := antMessage{Role: "assistant"}
	var input strings.Builder // the partial JSON of the tool_use block being streamed
	err = events(resp, func(data []byte) (bool, error) {
		var ev struct {
			Type         string   `json:"type"`
			Index        int      `json:"index"`
			ContentBlock antBlock `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			return false, err
		}
		switch ev.Type {
		case "content_block_start":
			msg.Content = append(msg.Content, ev.ContentBlock)
			input.Reset()
		case "content_block_delta":
			if ev.Index >= len(msg.Content) {
				return false, fmt.Errorf("delta for block %d before its start", ev.Index)
			}
			switch ev.Delta.Type {
			case "text_delta":
				msg.Content[ev.Index].Text += ev.Delta.Text
			case "input_json_delta":
				input.WriteString(ev.Delta.PartialJSON)
			}
		case "content_block_stop":
			if b := &msg.Content[len(msg.Content)-1]; b.Type == "tool_use" && input.Len() > 0 {
				b.Input = json.RawMessage(input.String())
			}
		case "message_stop":
			return true, nil
		case "error":
			return false, fmt.Errorf("error event: %s", ev.Error.Message)
		}
		return false, nil
	})
	return msg, err
}
