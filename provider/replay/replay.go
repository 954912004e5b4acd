// Package replay is an llm.Model that answers from a file of recorded model
// turns instead of a provider: the bundled example agent runs with it when
// no API key is set (toolwire run --model replay:FILE), with real tools,
// real shaping and real checks — only the model's answers are canned.
//
// A replay file, in YAML or JSON:
//
//	dialect: openai-chat      # whose rules the history is checked by (default openai-chat)
//	model: gpt-4o             # whose limits apply (default gpt-4o)
//	conversations:
//	  - question: 北京今天适合穿什么衣服   # matched to the first user message
//	    turns:
//	      - text: 我先查一下北京今天的天气。
//	        calls:
//	          - name: get_weather
//	            args: {city: 北京}
//	      - text: 北京今天 6°C，有风……
//
// A file with one conversation may give its turns at the top level
// ("turns:") and then answers any question. Each request is answered with
// the turn whose number is the count of assistant messages in its history:
// the model is stateless, as a provider is, and serves many runs at once.
package replay

import (
	"context"
	"fmt"
	"iter"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/docfile"
	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// A Turn is one recorded answer.
type Turn struct {
	// Text is the assistant's text, streamed in small pieces.
	Text string
	// Calls are its tool calls, in order.
	Calls []Call
}

// A Call is one recorded tool call.
type Call struct {
	// ID is the call's id; "" makes "call_TURN_I".
	ID   string
	Name string
	// Args is the arguments, a JSON object.
	Args jsontext.Value
}

// A Conversation is the turns recorded for one question.
type Conversation struct {
	// Question is matched to the run's first user message, ignoring
	// case, white space and end punctuation; "" matches any.
	Question string
	Turns    []Turn
}

// A Model answers from a replay. It is safe for concurrent use.
type Model struct {
	file    string
	dialect transcript.Dialect
	model   string
	convs   []Conversation
}

var _ llm.Model = (*Model)(nil)

// Load reads a replay file.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a replay from data, named file in errors. Every error names
// the line and the key, and says what is wanted.
func Parse(file string, data []byte) (*Model, error) {
	root, err := docfile.Parse(file, data)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if err := root.Keys("dialect", "model", "conversations", "turns"); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	m := &Model{file: file, dialect: transcript.OpenAIChat, model: "gpt-4o"}
	d, err := root.Str("dialect", false)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if d != "" {
		if m.dialect, err = transcript.ParseDialect(d); err != nil {
			return nil, fmt.Errorf("replay: %w", root.Get("dialect").Errorf("%s", strings.TrimPrefix(err.Error(), "transcript: ")))
		}
	}
	if name, err := root.Str("model", false); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	} else if name != "" {
		m.model = name
	}
	convs, err := root.List("conversations")
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if top := root.Get("turns"); top != nil {
		if convs != nil {
			return nil, fmt.Errorf("replay: %w", top.Errorf("give either conversations or turns, not both"))
		}
		c, err := conversation(root, false)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		m.convs = append(m.convs, c)
	}
	for _, n := range convs {
		if err := n.Keys("question", "turns"); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		c, err := conversation(n, true)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		m.convs = append(m.convs, c)
	}
	if len(m.convs) == 0 {
		return nil, fmt.Errorf("replay: %w", root.Errorf("no turns: give conversations (each with a question and turns) or turns"))
	}
	return m, nil
}

func conversation(n *docfile.Node, needQuestion bool) (Conversation, error) {
	var c Conversation
	var err error
	if needQuestion {
		if c.Question, err = n.Str("question", true); err != nil {
			return c, err
		}
	}
	turns, err := n.List("turns")
	if err != nil {
		return c, err
	}
	if len(turns) == 0 {
		return c, n.Errorf("no turns: a conversation needs at least one")
	}
	for _, tn := range turns {
		if err := tn.Keys("text", "calls"); err != nil {
			return c, err
		}
		var t Turn
		if t.Text, err = tn.Str("text", false); err != nil {
			return c, err
		}
		calls, err := tn.List("calls")
		if err != nil {
			return c, err
		}
		for _, cn := range calls {
			if err := cn.Keys("id", "name", "args"); err != nil {
				return c, err
			}
			var call Call
			if call.ID, err = cn.Str("id", false); err != nil {
				return c, err
			}
			if call.Name, err = cn.Str("name", true); err != nil {
				return c, err
			}
			switch a := cn.Get("args"); {
			case a == nil || a.Kind == docfile.Null:
				call.Args = jsontext.Value(`{}`)
			case a.Kind == docfile.Map:
				call.Args = a.JSON()
			case a.Kind == docfile.String && jsonx.Valid([]byte(a.Text)) == nil && strings.HasPrefix(strings.TrimSpace(a.Text), "{"):
				call.Args = jsontext.Value(a.Text)
			default:
				return c, a.Errorf("want the arguments as a mapping (args: {city: Paris}) or a JSON object string")
			}
			t.Calls = append(t.Calls, call)
		}
		if t.Text == "" && len(t.Calls) == 0 {
			return c, tn.Errorf("an empty turn: give text, calls or both")
		}
		c.Turns = append(c.Turns, t)
	}
	return c, nil
}

// Dialect returns the dialect the replay's history is checked by.
func (m *Model) Dialect() string { return string(m.dialect) }

// Name returns the model whose limits the replay stands for.
func (m *Model) Name() string { return m.model }

// File returns the replay's file name.
func (m *Model) File() string { return m.file }

// Questions returns the questions the replay has turns for.
func (m *Model) Questions() []string {
	var qs []string
	for _, c := range m.convs {
		qs = append(qs, c.Question)
	}
	return qs
}

// Stream answers req with the recorded turn its history is at. Like a
// provider client, it refuses a request that [llm.Request.Validate]
// refuses, and stops at the next event once ctx is done.
func (m *Model) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		if err := req.Validate(); err != nil {
			yield(nil, fmt.Errorf("replay: %w", err))
			return
		}
		// send yields ev, or ctx's error once ctx is done.
		send := func(ev llm.Event) bool {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return false
			}
			return yield(ev, nil)
		}
		question, answered := "", 0
		for _, msg := range req.Messages {
			switch msg.Role {
			case llm.RoleUser:
				if question == "" {
					question = msg.Text()
				}
			case llm.RoleAssistant:
				answered++
			}
		}
		c := m.find(question)
		if c == nil {
			yield(nil, &llm.Error{Kind: llm.Invalid, Op: "replay", ProviderMessage: fmt.Sprintf(
				"%s has no recorded turns for the question %q; it has turns for %s (set an API key to ask a real model)",
				m.file, question, someOf(m.Questions()))})
			return
		}
		if answered >= len(c.Turns) {
			yield(nil, &llm.Error{Kind: llm.Invalid, Op: "replay", ProviderMessage: fmt.Sprintf(
				"%s has %d recorded turns for this question, and the run asks for turn %d", m.file, len(c.Turns), answered+1)})
			return
		}
		t := c.Turns[answered]
		for _, piece := range pieces(t.Text) {
			if !send(llm.TextDelta{Text: piece}) {
				return
			}
		}
		for i, call := range t.Calls {
			id := call.ID
			if id == "" {
				id = "call_" + strconv.Itoa(answered+1) + "_" + strconv.Itoa(i)
			}
			if !send(llm.ToolCallDelta{Index: i, ID: id, Name: call.Name, Arguments: string(call.Args)}) {
				return
			}
		}
		in := 0
		for _, msg := range req.Messages {
			for _, p := range msg.Parts {
				switch p := p.(type) {
				case llm.Text:
					in += len(p.Text)
				case llm.ToolResult:
					for _, q := range p.Content {
						if tx, ok := q.(llm.Text); ok {
							in += len(tx.Text)
						}
					}
				}
			}
		}
		out := len(t.Text)
		for _, call := range t.Calls {
			out += len(call.Name) + len(call.Args)
		}
		if !send(llm.Usage{InputTokens: 1 + in/4, OutputTokens: 1 + out/4}) {
			return
		}
		finish := llm.Finish{Reason: llm.FinishStop, Raw: "stop"}
		if len(t.Calls) > 0 {
			finish = llm.Finish{Reason: llm.FinishToolCalls, Raw: "tool_calls"}
		}
		send(finish)
	}
}

// find returns the conversation for question.
func (m *Model) find(question string) *Conversation {
	q := normalize(question)
	for i := range m.convs {
		if c := &m.convs[i]; c.Question == "" || normalize(c.Question) == q {
			return c
		}
	}
	return nil
}

// normalize drops case, white space and end punctuation: "北京今天适合穿
// 什么衣服？" matches "北京今天适合穿什么衣服".
func normalize(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// someOf names the recorded questions qs in a short list: the first
// five, each cut to its first words, and how many more there are.
func someOf(qs []string) string {
	const shown, width = 5, 60
	var out []string
	for i, q := range qs {
		if i == shown {
			break
		}
		if q == "" {
			q = "any question"
		} else if r := []rune(q); len(r) > width {
			cut := string(r[:width])
			if sp := strings.LastIndexByte(cut, ' '); sp > 0 && r[width] != ' ' { // not in the middle of a word
				cut = cut[:sp]
			}
			q = cut + "…"
		}
		out = append(out, strconv.Quote(q))
	}
	list := strings.Join(out, ", ")
	if len(qs) > shown {
		list += fmt.Sprintf(" and %d more", len(qs)-shown)
	}
	if len(qs) == 1 {
		return "one question: " + list
	}
	return fmt.Sprintf("%d questions: %s", len(qs), list)
}

// pieces cuts text as a provider streams it: a few characters at a time.
func pieces(text string) []string {
	var out []string
	for len(text) > 0 {
		n, runes := 0, 0
		for n < len(text) && runes < 4 {
			_, size := utf8.DecodeRuneInString(text[n:])
			n += size
			runes++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}
