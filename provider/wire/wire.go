// Package wire judges provider request bodies as the provider would: it
// detects a body's dialect, decodes it with that dialect's codec, checks it
// against the codec's wire rules and transcript's rules in one verdict with
// paths into the body, repairs it, and converts it to another dialect.
//
// It is what toolwire check and toolwire convert do, as a library, for
// callers that hold request bytes (a gateway, a test, the agent loop's
// request dumps):
//
//	rep, err := wire.Check(body, "") // "" detects the dialect
//	if err != nil {
//		return err // unreadable: not JSON, or not a request body
//	}
//	if !rep.Accepted() {
//		for _, v := range rep.Violations { ... }
//	}
//
// A body whose shape fits several dialects is judged in each one
// (Report.Candidates) and accepted only if every one accepts it; [Fix]
// and [Convert] need such a body's dialect named. Callers that hold llm
// messages call transcript.Check directly.
package wire

import (
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/transcript"
)

// A Body is a request body decoded by its dialect's codec.
type Body struct {
	dialect transcript.Dialect
	c       codecBody
	src     []byte // the bytes Decode read, or nil
	model   string // the model, when the body does not name it (SetModel)
}

// SetModel says which model the body is for, when the body does not name
// it: a Gemini request names its model in its URL
// (models/MODEL:generateContent), not in its body. The rules that depend
// on the model (GEM-THOUGHT-SIG, GEM-MULTIMODAL-RESP, a Responses model's
// reasoning) then judge and repair it as a body that names the model. A
// body that names its own model keeps it; "" says nothing.
func (b *Body) SetModel(model string) { b.model = model }

// request returns what transcript judges, with the model SetModel gave
// when the body names none.
func (b *Body) request() transcript.Request {
	r := b.c.request()
	if r.Model == "" {
		r.Model = b.model
	}
	return r
}

// codecBody is a codec's own request type behind the few operations this
// package needs.
type codecBody interface {
	// request returns what transcript checks.
	request() transcript.Request
	// wire returns the violations the codec found while decoding.
	wire() []transcript.Violation
	// set replaces the messages, tools and thinking flag, keeping the
	// body's other fields.
	set(r transcript.Request)
	// encode writes the body back.
	encode() ([]byte, []provider.Warning, error)
	// fixWire makes encode write what wire lists in a form the provider
	// accepts rather than as it was (the OpenAI codecs always do).
	fixWire()
	// extras names what the body holds beyond messages, tools and [top]
	// that a conversion loses: the modeled top-level fields it keeps apart
	// (a Responses previous_response_id) and the unmodeled parts.
	extras() (kept []string, lost []provider.Warning)
	// top returns the top-level fields the codec does not model, in
	// order; addTop appends such fields to the body.
	top() []topField
	addTop(fs []topField)
	bare() bool
	// bodyPath translates a path computed from the decoded llm form (as
	// transcript computes them) into the path of the same value in the
	// body, which differ where the body holds what the llm form skips.
	bodyPath(path string) string
}

// Decode decodes data as a request body (or a bare message array) of
// dialect d. Its errors are the codec's decode errors, [*llm.DecodeError]s
// that name the dotted path of what could not be read (and the line,
// column and byte offset of what is not JSON). The Body keeps data, to write
// what a repair leaves untouched with its bytes: data must not be modified
// while the Body is in use.
func Decode(data []byte, d transcript.Dialect) (*Body, error) {
	cd, err := codecOf(d)
	if err != nil {
		return nil, err
	}
	c, err := cd.decode(data)
	if err != nil {
		return nil, err
	}
	return &Body{dialect: d, c: c, src: data}, nil
}

// New returns a body of dialect d holding r and nothing else, a bare
// message array when bare is set.
func New(d transcript.Dialect, r transcript.Request, bare bool) (*Body, error) {
	cd, err := codecOf(d)
	if err != nil {
		return nil, err
	}
	c := cd.empty(bare)
	c.set(r)
	return &Body{dialect: d, c: c}, nil
}

// A codec is how this package makes a body of one dialect: by decoding
// one, aliasing the bytes (the codecs' DecodeShared), or empty.
type codec struct {
	decode func(data []byte) (codecBody, error)
	// after decodes a body whose message array holds only what follows
	// the messages of prev's body (a [Judge] cuts the others out).
	after  func(prev codecBody, data []byte) (codecBody, error)
	empty  func(bare bool) codecBody
	answer func(body []byte, stream bool, history []llm.Message) (*llm.Response, error)
}

var codecs = map[transcript.Dialect]codec{
	transcript.OpenAIChat: {
		decode: func(data []byte) (codecBody, error) {
			r, err := openai.DecodeChatShared(data)
			return chatBody{r}, err
		},
		after: func(prev codecBody, data []byte) (codecBody, error) {
			r, err := openai.DecodeChatAfter(prev.(chatBody).r, data)
			return chatBody{r}, err
		},
		empty:  func(bare bool) codecBody { return chatBody{&openai.ChatRequest{Bare: bare}} },
		answer: openai.DecodeChatAnswer,
	},
	transcript.OpenAIResponses: {
		decode: func(data []byte) (codecBody, error) {
			r, err := openai.DecodeResponsesShared(data)
			return responsesBody{r}, err
		},
		after: func(prev codecBody, data []byte) (codecBody, error) {
			r, err := openai.DecodeResponsesAfter(prev.(responsesBody).r, data)
			return responsesBody{r}, err
		},
		empty: func(bare bool) codecBody { return responsesBody{&openai.ResponsesRequest{Bare: bare}} },
		answer: func(body []byte, stream bool, _ []llm.Message) (*llm.Response, error) {
			return openai.DecodeResponsesAnswer(body, stream)
		},
	},
	transcript.Anthropic: {
		decode: func(data []byte) (codecBody, error) {
			r, err := anthropic.DecodeShared(data)
			return anthropicBody{r}, err
		},
		after: func(prev codecBody, data []byte) (codecBody, error) {
			r, err := anthropic.DecodeAfter(prev.(anthropicBody).r, data)
			return anthropicBody{r}, err
		},
		empty: func(bare bool) codecBody { return anthropicBody{&anthropic.Request{Bare: bare}} },
		answer: func(body []byte, stream bool, _ []llm.Message) (*llm.Response, error) {
			return anthropic.DecodeAnswer(body, stream)
		},
	},
	transcript.Gemini: {
		decode: func(data []byte) (codecBody, error) {
			r, err := gemini.DecodeShared(data)
			return geminiBody{r}, err
		},
		after: func(prev codecBody, data []byte) (codecBody, error) {
			r, err := gemini.DecodeAfter(prev.(geminiBody).r, data)
			return geminiBody{r}, err
		},
		empty:  func(bare bool) codecBody { return geminiBody{&gemini.Request{Bare: bare}} },
		answer: gemini.DecodeAnswer,
	},
}

// codecOf returns the codec of dialect d.
func codecOf(d transcript.Dialect) (codec, error) {
	c, ok := codecs[d]
	if !ok {
		return codec{}, fmt.Errorf("wire: unknown dialect %q (want openai-chat, openai-responses, anthropic or gemini)", d)
	}
	return c, nil
}

// DecodeAnswer returns the model's answer in body, a response of dialect
// d held in memory: a whole response, or its server-sent events when
// stream is set. It is what toolwire's client of d returns for the same
// bytes: reasoning, signatures and provider item ids kept, so that the
// answer appended to the request it answers replays as the provider
// wants (ANT-THINKING-FIRST, GEM-THOUGHT-SIG, OAI-RS-REASONING-PAIR).
// history is that request's conversation, from which the ids made for
// calls sent without one (Gemini) stay apart.
func DecodeAnswer(d transcript.Dialect, body []byte, stream bool, history []llm.Message) (*llm.Response, error) {
	c, err := codecOf(d)
	if err != nil {
		return nil, err
	}
	return c.answer(body, stream, history)
}

// Dialect returns the body's dialect.
func (b *Body) Dialect() transcript.Dialect { return b.dialect }

// Request returns what transcript judges: the messages, the tools and the
// settings that change the rules.
func (b *Body) Request() transcript.Request { return b.request() }

// Bare reports whether the body is a bare message array.
func (b *Body) Bare() bool { return b.c.bare() }

// Encode writes the body back in its dialect, with the warnings of what
// could not be written exactly.
func (b *Body) Encode() ([]byte, []provider.Warning, error) { return b.c.encode() }

// Fields names the body's top-level fields that are neither its messages
// nor its tools (model, temperature, ...): a conversion does not carry them.
func (b *Body) Fields() []string { fields, _ := b.c.extras(); return fields }

// Unmodeled lists what the body holds that the llm form does not
// (cache_control, citations, ...), with paths: kept when the body is
// written back in its own dialect, lost in a conversion.
func (b *Body) Unmodeled() []provider.Warning { _, lost := b.c.extras(); return lost }

// Wire returns what the provider would reject that only the body's shape
// shows (the llm form cannot), found while decoding, with body paths.
func (b *Body) Wire() []transcript.Violation { return b.c.wire() }

// conversation returns what a conversion carries over: the request, with
// Responses instructions as a leading system message.
func (b *Body) conversation() transcript.Request {
	r := b.c.request()
	if rb, ok := b.c.(responsesBody); ok && rb.r.Instructions != "" {
		r.Messages = append([]llm.Message{llm.System(rb.r.Instructions)}, r.Messages...)
	}
	return r
}

// topOf returns the fields of a codec's Fields that have a value: those
// the codec does not model.
func topOf[F any](fields []F, conv func(F) topField) []topField {
	var out []topField
	for _, f := range fields {
		if c := conv(f); c.Value != nil {
			out = append(out, c)
		}
	}
	return out
}

// model returns the string value of a body's top-level "model" field, or
// "" when it has none.
func model[F any](fields []F, kv func(F) (string, []byte)) string {
	for _, f := range fields {
		if k, v := kv(f); k == "model" {
			var m string
			if json.Unmarshal(v, &m) == nil {
				return m
			}
		}
	}
	return ""
}

type chatBody struct{ r *openai.ChatRequest }

func (b chatBody) request() transcript.Request {
	return transcript.Request{Messages: b.r.Messages, Tools: b.r.Tools, Model: model(b.r.Fields, func(f openai.Field) (string, []byte) { return f.Key, f.Value })}
}
func (b chatBody) wire() []transcript.Violation { return b.r.Wire }
func (b chatBody) set(r transcript.Request)     { b.r.Messages, b.r.Tools = r.Messages, r.Tools }
func (b chatBody) encode() ([]byte, []provider.Warning, error) {
	return openai.EncodeChat(b.r)
}
func (b chatBody) extras() ([]string, []provider.Warning) { return nil, b.r.Unmodeled }
func (b chatBody) top() []topField {
	return topOf(b.r.Fields, func(f openai.Field) topField { return topField(f) })
}
func (b chatBody) addTop(fs []topField) {
	for _, f := range fs {
		b.r.Fields = append(b.r.Fields, openai.Field(f))
	}
}
func (b chatBody) fixWire()                 {}
func (b chatBody) bare() bool               { return b.r.Bare }
func (b chatBody) bodyPath(p string) string { return b.r.BodyPath(p) }

type responsesBody struct{ r *openai.ResponsesRequest }

func (b responsesBody) request() transcript.Request {
	return transcript.Request{Messages: b.r.Messages, Tools: b.r.Tools, PreviousResponse: b.r.Continues(), ReasoningEffort: b.r.ReasoningEffort(),
		Model: model(b.r.Fields, func(f openai.Field) (string, []byte) { return f.Key, f.Value })}
}
func (b responsesBody) wire() []transcript.Violation { return b.r.Wire }
func (b responsesBody) set(r transcript.Request)     { b.r.Messages, b.r.Tools = r.Messages, r.Tools }
func (b responsesBody) encode() ([]byte, []provider.Warning, error) {
	return openai.EncodeResponses(b.r)
}
func (b responsesBody) extras() ([]string, []provider.Warning) {
	if b.r.PreviousResponseID != "" {
		return []string{"previous_response_id"}, b.r.Unmodeled
	}
	return nil, b.r.Unmodeled
}
func (b responsesBody) top() []topField {
	return topOf(b.r.Fields, func(f openai.Field) topField { return topField(f) })
}
func (b responsesBody) addTop(fs []topField) {
	for _, f := range fs {
		b.r.Fields = append(b.r.Fields, openai.Field(f))
	}
}
func (b responsesBody) fixWire()                 {}
func (b responsesBody) bare() bool               { return b.r.Bare }
func (b responsesBody) bodyPath(p string) string { return b.r.BodyPath(p) }

type anthropicBody struct{ r *anthropic.Request }

func (b anthropicBody) request() transcript.Request {
	kv := func(f anthropic.Field) (string, []byte) { return f.Key, f.Value }
	return transcript.Request{Messages: b.r.Messages, Tools: b.r.Tools, Thinking: b.r.Thinking,
		ToolChoice: anthropicToolChoice(field(b.r.Fields, "tool_choice", kv)), Model: model(b.r.Fields, kv)}
}

// field returns the value of a body's top-level field key, or nil.
func field[F any](fields []F, key string, kv func(F) (string, []byte)) []byte {
	for _, f := range fields {
		if k, v := kv(f); k == key {
			return v
		}
	}
	return nil
}

// anthropicToolChoice reads an Anthropic tool_choice, {"type": "auto",
// "any", "tool" (with "name") or "none"}; a value it cannot read is auto,
// the default, which no rule depends on.
func anthropicToolChoice(v []byte) llm.ToolChoice {
	var tc struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if v == nil || json.Unmarshal(v, &tc) != nil {
		return llm.ToolChoice{}
	}
	switch tc.Type {
	case "any":
		return llm.ToolChoice{Mode: llm.ToolRequired}
	case "tool":
		return llm.ToolChoice{Mode: llm.ToolRequired, Name: tc.Name}
	case "none":
		return llm.ToolChoice{Mode: llm.ToolNone}
	}
	return llm.ToolChoice{}
}
func (b anthropicBody) wire() []transcript.Violation { return b.r.Wire }
func (b anthropicBody) set(r transcript.Request) {
	b.r.Messages, b.r.Tools = r.Messages, r.Tools
	if b.r.Thinking && !r.Thinking {
		// Repair turned thinking off: drop the body's thinking field.
		fields := b.r.Fields[:0:0]
		for _, f := range b.r.Fields {
			if f.Key != "thinking" {
				fields = append(fields, f)
			}
		}
		b.r.Fields = fields
	}
	b.r.Thinking = r.Thinking
}
func (b anthropicBody) encode() ([]byte, []provider.Warning, error) { return anthropic.Encode(b.r) }
func (b anthropicBody) extras() ([]string, []provider.Warning)      { return nil, b.r.Unmodeled }
func (b anthropicBody) top() []topField {
	return topOf(b.r.Fields, func(f anthropic.Field) topField { return topField{f.Key, f.Value} })
}
func (b anthropicBody) addTop(fs []topField) {
	for _, f := range fs {
		b.r.Fields = append(b.r.Fields, anthropic.Field{Key: f.Key, Value: f.Value})
	}
}
func (b anthropicBody) fixWire()                 { b.r.FixWire = true }
func (b anthropicBody) bare() bool               { return b.r.Bare }
func (b anthropicBody) bodyPath(p string) string { return b.r.BodyPath(p) }

type geminiBody struct{ r *gemini.Request }

func (b geminiBody) request() transcript.Request {
	kv := func(f gemini.Field) (string, []byte) { return f.Key, f.Value }
	cached := field(b.r.Fields, "cachedContent", kv)
	if cached == nil {
		cached = field(b.r.Fields, "cached_content", kv) // the proto name, which the API reads too
	}
	var name string
	return transcript.Request{Messages: b.r.Messages, Tools: b.r.Tools, Model: model(b.r.Fields, kv),
		CachedContent: cached != nil && json.Unmarshal(cached, &name) == nil && name != ""}
}
func (b geminiBody) wire() []transcript.Violation                { return b.r.Wire }
func (b geminiBody) set(r transcript.Request)                    { b.r.Messages, b.r.Tools = r.Messages, r.Tools }
func (b geminiBody) encode() ([]byte, []provider.Warning, error) { return gemini.Encode(b.r) }
func (b geminiBody) extras() ([]string, []provider.Warning)      { return nil, b.r.Unmodeled }
func (b geminiBody) top() []topField {
	return topOf(b.r.Fields, func(f gemini.Field) topField { return topField{f.Key, f.Value} })
}
func (b geminiBody) addTop(fs []topField) {
	for _, f := range fs {
		b.r.Fields = append(b.r.Fields, gemini.Field{Key: f.Key, Value: f.Value})
	}
}
func (b geminiBody) fixWire()   { b.r.FixWire = true }
func (b geminiBody) bare() bool { return b.r.Bare }

// bodyPath returns p: a Gemini body holds nothing the llm form skips, and
// its contents have no string form, so transcript's paths are the body's.
func (b geminiBody) bodyPath(p string) string { return p }

// Rewrite replaces the body's messages and tools with those of r, keeps
// its other fields and settings, and writes it back; every value the
// change leaves as it was keeps the bytes it had in the decoded body. The
// Body holds r's messages and tools after. It is how a caller that holds
// a body (a gateway) changes what it sends, as [Body.Fix] does for a
// repair.
func (b *Body) Rewrite(r transcript.Request) ([]byte, error) {
	cur := b.c.request()
	cur.Messages, cur.Tools = r.Messages, r.Tools
	b.c.set(cur)
	out, _, err := b.c.encode()
	if err != nil {
		return nil, fmt.Errorf("%w: encode the rewritten body: %v", ErrInternal, err)
	}
	if b.src != nil {
		out = splice(b.src, out)
	}
	return out, nil
}
