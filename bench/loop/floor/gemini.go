package main

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/toolwire/toolwire/bench/loop/internal/peer"
)

// Gemini generateContent: POST {url}/models/MODEL:generateContent, or
// :streamGenerateContent?alt=sse. The model's content is appended as it
// came (its thoughtSignature included, as Gemini wants it back), the
// results as one user content of functionResponse parts in the calls'
// order, each response an object: {"result": records}.

const geminiModel = "gemini-2.5-flash"

type gemContent struct {
	Role  string    `json:"role"`
	Parts []gemPart `json:"parts"`
}

// gemPart is a text, functionCall or functionResponse part.
type gemPart struct {
	Text             string           `json:"text,omitempty"`
	Thought          bool             `json:"thought,omitempty"`
	FunctionCall     *gemCall         `json:"functionCall,omitempty"`
	FunctionResponse *gemFuncResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string           `json:"thoughtSignature,omitempty"`
}

type gemCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type gemFuncResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type gemFuncDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type gemTool struct {
	FunctionDeclarations []gemFuncDecl `json:"functionDeclarations"`
}

type gemRequest struct {
	Contents []gemContent `json:"contents"`
	Tools    []gemTool    `json:"tools"`
}

// gemResponse is the part of an answer (or of one streamed chunk) the
// loop reads.
type gemResponse struct {
	Candidates []struct {
		Content      gemContent `json:"content"`
		FinishReason string     `json:"finishReason"`
	} `json:"candidates"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// runGemini runs the loop in the Gemini API.
func runGemini(client *http.Client, f *peer.Flags, r *peer.Result) error {
	tool := gemTool{FunctionDeclarations: []gemFuncDecl{{Name: lookupName, Description: lookupDescription, Parameters: lookupParameters}}}
	contents := []gemContent{{Role: "user", Parts: []gemPart{{Text: prompt}}}}
	var calls []*gemCall
	ask := func() ([]string, string, error) {
		body, err := json.Marshal(gemRequest{Contents: contents, Tools: []gemTool{tool}})
		if err != nil {
			return nil, "", err
		}
		reply, err := askGemini(client, f, body)
		if err != nil {
			return nil, "", err
		}
		contents = append(contents, reply)
		calls = nil
		var args []string
		var text string
		for _, p := range reply.Parts {
			if p.FunctionCall != nil {
				calls = append(calls, p.FunctionCall)
				args = append(args, string(p.FunctionCall.Args))
			}
			if !p.Thought {
				text += p.Text
			}
		}
		return args, text, nil
	}
	return loop(f, r, ask, func(outs [][]byte) {
		results := gemContent{Role: "user"}
		for i, out := range outs {
			resp := append(append([]byte(`{"result":`), out...), '}')
			results.Parts = append(results.Parts, gemPart{FunctionResponse: &gemFuncResponse{ID: calls[i].ID, Name: calls[i].Name, Response: resp}})
		}
		contents = append(contents, results)
	})
}

// askGemini sends one request and reads the model's content.
func askGemini(client *http.Client, f *peer.Flags, body []byte) (gemContent, error) {
	url := f.URL + "/models/" + geminiModel + ":generateContent"
	if f.Stream {
		url = f.URL + "/models/" + geminiModel + ":streamGenerateContent?alt=sse"
	}
	resp, err := post(client, url, body)
	if err != nil {
		return gemContent{}, err
	}
	defer resp.Body.Close()
	if !f.Stream {
		var out gemResponse
		if err := readJSON(resp, &out); err != nil {
			return gemContent{}, err
		}
		if len(out.Candidates) == 0 {
			return gemContent{}, fmt.Errorf("bad answer: no candidates")
		}
		c := out.Candidates[0].Content
		c.Role = "model"
		return c, nil
	}
	// Each chunk is a whole response holding the next parts: texts are
	// joined, calls come whole.
	msg := gemContent{Role: "model"}
	err = events(resp, func(data []byte) (bool, error) {
		var chunk gemResponse
		if err := json.Unmarshal(data, &chunk); err != nil {
			return false, err
		}
		if chunk.Error != nil {
			return false, fmt.Errorf("error in stream: %s", chunk.Error.Message)
		}
		if len(chunk.Candidates) == 0 {
			return false, nil
		}
		for _, p := range chunk.Candidates[0].Content.Parts {
			n := len(msg.Parts)
			if p.FunctionCall == nil && n > 0 && msg.Parts[n-1].FunctionCall == nil && msg.Parts[n-1].Thought == p.Thought && p.ThoughtSignature == "" {
				msg.Parts[n-1].Text += p.Text
				continue
			}
			msg.Parts = append(msg.Parts, p)
		}
		return chunk.Candidates[0].FinishReason != "", nil
	})
	return msg, err
}
