package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/transcript"
)

// A structured property test: random bodies built from the features the
// codecs handle (unmodeled fields, opaque items, wire violations, duplicate
// ids, images, reasoning, custom calls), each checked like the fuzz
// targets. Byte-level fuzzing reaches such combinations only slowly.

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func randText(r *rand.Rand) string {
	return pick(r, `""`, `"hi"`, `"<b>&amp;</b>"`, `"é\u00e9\ud83d\ude00"`, `"line\nbreak"`,
		`"{\"status\":\"error\",\"summary\":\"s\",\"error\":{\"type\":\"timeout\",\"message\":\"m\",\"retryable\":true}}"`)
}

func randChatPart(r *rand.Rand) string {
	return pick(r,
		`{"type":"text","text":`+randText(r)+`}`,
		`{"type":"image_url","image_url":{"url":"https://x/y.png"}}`,
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo=","detail":"`+pick(r, "auto", "low")+`"}}`,
		`{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}`,
		`{"type":"refusal","refusal":"no"}`,
		`{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}`,
	)
}

func randChatContent(r *rand.Rand) string {
	switch r.IntN(5) {
	case 0:
		return "null"
	case 1:
		return "[]"
	case 2, 3:
		return randText(r)
	}
	parts := make([]string, 1+r.IntN(3))
	for i := range parts {
		parts[i] = randChatPart(r)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func randChatMessage(r *rand.Rand, ids *[]string) string {
	var fields []string
	add := func(f string) { fields = append(fields, f) }
	switch r.IntN(6) {
	case 0:
		add(`"role":"` + pick(r, "system", "developer") + `"`)
		add(`"content":` + randChatContent(r))
	case 1:
		add(`"role":"user"`)
		if r.IntN(8) > 0 {
			add(`"content":` + randChatContent(r))
		}
	case 2, 3:
		add(`"role":"assistant"`)
		if r.IntN(3) > 0 {
			add(`"content":` + randChatContent(r))
		}
		switch r.IntN(4) {
		case 0:
			add(`"tool_calls":[]`)
		case 1, 2:
			calls := make([]string, 1+r.IntN(3))
			for i := range calls {
				id := fmt.Sprintf("call_%d", r.IntN(6))
				*ids = append(*ids, id)
				if r.IntN(5) == 0 {
					calls[i] = `{"id":"` + id + `","type":"custom","custom":{"name":"sql","input":"SELECT 1"}}`
				} else {
					calls[i] = `{"id":"` + id + `","type":"function","function":{"name":"f` + fmt.Sprint(r.IntN(3)) + `","arguments":` + pick(r, `"{}"`, `"{\"a\":1}"`, `"{bad"`, `""`) + `}}`
				}
			}
			add(`"tool_calls":[` + strings.Join(calls, ",") + `]`)
		}
		if r.IntN(5) == 0 {
			add(`"refusal":` + pick(r, `null`, `"no"`))
		}
	case 4:
		add(`"role":"tool"`)
		if r.IntN(6) > 0 {
			id := "call_x"
			if len(*ids) > 0 && r.IntN(4) > 0 {
				id = pick(r, *ids...)
			}
			add(`"tool_call_id":"` + id + `"`)
		}
		add(`"content":` + randChatContent(r))
	case 5:
		return `{"role":"function","name":"legacy","content":"old"}`
	}
	if r.IntN(6) == 0 {
		add(pick(r, `"name":"n"`, `"annotations":[]`, `"x_extra":{"a":1}`, `"audio":null`))
	}
	return jobj(r, fields...)
}

func randChatBody(r *rand.Rand) string {
	var ids []string
	msgs := make([]string, r.IntN(8))
	for i := range msgs {
		msgs[i] = randChatMessage(r, &ids)
	}
	arr := "[" + strings.Join(msgs, ",") + "]"
	if r.IntN(4) == 0 {
		return arr
	}
	fields := []string{`"messages":` + arr, `"model":"gpt-4o"`}
	if r.IntN(2) == 0 {
		tools := []string{
			`{"type":"function","function":{"name":"f0","parameters":{"type":"object"},"strict":true}}`,
			`{"type":"custom","custom":{"name":"sql"}}`,
			`{"type":"function","function":{"name":"f1","description":"d","x":1}}`,
		}
		fields = append(fields, `"tools":[`+strings.Join(some(r, tools), ",")+`]`)
	}
	return jobj(r, fields...)
}

func randRsPart(r *rand.Rand, role string) string {
	text := "input_text"
	if role == "assistant" {
		text = "output_text"
	}
	return pick(r,
		`{"type":"`+text+`","text":`+randText(r)+`}`,
		`{"type":"`+text+`","text":"a","annotations":[]}`,
		`{"type":"output_text","text":"b","annotations":[{"type":"url_citation","url":"u"}]}`,
		`{"type":"input_image","image_url":"https://x/y.png","detail":"`+pick(r, "auto", "high")+`"}`,
		`{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}`,
		`{"type":"input_file","file_id":"file-1"}`,
		`{"type":"refusal","refusal":"no"}`,
	)
}

func randRsContent(r *rand.Rand, role string) string {
	if r.IntN(3) == 0 {
		return randText(r)
	}
	parts := make([]string, r.IntN(3))
	for i := range parts {
		parts[i] = randRsPart(r, role)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func randRsItem(r *rand.Rand, ids *[]string) string {
	id := func() string { return fmt.Sprintf(`"id":"item_%d"`, r.IntN(8)) }
	var fields []string
	add := func(f string) { fields = append(fields, f) }
	switch r.IntN(9) {
	case 0, 1:
		role := pick(r, "user", "assistant", "system", "developer")
		if r.IntN(3) > 0 {
			add(`"type":"message"`)
		}
		add(`"role":"` + role + `"`)
		add(`"content":` + randRsContent(r, role))
		if r.IntN(3) == 0 {
			add(id())
		}
		if r.IntN(4) == 0 {
			add(`"status":"completed"`)
		}
	case 2, 3:
		cid := fmt.Sprintf("call_%d", r.IntN(6))
		*ids = append(*ids, cid)
		add(`"type":"function_call"`)
		add(`"call_id":"` + cid + `"`)
		add(`"name":"f"`)
		add(`"arguments":` + pick(r, `"{}"`, `"{bad"`, `""`))
		if r.IntN(2) == 0 {
			add(id())
		}
	case 4, 5:
		cid := "call_x"
		if len(*ids) > 0 && r.IntN(4) > 0 {
			cid = pick(r, *ids...)
		}
		add(`"type":"function_call_output"`)
		add(`"call_id":"` + cid + `"`)
		add(`"output":` + randRsContent(r, "tool"))
	case 6:
		add(`"type":"reasoning"`)
		add(id())
		add(`"summary":[{"type":"summary_text","text":"t"}]`)
		if r.IntN(2) == 0 {
			add(`"encrypted_content":"gAAA"`)
		}
	case 7:
		add(`"type":"` + pick(r, "item_reference", "web_search_call") + `"`)
		add(id())
	case 8:
		cid := fmt.Sprintf("call_%d", r.IntN(6))
		add(`"type":"` + pick(r, "custom_tool_call", "custom_tool_call_output") + `"`)
		add(`"call_id":"` + cid + `"`)
		if strings.HasSuffix(fields[0], `output"`) {
			add(`"output":"42"`)
		} else {
			add(`"name":"sql","input":"SELECT 1"`)
		}
	}
	return jobj(r, fields...)
}

func randRsBody(r *rand.Rand) string {
	var ids []string
	items := make([]string, r.IntN(9))
	for i := range items {
		items[i] = randRsItem(r, &ids)
	}
	arr := "[" + strings.Join(items, ",") + "]"
	switch r.IntN(5) {
	case 0:
		return arr
	case 1:
		return `{"model":"m","input":` + randText(r) + `}`
	}
	fields := []string{`"input":` + arr, `"model":"gpt-5"`}
	if r.IntN(2) == 0 {
		fields = append(fields, `"instructions":"be brief"`)
	}
	if r.IntN(2) == 0 {
		tools := []string{`{"type":"function","name":"f","parameters":{"type":"object"}}`, `{"type":"web_search"}`, `{"type":"function","name":"g","strict":false,"defer_loading":true}`}
		fields = append(fields, `"tools":[`+strings.Join(some(r, tools), ",")+`]`)
	}
	return jobj(r, fields...)
}

func TestRandomBodies(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		chat := randChatBody(r)
		if _, err := DecodeChat([]byte(chat)); err != nil {
			t.Fatalf("DecodeChat(%s) = %v, want no error (the generator writes valid bodies)", chat, err)
		}
		checkStable(t, codecs[0], []byte(chat))
		rs := randRsBody(r)
		if _, err := DecodeResponses([]byte(rs)); err != nil {
			t.Fatalf("DecodeResponses(%s) = %v, want no error (the generator writes valid bodies)", rs, err)
		}
		checkStable(t, codecs[1], []byte(rs))
	}
}

// Accepted transcripts, generated: turns of a user question, an assistant
// answer or parallel calls, their results in any order, in every shape the
// recorded traffic shows (member order, null or "" or absent content,
// content strings and arrays, unmodeled fields, items with or without ids
// and types, documents and audio), with white space or without. The
// property: transcript accepts each, Repair leaves it as it is, and
// encoding the repaired request writes the body back compacted, byte for
// byte.

// jobj writes a JSON object of the fields, in an order r picks.
func jobj(r *rand.Rand, fields ...string) string {
	var fs []string
	for _, f := range fields {
		if f != "" {
			fs = append(fs, f)
		}
	}
	r.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
	return "{" + strings.Join(fs, ",") + "}"
}

// some returns one or more of xs, in an order r picks; it reorders xs.
func some(r *rand.Rand, xs []string) []string {
	r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs[:1+r.IntN(len(xs))]
}

// maybe returns f one time in n.
func maybe(r *rand.Rand, n int, f string) string {
	if r.IntN(n) == 0 {
		return f
	}
	return ""
}

func randWords(r *rand.Rand) string {
	return pick(r, `"Weather in Paris?"`, `"<b>&amp;</b> \u00e9\/"`, `"line\nbreak"`, `"42"`, `"{\"status\":\"success\",\"summary\":\"ok\"}"`)
}

func randAcceptedChat(r *rand.Rand) string {
	var msgs []string
	if r.IntN(2) == 0 {
		msgs = append(msgs, jobj(r, `"role":"`+pick(r, "system", "developer")+`"`, `"content":`+pick(r, randWords(r), `[{"type":"text","text":"be brief"}]`), maybe(r, 4, `"name":"policy"`)))
	}
	userContent := func() string {
		switch r.IntN(6) {
		case 0:
			return `""`
		case 1:
			return `[{"type":"text","text":` + randWords(r) + `},{"type":"image_url","image_url":` + jobj(r, `"url":"https://x/y.png"`, maybe(r, 2, `"detail":"`+pick(r, "auto", "low")+`"`)) + `}]`
		case 2:
			return `[{"type":"file","file":` + jobj(r, `"file_data":"data:application/pdf;base64,JVBERi0xLjM="`, `"filename":"a.pdf"`) + `}]`
		case 3:
			return `[{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},{"text":"listen","type":"text"}]`
		}
		return randWords(r)
	}
	for turn := range 1 + r.IntN(4) {
		msgs = append(msgs, jobj(r, `"role":"user"`, `"content":`+userContent(), maybe(r, 5, `"name":"alice"`)))
		if r.IntN(3) == 0 {
			msgs = append(msgs, jobj(r, `"role":"assistant"`, `"content":`+pick(r, randWords(r), `""`, `[{"type":"text","text":"a"},{"type":"refusal","refusal":"no"}]`), maybe(r, 4, `"refusal":null`), maybe(r, 4, `"annotations":[]`)))
			continue
		}
		n := 1 + r.IntN(3)
		calls := make([]string, n)
		ids := make([]string, n)
		for k := range calls {
			ids[k] = fmt.Sprintf("call_%d_%d", turn, k)
			fn := jobj(r, `"name":"f`+fmt.Sprint(r.IntN(2))+`"`, `"arguments":`+pick(r, `"{}"`, `"{\"city\": \"Paris\"}"`, `"{bad"`))
			calls[k] = jobj(r, `"id":"`+ids[k]+`"`, `"type":"function"`, `"function":`+fn)
		}
		content := pick(r, `"content":null`, "", `"content":""`, `"content":"Looking."`)
		msgs = append(msgs, jobj(r, `"role":"assistant"`, content, `"tool_calls":[`+strings.Join(calls, ",")+`]`, maybe(r, 4, `"refusal":null`), maybe(r, 4, `"audio":null`)))
		r.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		for _, id := range ids {
			msgs = append(msgs, jobj(r, `"role":"tool"`, `"tool_call_id":"`+id+`"`, `"content":`+pick(r, randWords(r), `""`, `[{"type":"text","text":"x"}]`), maybe(r, 3, `"name":"f0"`)))
		}
		if r.IntN(2) == 0 {
			msgs = append(msgs, jobj(r, `"role":"assistant"`, `"content":`+randWords(r)))
		}
	}
	tools := `"tools":[` + jobj(r, `"type":"function"`, `"function":`+jobj(r, `"name":"f0"`, maybe(r, 2, `"description":""`), `"parameters":{"type":"object","properties":{"city":{"type":"string","default":"Paris"}},"required":["city"],"additionalProperties":false}`, maybe(r, 2, `"strict":true`))) +
		maybe(r, 2, `,{"type":"function","function":{"name":"f1","parameters":{"type":"object","properties":{}}}}`) + `]`
	return jobj(r, `"model":"gpt-4o"`, `"messages":[`+strings.Join(msgs, ",")+`]`, pick(r, tools, `"tools":null`, ""), maybe(r, 2, `"temperature":0.2`), maybe(r, 3, `"stream_options":{"include_usage":true}`))
}

func randAcceptedResponses(r *rand.Rand) string {
	var items []string
	id := func(prefix string, n int) string { return fmt.Sprintf(`"id":"%s_%d"`, prefix, n) }
	typed := func() string { return maybe(r, 2, `"type":"message"`) }
	if r.IntN(2) == 0 {
		items = append(items, jobj(r, typed(), `"role":"developer"`, `"content":`+randWords(r)))
	}
	reasoning := r.IntN(2) == 0 // gpt-5, with its reasoning items
	for turn := range 1 + r.IntN(4) {
		content := pick(r, randWords(r), `""`, `[{"type":"input_text","text":"q"},{"type":"input_image","image_url":"https://x/y.png","detail":"auto"}]`,
			`[{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjM="}]`, `[{"type":"input_file","file_id":"file-1"},{"text":"read","type":"input_text"}]`)
		items = append(items, jobj(r, typed(), `"role":"user"`, `"content":`+content))
		if reasoning {
			items = append(items, jobj(r, `"type":"reasoning"`, id("rs", turn), `"summary":[]`, maybe(r, 2, `"encrypted_content":"gAAA"`)))
		}
		if r.IntN(3) == 0 {
			msgID := ""
			if reasoning || r.IntN(2) == 0 {
				msgID = id("msg", turn)
			}
			items = append(items, jobj(r, typed(), `"role":"assistant"`, msgID, maybe(r, 2, `"status":"completed"`),
				`"content":`+pick(r, randWords(r), `[{"type":"output_text","text":"a","annotations":[]}]`)))
			continue
		}
		n := 1 + r.IntN(3)
		ids := make([]string, n)
		for k := range ids {
			ids[k] = fmt.Sprintf("call_%d_%d", turn, k)
			itemID := ""
			if (reasoning && k == 0) || r.IntN(2) == 0 {
				itemID = id("fc", turn*10+k)
			}
			items = append(items, jobj(r, `"type":"function_call"`, itemID, `"call_id":"`+ids[k]+`"`, `"name":"f0"`, `"arguments":`+pick(r, `"{}"`, `"{bad"`), maybe(r, 3, `"status":"completed"`), maybe(r, 4, `"namespace":"f0"`)))
		}
		r.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		for _, cid := range ids {
			items = append(items, jobj(r, `"type":"function_call_output"`, `"call_id":"`+cid+`"`, `"output":`+pick(r, randWords(r), `""`, `[{"type":"input_text","text":"x"},{"type":"input_image","image_url":"https://x/z.png"}]`)))
		}
	}
	model := `"model":"gpt-4o"`
	if reasoning {
		model = `"model":"gpt-5"`
	}
	tools := `"tools":[` + jobj(r, `"type":"function"`, `"name":"f0"`, `"parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`, maybe(r, 2, `"strict":false`)) + maybe(r, 2, `,{"type":"web_search"}`) + `]`
	return jobj(r, model, `"input":[`+strings.Join(items, ",")+`]`, pick(r, tools, ""), maybe(r, 2, `"instructions":""`), maybe(r, 2, `"store":false`), maybe(r, 3, `"include":["reasoning.encrypted_content"]`))
}

// indent writes body with white space, one time in two.
func indent(r *rand.Rand, body string) []byte {
	if r.IntN(2) == 0 {
		return []byte(body)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(body), "", pick(r, " ", "\t", "  ")); err != nil {
		return []byte(body)
	}
	return b.Bytes()
}

func TestRepairOfAcceptedIsExact(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	r := rand.New(rand.NewPCG(7, 11))
	for range n {
		for _, dialect := range []transcript.Dialect{transcript.OpenAIChat, transcript.OpenAIResponses} {
			var body []byte
			var req transcript.Request
			var wire []transcript.Violation
			var set func(transcript.Request)
			var encode func() ([]byte, []provider.Warning, error)
			if dialect == transcript.OpenAIChat {
				body = indent(r, randAcceptedChat(r))
				c, err := DecodeChat(body)
				if err != nil {
					t.Fatalf("DecodeChat(%s) = %v", body, err)
				}
				req, wire = transcript.Request{Messages: c.Messages, Tools: c.Tools, Model: "gpt-4o"}, c.Wire
				set = func(x transcript.Request) { c.Messages, c.Tools = x.Messages, x.Tools }
				encode = func() ([]byte, []provider.Warning, error) { return EncodeChat(c) }
			} else {
				body = indent(r, randAcceptedResponses(r))
				q, err := DecodeResponses(body)
				if err != nil {
					t.Fatalf("DecodeResponses(%s) = %v", body, err)
				}
				var model string
				for _, f := range q.Fields {
					if f.Key == "model" {
						model = strings.Trim(string(f.Value), `"`)
					}
				}
				req, wire = transcript.Request{Messages: q.Messages, Tools: q.Tools, Model: model, PreviousResponse: q.Continues(), ReasoningEffort: q.ReasoningEffort()}, q.Wire
				set = func(x transcript.Request) { q.Messages, q.Tools = x.Messages, x.Tools }
				encode = func() ([]byte, []provider.Warning, error) { return EncodeResponses(q) }
			}
			vs := append(append([]transcript.Violation(nil), wire...), transcript.CheckRequest(req, dialect)...)
			if !transcript.Accepted(vs) {
				t.Fatalf("%s: a generated accepted body is rejected: %v\n%s", dialect, vs, body)
			}
			repaired, changes, err := transcript.RepairRequest(req, dialect, nil)
			if err != nil || len(changes) > 0 {
				t.Fatalf("%s: RepairRequest(accepted) = %v, %v; want no change\n%s", dialect, changes, err, body)
			}
			set(repaired)
			out, warns, err := encode()
			if want := codectest.Compact(t, body); err != nil || !bytes.Equal(out, want) || len(warns) > 0 {
				t.Fatalf("%s: encode(Repair(decode(x))) =\n%s, %v, %v\nwant compact(x) =\n%s", dialect, out, warns, err, want)
			}
		}
	}
}
