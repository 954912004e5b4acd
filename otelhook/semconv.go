package otelhook

import "go.opentelemetry.io/otel/attribute"

// The attributes of the OpenTelemetry semantic conventions for generative
// AI (open-telemetry/semantic-conventions-genai, status Development). The
// semconv packages of go.opentelemetry.io/otel do not carry them, so they
// are named here.
const (
	keyOperation     = attribute.Key("gen_ai.operation.name")
	keyProvider      = attribute.Key("gen_ai.provider.name")
	keyAgentName     = attribute.Key("gen_ai.agent.name")
	keyConversation  = attribute.Key("gen_ai.conversation.id")
	keyRequestModel  = attribute.Key("gen_ai.request.model")
	keyResponseID    = attribute.Key("gen_ai.response.id")
	keyResponseModel = attribute.Key("gen_ai.response.model")
	keyFinishReasons = attribute.Key("gen_ai.response.finish_reasons")
	keyTemperature   = attribute.Key("gen_ai.request.temperature")
	keyMaxTokens     = attribute.Key("gen_ai.request.max_tokens")
	keyInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	keyOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	keyCacheRead     = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	keyCacheWrite    = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	keyReasoning     = attribute.Key("gen_ai.usage.reasoning.output_tokens")
	keyTokenType     = attribute.Key("gen_ai.token.type")
	keyToolName      = attribute.Key("gen_ai.tool.name")
	keyToolCallID    = attribute.Key("gen_ai.tool.call.id")
	keyToolType      = attribute.Key("gen_ai.tool.type")
	keyToolArguments = attribute.Key("gen_ai.tool.call.arguments")
	keyToolResult    = attribute.Key("gen_ai.tool.call.result")
	keyInputMessages = attribute.Key("gen_ai.input.messages")
	keyErrorType     = attribute.Key("error.type")

	// toolwire's own, where the conventions have no name.
	keyToolStatus  = attribute.Key("toolwire.tool.status")
	keyToolAttempt = attribute.Key("toolwire.tool.attempt")
	keyToolRan     = attribute.Key("toolwire.tool.ran")
	keyTurn        = attribute.Key("toolwire.turn")
	keyStop        = attribute.Key("toolwire.stop")
)

// The values of gen_ai.operation.name that toolwire uses.
const (
	opInvokeAgent     = "invoke_agent"
	opChat            = "chat"
	opGenerateContent = "generate_content"
	opExecuteTool     = "execute_tool"
)

// errOther is error.type when nothing names the error better.
const errOther = "_OTHER"

// Bucket boundaries the conventions advise for the two GenAI client
// histograms.
var (
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
)
