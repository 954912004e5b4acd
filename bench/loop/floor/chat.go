package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/bench/loop/internal/peer"
)

// OpenAI Chat Completions: POST {url}/chat/completions.

type chatMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Tools    []chatTool    `json:"tools"`
	Stream   bool          `json:"stream,omitempty"`
}

func str(s string) *string { return &s }

// runChat runs the loop in Chat Completions.
func runChat(client *http.Client, f *peer.Flags, r *peer.Result) error {
	var tool chatTool
	tool.Type = "function"
	tool.Function.Name, tool.Function.Description, tool.Function.Parameters = lookupName, lookupDescription, lookupParameters
	msgs := []chatMessage{{Role: "user", Content: str(prompt)}}
	var calls []chatToolCall
	ask := func() ([]string, string, error) {
		body, err := json.Marshal(chatRequest{Model: "gpt-4o", Messages: msgs, Tools: []chatTool{tool}, Stream: f.Stream})
		if err != nil {
			return nil, "", err
		}
		reply, err := askChat(client, f, body)
		if err != nil {
			return nil, "", err
		}
		msgs = append(msgs, reply)
		calls = reply.ToolCalls
		args := make([]string, len(calls))
		for i, c := range calls {
			args[i] = c.Function.Arguments
		}
		var text string
		if reply.Content != nil {
			text = *reply.Content
		}
		return args, text, nil
	}
	return loop(f, r, ask, func(outs [][]byte) {
		for i, out := range outs {
			msgs = append(msgs, chatMessage{Role: "tool", ToolCallID: calls[i].ID, Content: str(string(out))})
		}
	})
}

// askChat sends one request and reads the assistant message.
func askChat(client *http.Client, f *peer.Flags, body []byte) (chatMessage, error) {
	resp, err := post(client, f.URL+"/chat/completions", body)
	if err != nil {
		return chatMessage{}, err
	}
	defer resp.Body.Close()
	if !f.Stream {
		var out struct {
			Choices []struct {
				Message chatMessage `json:"message"`
			} `json:"choices"`
		}
		if err := readJSON(resp, &out); err != nil {
			return chatMessage{}, err
		}
		if len(out.Choices) == 0 {
			return chatMessage{}, fmt.Errorf("bad answer: no choices")
		}
		return out.Choices[0].Message, nil
	}
	msg := chatMessage{Role: "assistant"}
	var text strings.Builder
	byIndex := map[int]int{}
	err = events(resp, func(data []byte) (bool, error) {
		if string(data) == "[DONE]" {
			return true, nil
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(data, &chunk); err != nil {
			return false, err
		}
		for _, ch := range chunk.Choices {
			text.WriteString(ch.Delta.Content)
			for _, d := range ch.Delta.ToolCalls {
				i, ok := byIndex[d.Index]
				if !ok {
					i = len(msg.ToolCalls)
					byIndex[d.Index] = i
					msg.ToolCalls = append(msg.ToolCalls, chatToolCall{Type: "function"})
				}
				c := &msg.ToolCalls[i]
				if d.ID != "" {
					c.ID = d.ID
				}
				c.Function.Name += d.Function.Name
				c.Function.Arguments += d.Function.Arguments
			}
		}
		return false, nil
	})
	if err != nil {
		return chatMessage{}, err
	}
	if text.Len() > 0 || len(msg.ToolCalls) == 0 {
		msg.Content = str(text.String())
	}
	return msg, nil
}
