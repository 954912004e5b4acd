package tool

import (
	"context"
	"errors"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/toolresult"
)

// ReadResultName is the name of the built-in tool that pages through
// offloaded results.
const ReadResultName = "read_result"

const readResultSchema = `{"type":"object","properties":{` +
	`"ref":{"type":"string","minLength":1,"maxLength":64,"description":"The ref of the result to read, from its meta.ref or its suggestion, e.g. r1."},` +
	`"offset":{"type":"integer","minimum":0,"default":0,"description":"The first record (or line) to read, counting from 0 in the order the result showed them; the suggestion gives the next one."},` +
	`"limit":{"type":"integer","minimum":1,"maximum":10000,"description":"The most records to read; leave it out to read as many as fit."},` +
	`"fields":{"type":"array","items":{"type":"string","minLength":1},"maxItems":50,"description":"Only these fields of each record, as dotted paths such as address.city; leave it out for every field."},` +
	`"filter":{"type":"object","maxProperties":20,"description":"Only the records whose fields equal these values, e.g. {\"status\": \"paid\"}; keys are dotted paths. Offset then counts matching records."}` +
	`},"required":["ref"],"additionalProperties":false}`

// readResult is the read_result tool over a shaper's store.
type readResult struct {
	sh   *toolresult.Shaper
	spec Spec
}

// ReadResult returns the built-in read_result tool: it reads more of a
// result that the shaper offloaded, page by page, each page shaped by
// the same rules and fitted to the call's budget ([CallInfo].Budget).
// Register it next to the tools whose results sh shapes.
func ReadResult(sh *toolresult.Shaper) (Tool, error) {
	if sh == nil || sh.Store() == nil {
		return nil, errors.New("tool: read_result: the shaper has no store to read results from")
	}
	return &readResult{sh: sh, spec: Spec{
		Name: ReadResultName,
		Description: "Reads more of a tool result that was too large to show in full: its records (or lines) from an offset on, as many as fit. " +
			"Use it when a result says it shows only part of the data and gives a ref; pass that ref and the offset it suggests. " +
			"Returns the records in the order the result showed them, with the offset of the next page when more remain.",
		Parameters:  jsontext.Value(readResultSchema),
		Idempotency: Level2,
	}}, nil
}

func (t *readResult) Spec() Spec { return t.spec }

type readResultArgs struct {
	Ref    string                    `json:"ref"`
	Offset int                       `json:"offset"`
	Limit  int                       `json:"limit"`
	Fields []string                  `json:"fields"`
	Filter map[string]jsontext.Value `json:"filter"`
}

// Call reads one page.
func (t *readResult) Call(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
	var a readResultArgs
	if err := jsonv2.Unmarshal(args, &a); err != nil {
		return toolresult.Envelope{}, Errorf(toolresult.InvalidArguments, "read_result: %v", err)
	}
	ci, _ := CallInfoFrom(ctx)
	page, err := t.sh.Page(ctx, toolresult.PageRequest{Ref: a.Ref, Offset: a.Offset, Limit: a.Limit, Fields: a.Fields, Filter: a.Filter}, ci.Budget)
	switch {
	case errors.Is(err, toolresult.ErrNotFound):
		return toolresult.Envelope{}, Errorf(toolresult.NotFound, "no stored result has ref %q (it may have been evicted); call the original tool again", a.Ref)
	case errors.Is(err, toolresult.ErrBadPage):
		return toolresult.Envelope{}, Errorf(toolresult.InvalidArguments, "%s", strings.TrimPrefix(err.Error(), "toolresult: bad page request: "))
	case err != nil:
		return toolresult.Envelope{}, err
	}
	return page.Envelope, nil
}
