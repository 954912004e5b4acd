package budget

import (
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

// toolResultImages says, per dialect, whether its tool results have a
// place for images (docs/tool-message-protocol.md): a Chat Completions
// tool message holds text only (OAI-CC-TOOL-IMAGE); a Responses
// function_call_output may hold input_image items; an Anthropic
// tool_result may hold image blocks; a Gemini functionResponse may hold
// inline-data parts, on models that accept them.
func toolResultImages(d transcript.Dialect) bool {
	switch d {
	case transcript.OpenAIResponses, transcript.Anthropic, transcript.Gemini:
		return true
	}
	return false
}

// ImagePolicy returns how images in tool results reach a model with
// limits l speaking dialect d: inline where the dialect has a place for
// them and the model accepts them, described otherwise. Pass it to
// toolresult.Request.Images or tool.Config.Images.
func ImagePolicy(d transcript.Dialect, l Limits) toolresult.ImagePolicy {
	if toolResultImages(d) && !l.NoToolResultImages {
		return toolresult.InlineImages
	}
	return toolresult.DescribeImages
}
