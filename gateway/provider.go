package gateway

import (
	"net/http"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/transcript"
)

// A provider is what the gateway knows of one provider's protocol: the
// dialect its bodies are judged in and the shape of its error answers.
// Each provider's value is below; the gateway's algorithm reads it.
type provider struct {
	dialect transcript.Dialect
	// errorBody writes e in the provider's error shape, with toolwire's
	// explanation beside it.
	errorBody func(e *refusal) []byte
	// join returns what joins the provider's streamed answers into one
	// (stream.go).
	join func() joiner
}

var (
	openAIChat = &provider{dialect: transcript.OpenAIChat, errorBody: openAIError,
		join: func() joiner { return &chatJoin{} }}
	openAIResponses = &provider{dialect: transcript.OpenAIResponses, errorBody: openAIError,
		join: func() joiner { return &responsesJoin{seq: -1} }}
	anthropic = &provider{dialect: transcript.Anthropic, errorBody: anthropicError,
		join: func() joiner { return &anthropicJoin{} }}
	gemini = &provider{dialect: transcript.Gemini, errorBody: geminiError,
		join: func() joiner { return &geminiJoin{} }}
)

// A refusal is an answer the gateway makes itself instead of forwarding:
// a body the provider would reject, or one it cannot take, or an upstream
// that cannot be reached.
type refusal struct {
	status int
	// code is toolwire's name of the failure, one of the code* constants.
	code    string
	message string
	// param is the path of the first violation, for OpenAI's "param".
	param      string
	policy     Policy
	dialect    transcript.Dialect
	violations []transcript.Violation
	// fixable says whether the repair makes a rejected body acceptable;
	// nil when that is not the question.
	fixable *bool
	record  string
}

// The codes of the gateway's own answers, in the "toolwire" field of the
// error body (docs/gateway.md).
const (
	codeRejected     = "rejected"      // 400: the provider would reject the body (policy reject)
	codeUnrepairable = "unrepairable"  // 400: policy repair, and the repair leaves violations
	codeInvalidBody  = "invalid_body"  // 400: not JSON, or not a request of the route's dialect
	codeUnauthorized = "unauthorized"  // 401: no Toolwire-Token, or the wrong one
	codeCrossOrigin  = "cross_origin"  // 403: a browser page of another site, or a Host that is not loopback
	codeUnknownRoute = "unknown_route" // 404
	codeMethod       = "method_not_allowed"
	codeTooLarge     = "body_too_large"       // 413
	codeInternal     = "internal"             // 500: a defect; please report it
	codeUnreachable  = "upstream_unreachable" // 502
	codeTimeout      = "upstream_timeout"     // 504
)

// detailJSON is the "toolwire" field of an error body: why the gateway
// answered itself.
type detailJSON struct {
	Error      string             `json:"error"`
	Policy     Policy             `json:"policy,omitempty"`
	Dialect    transcript.Dialect `json:"dialect,omitempty"`
	Violations []violationJSON    `json:"violations,omitempty"`
	Fixable    *bool              `json:"fixable,omitempty"`
	Record     string             `json:"record,omitempty"`
}

// violationJSON is a violation as the gateway writes it, in the shape of
// toolwire check --json.
type violationJSON struct {
	Rule          string `json:"rule"`
	Path          string `json:"path"`
	Message       string `json:"message"`
	ProviderError string `json:"provider_error,omitempty"`
	Warning       bool   `json:"warning,omitzero"`
}

func jsonViolations(vs []transcript.Violation) []violationJSON {
	var out []violationJSON
	for _, v := range vs {
		out = append(out, violationJSON{Rule: string(v.Rule), Path: v.Path, Message: v.Message, ProviderError: v.ProviderError, Warning: v.Warning})
	}
	return out
}

func (e *refusal) detail() detailJSON {
	return detailJSON{Error: e.code, Policy: e.policy, Dialect: e.dialect, Violations: jsonViolations(e.violations), Fixable: e.fixable, Record: e.record}
}

// marshal writes v compactly, in field order, without HTML escaping.
func marshal(v any) []byte {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		panic("gateway: " + err.Error()) // the gateway's own types always encode
	}
	return b
}

// openAIError is OpenAI's error shape:
// {"error":{"message","type","param","code"}}.
func openAIError(e *refusal) []byte {
	type body struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	b := body{Message: e.message, Type: "invalid_request_error"}
	if e.param != "" {
		b.Param = &e.param
	}
	switch {
	case e.status == http.StatusUnauthorized:
		code := "invalid_toolwire_token"
		b.Code = &code
	case e.status == http.StatusForbidden:
		code := codeCrossOrigin
		b.Code = &code
	case e.status >= 500:
		b.Type = "server_error"
	}
	return marshal(struct {
		Error    body       `json:"error"`
		Toolwire detailJSON `json:"toolwire"`
	}{b, e.detail()})
}

// anthropicError is Anthropic's error shape:
// {"type":"error","error":{"type","message"}}.
func anthropicError(e *refusal) []byte {
	typ := "invalid_request_error"
	switch e.status {
	case http.StatusUnauthorized:
		typ = "authentication_error"
	case http.StatusForbidden:
		typ = "permission_error"
	case http.StatusNotFound:
		typ = "not_found_error"
	case http.StatusRequestEntityTooLarge:
		typ = "request_too_large"
	case http.StatusGatewayTimeout:
		typ = "timeout_error"
	case http.StatusBadGateway, http.StatusInternalServerError:
		typ = "api_error"
	}
	type body struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	return marshal(struct {
		Type     string     `json:"type"`
		Error    body       `json:"error"`
		Toolwire detailJSON `json:"toolwire"`
	}{"error", body{typ, e.message}, e.detail()})
}

// geminiError is Gemini's (Google APIs') error shape:
// {"error":{"code","message","status"}}.
func geminiError(e *refusal) []byte {
	status := "INVALID_ARGUMENT"
	switch e.status {
	case http.StatusUnauthorized:
		status = "UNAUTHENTICATED"
	case http.StatusForbidden:
		status = "PERMISSION_DENIED"
	case http.StatusNotFound:
		status = "NOT_FOUND"
	case http.StatusMethodNotAllowed:
		status = "UNIMPLEMENTED"
	case http.StatusInternalServerError:
		status = "INTERNAL"
	case http.StatusBadGateway:
		status = "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		status = "DEADLINE_EXCEEDED"
	}
	type body struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	}
	return marshal(struct {
		Error    body       `json:"error"`
		Toolwire detailJSON `json:"toolwire"`
	}{body{e.status, e.message, status}, e.detail()})
}

// writeRefusal answers e in p's shape (OpenAI's when p is nil: a path no
// provider has).
func writeRefusal(w http.ResponseWriter, p *provider, e *refusal) {
	if p == nil {
		p = openAIChat
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set(VerdictHeader, string(verdictOf(e)))
	if rules := ruleList(e.violations); rules != "" {
		h.Set(RulesHeader, rules)
	}
	if e.record != "" {
		h.Set(RecordHeader, e.record)
	}
	w.WriteHeader(e.status)
	_, _ = w.Write(p.errorBody(e))
}

// verdictOf is the verdict header of a refusal: rejected for a body the
// gateway refused by its rules, error for anything else it answered.
func verdictOf(e *refusal) Verdict {
	switch e.code {
	case codeRejected, codeUnrepairable:
		return VerdictRejected
	}
	return VerdictError
}
