package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/units"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

// defaultModel is the model whose limits, counter and image support
// shape assumes for a dialect when --model is not given.
func defaultModel(d transcript.Dialect) string {
	switch d {
	case transcript.OpenAIResponses:
		return "gpt-5"
	case transcript.Anthropic:
		return "claude-sonnet-4-5"
	case transcript.Gemini:
		return "gemini-2.5-pro"
	}
	return "gpt-4o"
}

func newShapeCmd(e *env) *cobra.Command {
	var o shapeOptions
	cmd := &cobra.Command{
		Use:   "shape [--budget TOKENS] [--dialect D] [--model M] [--tool NAME] [--spec FILE] FILE|-",
		Short: "Show the tool message a model would see for a raw tool output",
		Long: `shape reads a tool's raw output (JSON, text, or binary such as an image;
"-" is standard input) and prints, on standard output, the tool message
exactly as it would be sent in the dialect: the output compacted, empty
fields pruned, nested objects flattened, and cut to the token budget —
the whole result, the first records that fit with a note saying how to
read on, or aggregates (count, schema, statistics per field, a sample).
Standard error says what was done: the level, the tokens before and
after, the records kept and omitted, the ref the full output is kept
under. Run it before wiring a tool to see what the model will see.

--spec reads a toolwire spec file (or any tools file lint reads) and
applies the tool's shaping rules ("shape": fields, sort_by, order,
max_records), and says which of them the output gives no hold to (a
sort_by field that no record has); a tool that declares a return schema
must output JSON that matches it.
--tool picks the tool in the file, and names it in the message. --model
picks the token counter, the window and whether images may go inline
(the default depends on the dialect: gpt-4o, gpt-5, claude-sonnet-4-5,
gemini-2.5-pro).

Exit codes: 0 the message fits the budget; 1 even the smallest
observation exceeds it, or the output breaks the --spec tool's return
schema; 2 the input or the command line is unusable.`,
		Example: `  toolwire shape --budget 2000 toolresult/testdata/shape/orders-30000.json
  curl -s https://api.example.com/orders | toolwire shape --dialect anthropic -
  toolwire shape --spec tools.json --tool search_docs hits.json`,
		Args: nArgs(1, 1, "one FILE (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error { return runShape(e, o, args[0]) },
	}
	cmd.Flags().IntVar(&o.tokens, "budget", 2000, "the most tokens the tool message may take")
	cmd.Flags().StringVar(&o.dialect, "dialect", "openai-chat", "the dialect to write the tool message in: openai-chat, openai-responses, anthropic or gemini")
	cmd.Flags().StringVar(&o.model, "model", "", "the model: picks the token counter and image support (default: by dialect)")
	cmd.Flags().StringVar(&o.name, "tool", "", "the tool's name (with --spec: the tool to take from the file)")
	cmd.Flags().StringVar(&o.specFile, "spec", "", "a tool spec file whose shaping rules and return schema apply")
	return cmd
}

// shapeOptions are shape's flags.
type shapeOptions struct {
	tokens                         int
	dialect, name, specFile, model string
}

// A shapeSetup is what shape's flags resolve to.
type shapeSetup struct {
	dialect transcript.Dialect
	limits  budget.Limits
	counter budget.Counter
	spec    tool.Spec // the --spec tool; zero without --spec
}

// setup checks shape's flags and resolves them: the dialect, the model's
// limits and counter, the --spec tool (and o.name, the tool's name).
func (o *shapeOptions) setup() (*shapeSetup, error) {
	if o.tokens <= 0 {
		return nil, exitcode.Usagef("--budget %d: want a positive number of tokens", o.tokens)
	}
	d, err := dialectFlag("dialect", o.dialect, false)
	if err != nil {
		return nil, err
	}
	if o.model == "" {
		o.model = defaultModel(d)
	}
	limits, ok := budget.DefaultTable().Lookup(o.model)
	if !ok {
		return nil, exitcode.Usagef("--model %q: not in the model table; use a known family such as gpt-4o, claude-sonnet-4-5 or gemini-2.5-pro", o.model)
	}
	counter, err := budget.NewCounter(limits.Encoding)
	if err != nil {
		return nil, &exitcode.Error{Code: exitcode.Internal, Err: err}
	}
	st := &shapeSetup{dialect: d, limits: limits, counter: counter}
	if o.specFile != "" {
		if st.spec, err = pickSpec(o.specFile, o.name); err != nil {
			return nil, err
		}
		o.name = st.spec.Name
	}
	if o.name == "" {
		o.name = "tool"
	}
	return st, nil
}

// runShape shapes the raw output in file and prints the tool message and
// what was done.
func runShape(e *env, o shapeOptions, file string) error {
	st, err := o.setup()
	if err != nil {
		return err
	}
	data, src, err := readLimited(e, file, "cut it (head -c) or narrow the tool's query")
	if err != nil {
		return err
	}
	boundMemory(len(data))
	sh, err := toolresult.NewShaper(st.counter, toolresult.NewMemoryStore(0).NumberRefs(), nil)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Internal, Err: err}
	}
	env, notes := rawEnvelope(data, src, o.name)
	req := toolresult.Request{Tool: o.name, Budget: o.tokens, Rules: st.spec.Shape, JSON: len(st.spec.Returns) > 0,
		Images: budget.ImagePolicy(st.dialect, st.limits)}
	out, err := sh.Shape(context.Background(), env, req)
	if err != nil {
		if req.JSON {
			return inputError(src, fmt.Errorf("%s declares a JSON result (its return schema), but the output is not JSON: %s", o.name, strings.TrimPrefix(err.Error(), "toolresult: shape: the output is not JSON: not JSON: ")))
		}
		return inputError(src, err)
	}
	msg, err := wireToolMessage(st.dialect, out.Result("call_1", o.name))
	if err != nil {
		return &exitcode.Error{Code: exitcode.Internal, Err: err}
	}
	fmt.Fprintf(e.stdout, "%s\n", msg)
	for _, u := range out.Report.Unapplied {
		notes = append(notes, u+" (the shaping rules of --spec)")
	}
	printShapeReport(e.stderr, out.Report, st.dialect, o.model, st.limits, notes)
	if req.JSON {
		if err := checkReturns(st.spec, o.specFile, src, data); err != nil {
			return err
		}
	}
	if out.Report.OverBudget {
		fmt.Fprintf(e.stderr, "toolwire: the smallest observation (%d tokens) is over the budget of %d: raise --budget or narrow the output\n", out.Report.TokensAfter, o.tokens)
		return rejected()
	}
	return nil
}

// rawEnvelope is the envelope of a tool that returned data, read from
// src, and notes on what it holds.
func rawEnvelope(data []byte, src, name string) (toolresult.Envelope, []string) {
	if len(bytes.TrimSpace(data)) == 0 {
		return toolresult.Empty(name + " returned nothing"), []string{displayName(src) + " is empty: shown as a success that found nothing"}
	}
	env := toolresult.Success(fmt.Sprintf("%s returned %s", name, units.Bytes(len(data))), toolresult.Raw(data))
	if !utf8.Valid(data) && looksLikeText(data) {
		return env, []string{displayName(src) + " holds invalid UTF-8: each invalid byte is shown as U+FFFD and meta.invalid_utf8 is set"}
	}
	return env, nil
}

// pickSpec reads a tools file and returns the named tool, or its only
// tool.
func pickSpec(file, name string) (tool.Spec, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return tool.Spec{}, exitcode.Usagef("cannot read --spec %s", userText(err))
	}
	specs, _, err := tool.ParseSpecs(data)
	if err != nil {
		return tool.Spec{}, exitcode.Usagef("--spec %s: %s", file, userText(err))
	}
	var names []string
	for _, s := range specs {
		if s.Name == name || (name == "" && len(specs) == 1) {
			if err := s.Validate(); err != nil {
				return tool.Spec{}, exitcode.Usagef("--spec %s: %v", file, err)
			}
			return s, nil
		}
		names = append(names, s.Name)
	}
	if name == "" {
		return tool.Spec{}, exitcode.Usagef("--spec %s defines %d tools (%s): pick one with --tool", file, len(specs), strings.Join(names, ", "))
	}
	return tool.Spec{}, exitcode.Usagef("--spec %s has no tool %q (it defines %s)", file, name, strings.Join(names, ", "))
}

// wireToolMessage encodes the result as the dialect's codec writes it in
// a request body, and returns just the message (or item) that carries
// it.
func wireToolMessage(d transcript.Dialect, res llm.ToolResult) ([]byte, error) {
	msgs := []llm.Message{
		llm.User("…"),
		llm.Assistant(llm.ToolCall{ID: res.CallID, Name: res.Name, Input: []byte("{}")}),
		llm.Tool(res),
	}
	var body []byte
	var err error
	key := "messages"
	switch d {
	case transcript.OpenAIChat:
		body, _, err = openai.EncodeChat(&openai.ChatRequest{Messages: msgs})
	case transcript.OpenAIResponses:
		body, _, err = openai.EncodeResponses(&openai.ResponsesRequest{Messages: msgs})
		key = "input"
	case transcript.Anthropic:
		body, _, err = anthropic.Encode(&anthropic.Request{Messages: msgs})
	case transcript.Gemini:
		body, _, err = gemini.Encode(&gemini.Request{Messages: msgs})
		key = "contents"
	}
	if err != nil {
		return nil, fmt.Errorf("encode the tool message for %s: %w", d, err)
	}
	return lastElement(body, key)
}

// lastElement returns the last element of the array member key of a
// JSON object.
func lastElement(body []byte, key string) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		if tok.String() != key {
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := dec.ReadToken(); err != nil { // [
			return nil, err
		}
		var last jsontext.Value
		for dec.PeekKind() != ']' {
			v, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			last = append(last[:0], v...)
		}
		return last, nil
	}
	return nil, errors.New("the encoded body has no " + key)
}

func printShapeReport(w io.Writer, r toolresult.Report, d transcript.Dialect, model string, l budget.Limits, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	levels := map[toolresult.Level]string{
		toolresult.LevelFull:      "the whole output fits",
		toolresult.LevelHead:      "the first records or lines that fit, with a note on how to read on",
		toolresult.LevelAggregate: "too few records fit: their count, schema, statistics and a sample",
	}
	fmt.Fprintf(w, "level: %s — %s\n", r.Level, levels[r.Level])
	how := "estimated"
	if l.Encoding != budget.Estimated {
		how = "counted with " + string(l.Encoding)
	}
	fmt.Fprintf(w, "tokens: %s -> %s (budget %s, %s for %s, %s)\n", units.Count(r.TokensBefore), units.Count(r.TokensAfter), units.Count(r.Budget), how, model, d)
	if r.Records > 0 {
		fmt.Fprintf(w, "records: %s, kept %s, omitted %s\n", units.Count(r.Records), units.Count(r.Kept), units.Count(r.Omitted))
	}
	if r.Ref != "" {
		fmt.Fprintf(w, "ref: %s (the full output; in an agent, read_result pages through it — here it lives for this run only)\n", r.Ref)
	}
	if len(r.Steps) > 0 {
		fmt.Fprintf(w, "steps: %s\n", strings.Join(r.Steps, "; "))
	}
}

// looksLikeText reports whether data has no NUL byte: text with some
// invalid UTF-8 rather than binary.
func looksLikeText(data []byte) bool { return bytes.IndexByte(data, 0) < 0 }

// checkReturns validates data, the JSON output named src, against the
// return schema of spec, read from specFile: exit 1 naming the fields
// that break it, as an agent would mark the result partial.
func checkReturns(spec tool.Spec, specFile, src string, data []byte) error {
	sch, err := tool.CompileSchema(spec.Name+"/returns", spec.Returns)
	if err != nil {
		return exitcode.Usagef("--spec %s: %s", specFile, userText(err)) // pickSpec validated it
	}
	fes, err := sch.Validate(data)
	if err != nil || len(fes) == 0 {
		return nil // not JSON: the shaper said so
	}
	const show = 5
	var what []string
	for i, fe := range fes {
		if i == show {
			what = append(what, fmt.Sprintf("and %d more", len(fes)-show))
			break
		}
		what = append(what, fmt.Sprintf("%s: %s", orDash(fe.Path), fe.Message))
	}
	return &exitcode.Error{Code: exitcode.Rejected, Err: fmt.Errorf("%s: the output breaks the return schema of %s (--spec %s): %s; an agent would send it marked partial",
		displayName(src), spec.Name, specFile, strings.Join(what, "; "))}
}
