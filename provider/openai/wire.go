package openai

import "github.com/go-json-experiment/json/jsontext"

// The JSON shapes of the answers the clients read: Chat Completions
// responses and stream chunks, Responses responses and stream events.
// Unknown fields are ignored; providers add them all the time.

// chatAnswer is a Chat Completions response or one chunk of its stream.
type chatAnswer struct {
	Model   string         `json:"model"`
	Choices []chatChoice   `json:"choices"`
	Usage   *chatUsage     `json:"usage"`
	Error   jsontext.Value `json:"error"` // an error inside a stream
}

type chatChoice struct {
	Index        int         `json:"index"`
	Message      chatMessage `json:"message"` // a whole response
	Delta        chatMessage `json:"delta"`   // a stream chunk
	FinishReason string      `json:"finish_reason"`
}

type chatMessage struct {
	Content string `json:"content"`
	Refusal string `json:"refusal"`
	// Reasoning text of compatible servers: DeepSeek, vLLM and Qwen send
	// reasoning_content, Ollama and OpenRouter reasoning.
	ReasoningContent string         `json:"reasoning_content"`
	Reasoning        jsontext.Value `json:"reasoning"`
	ToolCalls        []chatToolCall `json:"tool_calls"`
}

type chatToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a JSON string; some compatible servers send an
		// object.
		Arguments jsontext.Value `json:"arguments"`
	} `json:"function"`
}

type chatUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"` // DeepSeek
}

// rsEvent is a Responses stream event; rsAnswer a whole response.
type rsEvent struct {
	Type        string         `json:"type"`
	OutputIndex int            `json:"output_index"`
	ItemID      string         `json:"item_id"`
	Delta       string         `json:"delta"`
	Arguments   string         `json:"arguments"`
	Item        jsontext.Value `json:"item"`
	Response    *rsAnswer      `json:"response"`
	// An "error" event.
	Code    jsontext.Value `json:"code"`
	Message string         `json:"message"`
}

type rsAnswer struct {
	ID                string           `json:"id"`
	Model             string           `json:"model"`
	Status            string           `json:"status"`
	Output            []jsontext.Value `json:"output"`
	Usage             *rsUsage         `json:"usage"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error jsontext.Value `json:"error"`
}

type rsOutputItem struct {
	Type      string         `json:"type"`
	ID        string         `json:"id"`
	CallID    string         `json:"call_id"`
	Name      string         `json:"name"`
	Arguments jsontext.Value `json:"arguments"`
	Content   []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

type rsUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}
