package wire_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// Check gives the verdict toolwire check gives, from the request bytes:
// the dialect, found from the body's shape when "" is given, every rule
// the provider would reject, with paths into the body, and whether Fix
// repairs them. Fix writes the repaired body; what it did not touch keeps
// its bytes.
func Example() {
	body := []byte(`{"model":"gpt-4.1","messages":[
  {"role":"user","content":"Weather in Paris?"},
  {"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
  {"role":"user","content":"Still there?"}]}`)
	rep, err := wire.Check(body, "")
	if err != nil {
		fmt.Println(err) // not JSON, or not a request body: says what and where
		return
	}
	fmt.Printf("%s (detected: %s)\n", rep.Dialect, rep.Detected)
	for _, v := range rep.Violations {
		fmt.Println(v.Path, v.Rule)
	}
	fmt.Println("accepted:", rep.Accepted(), "fixable:", rep.Fixable())

	f, err := wire.Fix(body, rep.Dialect, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range f.Changes {
		fmt.Println(c.Path, c.Rule, c.Action)
	}
	fmt.Println("repaired body accepted:", f.Accepted())
	// Output:
	// openai-chat (detected: messages.1 has "tool_calls")
	// messages.1 OAI-CC-ANSWER-ALL
	// accepted: false fixable: true
	// messages.1.tool_calls.0 OAI-CC-ANSWER-ALL answer
	// repaired body accepted: true
}

// A body whose shape fits several dialects is judged in each: it is
// accepted only if every one accepts it. Fix and Convert need the
// dialect named.
func ExampleDetect() {
	body := []byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":""}]`)
	det, _ := wire.Detect(body)
	fmt.Println("candidates:", det.Candidates)

	rep, _ := wire.Check(body, "")
	for _, c := range rep.Candidates {
		fmt.Println(c.Dialect, "accepts:", c.Accepted())
	}
	fmt.Println("accepted:", rep.Accepted())

	var amb *wire.AmbiguousError
	_, err := wire.Fix(body, "", nil)
	fmt.Println("fix needs a dialect:", errors.As(err, &amb))
	f, _ := wire.Fix(body, transcript.Anthropic, nil)
	fmt.Printf("as anthropic: %s\n", f.Body)
	// Output:
	// candidates: [openai-chat openai-responses anthropic]
	// openai-chat accepts: true
	// openai-responses accepts: true
	// anthropic accepts: false
	// accepted: false
	// fix needs a dialect: true
	// as anthropic: [{"role":"user","content":"hi"}]
}

// Violations gives the verdict alone, for a caller that forwards the body
// it judged (a gateway): the same violations as Decode and Check, found
// without unquoting the body's long texts, so a history of large tool
// results is judged at a fraction of the cost.
func ExampleViolations() {
	result := strings.Repeat(`{\"order\":\"o-00042\",\"status\":\"refunded\"},`, 200)
	body := []byte(`{"model":"gpt-4.1","messages":[
  {"role":"user","content":"Which orders were refunded?"},
  {"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search_orders","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"search_orders","arguments":"{\"page\":2}"}}]},
  {"role":"tool","tool_call_id":"call_1","content":"[` + result + `{}]"}]}`)
	vs, err := wire.Violations(body, transcript.OpenAIChat)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range vs {
		fmt.Println(v.Path, v.Rule)
	}
	fmt.Println("accepted:", transcript.Accepted(vs))
	// Output:
	// messages.1 OAI-CC-ANSWER-ALL
	// accepted: false
}

// A Judge judges the requests of a conversation as each adds to the one
// before: the second body repeats the first's messages, so only the call
// and the question it adds are decoded, and the verdict is the one
// Violations gives for the whole body.
func ExampleJudge() {
	judge := wire.NewJudge(64 << 20)
	turn1 := `{"model":"gpt-4.1","messages":[{"role":"user","content":"Weather in Paris?"}]}`
	turn2 := `{"model":"gpt-4.1","messages":[{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},` +
		`{"role":"user","content":"Still there?"}]}`
	for _, body := range []string{turn1, turn2} {
		vs, err := judge.Violations([]byte(body), transcript.OpenAIChat, "")
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("accepted:", transcript.Accepted(vs))
		for _, v := range vs {
			fmt.Println(v.Path, v.Rule)
		}
	}
	fmt.Printf("%+v\n", judge.Stats())
	// Output:
	// accepted: true
	// accepted: false
	// messages.1 OAI-CC-ANSWER-ALL
	// {Continued:1 Whole:1}
}

// A Gemini body does not name its model: its URL does. SetModel gives it,
// and the rules of that model judge the body: Gemini 3 wants the thought
// signature of a step's first call back (GEM-THOUGHT-SIG), Gemini 2.5 does
// not.
func ExampleBody_SetModel() {
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}]}`)
	for _, model := range []string{"gemini-2.5-flash", "gemini-3-pro-preview"} {
		b, err := wire.Decode(body, transcript.Gemini)
		if err != nil {
			fmt.Println(err)
			return
		}
		b.SetModel(model) // from the URL: /v1beta/models/MODEL:generateContent
		vs := b.Check()
		fmt.Println(model, "accepted:", transcript.Accepted(vs))
		for _, v := range vs {
			fmt.Println(" ", v.Path, v.Rule)
		}
	}
	// Output:
	// gemini-2.5-flash accepted: true
	// gemini-3-pro-preview accepted: false
	//   contents.1.parts.0 GEM-THOUGHT-SIG
}
