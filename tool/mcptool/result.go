package mcptool

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// Envelope maps what an MCP server returned for a call onto the
// observation envelope, for the model. Everything in res is untrusted:
// Envelope never fails and never panics, whatever it holds.
//
//   - A result larger than limit bytes (its text, binary data and
//     structured content together; limit ≤ 0 means no limit) is an
//     upstream_error that says how large it was: none of it is shown.
//   - IsError is a failure whose type the content tells, when it does: a
//     toolwire tool message (from a server that is toolwire), an object
//     with an error type, or words such as "not found" or "rate limit";
//     else upstream_error. Its message is the content's text.
//   - StructuredContent is the data, which the executor validates against
//     the tool's output schema; text content that repeats it (the spec
//     asks servers to send both) is left out, other content is named in
//     the summary.
//   - Otherwise the content is the data: one text part as JSON when it
//     is JSON, else as text; one image, audio or binary resource as a
//     [toolresult.Blob], which the shaper describes, offloads, or sends
//     inline; several parts as a JSON array with one object per part, in
//     which binary data is described (media type and size), never
//     written out.
func Envelope(res *mcp.CallToolResult, limit int64) toolresult.Envelope {
	if res == nil {
		return toolresult.Failure(toolresult.UpstreamError, "the MCP server returned no result")
	}
	if n := resultSize(res); limit > 0 && n > limit {
		env := toolresult.Failure(toolresult.UpstreamError, fmt.Sprintf("the MCP server returned a result of %d bytes, above the limit of %d bytes; none of it is shown", n, limit))
		env.Error.Retryable = false
		env.Suggestion = toolresult.Options("call the tool again with arguments that ask for less")
		return env
	}
	if res.IsError {
		return failure(res)
	}
	var structured jsontext.Value
	if res.StructuredContent != nil {
		b, err := jsonx.Marshal(res.StructuredContent)
		if err == nil {
			structured = b
		}
	}
	parts := make([]mcp.Content, 0, len(res.Content))
	for _, c := range res.Content {
		if c == nil {
			continue
		}
		if t, ok := c.(*mcp.TextContent); ok && structured != nil && sameJSON(t.Text, structured) {
			continue // the text form of the structured content
		}
		parts = append(parts, c)
	}
	if structured != nil {
		env := toolresult.Success("", structured)
		env.Meta.Omitted = len(parts) // content beside the structured result, not shown
		return env
	}
	switch len(parts) {
	case 0:
		return toolresult.Envelope{Status: llm.StatusSuccess}
	case 1:
		return toolresult.Success("", single(parts[0]))
	}
	arr := make([]map[string]any, len(parts))
	for i, c := range parts {
		arr[i] = part(c)
	}
	b, err := jsonx.Marshal(arr)
	if err != nil { // cannot happen: strings and numbers only
		return toolresult.Failure(toolresult.UpstreamError, "the MCP server's result could not be encoded")
	}
	return toolresult.Success("", b)
}

// single is the data of a result with one part.
func single(c mcp.Content) any {
	switch c := c.(type) {
	case *mcp.TextContent:
		return text(c.Text)
	case *mcp.ImageContent:
		return toolresult.Blob{MediaType: mediaType(c.MIMEType), Data: c.Data}
	case *mcp.AudioContent:
		return toolresult.Blob{MediaType: mediaType(c.MIMEType), Data: c.Data}
	case *mcp.EmbeddedResource:
		if r := c.Resource; r != nil && r.Blob != nil {
			return toolresult.Blob{MediaType: mediaType(r.MIMEType), Data: r.Blob}
		}
	}
	b, _ := jsonx.Marshal(part(c))
	return b
}

// text is a text part as data: JSON when it is a JSON object or array,
// else the text.
func text(s string) any {
	t := strings.TrimSpace(s)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && jsonx.Valid([]byte(t)) == nil {
		return jsontext.Value(t)
	}
	return toolresult.Raw(jsonx.ValidUTF8(s))
}

// part describes one content part as a JSON object.
func part(c mcp.Content) map[string]any {
	switch c := c.(type) {
	case *mcp.TextContent:
		return map[string]any{"type": "text", "text": jsonx.ValidUTF8(c.Text)}
	case *mcp.ImageContent:
		return binary("image", c.MIMEType, len(c.Data))
	case *mcp.AudioContent:
		return binary("audio", c.MIMEType, len(c.Data))
	case *mcp.ResourceLink:
		m := map[string]any{"type": "resource_link", "uri": clean(c.URI, 2048)}
		put(m, "name", c.Name)
		put(m, "title", c.Title)
		put(m, "description", c.Description)
		put(m, "media_type", c.MIMEType)
		if c.Size != nil && *c.Size >= 0 {
			m["size_bytes"] = *c.Size
		}
		return m
	case *mcp.EmbeddedResource:
		m := map[string]any{"type": "resource"}
		r := c.Resource
		if r == nil {
			return m
		}
		m["uri"] = clean(r.URI, 2048)
		put(m, "media_type", r.MIMEType)
		switch {
		case r.Blob != nil:
			m["size_bytes"] = len(r.Blob)
			m["note"] = "binary content, not shown"
		default:
			m["text"] = jsonx.ValidUTF8(r.Text)
		}
		return m
	}
	return map[string]any{"type": "unknown", "note": "a content part of a kind toolwire does not know, not shown"}
}

func binary(kind, mt string, n int) map[string]any {
	return map[string]any{"type": kind, "media_type": mediaType(mt), "size_bytes": n, "note": kind + " data, not shown"}
}

func put(m map[string]any, k, v string) {
	if v = clean(v, 500); v != "" {
		m[k] = v
	}
}

// clean keeps at most n bytes of s, valid UTF-8.
func clean(s string, n int) string {
	s = jsonx.ValidUTF8(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func mediaType(mt string) string {
	mt = strings.ToLower(strings.TrimSpace(clean(mt, 100)))
	if mt == "" {
		return "application/octet-stream"
	}
	return mt
}

// sameJSON reports whether text is the JSON of v (compared compactly).
func sameJSON(text string, v jsontext.Value) bool {
	t := jsontext.Value(strings.TrimSpace(text))
	if !t.IsValid() {
		return false
	}
	a, b := t.Clone(), v.Clone()
	return a.Compact() == nil && b.Compact() == nil && string(a) == string(b)
}

// resultSize is the bytes a result holds: text, binary data and
// structured content (roughly, by its JSON).
func resultSize(res *mcp.CallToolResult) int64 {
	var n int64
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			n += int64(len(c.Text))
		case *mcp.ImageContent:
			n += int64(len(c.Data))
		case *mcp.AudioContent:
			n += int64(len(c.Data))
		case *mcp.ResourceLink:
			n += int64(len(c.URI) + len(c.Name) + len(c.Title) + len(c.Description))
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				n += int64(len(c.Resource.Text) + len(c.Resource.Blob) + len(c.Resource.URI))
			}
		}
	}
	if res.StructuredContent != nil {
		if b, err := jsonx.Marshal(res.StructuredContent); err == nil {
			n += int64(len(b))
		}
	}
	return n
}

// failure maps an isError result.
func failure(res *mcp.CallToolResult) toolresult.Envelope {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && strings.TrimSpace(t.Text) != "" {
			texts = append(texts, t.Text)
		}
	}
	msg := strings.Join(texts, " ")
	// A toolwire tool message: the server is toolwire (toolwire mcp serve).
	if len(texts) == 1 {
		if env, err := toolresult.Parse([]byte(strings.TrimSpace(texts[0]))); err == nil && env.Status == llm.StatusError && env.Error != nil {
			return env
		}
	}
	typ := toolresult.ErrorType("")
	if m, ok := res.StructuredContent.(map[string]any); ok {
		typ, msg = structuredError(m, msg)
	}
	if typ == "" {
		typ = classify(msg)
	}
	msg = oneLine(msg, 500)
	if msg == "" {
		msg = "the MCP tool reported an error and gave no message"
	}
	env := toolresult.Failure(typ, msg)
	if typ == toolresult.UpstreamError {
		env.Error.Retryable = false // the tool said it failed; the same call would fail again
	}
	return env
}

// structuredError reads {"error": {"type": ..., "message": ...}} or
// {"type": ..., "message": ...} from structured content.
func structuredError(m map[string]any, msg string) (toolresult.ErrorType, string) {
	if inner, ok := m["error"].(map[string]any); ok {
		m = inner
	}
	var typ toolresult.ErrorType
	for _, k := range []string{"type", "code"} {
		if s, ok := m[k].(string); ok && toolresult.ErrorType(s).Valid() {
			typ = toolresult.ErrorType(s)
			break
		}
	}
	if s, ok := m["message"].(string); ok && strings.TrimSpace(s) != "" {
		msg = s
	}
	return typ, msg
}

// words name the failures that a message can say in plain words, most
// specific first.
var words = []struct {
	typ   toolresult.ErrorType
	words []string
}{
	{toolresult.RateLimited, []string{"rate limit", "too many requests", "429"}},
	{toolresult.Timeout, []string{"timed out", "timeout", "deadline exceeded"}},
	{toolresult.PermissionDenied, []string{"permission denied", "forbidden", "unauthorized", "not authorized", "access denied", "401", "403"}},
	{toolresult.NotFound, []string{"not found", "no such", "does not exist", "404"}},
	{toolresult.Conflict, []string{"conflict", "already exists", "409"}},
	{toolresult.InvalidArguments, []string{"invalid argument", "invalid parameter", "invalid input", "validation", "missing required", "required property", "must be"}},
}

// classify names the failure msg describes; upstream_error when it says
// nothing that does.
func classify(msg string) toolresult.ErrorType {
	low := strings.ToLower(msg)
	for _, w := range words {
		for _, s := range w.words {
			if strings.Contains(low, s) {
				return w.typ
			}
		}
	}
	return toolresult.UpstreamError
}

// oneLine folds white space and keeps at most n bytes.
func oneLine(s string, n int) string {
	return clean(strings.Join(strings.Fields(jsonx.ValidUTF8(s)), " "), n)
}
