package transcript

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// TestRepairContentAfterPairing covers messages that pairing makes or
// changes, whose content the content stage, which runs before pairing,
// never saw: dropping a duplicate result or stripping a call can leave a
// whitespace-only text alone in its message (ANT-TEXT-WHITESPACE) or a
// message with nothing the dialect can express. Found by FuzzRepair
// (testdata/fuzz/FuzzRepair/9f2ad2c3eff3f6d8).
func TestRepairContentAfterPairing(t *testing.T) {
	strip := &Policy{Unanswered: StripCall}
	tests := []repairCase{
		{
			name: "a dropped duplicate result leaves its message's trailing whitespace alone",
			d:    Anthropic,
			in: []llm.Message{
				usr("q"),
				asst(call("toolu_1", "a")),
				tool(res("toolu_1", "a", "1")),
				tool(res("toolu_1", "a", "1"), txt(" ")),
			},
			want: `0 user: text "q";
1 assistant: call toolu_1 a {};
2 tool: result toolu_1 a success [text "1"];
3 user: text "(empty)";
`,
			changes: `messages.3.content.0 ANT-SINGLE-RESULT drop
messages.3.content.1 ANT-TEXT-WHITESPACE replace-text
`,
		},
		{
			name: "the fuzz input: parallel results duplicated, system messages late",
			d:    Anthropic,
			in: []llm.Message{
				asst(call("c1", "search"), call("c2", "get_weather"), txt("hi")),
				tool(errRes("c1", "search", txt("hi")), errRes("c2", "get_weather", txt("hi")), txt(" ")),
				tool(errRes("c1", "search", txt("hi")), errRes("c2", "get_weather", txt("hi")), txt(" ")),
				sys("hi"),
			},
			// Text after tool_use in one assistant message is rejected
			// (ANT-RESULT-NEXT): it moves before the calls.
			want: `0 system: text "hi";
1 assistant: text "hi"; call c1 search {}; call c2 get_weather {};
2 tool: result c1 search error [text "hi"]; result c2 get_weather error [text "hi"]; text " ";
3 user: text "(empty)";
`,
			changes: `messages.3 ANT-SYSTEM-ROLE move
messages.0.content.2 ANT-RESULT-NEXT move
messages.2.content.0 ANT-SINGLE-RESULT drop
messages.2.content.1 ANT-SINGLE-RESULT drop
messages.2.content.2 ANT-TEXT-WHITESPACE replace-text
`,
		},
		{
			name: "whitespace after a duplicate stays when it is not alone",
			d:    Anthropic,
			in: []llm.Message{
				usr("q"),
				asst(call("toolu_1", "a")),
				tool(res("toolu_1", "a", "1")),
				tool(res("toolu_1", "a", "1"), txt(" "), img()),
			},
			want: `0 user: text "q";
1 assistant: call toolu_1 a {};
2 tool: result toolu_1 a success [text "1"];
3 user: text " "; image;
`,
			changes: `messages.3.content.0 ANT-SINGLE-RESULT drop
`,
		},
		{
			name: "other dialects accept the whitespace",
			d:    OpenAIChat,
			in: []llm.Message{
				usr("q"),
				asst(call("c1", "a")),
				tool(res("c1", "a", "1")),
				tool(res("c1", "a", "1"), txt(" ")),
			},
			want: `0 user: text "q";
1 assistant: call c1 a {};
2 tool: result c1 a success [text "1"];
3 user: text " ";
`,
			changes: `messages.3 OAI-CC-DUP-RESULT drop
`,
		},
		{
			name: "a stripped call leaves whitespace alone in its assistant message",
			d:    Anthropic,
			pol:  strip,
			in: []llm.Message{
				usr("q"),
				asst(txt(" "), call("toolu_1", "a")),
				usr("stop"),
			},
			want: `0 user: text "q";
1 assistant: text "(empty)";
2 user: text "stop";
`,
			changes: `messages.1.content.1 ANT-RESULT-NEXT strip-call
messages.1.content.0 ANT-TEXT-WHITESPACE replace-text
`,
		},
		{
			name: "a stripped call leaves only reasoning the dialect cannot express",
			d:    OpenAIChat,
			pol:  strip,
			in: []llm.Message{
				usr("q"),
				asst(think("anthropic", "sig"), call("c1", "a")),
				usr("stop"),
			},
			want: `0 user: text "q";
1 user: text "stop";
`,
			changes: `messages.1.tool_calls.0 OAI-CC-ANSWER-ALL strip-call
messages.1 OAI-CC-NULL-CONTENT drop
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

// A repairCase is one history Repair must repair as a dialect under a
// policy: want is the render of the repaired messages, changes the
// changes made, "path rule action" one a line.
type repairCase struct {
	name    string
	d       Dialect
	pol     *Policy
	in      []llm.Message
	want    string
	changes string
}

// run repairs tt.in and checks the messages and changes against tt's, a
// reason on every change, that the dialect accepts the result, and that
// repairing it again changes nothing.
func (tt repairCase) run(t *testing.T) {
	out, changes, err := Repair(tt.in, tt.d, tt.pol)
	if err != nil {
		t.Fatalf("Repair(%s) error = %v", tt.d, err)
	}
	if got := render(out); got != tt.want {
		t.Errorf("Repair(%q, %s) =\n%s\nwant\n%s", render(tt.in), tt.d, got, tt.want)
	}
	for _, c := range changes {
		if c.Reason == "" {
			t.Errorf("change %v has no reason", c)
		}
	}
	if got := changeLines(changes); got != tt.changes {
		t.Errorf("Repair(%q, %s) changes =\n%s\nwant\n%s", render(tt.in), tt.d, got, tt.changes)
	}
	if msg := unsettled(out, tt.d, tt.pol); msg != "" {
		t.Error(msg)
	}
}

// TestRepairGeminiSharedID covers a Gemini result without an id whose
// call shares its id with another call of the turn. Gemini matches a
// response with an id to the first unanswered call with that id, so
// giving the result its call's id would pair it with the other call
// (GEM-RESP-MATCH); Repair leaves it to match by name. Found by FuzzRepair
// (testdata/fuzz/FuzzRepair/80b9b4376c885407).
func TestRepairGeminiSharedID(t *testing.T) {
	tests := []repairCase{
		{
			name: "shared id: the result without one keeps matching by name",
			d:    Gemini,
			in: []llm.Message{
				asst(call("c1", "get_weather"), call("c1", "get.weather")),
				tool(errRes("", "get.weather", txt("hi")), errRes("c1", "get_weather", txt("hi"))),
			},
			want: `0 user: text "(empty)";
1 assistant: call c1 get_weather {}; call c1 get.weather {};
2 tool: result  get.weather error [text "hi"]; result c1 get_weather error [text "hi"];
`,
			changes: `contents.0 GEM-CALL-AFTER-USER insert
`,
		},
		{
			name: "unique id: the result without one gets it",
			d:    Gemini,
			in: []llm.Message{
				asst(call("c1", "get_weather"), call("c2", "get.weather")),
				tool(errRes("", "get.weather", txt("hi")), errRes("c1", "get_weather", txt("hi"))),
			},
			want: `0 user: text "(empty)";
1 assistant: call c1 get_weather {}; call c2 get.weather {};
2 tool: result c2 get.weather error [text "hi"]; result c1 get_weather error [text "hi"];
`,
			changes: `contents.1.parts.0 GEM-RESP-MATCH rewrite-id
contents.0 GEM-CALL-AFTER-USER insert
`,
		},
		{
			name: "shared id in a rebuilt turn: results in call order, matched by name",
			d:    Gemini,
			in: []llm.Message{
				usr("q"),
				asst(call("c1", "a"), call("c1", "b")),
				usr("wait"),
				asst(txt("waiting")),
				tool(errRes("", "b", txt("2")), errRes("c1", "a", txt("1"))),
			},
			want: `0 user: text "q";
1 assistant: call c1 a {}; call c1 b {};
2 tool: result c1 a error [text "1"]; result  b error [text "2"];
3 user: text "wait";
4 assistant: text "waiting";
`,
			changes: `contents.1 GEM-RESP-AFTER-CALL move
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

// TestRepairGeminiJoinedTurns checks that Repair, fixing one thing, leaves
// alone the shapes the Gemini API accepts because it joins consecutive
// contents of one role: calls spread over model contents, responses over
// user contents, user text among them.
func TestRepairGeminiJoinedTurns(t *testing.T) {
	joined := []llm.Message{
		usr("q"),
		asst(gsig("s"), call("", "a")),
		asst(call("", "b")),
		tool(res("", "a", "1")),
		usr("and"),
		tool(res("", "b", "2")),
		asst(txt("then")),
	}
	in := append(append([]llm.Message(nil), joined...), usr("again"), asst(call("", "get weather")), tool(res("", "get weather", "3")))
	out, changes, err := RepairRequest(Request{Messages: in, Tools: []llm.ToolSpec{{Name: "get weather"}}}, Gemini, nil)
	if err != nil {
		t.Fatalf("RepairRequest() error = %v", err)
	}
	if got, want := render(out.Messages[:len(joined)]), render(joined); got != want {
		t.Errorf("RepairRequest() changed the joined turns:\n%s\nwant\n%s", got, want)
	}
	if len(changes) != 1 || changes[0].Rule != ruleGemName {
		t.Errorf("RepairRequest() changes = %v, want one GEM-NAME rename", changes)
	}
}

// TestRepairDuplicateResults covers a call with two results, in every
// dialect: a placeholder (an interrupted or cancelled envelope, or an
// error that only says the call was aborted) gives way to the real result
// wherever each stands; a second real result after the call's run of
// results becomes a note; two real results in the run are a conflict
// Repair reports, unless the Duplicates policy picks the first or the
// last.
func TestRepairDuplicateResults(t *testing.T) {
	interrupted := toolresult.Failure(toolresult.Interrupted, "a was running when the process stopped").Result("c1", "a")
	cancelled := toolresult.Failure(toolresult.Cancelled, "a was cancelled").Result("c1", "a")
	aborted := errRes("c1", "a", txt("Tool call aborted by the user."))
	tests := []struct {
		name string
		pol  *Policy
		in   []llm.Message
		// kept is the text of the one result of c1 left; notes the number
		// of notes made of second results; actions the actions of the
		// changes the duplicate made, in order.
		kept     string
		notes    int
		actions  string
		conflict bool
	}{
		{name: "interrupted placeholder, the real result after a user message",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(interrupted), usr("it finished after all"), tool(res("c1", "a", "done"))},
			kept: "done", actions: "drop"},
		{name: "real result, then a cancelled placeholder in the run",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "done")), tool(cancelled)},
			kept: "done", actions: "drop"},
		{name: "an aborted error result, then the real one in the run",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(aborted), tool(res("c1", "a", "done")), usr("next")},
			kept: "done", actions: "drop"},
		// The plain-text placeholders frameworks write for a missing
		// result are placeholders whatever their status: Chat and
		// Responses results have no error flag.
		{name: "LangChain's cancelled placeholder, the real result after a user message",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "Tool call a with id c1 was cancelled - another message came in before it could be completed.")), usr("it finished after all"), tool(res("c1", "a", "done"))},
			kept: "done", actions: "drop"},
		{name: "Codex's aborted output, then the real one in the run",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "aborted")), tool(res("c1", "a", "done")), usr("next")},
			kept: "done", actions: "drop"},
		{name: "opencode's aborted tool, then the real one in the run",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "Tool execution aborted")), tool(res("c1", "a", "done")), usr("next")},
			kept: "done", actions: "drop"},
		{name: "real result, then opencode's interrupted replay in the run",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "done")), tool(res("c1", "a", "[Tool execution was interrupted]"))},
			kept: "done", actions: "drop"},
		{name: "Claude Code's interrupt text as a result, then the real one",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "[Request interrupted by user for tool use]")), tool(res("c1", "a", "done")), usr("next")},
			kept: "done", actions: "drop"},
		{name: "a real outcome that mentions an abort is real: a conflict",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "aborted the deploy: 3 hosts rolled back")), tool(res("c1", "a", "second"))},
			kept: "aborted the deploy: 3 hosts rolled back", conflict: true},
		{name: "a second real result after the run is a note",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "first")), usr("again?"), tool(res("c1", "a", "second"))},
			kept: "first", notes: 1, actions: "note"},
		{name: "two real results in the run: a conflict",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "first")), tool(res("c1", "a", "second"))},
			kept: "first", conflict: true},
		{name: "an error that is not about stopping is real: a conflict",
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(errRes("c1", "a", txt("file not found"))), tool(res("c1", "a", "second"))},
			kept: "file not found", conflict: true},
		{name: "two real results, keep the first", pol: &Policy{Duplicates: KeepFirst},
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "first")), tool(res("c1", "a", "second"))},
			kept: "first", notes: 1, actions: "note"},
		{name: "two real results, keep the last", pol: &Policy{Duplicates: KeepLast},
			in:   []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "first")), tool(res("c1", "a", "second")), usr("next")},
			kept: "second", notes: 1, actions: "note"},
	}
	for _, d := range Dialects() {
		for _, tt := range tests {
			t.Run(string(d)+"/"+tt.name, func(t *testing.T) {
				out, changes, err := Repair(tt.in, d, tt.pol)
				var re *RepairError
				if tt.conflict {
					if !errors.As(err, &re) || len(re.Problems) != 1 || re.Problems[0].Rule != rulesOf(d).duplicate {
						t.Fatalf("Repair(%s) error = %v, want one conflict problem", d, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Repair(%s) error = %v\n%s", d, err, render(out))
				}
				var kept []string
				notes := 0
				for _, m := range out {
					for _, p := range m.Parts {
						switch p := p.(type) {
						case llm.ToolResult:
							if p.CallID == "c1" || (d == Gemini && p.Name == "a") {
								kept = append(kept, p.Content[0].(llm.Text).Text)
							}
						case llm.Text:
							if strings.HasPrefix(p.Text, "[toolwire: a second result") {
								notes++
							}
						}
					}
				}
				if len(kept) != 1 || kept[0] != tt.kept || notes != tt.notes {
					t.Errorf("Repair(%q, %s) keeps results %q and %d note(s), want %q and %d\n%s", render(tt.in), d, kept, notes, tt.kept, tt.notes, render(out))
				}
				var acts []string
				for _, c := range changes {
					if c.Rule == rulesOf(d).duplicate {
						acts = append(acts, string(c.Action))
					}
				}
				if got := strings.Join(acts, " "); got != tt.actions {
					t.Errorf("Repair(%s) duplicate changes = %q, want %q\n%s", d, got, tt.actions, renderChanges(changes))
				}
				if msg := unsettled(out, d, tt.pol); msg != "" {
					t.Errorf("%s\n%s", msg, render(out))
				}
			})
		}
	}
}

// TestRepairKeepsInput holds Repair to leaving its input as it was, under
// every policy: the output may share parts with it, so a repair that
// edited a shared message, part, content slice or tool list in place
// would change the caller's transcript. %#v prints every field and every
// element of every slice, so an edit anywhere shows.
func TestRepairKeepsInput(t *testing.T) {
	policies := []*Policy{nil, {Duplicates: KeepFirst}, {Duplicates: KeepLast}, {Unanswered: StripCall, Orphans: DropOrphan}}
	cases := checkCases()
	for _, d := range Dialects() {
		cases = append(cases, checkCase{name: "bench/" + string(d), d: d, req: Request{Messages: benchTranscript(200, true)}})
	}
	for _, tt := range cases {
		for _, pol := range policies {
			before := fmt.Sprintf("%#v", tt.req)
			RepairRequest(tt.req, tt.d, pol)
			if after := fmt.Sprintf("%#v", tt.req); after != before {
				t.Errorf("%s: RepairRequest(req, %s, %+v) changed req:\nbefore %s\nafter  %s", tt.name, tt.d, pol, before, after)
			}
		}
	}
}

// TestRepairGeminiPlaceholderSignature holds Repair to Google's documented
// way out for a Gemini 3 call that lacks its thought signature
// (GEM-THOUGHT-SIG-PLACEHOLDER): the first call of each step of the
// current turn that has none gets the placeholder the validator skips, and
// nothing else changes; for a model that does not require signatures, or
// an unknown one (a warning), Repair adds none.
func TestRepairGeminiPlaceholderSignature(t *testing.T) {
	const ph = "skip_thought_signature_validator"
	tests := []struct {
		name  string
		model string
		in    []llm.Message
		want  []llm.Message // nil: Repair leaves the transcript as it is
	}{
		{name: "an unsigned later step", model: "gemini-3-pro-preview",
			in:   []llm.Message{usr("q"), asst(gsig("s1"), call("", "a")), tool(res("", "a", "1")), asst(call("", "b"), call("", "c")), tool(res("", "b", "2"), res("", "c", "3"))},
			want: []llm.Message{usr("q"), asst(gsig("s1"), call("", "a")), tool(res("", "a", "1")), asst(gsig(ph), call("", "b"), call("", "c")), tool(res("", "b", "2"), res("", "c", "3"))}},
		{name: "a step whose call follows text", model: "gemini-3-flash-preview",
			in:   []llm.Message{usr("q"), asst(txt("let me look"), call("", "a")), tool(res("", "a", "1"))},
			want: []llm.Message{usr("q"), asst(txt("let me look"), gsig(ph), call("", "a")), tool(res("", "a", "1"))}},
		{name: "only the current turn", model: "gemini-3-pro-preview",
			in:   []llm.Message{usr("q"), asst(call("", "a")), tool(res("", "a", "1")), asst(txt("ok")), usr("again"), asst(call("", "a")), tool(res("", "a", "2"))},
			want: []llm.Message{usr("q"), asst(call("", "a")), tool(res("", "a", "1")), asst(txt("ok")), usr("again"), asst(gsig(ph), call("", "a")), tool(res("", "a", "2"))}},
		{name: "a step split over two contents is signed once", model: "gemini-3-pro-preview",
			in:   []llm.Message{usr("q"), asst(call("", "a")), asst(call("", "b")), tool(res("", "a", "1"), res("", "b", "2"))},
			want: []llm.Message{usr("q"), asst(gsig(ph), call("", "a")), asst(call("", "b")), tool(res("", "a", "1"), res("", "b", "2"))}},
		{name: "also when Repair answers the step's call", model: "gemini-3-pro-preview",
			in:   []llm.Message{usr("q"), asst(call("", "a"))},
			want: []llm.Message{usr("q"), asst(gsig(ph), call("", "a")), tool(interruptedResult("a"))}},
		{name: "a step before the user's next question is not the current turn's", model: "gemini-3-pro-preview",
			in:   []llm.Message{usr("q"), asst(call("", "a")), usr("never mind")},
			want: []llm.Message{usr("q"), asst(call("", "a")), tool(interruptedResult("a")), usr("never mind")}},
		{name: "Gemini 2.5 does not require one", model: "gemini-2.5-flash",
			in: []llm.Message{usr("q"), asst(gsig("s1"), call("", "a")), tool(res("", "a", "1")), asst(call("", "b")), tool(res("", "b", "2"))}},
		{name: "an unknown model is a warning, left alone", model: "",
			in: []llm.Message{usr("q"), asst(gsig("s1"), call("", "a")), tool(res("", "a", "1")), asst(call("", "b")), tool(res("", "b", "2"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Model: tt.model, Messages: tt.in}
			out, changes, err := RepairRequest(req, Gemini, nil)
			if err != nil {
				t.Fatalf("RepairRequest() error = %v", err)
			}
			want := tt.want
			if want == nil {
				want = tt.in
			}
			if got := render(out.Messages); got != render(want) {
				t.Errorf("RepairRequest(%s) =\n%swant\n%s", tt.model, got, render(want))
			}
			signed := 0
			for _, c := range changes {
				if c.Rule == ruleGemThoughtSig {
					signed++
					if c.Action != ActionInsert || !strings.Contains(c.Reason, ph) || c.Path == "" {
						t.Errorf("change %v: want an insert at a call's path that names %q", c, ph)
					}
				}
			}
			if n := strings.Count(render(out.Messages), ph) - strings.Count(render(tt.in), ph); signed != n {
				t.Errorf("RepairRequest() made %d GEM-THOUGHT-SIG change(s) for %d placeholder(s)", signed, n)
			}
			if vs := CheckRequest(out, Gemini); !Accepted(vs) {
				t.Errorf("CheckRequest(RepairRequest()) = %q, want accepted", ruleList(vs))
			}
		})
	}
}

// TestPlaceholder holds placeholder to what stands in for a missing
// result: the texts frameworks write for one (whatever the status), a
// short error that says the call was stopped, and toolwire's own
// envelopes; and to what does not.
func TestPlaceholder(t *testing.T) {
	tests := []struct {
		r    llm.ToolResult
		want bool
	}{
		{res("c1", "a", "aborted"), true},
		{res("c1", "a", " Aborted.\n"), true},
		{res("c1", "a", "Tool execution aborted"), true},
		{res("c1", "a", "[Tool execution was interrupted]"), true},
		{res("c1", "a", "Tool execution was cancelled by the user."), true},
		{res("c1", "a", "Tool call get_weather with id call_9f2 was cancelled - another message came in before it could be completed."), true},
		{res("c1", "a", "[Request interrupted by user for tool use]"), true},
		{res("c1", "a", "interrupted"), true},
		{errRes("c1", "a", txt("Tool call aborted by the user.")), true},
		{toolresult.Failure(toolresult.Cancelled, "a was cancelled").Result("c1", "a"), true},
		{res("c1", "a", "aborted the deploy: 3 hosts rolled back"), false},
		{res("c1", "a", "Tool call aborted by the user."), true},
		{res("c1", "a", "Cancelled order #4411; refund issued"), false},
		{res("c1", "a", "the request was interrupted by a 503; retried, 4 rows written"), false},
		{errRes("c1", "a", txt("file not found")), false},
		{errRes("c1", "a", txt("aborted"), txt("and more")), false},
		{llm.ToolResult{CallID: "c1", Content: []llm.Part{img()}}, false},
	}
	for _, tt := range tests {
		if got := placeholder(tt.r); got != tt.want {
			t.Errorf("placeholder(%s) = %v, want %v", renderPart(tt.r), got, tt.want)
		}
	}
}
