package gemini

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/toolresult"
)

// tested is this package's codec, for the shared checks of codectest.
var tested = codectest.Codec[*Request]{Decode: Decode, Encode: Encode}

// render prints a decoded request and its encoding for a golden file.
func render(t *testing.T, r *Request, enc []byte, warns []provider.Warning) []byte {
	t.Helper()
	a := codectest.Account{Messages: r.Messages, Flags: fmt.Sprintf("bare=%v", r.Bare),
		Wire: r.Wire, Unmodeled: r.Unmodeled, Encoded: enc, Warnings: warns}
	for _, s := range r.Tools {
		a.Tools = append(a.Tools, fmt.Sprintf("%s %q %s", s.Name, s.Description, s.Parameters))
	}
	for _, f := range r.Fields {
		a.Fields = append(a.Fields, fmt.Sprintf("%s: %s", f.Key, string(f.Value)))
	}
	return codectest.Render(t, a)
}

// TestRoundTrip decodes realistic bodies, checks the llm form against
// golden files, and checks that encoding gives the body back, compacted.
func TestRoundTrip(t *testing.T) {
	codectest.RoundTrip(t, tested, "testdata/roundtrip/*.txtar", render)
}

// TestEditedRoundTrip edits decoded messages the way transcript.Repair does
// and checks that thought signatures and part fields stay with their parts.
func TestEditedRoundTrip(t *testing.T) {
	in := codectest.Input(t, "testdata/roundtrip/parallel_thought_signatures.txtar")
	r, err := Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	// Drop the second result and answer it with a synthetic error after
	// the first, as a repair would; insert a user note at the end.
	tool := r.Messages[3]
	synthetic := toolresult.Failure(toolresult.Interrupted, "The call was interrupted; its outcome is unknown.").Result("", "get_time")
	tool.Parts = []llm.Part{tool.Parts[0], synthetic}
	r.Messages[3] = tool
	r.Messages = append(r.Messages, llm.User("(note)"))
	r.Tools = append(r.Tools, llm.ToolSpec{Name: "get_news", Parameters: []byte(`{"type":"object"}`)})
	codectest.Edited(t, tested, r,
		`{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"CiQB0e2Kb7sig1=="}`,
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"18°C, sunny <clear>"}}},{"functionResponse":{"name":"get_time","response":{"status":"error"`,
		`{"text":"It is 18°C & sunny; the time is 15:40.","thoughtSignature":"CiQB0e2Kb7sig2=="}`,
		`{"role":"user","parts":[{"text":"(note)"}]}]`,
		`{"name":"get_time","description":"Local time in a time zone.","parametersJsonSchema":{"type":"object","properties":{"tz":{"type":"string"}}}},{"name":"get_news","parametersJsonSchema":{"type":"object"}}]},{"googleSearch":{}}]`,
	)
}

// TestStable checks encode(decode(x)) is a fixed point after one cycle for
// bodies that are not in the codec's own form.
func TestStable(t *testing.T) {
	codectest.StableBodies(t, tested,
		`{"contents":[{"parts":[{"text":"hi"}],"role":"user"}],"model":"m"}`,
		"{ \"contents\" : [ { \"parts\" : [ { \"text\" : \"a\\u003cb\\u00e9\" } ] } ] }",
		`{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"{\"a\":1}"}}}]}]}`,
		`{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"error":{"code":5}}}}]}]}`,
		`{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":[1,2]}}]}]}`,
		`{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":"text"}}]}]}`,
		`{"contents":[{"role":"model","parts":[{}]}]}`,
		`{"contents":[{"role":"model","parts":[{"text":"","thought":true,"thoughtSignature":"s"}]}]}`,
		`{"contents":[{"role":"user","parts":[{"text":"x","thoughtSignature":"s"}]}]}`,
	)
}

// TestDecodeErrors checks that bad bodies get a specific error naming the
// exact path.
func TestDecodeErrors(t *testing.T) {
	codectest.DecodeErrors[*Request, *llm.DecodeError](t, tested, []struct{ Body, Want string }{
		{``, `gemini: invalid JSON at line 1, column 1: empty input (at byte 0)`},
		{`{"contents":[{"parts":[{"text":"hi"}]}`, `gemini: contents: invalid JSON at line 1, column 39: the input ends before the document does (at byte 38)`},
		{`7`, `gemini: want a request body (an object) or a contents array, got a number`},
		{`{"model":"gemini-2.5-pro"}`, `gemini: contents: missing (a generateContent request body has a "contents" array)`},
		{`{"contents":[{"role":"bot","parts":[]}]}`, `gemini: contents.0.role: unknown role "bot" (want "user" or "model")`},
		{`{"contents":[{"role":"user"}]}`, `gemini: contents.0.parts: missing (an array of parts)`},
		{`{"contents":[{"role":"user","parts":[],"text":"x"}]}`, `gemini: contents.0.text: unknown field (a content has role and parts)`},
		{`{"contents":[{"parts":[{"text":"a","text":"b"}]}]}`, `gemini: contents.0.parts.0.text: invalid JSON at line 1, column 36: duplicate member name "text" (at byte 35)`},
		{`{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"x"},"inline_data":{}}]}]}`, `gemini: contents.0.parts.0.inline_data: repeats a field of the same object`},
		{`{"contents":[{"parts":[{"text":1}]}]}`, `gemini: contents.0.parts.0.text: want a string, got a number`},
		{`{"contents":[{"parts":[{"text":"a","functionCall":{"name":"f"}}]}]}`, `gemini: contents.0.parts.0.functionCall: a part holds one of text, inlineData, fileData, functionCall, functionResponse, executableCode or codeExecutionResult, but this one also has text`},
		{`{"contents":[{"parts":[{"functionCall":{"name":"f"}}]}]}`, `gemini: contents.0.parts.0.functionCall: a functionCall belongs in a model content, not a user content`},
		{`{"contents":[{"role":"model","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, `gemini: contents.0.parts.0.functionResponse: a functionResponse belongs in a user content, not a model content (GEM-NO-MIX)`},
		{`{"contents":[{"role":"model","parts":[{"functionCall":{"args":{}}}]}]}`, `gemini: contents.0.parts.0.functionCall.name: missing (the function's name, a string)`},
		{`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":"{}"}}]}]}`, `gemini: contents.0.parts.0.functionCall.args: want an object, got a string`},
		{`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","arguments":{}}}]}]}`, `gemini: contents.0.parts.0.functionCall.arguments: unknown field (a functionCall has id, name and args)`},
		{`{"contents":[{"parts":[{"functionResponse":{"response":{}}}]}]}`, `gemini: contents.0.parts.0.functionResponse.name: missing (the name of the function that was called, a string)`},
		{`{"contents":[{"parts":[{"functionResponse":{"name":"f"}}]}]}`, `gemini: contents.0.parts.0.functionResponse.response: missing (the function's output, an object such as {"output": ...})`},
		{`{"contents":[{"parts":[{"inlineData":{"data":"AA=="}}]}]}`, `gemini: contents.0.parts.0.inlineData.mimeType: missing (such as "image/png")`},
		{`{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"@@"}}]}]}`, `gemini: contents.0.parts.0.inlineData.data: invalid base64: illegal base64 data at input byte 0`},
		{`{"contents":[{"parts":[{"fileData":{"mimeType":"image/png"}}]}]}`, `gemini: contents.0.parts.0.fileData.fileUri: missing (the file's URI)`},
		{`{"systemInstruction":{"parts":[{"inlineData":{}}]},"contents":[]}`, `gemini: systemInstruction.parts.0: systemInstruction holds text parts only`},
		{`{"contents":[],"tools":[{"functionDeclarations":[{"description":"x"}]}]}`, `gemini: tools.0.functionDeclarations.0.name: missing (the function's name, a string)`},
		{`{"contents":[],"tools":[{"functionDeclarations":[{"name":"f","parameters":{},"parametersJsonSchema":{}}]}]}`, `gemini: tools.0.functionDeclarations.0.parametersJsonSchema: parameters and parametersJsonSchema cannot both be set`},
		{`{"contents":[],"tools":[{"functionDeclarations":"f"}]}`, `gemini: tools.0.functionDeclarations: want an array of function declarations, got a string`},
		// A repeated field may be one object, standing for an array of one,
		// but no other kind of value.
		{`{"contents":{"parts":"hi"}}`, `gemini: contents.parts: want an array of parts, got a string`},
		{`{"contents":7}`, `gemini: contents: want an array of contents, got a number`},
		{`{"contents":[],"tools":"googleSearch"}`, `gemini: tools: want an array of tools, got a string`},
		{`{"contents":[],"tools":{"functionDeclarations":{"description":null}}}`, `gemini: tools.functionDeclarations.name: missing (the function's name, a string)`},
		{`{"contents":[],"tools":[{"functionDeclarations":[{"name":"f","description":7}]}]}`, `gemini: tools.0.functionDeclarations.0.description: want a string, got a number`},
		{`{"contents":[{"parts":[{"text":"q"},{"functionCall":{"name":"f"}}]}]}`, `gemini: contents.0.parts.1.functionCall: a functionCall belongs in a model content, not a user content`},
		// Contents is read as it comes, the other fields after it; what is
		// reported first does not hang on the order of the fields: a field
		// in both spellings, then no contents, then systemInstruction,
		// contents and tools, in that order.
		{`{"contents":[{"parts":[{"text":1}]}],"tools":7,"systemInstruction":{"parts":[{"inlineData":{}}]}}`, `gemini: systemInstruction.parts.0: systemInstruction holds text parts only`},
		{`{"tools":7,"contents":[{"parts":[{"text":1}]}]}`, `gemini: contents.0.parts.0.text: want a string, got a number`},
		{`{"system_instruction":{"parts":[{"inlineData":{}}]},"tools":[]}`, `gemini: contents: missing (a generateContent request body has a "contents" array)`},
		{`{"contents":[{"parts":[{"text":1}]}],"system_instruction":{},"systemInstruction":{}}`, `gemini: systemInstruction: repeats a field of the same object`},
		// A syntax error is worded as reading each field whole words it,
		// though contents is read part by part.
		{`{"contents":[{"parts":[{"text":"hi"}]},{p":1}]}`, `gemini: contents.1: invalid JSON at line 1, column 41: invalid character 'p' at start of string (expecting '"') (at byte 40)`},
		{`{"contents":[{"parts":[{"text":1}]},{p":1}]}`, `gemini: contents.1: invalid JSON at line 1, column 38: invalid character 'p' at start of string (expecting '"') (at byte 37)`},
		// A bare array's paths are those of a full body.
		{`[{"parts":[{"text":"q"}]},{"role":"bot","parts":[]}]`, `gemini: contents.1.role: unknown role "bot" (want "user" or "model")`},
		{`[{"parts":[{"text":1}]}]`, `gemini: contents.0.parts.0.text: want a string, got a number`},
		{`[{"parts":[`, `gemini: contents.0.parts: invalid JSON at line 1, column 12: the input ends before the document does (at byte 11)`},
	})
}

// TestFieldOrder checks that a body whose systemInstruction follows its
// contents, and whose contents give their role after their parts, decodes
// to the same llm form as one in the usual order, and that an edited
// content is written back with its fields as they were.
func TestFieldOrder(t *testing.T) {
	codectest.FieldOrder(t, tested,
		`{"systemInstruction":{"parts":[{"text":"Be brief.","x":1}]},"contents":[{"role":"user","parts":[{"text":"hi","y":2}]},{"role":"model","parts":[{"text":"yes"}]}]}`,
		`{"contents":[{"parts":[{"text":"hi","y":2}],"role":"user"},{"role":"model","parts":[{"text":"yes"}]}],"systemInstruction":{"parts":[{"text":"Be brief.","x":1}]}}`,
		func(r *Request) string { return fmt.Sprint(r.Messages, r.Unmodeled) },
		func(r *Request) { r.Messages[1].Parts = append(r.Messages[1].Parts, llm.Text{Text: "there"}) },
		`{"contents":[{"parts":[{"text":"hi","y":2},{"text":"there"}],"role":"user"},{"role":"model","parts":[{"text":"yes"}]}],"systemInstruction":{"parts":[{"text":"Be brief.","x":1}]}}`)
}

// TestResponses checks how functionResponse.response maps to a result's
// content and status, and back.
func TestResponses(t *testing.T) {
	env, _ := toolresult.Partial("2 of 3 pages", nil).MarshalJSON()
	for _, tc := range []struct {
		response string
		content  []llm.Part
		status   llm.Status
	}{
		{`{"output":"18C"}`, []llm.Part{llm.Text{Text: "18C"}}, llm.StatusSuccess},
		{`{"error":"sold out"}`, []llm.Part{llm.Text{Text: "sold out"}}, llm.StatusError},
		{`{"error":{"code":5}}`, []llm.Part{llm.Text{Text: `{"error":{"code":5}}`}}, llm.StatusError},
		{`{}`, nil, llm.StatusSuccess},
		{string(env), []llm.Part{llm.Text{Text: string(env)}}, llm.StatusPartial},
		{`{"temp":18,"unit":"C"}`, []llm.Part{llm.Text{Text: `{"temp":18,"unit":"C"}`}}, llm.StatusSuccess},
		{`{"output":"{\"a\":1}"}`, []llm.Part{llm.Text{Text: `{"output":"{\"a\":1}"}`}}, llm.StatusSuccess},
		{`{"output":42}`, []llm.Part{llm.Text{Text: `{"output":42}`}}, llm.StatusSuccess},
	} {
		body := `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":` + tc.response + `}}]}]}`
		r, err := Decode([]byte(body))
		if err != nil {
			t.Errorf("Decode(%s) error: %v", tc.response, err)
			continue
		}
		got := r.Messages[0].Parts[0].(llm.ToolResult)
		if got.Status != tc.status || fmt.Sprint(got.Content) != fmt.Sprint(tc.content) {
			t.Errorf("Decode(%s) = %v %v, want %v %v", tc.response, got.Status, got.Content, tc.status, tc.content)
		}
		// A fresh encoding of the same result gives the same response.
		fresh, _, err := Encode(&Request{Messages: r.Messages})
		if err != nil || !bytes.Contains(fresh, []byte(`"response":`+tc.response)) {
			t.Errorf("Encode(%v %v) = %s, %v, want response %s", got.Status, got.Content, fresh, err, tc.response)
		}
	}
}

// TestWire checks violations that only the wire form shows.
func TestWire(t *testing.T) {
	for _, tc := range []struct {
		body, want string
	}{
		{`{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":[1,2]}}]}]}`,
			`contents.0.parts.0.functionResponse.response: GEM-RESPONSE-OBJECT: functionResponse.response must be a JSON object, not an array; wrap it as {"output": ...}`},
		{`{"contents":[{"role":"model","parts":[{"thoughtSignature":"c2ln"}]}]}`,
			`contents.0.parts.0: GEM-PARTS-NONEMPTY: the part has no data field (text, inlineData, fileData, functionCall, ...)`},
		// A user part without data is a rule the body breaks, not a body
		// toolwire cannot read.
		{`{"contents":[{"role":"user","parts":[{}]}]}`,
			`contents.0.parts.0: GEM-PARTS-NONEMPTY: the part has no data field (text, inlineData, fileData, functionCall, ...)`},
		{`{"contents":{"parts":{"thought":false}}}`,
			`contents.parts: GEM-PARTS-NONEMPTY: the part has no data field (text, inlineData, fileData, functionCall, ...)`},
		{`[{"role":"user","parts":[{"functionResponse":{"name":"f","response":"x"}}]}]`,
			`contents.0.parts.0.functionResponse.response: GEM-RESPONSE-OBJECT: functionResponse.response must be a JSON object, not a string; wrap it as {"output": ...}`},
	} {
		r, err := Decode([]byte(tc.body))
		if err != nil {
			t.Errorf("Decode(%s) error: %v", tc.body, err)
			continue
		}
		if len(r.Wire) != 1 || r.Wire[0].String() != tc.want {
			t.Errorf("Decode(%s).Wire = %v, want %s", tc.body, r.Wire, tc.want)
		}
		if enc, _, err := Encode(r); err != nil || string(enc) != tc.body {
			t.Errorf("Encode(Decode(%s)) = %s, %v, want the body back", tc.body, enc, err)
		}
	}
}

// TestParametersSchema checks that OpenAPI parameters become JSON Schema
// and that an unchanged declaration is written back as it was.
func TestParametersSchema(t *testing.T) {
	body := `{"contents":[],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"q":{"type":"STRING","nullable":true,"description":"query"},"tags":{"type":"ARRAY","items":{"type":"STRING","enum":["A","B"]}},"opt":{"anyOf":[{"type":"INTEGER"},{"type":"NULL"}]}},"required":["q"],"propertyOrdering":["q","tags"]}}]}]}`
	r, err := Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"q":{"type":["string","null"],"description":"query"},"tags":{"type":"array","items":{"type":"string","enum":["A","B"]}},"opt":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"required":["q"],"propertyOrdering":["q","tags"]}`
	if got := string(r.Tools[0].Parameters); got != want {
		t.Errorf("Decode(%s) parameters = %s, want %s", body, got, want)
	}
	if enc, _, err := Encode(r); err != nil || string(enc) != body {
		t.Errorf("Encode(Decode(%s)) = %s, %v, want the body back", body, enc, err)
	}
	r.Tools[0].Description = "changed"
	enc, _, err := Encode(r)
	if err != nil || !bytes.Contains(enc, []byte(`{"name":"f","description":"changed","parametersJsonSchema":`+want+`}`)) {
		t.Errorf("Encode(changed declaration) = %s, %v, want parametersJsonSchema %s", enc, err, want)
	}
}
