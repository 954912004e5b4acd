package openai

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
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
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ",") + "}"
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
		r.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		fields = append(fields, `"tools":[`+strings.Join(tools[:1+r.IntN(3)], ",")+`]`)
	}
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ",") + "}"
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
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ",") + "}"
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
		r.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		fields = append(fields, `"tools":[`+strings.Join(tools[:1+r.IntN(3)], ",")+`]`)
	}
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ",") + "}"
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
