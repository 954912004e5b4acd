package anthropic

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/transcript"
)

// TestRepairAcceptedByteIdentical is the property that --fix touches only
// what it repairs, over generated bodies the Messages API accepts: decode,
// transcript.RepairRequest (which must find nothing to do) and encode give
// the body back, compacted, byte for byte. The bodies vary what the llm
// form does not hold: key order, white space, escapes, string or block
// content, cache_control and citations, nulls and empty strings, thinking
// and redacted thinking, server tool blocks, search results, tool
// references, file sources, container uploads, mid-conversation system
// messages (for a model that takes them), server tools.
func TestRepairAcceptedByteIdentical(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	for seed := range uint64(n) {
		g := &bodyGen{r: rand.New(rand.NewPCG(seed, 7))}
		body := g.body()
		r, err := Decode(body)
		if err != nil {
			t.Fatalf("seed %d: Decode error: %v\n%s", seed, err, body)
		}
		req := transcript.Request{Messages: r.Messages, Tools: r.Tools, Thinking: r.Thinking, Model: g.model}
		vs := append(append([]transcript.Violation(nil), r.Wire...), transcript.CheckRequest(req, Dialect)...)
		if !transcript.Accepted(vs) {
			t.Fatalf("seed %d: the generated body is rejected: %v\n%s", seed, vs, body)
		}
		fixed, changes, err := transcript.RepairRequest(req, Dialect, nil)
		if err != nil || len(changes) > 0 {
			t.Fatalf("seed %d: RepairRequest(accepted) = %v, %v; want no change\n%s", seed, changes, err, body)
		}
		r.Messages, r.Tools, r.Thinking = fixed.Messages, fixed.Tools, fixed.Thinking
		enc, warns, err := Encode(r)
		if err != nil {
			t.Fatalf("seed %d: Encode error: %v", seed, err)
		}
		if want := codectest.Compact(t, body); !bytes.Equal(enc, want) {
			i := 0
			for i < len(enc) && i < len(want) && enc[i] == want[i] {
				i++
			}
			t.Fatalf("seed %d: Encode(RepairRequest(Decode(x))) differs from compact(x) at byte %d:\n got: %.200s\nwant: %.200s", seed, i, enc[i:], want[i:])
		}
		if len(warns) > 0 {
			t.Fatalf("seed %d: Encode warnings = %v, want none", seed, warns)
		}
	}
}

// bodyGen writes a random Messages API request body that the API accepts.
type bodyGen struct {
	r        *rand.Rand
	model    string
	thinking bool
	ids      int
}

// genMember is a JSON object genMember: its key and its value, already JSON.
type genMember struct{ k, v string }

// obj writes an object of ms, in a random order when shuffle is set, with
// random white space.
func (g *bodyGen) obj(shuffle bool, ms ...genMember) string {
	if shuffle {
		g.r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	}
	var b strings.Builder
	b.WriteString("{" + g.ws())
	for i, m := range ms {
		if i > 0 {
			b.WriteString("," + g.ws())
		}
		b.WriteString(g.str(m.k) + g.ws() + ":" + g.ws() + m.v)
	}
	b.WriteString(g.ws() + "}")
	return b.String()
}

func (g *bodyGen) arr(vs ...string) string {
	return "[" + g.ws() + strings.Join(vs, ","+g.ws()) + g.ws() + "]"
}

func (g *bodyGen) ws() string {
	return [...]string{"", "", "", " ", "\n  ", "\t"}[g.r.IntN(6)]
}

func (g *bodyGen) pick(ss ...string) string { return ss[g.r.IntN(len(ss))] }

func (g *bodyGen) chance(p float64) bool { return g.r.Float64() < p }

// str writes s as a JSON string, escaping some characters that need no
// escape, as other encoders do.
func (g *bodyGen) str(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteString(`\` + string(c))
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c > 0x7e && g.chance(0.5) || (c == '<' || c == '&' || c == '/') && g.chance(0.5):
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (g *bodyGen) text() string {
	return g.pick("Weather in Paris?", "Voilà: 18 °C <sunny> & dry", "line one\nline two", "say \"hi\" / bye", "北京 ok", "Done.")
}

// textBlock writes a text block, sometimes with cache_control or
// citations.
func (g *bodyGen) textBlock() string {
	ms := []genMember{{"type", `"text"`}, {"text", g.str(g.text())}}
	switch g.r.IntN(5) {
	case 0:
		ms = append(ms, genMember{"cache_control", g.obj(false, genMember{"type", `"ephemeral"`})})
	case 1:
		ms = append(ms, genMember{"citations", g.pick("null", "[]")})
	}
	return g.obj(g.chance(0.3), ms...)
}

func (g *bodyGen) id(prefix string) string {
	g.ids++
	return fmt.Sprintf("%s%03d%s", prefix, g.ids, g.pick("", "AbC", "_x-y"))
}

// userContent writes the content of a user message that asks something.
func (g *bodyGen) userContent() string {
	if g.chance(0.4) {
		return g.str(g.text())
	}
	blocks := []string{g.textBlock()}
	for range g.r.IntN(3) {
		switch g.r.IntN(6) {
		case 0:
			blocks = append(blocks, g.obj(g.chance(0.3), genMember{"type", `"image"`}, genMember{"source", g.obj(false, genMember{"type", `"base64"`}, genMember{"media_type", `"image/png"`}, genMember{"data", `"iVBORw0KGgo="`})}))
		case 1:
			blocks = append(blocks, g.obj(false, genMember{"type", `"document"`}, genMember{"source", g.obj(false, genMember{"type", `"url"`}, genMember{"url", `"https://example.com/a.pdf"`})}, genMember{"title", `"A"`}))
		case 2:
			blocks = append(blocks, g.obj(false, genMember{"type", `"document"`}, genMember{"source", g.obj(false, genMember{"type", `"file"`}, genMember{"file_id", g.str(g.id("file_"))})}))
		case 3:
			blocks = append(blocks, g.obj(false, genMember{"type", `"container_upload"`}, genMember{"file_id", g.str(g.id("file_"))}))
		case 4:
			blocks = append(blocks, g.obj(false, genMember{"type", `"document"`}, genMember{"source", g.obj(false, genMember{"type", `"text"`}, genMember{"media_type", `"text/plain"`}, genMember{"data", g.str(g.text())})}))
		default:
			blocks = append(blocks, g.textBlock())
		}
	}
	return g.arr(blocks...)
}

func (g *bodyGen) msg(role, content string) string {
	return g.obj(g.chance(0.3), genMember{"role", g.str(role)}, genMember{"content", content})
}

// step writes one assistant step: thinking (when it starts a turn with
// thinking on), maybe a server tool use and its result, maybe text, then
// the calls. It returns the message and the ids of its calls.
func (g *bodyGen) step(first bool) (string, []string) {
	var blocks []string
	if g.thinking && first || g.chance(0.15) {
		if g.chance(0.8) {
			blocks = append(blocks, g.obj(false, genMember{"type", `"thinking"`}, genMember{"thinking", g.str("Let me think. " + g.text())}, genMember{"signature", `"EqQBCkgIARAB=="`}))
		} else {
			blocks = append(blocks, g.obj(false, genMember{"type", `"redacted_thinking"`}, genMember{"data", `"EmwKAhgBEgy3va3p"`}))
		}
	}
	if g.chance(0.2) {
		srv := g.id("srvtoolu_")
		blocks = append(blocks,
			g.obj(false, genMember{"type", `"server_tool_use"`}, genMember{"id", g.str(srv)}, genMember{"name", `"web_search"`}, genMember{"input", `{"query":"q"}`}),
			g.obj(false, genMember{"type", `"web_search_tool_result"`}, genMember{"tool_use_id", g.str(srv)}, genMember{"content", g.arr(g.obj(false, genMember{"type", `"web_search_result"`}, genMember{"url", `"https://go.dev"`}, genMember{"title", `"Go"`}, genMember{"encrypted_content", `"Eo8B"`}, genMember{"page_age", "null"}))}))
	}
	if g.chance(0.6) {
		blocks = append(blocks, g.textBlock())
	}
	var ids []string
	for range g.r.IntN(4) {
		id := g.id("toolu_")
		ids = append(ids, id)
		ms := []genMember{{"type", `"tool_use"`}, {"id", g.str(id)}, {"name", g.str(g.pick("get_weather", "search", "now"))}, {"input", g.pick(`{}`, `{"city":"Paris"}`, `{ "q" : [1, 2.50, true, null] }`)}}
		if g.chance(0.2) {
			ms = append(ms, genMember{"caller", `{"type":"direct"}`})
		}
		blocks = append(blocks, g.obj(g.chance(0.3), ms...))
	}
	if len(blocks) == 0 {
		blocks = append(blocks, g.textBlock())
	}
	if !first && len(ids) == 0 && g.chance(0.3) {
		return g.msg("assistant", g.str(g.text())), nil
	}
	return g.msg("assistant", g.arr(blocks...)), ids
}

// results writes the user message that answers ids, in any order.
func (g *bodyGen) results(ids []string) string {
	g.r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	var blocks []string
	for _, id := range ids {
		ms := []genMember{{"type", `"tool_result"`}, {"tool_use_id", g.str(id)}}
		switch g.r.IntN(6) {
		case 0: // no content
		case 1:
			ms = append(ms, genMember{"content", `""`})
		case 2:
			ms = append(ms, genMember{"content", g.arr()})
		case 3:
			ms = append(ms, genMember{"content", g.arr(g.textBlock(), g.obj(false, genMember{"type", `"tool_reference"`}, genMember{"tool_name", `"lookup"`}))})
		case 4:
			ms = append(ms, genMember{"content", g.arr(g.obj(false, genMember{"type", `"search_result"`}, genMember{"source", `"https://example.com"`}, genMember{"title", `"T"`}, genMember{"content", g.arr(g.textBlock())}))})
		default:
			ms = append(ms, genMember{"content", g.str(`{"temp":18}`)})
		}
		if g.chance(0.3) {
			ms = append(ms, genMember{"is_error", g.pick("true", "false")})
		}
		if g.chance(0.1) {
			ms = append(ms, genMember{"cache_control", `{"type":"ephemeral"}`})
		}
		blocks = append(blocks, g.obj(g.chance(0.3), ms...))
	}
	return g.msg("user", g.arr(blocks...))
}

func (g *bodyGen) body() []byte {
	g.model = g.pick("claude-sonnet-4-5", "claude-opus-4-8", "claude-haiku-4-5-20251001", "claude-3-5-sonnet-latest")
	g.thinking = g.chance(0.3)
	var msgs []string
	for turn := range 1 + g.r.IntN(4) {
		msgs = append(msgs, g.msg("user", g.userContent()))
		if g.model == "claude-opus-4-8" && g.chance(0.3) {
			// After a user message, before an assistant one: where the
			// model takes a system message.
			content := g.str("Be brief.")
			if g.chance(0.5) {
				content = g.arr(g.obj(false, genMember{"type", `"tool_addition"`}, genMember{"tool", `{"type":"tool_reference","name":"lookup"}`}), g.textBlock())
			}
			msgs = append(msgs, g.msg("system", content))
		}
		last := turn > 0 && g.chance(0.3)
		for step := 0; ; step++ {
			m, ids := g.step(step == 0)
			msgs = append(msgs, m)
			if len(ids) == 0 {
				break
			}
			msgs = append(msgs, g.results(ids))
			if step > 2 || g.chance(0.4) {
				// The request may continue the tool loop.
				if last {
					return g.finish(msgs)
				}
				if g.chance(0.5) {
					msgs = append(msgs, g.msg("assistant", g.arr(g.textBlock())))
				}
				break
			}
		}
		if last {
			break
		}
	}
	msgs = append(msgs, g.msg("user", g.userContent()))
	return g.finish(msgs)
}

func (g *bodyGen) finish(msgs []string) []byte {
	maxTokens := g.pick("1024", "4096", "16000")
	if g.thinking {
		maxTokens = "16000" // more than the budget
	}
	ms := []genMember{{"model", g.str(g.model)}, {"max_tokens", maxTokens}, {"messages", g.arr(msgs...)}}
	if g.chance(0.5) {
		sys := g.str("You are a careful assistant.")
		if g.chance(0.5) {
			sys = g.arr(g.textBlock(), g.textBlock())
		}
		ms = append(ms, genMember{"system", sys})
	}
	if g.thinking {
		ms = append(ms, genMember{"thinking", g.obj(true, genMember{"type", `"enabled"`}, genMember{"budget_tokens", "1024"})})
	}
	var tools []string
	for _, name := range []string{"get_weather", "search", "now"} {
		if g.chance(0.7) {
			tms := []genMember{{"name", g.str(name)}, {"input_schema", `{"type":"object","properties":{"city":{"type":"string"}}}`}}
			switch g.r.IntN(4) {
			case 0:
				tms = append(tms, genMember{"description", g.str(g.text())})
			case 1:
				tms = append(tms, genMember{"description", "null"})
			case 2:
				tms = append(tms, genMember{"cache_control", `{"type":"ephemeral"}`})
			}
			tools = append(tools, g.obj(g.chance(0.3), tms...))
		}
	}
	if g.chance(0.3) {
		tools = append(tools, `{"type":"web_search_20250305","name":"web_search","max_uses":3}`)
	}
	if len(tools) > 0 {
		ms = append(ms, genMember{"tools", g.arr(tools...)})
	}
	if g.chance(0.3) {
		ms = append(ms, genMember{"metadata", `{"user_id":"u-1"}`}, genMember{"stream", "false"}, genMember{"temperature", "0.5"})
	}
	return []byte(g.obj(true, ms...))
}
