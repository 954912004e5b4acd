package openai

import "github.com/go-json-experiment/json/jsontext"

// The JSON shapes of the answers the clients read: Chat Completions
// responses and stream chunks, Responses responses and stream events.
// Unknown fields are ignored; providers add them all the time.

// chatAnswer is a Chat Completions response or one chunk of its stream.
type chatAnswer struct {
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
