package tool

import (
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolwire/toolwire/toolresult"
)

// A urlTemplate is an HTTP binding's URL, split once into what no
// argument may change and the places arguments fill: path segments
// (path-escaped, never "", "." or "..") and query values
// (query-escaped). See [parseURLTemplate] and [urlTemplate.fill].
type urlTemplate struct {
	origin string    // scheme and authority as written: "https://api.example.com:8443"
	path   [][]piece // the path's segments, split at its literal slashes
	// prefix is the decoded, cleaned path of the segments before the
	// first one with a placeholder: "/api/v1/users". No call leaves it.
	prefix   string
	hasQuery bool
	query    []piece // the query, after its '?'
	// queryKeys are the decoded names of the query parameters the URL
	// writes, placeholders or not: no other argument may name them.
	queryKeys map[string]bool
	// fixed are the query parameters with no placeholder, decoded.
	fixed    url.Values
	fragment string // "#..." as written, never sent; "" when none
}

// A piece is literal text of a URL, as written, or a placeholder.
type piece struct {
	text  string
	param string // the placeholder's name; "" for text
}

// parseURLTemplate splits raw, an absolute http or https URL with
// {param} placeholders. A placeholder may sit in the path, or in a query
// parameter's value; one in the scheme, host, port, a query parameter's
// name or the fragment is a problem, and so is a literal "." or ".."
// path segment (the prefix that calls stay under must be the path the
// server sees). Every problem is returned.
func parseURLTemplate(raw string) (*urlTemplate, []error) {
	// In masked every placeholder is NUL bytes: the URL's delimiters are
	// found in the literal text only, whatever a placeholder's name holds.
	masked := []byte(raw)
	locs := placeholderPattern.FindAllStringSubmatchIndex(raw, -1)
	for _, l := range locs {
		for i := l[0]; i < l[1]; i++ {
			masked[i] = 0
		}
	}
	m := string(masked)
	start := strings.Index(m, "://")
	if start < 0 {
		return nil, []error{fmt.Errorf("%q is not an absolute http or https URL", raw)}
	}
	authEnd := len(m)
	if i := strings.IndexAny(m[start+3:], "/?#"); i >= 0 {
		authEnd = start + 3 + i
	}
	fragStart := len(m)
	if i := strings.IndexByte(m[authEnd:], '#'); i >= 0 {
		fragStart = authEnd + i
	}
	pathEnd, queryStart := fragStart, -1
	if i := strings.IndexByte(m[authEnd:fragStart], '?'); i >= 0 {
		pathEnd, queryStart = authEnd+i, authEnd+i+1
	}

	var errs []error
	for _, l := range locs {
		name := raw[l[2]:l[3]]
		switch {
		case l[0] < authEnd:
			errs = append(errs, fmt.Errorf("placeholder {%s} is in the scheme, host or port: an argument would choose the server; put placeholders in the path or in query values only", name))
		case l[0] >= fragStart:
			errs = append(errs, fmt.Errorf("placeholder {%s} is in the fragment, which is never sent; put placeholders in the path or in query values only", name))
		}
	}
	t := &urlTemplate{origin: raw[:authEnd], fragment: raw[fragStart:], queryKeys: map[string]bool{}, fixed: url.Values{}}
	// pieces cuts raw[from:to] into text and placeholders.
	pieces := func(from, to int) []piece {
		var out []piece
		for _, l := range locs {
			if l[1] <= from || l[0] >= to {
				continue
			}
			if l[0] > from {
				out = append(out, piece{text: raw[from:l[0]]})
			}
			out = append(out, piece{param: raw[l[2]:l[3]]})
			from = l[1]
		}
		if from < to {
			out = append(out, piece{text: raw[from:to]})
		}
		return out
	}

	// Each path segment starts at a literal slash; the path, when there
	// is one, starts with one.
	var starts []int
	for i := authEnd; i < pathEnd; i++ {
		if m[i] == '/' {
			starts = append(starts, i)
		}
	}
	var prefix strings.Builder
	inPrefix := true
	for j, from := range starts {
		to := pathEnd
		if j+1 < len(starts) {
			to = starts[j+1]
		}
		seg := pieces(from, to)
		t.path = append(t.path, seg)
		if text := m[from+1 : to]; text == "." || text == ".." {
			errs = append(errs, fmt.Errorf("the path has a %q segment; write the path the server should see", text))
		}
		if hasParam(seg) {
			inPrefix = false
		} else if inPrefix {
			prefix.WriteString(raw[from:to])
		}
	}
	t.prefix = cleanPath(prefix.String())

	if queryStart >= 0 {
		t.hasQuery = true
		t.query = pieces(queryStart, fragStart)
		for from := queryStart; from <= fragStart; {
			to := fragStart
			if i := strings.IndexByte(m[from:fragStart], '&'); i >= 0 {
				to = from + i
			}
			keyEnd := to
			if i := strings.IndexByte(m[from:to], '='); i >= 0 {
				keyEnd = from + i
			}
			key, keyParams := queryText(pieces(from, keyEnd))
			_, valueParams := queryText(pieces(min(keyEnd+1, to), to))
			for _, p := range keyParams {
				errs = append(errs, fmt.Errorf("placeholder {%s} is in a query parameter's name; put placeholders in query values only", p))
			}
			if len(keyParams) == 0 && (key != "" || keyEnd < to) {
				t.queryKeys[key] = true
				if len(valueParams) == 0 {
					v := ""
					if keyEnd < to {
						v = unescapeQuery(raw[keyEnd+1 : to])
					}
					t.fixed.Add(key, v)
				}
			}
			from = to + 1
		}
	}
	return t, errs
}

// queryText returns the decoded text of query pieces with no
// placeholder, and the placeholders' names.
func queryText(ps []piece) (string, []string) {
	var b strings.Builder
	var params []string
	for _, p := range ps {
		if p.param != "" {
			params = append(params, p.param)
			continue
		}
		b.WriteString(p.text)
	}
	return unescapeQuery(b.String()), params
}

func unescapeQuery(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

func hasParam(ps []piece) bool {
	return slices.ContainsFunc(ps, func(p piece) bool { return p.param != "" })
}

// cleanPath decodes an escaped URL path, reads a backslash as a slash
// (as some servers do) and cleans it: what a server that normalises paths
// would call.
func cleanPath(escaped string) string {
	p := escaped
	if u, err := url.PathUnescape(escaped); err == nil {
		p = u
	}
	return path.Clean("/" + strings.ReplaceAll(p, `\`, "/"))
}

// under reports whether the cleaned path p is prefix or lies below it.
func under(p, prefix string) bool {
	return prefix == "/" || p == prefix || strings.HasPrefix(p, prefix+"/")
}

// fill returns the URL of a call: each path placeholder replaced by its
// argument path-escaped, each query placeholder by its argument
// query-escaped, and extra (an encoded query, or "") appended to the
// query. An argument that would make a path segment "", "." or ".."
// (itself or once percent-decoded, reading a backslash as a slash) is an
// invalid_arguments [*Error] naming it; so is any result whose path
// leaves the template's prefix. Every placeholder must have an argument.
func (t *urlTemplate) fill(args map[string]any, extra string) (string, error) {
	var b strings.Builder
	b.WriteString(t.origin)
	var escapedPath strings.Builder
	for _, seg := range t.path {
		if !hasParam(seg) {
			for _, p := range seg {
				escapedPath.WriteString(p.text)
			}
			continue
		}
		var escaped, decoded strings.Builder
		var names []string
		for _, p := range seg {
			if p.param == "" {
				escaped.WriteString(p.text)
				decoded.WriteString(unescapePath(strings.TrimPrefix(p.text, "/")))
				continue
			}
			v := scalar(args[p.param])
			names = append(names, p.param)
			escaped.WriteString(url.PathEscape(v))
			decoded.WriteString(v)
		}
		switch d := decoded.String(); {
		case d == "":
			return "", Errorf(toolresult.InvalidArguments, "%s fills a segment of the URL path and is empty; send a non-empty value", argumentNames(names))
		case dotSegment(d):
			return "", Errorf(toolresult.InvalidArguments, "%s would make a \".\" or \"..\" segment in the URL path (%q), which changes the endpoint called; send the value itself, not a relative path", argumentNames(names), d)
		}
		escapedPath.WriteString(escaped.String())
	}
	if p := cleanPath(escapedPath.String()); !under(p, t.prefix) {
		return "", Errorf(toolresult.InvalidArguments, "the arguments would move the URL path to %q, outside %q; send plain values", p, t.prefix)
	}
	b.WriteString(escapedPath.String())
	if t.hasQuery || extra != "" {
		b.WriteByte('?')
	}
	for _, p := range t.query {
		if p.param == "" {
			b.WriteString(p.text)
			continue
		}
		b.WriteString(url.QueryEscape(scalar(args[p.param])))
	}
	if extra != "" {
		if len(t.query) > 0 {
			b.WriteByte('&')
		}
		b.WriteString(extra)
	}
	b.WriteString(t.fragment)
	return b.String(), nil
}

func unescapePath(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// dotSegment reports whether s, split at slashes and backslashes, has a
// "." or ".." part, as it is or percent-decoded up to three times.
func dotSegment(s string) bool {
	for range 4 {
		for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '/' || r == '\\' }) {
			if part == "." || part == ".." {
				return true
			}
		}
		u, err := url.PathUnescape(s)
		if err != nil || u == s {
			return false
		}
		s = u
	}
	return false
}

// argumentNames writes `argument "a"` or `arguments "a", "b"`.
func argumentNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return "argument " + q[0]
	}
	return "arguments " + strings.Join(q, ", ")
}

// schemaArguments returns the names of the arguments a parameters schema
// declares at its top level (following $ref, allOf, anyOf, oneOf,
// if/then/else and dependentSchemas), and whether it admits others:
// additionalProperties or unevaluatedProperties other than false, or
// patternProperties, anywhere on that level.
func schemaArguments(root *jsonschema.Schema) (names map[string]bool, open bool) {
	names = map[string]bool{}
	seen := map[*jsonschema.Schema]bool{}
	var visit func(s *jsonschema.Schema)
	visit = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for n := range s.Properties {
			names[n] = true
		}
		switch ap := s.AdditionalProperties.(type) {
		case bool:
			open = open || ap
		case *jsonschema.Schema:
			open = open || ap.Bool == nil || *ap.Bool
		}
		if u := s.UnevaluatedProperties; u != nil && (u.Bool == nil || *u.Bool) {
			open = true
		}
		if len(s.PatternProperties) > 0 {
			open = true
		}
		for _, c := range [][]*jsonschema.Schema{{s.Ref, s.If, s.Then, s.Else}, s.AllOf, s.AnyOf, s.OneOf} {
			for _, c := range c {
				visit(c)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
			visit(s.DependentSchemas[k])
		}
	}
	visit(root)
	return names, open
}
