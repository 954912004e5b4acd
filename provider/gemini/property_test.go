package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// bodyGen writes random generateContent bodies in the shapes real clients
// send: parallel calls answered in one content or spread over several,
// calls spread over consecutive model contents, thought signatures, parts
// the llm form does not model, parts written as one object, snake_case
// keys, extra fields in any order.
type bodyGen struct {
	r     *rand.Rand
	calls int // calls made so far, for ids
	// broken: also write what Gemini rejects (an unanswered call, a
	// content that mixes a call and its response, an orphan response).
	broken bool
}

func (g *bodyGen) coin(n int) bool { return g.r.IntN(n) == 0 }

func (g *bodyGen) key(camel, snake string) string {
	if g.coin(5) {
		return snake
	}
	return camel
}

// parts writes a parts field: an array, or (for one part, as Google's
// curl samples do) the part itself.
func (g *bodyGen) parts(ps []string) string {
	if len(ps) == 1 && g.coin(4) {
		return `"parts":` + ps[0]
	}
	return `"parts":[` + strings.Join(ps, ",") + `]`
}

func (g *bodyGen) content(role string, ps []string) string {
	r := `"role":"` + role + `"`
	if role == "user" && g.coin(6) {
		r = "" // the role defaults to user
	}
	fields := []string{g.parts(ps)}
	if r != "" {
		fields = append(fields, r)
	}
	if g.coin(2) {
		fields[0], fields[len(fields)-1] = fields[len(fields)-1], fields[0]
	}
	return "{" + strings.Join(fields, ",") + "}"
}

func (g *bodyGen) text() string {
	texts := []string{"hi", "Weather in Paris?", "<b>&amp;</b> é", "", "line\nbreak", `quote "x"`}
	t, _ := json.Marshal(texts[g.r.IntN(len(texts))])
	return string(t)
}

// other returns a user part that is not a function response.
func (g *bodyGen) other() string {
	switch g.r.IntN(8) {
	case 0:
		return `{"` + g.key("inlineData", "inline_data") + `":{"mimeType":"image/png","data":"iVBORw=="}}`
	case 1:
		return `{"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/doc.pdf"},"videoMetadata":{"fps":1}}`
	case 2:
		return `{"videoMetadata":{"startOffset":"1s"}}`
	case 3:
		return `{"text":` + g.text() + `,"thought":false}`
	}
	return `{"text":` + g.text() + `}`
}

func (g *bodyGen) sig() string { return fmt.Sprintf(`,"thoughtSignature":"c2ln%d"`, g.r.IntN(100)) }

// step writes a model step with n calls, and the responses to them, and
// returns the contents.
func (g *bodyGen) step(n int) []string {
	var calls, resps []string
	names := []string{"get_weather", "search", "ns.tool:v1"}
	for k := 0; k < n; k++ {
		g.calls++
		name := names[g.r.IntN(len(names))]
		id := ""
		if g.coin(2) {
			id = fmt.Sprintf(`"id":"c%d",`, g.calls)
		}
		c := `{"` + g.key("functionCall", "function_call") + `":{` + id + `"name":"` + name + `","args":{"n":` + fmt.Sprint(k) + `}}`
		if k == 0 && g.coin(2) {
			c += g.sig()
		}
		calls = append(calls, c+"}")
		resp := []string{`{"output":"ok"}`, `{"error":"failed"}`, `{"temp":18}`, `{}`}[g.r.IntN(4)]
		rp := `{"` + g.key("functionResponse", "function_response") + `":{` + id + `"name":"` + name + `","response":` + resp
		if g.coin(6) {
			rp += `,"parts":{"inlineData":{"mimeType":"image/png","data":"AA=="}}`
		}
		resps = append(resps, rp+"}}")
	}
	var out []string
	// The model step: maybe text first, maybe a built-in tool's parts;
	// its calls in one content, or one content each.
	lead := []string{}
	if g.coin(3) {
		lead = append(lead, `{"text":`+g.text()+`}`)
	}
	if g.coin(5) {
		lead = append(lead, `{"toolCall":{"id":"t1","tool_type":"GOOGLE_SEARCH_WEB","args":{}}`+g.sig()+`}`, `{"toolResponse":{"id":"t1","response":{"r":[]}}`+g.sig()+`}`)
	}
	if g.coin(3) {
		out = append(out, g.content("model", append(lead, calls[0])))
		for _, c := range calls[1:] {
			out = append(out, g.content("model", []string{c}))
		}
	} else {
		out = append(out, g.content("model", append(lead, calls...)))
	}
	// The responses: in one content, or spread over several, maybe with
	// the user's text after them.
	switch {
	case g.broken && g.coin(4):
		resps = resps[1:] // one response missing
	case g.broken && g.coin(4):
		out[len(out)-1] = g.content("model", append(calls, resps[0])) // a content that mixes
		resps = resps[1:]
	}
	for len(resps) > 0 {
		k := 1 + g.r.IntN(len(resps))
		out = append(out, g.content("user", resps[:k]))
		resps = resps[k:]
	}
	if g.coin(4) {
		out = append(out, g.content("user", []string{g.other()}))
	}
	return out
}

func (g *bodyGen) body() []byte {
	var contents []string
	for turn := 1 + g.r.IntN(4); turn > 0; turn-- {
		ps := []string{`{"text":` + g.text() + `}`}
		for k := g.r.IntN(3); k > 0; k-- {
			ps = append(ps, g.other())
		}
		contents = append(contents, g.content("user", ps))
		for steps := g.r.IntN(3); steps > 0; steps-- {
			contents = append(contents, g.step(1+g.r.IntN(3))...)
		}
		if g.broken && g.coin(8) {
			contents = append(contents, g.content("user", []string{`{"functionResponse":{"name":"lost","response":{}}}`}))
		}
		if g.coin(2) {
			contents = append(contents, g.content("model", []string{`{"text":` + g.text() + `}`}))
		}
	}
	fields := []string{`"` + g.key("contents", "contents") + `":[` + strings.Join(contents, ",") + "]"}
	if g.coin(2) {
		fields = append(fields, `"`+g.key("systemInstruction", "system_instruction")+`":{`+g.parts([]string{`{"text":"Be brief."}`})+`}`)
	}
	if g.coin(2) {
		decl := `{"name":"get_weather","description":null,"parameters":{"type":"OBJECT"}},{"name":"search","description":"Search.","parametersJsonSchema":{"type":"object"}},{"name":"ns.tool:v1"}`
		tools := `{"` + g.key("functionDeclarations", "function_declarations") + `":[` + decl + `]}`
		if g.coin(3) {
			fields = append(fields, `"tools":`+tools)
		} else {
			fields = append(fields, `"tools":[{"googleSearch":{}},`+tools+`]`)
		}
	}
	if g.coin(2) {
		fields = append(fields, `"generationConfig":{"temperature":0,"thinkingConfig":{"includeThoughts":true}}`)
	}
	g.r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return []byte("{" + strings.Join(fields, ",") + "}")
}

// accepted reports whether Gemini would accept the decoded body r.
func accepted(r *Request) bool {
	return transcript.Accepted(append(append([]transcript.Violation(nil), r.Wire...), transcript.CheckRequest(request(r), Dialect)...))
}

func request(r *Request) transcript.Request {
	return transcript.Request{Messages: r.Messages, Tools: r.Tools}
}

// TestRepairAcceptedRoundTrip is the property that --fix touches nothing
// on a body Gemini accepts: for generated bodies, decode → Repair → encode
// gives the body back, compacted, byte for byte; and a rejected body,
// repaired, is accepted and reads back the same.
func TestRepairAcceptedRoundTrip(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 300
	}
	seen := map[bool]int{}
	for k := 0; k < n; k++ {
		g := &bodyGen{r: rand.New(rand.NewPCG(uint64(k), 7)), broken: k%3 == 2}
		body := g.body()
		var want bytes.Buffer
		if err := json.Compact(&want, body); err != nil {
			t.Fatalf("generated body %d is not JSON: %v\n%s", k, err, body)
		}
		r, err := Decode(body)
		if err != nil {
			t.Fatalf("Decode(%s) error: %v", body, err)
		}
		ok := accepted(r)
		seen[ok]++
		fixed, changes, rerr := transcript.RepairRequest(request(r), Dialect, nil)
		if ok {
			if len(changes) > 0 || rerr != nil {
				t.Fatalf("Repair of accepted body %s: %v, %v; want no change", body, changes, rerr)
			}
			r.Messages, r.Tools = fixed.Messages, fixed.Tools
			got, warns, err := Encode(r)
			if err != nil || !bytes.Equal(got, want.Bytes()) || len(warns) > 0 {
				t.Fatalf("Encode(Repair(Decode(%s))) = %s, %v, %v; want the body back", body, got, warns, err)
			}
			continue
		}
		if rerr != nil {
			continue // a missing thought signature is not invented, ...
		}
		r.Messages, r.Tools = fixed.Messages, fixed.Tools
		r.FixWire = true
		got, _, err := Encode(r)
		if err != nil {
			t.Fatalf("Encode(Repair(Decode(%s))) error: %v", body, err)
		}
		back, err := Decode(got)
		if err != nil {
			t.Fatalf("Decode(Encode(Repair(Decode(%s)))) = %s: %v", body, got, err)
		}
		if !accepted(back) {
			vs := append(back.Wire, transcript.CheckRequest(request(back), Dialect)...)
			t.Fatalf("the repair of %s,\n%s,\nis rejected: %v", body, got, vs)
		}
		if again, _, _ := Encode(back); !bytes.Equal(again, got) {
			t.Fatalf("the repaired body %s reads back as %s", got, again)
		}
	}
	t.Logf("accepted %d, rejected %d", seen[true], seen[false])
	if seen[true] < n/3 || seen[false] < n/20 {
		t.Errorf("generated %d accepted and %d rejected bodies; want more of each", seen[true], seen[false])
	}
}

// TestConvertDocument checks that a Gemini file part of any media type (a
// PDF document, audio) stays a file part of that type: the decoder gives an
// llm.Image with its MediaType, and the encoder writes an llm.Image of any
// media type as inlineData or fileData with its mimeType.
func TestConvertDocument(t *testing.T) {
	in := `{"contents":[{"role":"user","parts":[{"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/report.pdf"}},{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0="}},{"inlineData":{"mimeType":"audio/wav","data":"UklGRg=="}},{"text":"Summarize."}]}]}`
	r, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Image{{MediaType: "application/pdf", URL: "gs://b/report.pdf"}, {MediaType: "application/pdf", Data: []byte("%PDF-")}, {MediaType: "audio/wav", Data: []byte("RIFF")}}
	for k, w := range want {
		got, ok := r.Messages[0].Parts[k].(llm.Image)
		if !ok || got.MediaType != w.MediaType || got.URL != w.URL || !bytes.Equal(got.Data, w.Data) {
			t.Errorf("Decode(%s) part %d = %#v, want %#v", in, k, r.Messages[0].Parts[k], w)
		}
	}
	// A fresh encoding (as from another dialect) writes each with its type.
	fresh, warns, err := Encode(&Request{Messages: r.Messages})
	if err != nil || len(warns) > 0 || string(fresh) != in {
		t.Errorf("Encode(%v) = %s, %v, %v; want %s", r.Messages, fresh, warns, err, in)
	}
}
