package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/internal/redirect"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// HTTPOptions configures a tool made by [NewHTTP]. A nil *HTTPOptions
// means defaults.
type HTTPOptions struct {
	// Client sends the requests; nil means a client without a timeout of
	// its own (the executor's per-attempt timeout applies through the
	// request's context). The client is copied, not changed. Unless it
	// sets its own CheckRedirect, redirects are followed within the
	// origin (scheme, host, port) of the binding's URL only, at most 5,
	// never from https to http; whatever its policy, a request
	// redirected to another origin carries none of the binding's headers.
	Client *http.Client
	// MaxResponseBytes bounds the response body read. Default 1 MiB.
	MaxResponseBytes int64
}

// httpTool calls an HTTP endpoint; see [NewHTTP].
type httpTool struct {
	c       *contract
	url     *urlTemplate
	client  *http.Client
	maxBody int64
	// declared are the arguments the parameters name; open says whether
	// the schema admits others (explicitly: the default is no).
	declared map[string]bool
	open     bool
}

// NewHTTP returns a tool that calls the endpoint of spec.HTTP.
//
// A call fills the URL's {param} placeholders from the arguments and
// sends the other arguments as the query string for GET and DELETE, or as
// a JSON body for POST, PUT and PATCH. The binding's headers are sent with
// every request; a level-1 tool also sends its call's Idempotency-Key. A
// 2xx response becomes the result's data (JSON as an [*toolresult.JSON],
// parsed once for validation, shaping and rendering; anything else as a
// string). Other statuses become typed failures: 429 rate_limited with
// Retry-After as retry_after_ms; 404 and 410 not_found; 401 and 403
// permission_denied; 409 conflict; 400 and 422 invalid_arguments; 408 and
// 504 timeout; other 5xx upstream_error (retryable); other 4xx
// upstream_error (not retryable).
//
// Arguments are untrusted, and no argument changes what the binding
// fixes. Placeholders may sit in the path and in query values only (not
// in the scheme, host, port, a query parameter's name or the fragment).
// A path placeholder is path-escaped, and refused (invalid_arguments,
// naming it) when its segment would be empty, "." or ".." (as written or
// percent-decoded, a backslash read as a slash): a call never leaves the
// path before the URL's first placeholder. A query placeholder is
// query-escaped: it stays one value. An argument that names a query
// parameter the URL writes is refused, whatever the method; so is one
// that the parameters schema does not declare, unless the schema admits
// undeclared properties explicitly (additionalProperties, or
// patternProperties). Redirects: see [HTTPOptions].Client.
func NewHTTP(spec Spec, opts *HTTPOptions) (Tool, error) {
	if spec.HTTP == nil {
		return nil, fmt.Errorf("tool: new http tool %q: the spec has no HTTP binding", spec.Name)
	}
	c, err := compileSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("tool: new http tool: %w", err)
	}
	tpl, errs := parseURLTemplate(spec.HTTP.URL)
	if len(errs) > 0 { // compileSpec reports them first
		return nil, fmt.Errorf("tool: new http tool: %w", errors.Join(errs...))
	}
	t := &httpTool{c: c, url: tpl, maxBody: 1 << 20}
	t.declared, t.open = schemaArguments(c.params)
	var client *http.Client
	if opts != nil {
		client = opts.Client
		if opts.MaxResponseBytes > 0 {
			t.maxBody = opts.MaxResponseBytes
		}
	}
	t.client = redirect.Client(client)
	return t, nil
}

// Spec returns the tool's contract.
func (t *httpTool) Spec() Spec { return t.c.spec }

func (t *httpTool) contract() *contract { return t.c }

// Call sends the request and maps the response.
func (t *httpTool) Call(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
	var in map[string]any
	if len(bytes.TrimSpace(args)) > 0 {
		v, err := jsonx.DecodeAny(args)
		if err != nil {
			return toolresult.Envelope{}, Errorf(toolresult.MalformedArguments, "the arguments are not JSON: %v", jsonx.Error("", llm.Dotted, args, err))
		}
		obj, ok := v.(map[string]any)
		if !ok && v != nil {
			return toolresult.Envelope{}, Errorf(toolresult.InvalidArguments, "the arguments are %s, want a JSON object", brief(v))
		}
		in = obj
	}
	r, err := t.request(in)
	if err != nil {
		return toolresult.Envelope{}, err
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		return toolresult.Envelope{}, Errorf(toolresult.InternalError, "cannot build the request: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "toolwire")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range t.c.spec.HTTP.Headers {
		req.Header.Set(k, v)
	}
	if ci, _ := CallInfoFrom(ctx); ci.IdempotencyKey != "" {
		req.Header.Set("Idempotency-Key", ci.IdempotencyKey)
	}
	method, host := r.method, req.URL.Host
	resp, err := t.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return toolresult.Envelope{}, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) && ue.Timeout() {
			return toolresult.Envelope{}, &Error{Type: toolresult.Timeout, Message: fmt.Sprintf("%s %s timed out", method, host), Err: err}
		}
		if errors.Is(err, redirect.ErrRefused) {
			// The same call gets the same redirect: not retryable.
			env := toolresult.Failure(toolresult.UpstreamError, shortMessage(fmt.Sprintf("%s %s: %v", method, host, unwrapURLError(err)), "redirect refused"))
			env.Error.Retryable = false
			return env, nil
		}
		return toolresult.Envelope{}, &Error{Type: toolresult.UpstreamError, Message: fmt.Sprintf("%s %s failed: %s", method, host, shortMessage(unwrapURLError(err).Error(), "no response")), Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, t.maxBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return toolresult.Envelope{}, ctx.Err()
		}
		return toolresult.Envelope{}, &Error{Type: toolresult.UpstreamError, Message: fmt.Sprintf("reading the response from %s failed: %v", host, err), Err: err}
	}
	env := t.envelope(resp, data, method, host)
	env.Meta.Source = host
	return env, nil
}

// An httpRequest is what a call sends: built by [httpTool.request] from
// the arguments alone, before any I/O.
type httpRequest struct {
	method string
	url    string
	body   []byte // nil for GET and DELETE
}

// request builds the request of a call with arguments in (nil means
// none). Its refusals are invalid_arguments [*Error]s naming the
// argument: one the parameters do not declare (unless the schema admits
// others), one that names a query parameter of the URL, a missing or
// unusable placeholder value (see [urlTemplate.fill]).
func (t *httpTool) request(in map[string]any) (httpRequest, error) {
	h := t.c.spec.HTTP
	r := httpRequest{method: h.Method}
	if r.method == "" {
		r.method = http.MethodPost
	}
	keys := slices.Sorted(maps.Keys(in))
	if !t.open {
		for _, k := range keys {
			if !t.declared[k] {
				return httpRequest{}, Errorf(toolresult.InvalidArguments, "argument %q is not a parameter of this tool; send only %s", k, declaredList(t.declared))
			}
		}
	}
	var missing []string
	placeholder := map[string]bool{}
	for _, m := range placeholderPattern.FindAllStringSubmatch(h.URL, -1) {
		placeholder[m[1]] = true
		if _, ok := in[m[1]]; !ok && !slices.Contains(missing, m[1]) {
			missing = append(missing, m[1])
		}
	}
	if len(missing) > 0 {
		return httpRequest{}, Errorf(toolresult.InvalidArguments, "missing %s, needed in the URL", strings.Join(missing, ", "))
	}
	rest := make(map[string]any, len(in))
	for _, k := range keys {
		if placeholder[k] {
			continue
		}
		if t.url.queryKeys[k] {
			return httpRequest{}, Errorf(toolresult.InvalidArguments, "argument %q names a query parameter that the tool's URL sets itself; it cannot be sent", k)
		}
		rest[k] = in[k]
	}
	var extra string
	if r.method == http.MethodGet || r.method == http.MethodDelete {
		q := url.Values{}
		for k, v := range rest {
			if arr, ok := v.([]any); ok {
				for _, item := range arr {
					q.Add(k, scalar(item))
				}
				continue
			}
			q.Set(k, scalar(v))
		}
		extra = q.Encode()
	} else {
		b, err := marshalCompact(rest)
		if err != nil {
			return httpRequest{}, err
		}
		r.body = b
	}
	u, err := t.url.fill(in, extra)
	if err != nil {
		return httpRequest{}, err
	}
	r.url = u
	return r, nil
}

// declaredList writes the declared arguments for a refusal: "q, tags" or
// "no arguments".
func declaredList(declared map[string]bool) string {
	if len(declared) == 0 {
		return "no arguments (it takes none)"
	}
	names := slices.Sorted(maps.Keys(declared))
	if len(names) > 12 {
		names = append(names[:12], "...")
	}
	return strings.Join(names, ", ")
}

// envelope maps an HTTP response to an observation.
func (t *httpTool) envelope(resp *http.Response, data []byte, method, host string) toolresult.Envelope {
	code := resp.StatusCode
	what := fmt.Sprintf("%s %s returned %s", method, host, statusText(code))
	if int64(len(data)) > t.maxBody {
		if code/100 == 2 {
			env := toolresult.Failure(toolresult.UpstreamError, fmt.Sprintf("%s with a body larger than %d bytes", what, t.maxBody))
			env.Error.Retryable = false
			return env
		}
		data = data[:t.maxBody]
	}
	if code/100 == 2 {
		trimmed := bytes.TrimSpace(data)
		if len(trimmed) == 0 {
			return toolresult.Envelope{Status: llm.StatusSuccess}
		}
		// Parsed once here, for validation, shaping and rendering.
		if doc, err := toolresult.ParseJSON(trimmed); err == nil {
			return toolresult.Envelope{Status: llm.StatusSuccess, Data: doc}
		}
		if jsontext.Value(trimmed).IsValid(jsontext.AllowDuplicateNames(true)) { // a name given twice: shown as sent, refused by a return schema
			return toolresult.Envelope{Status: llm.StatusSuccess, Data: jsontext.Value(trimmed)}
		}
		return toolresult.Envelope{Status: llm.StatusSuccess, Data: strings.ToValidUTF8(string(data), "\uFFFD")}
	}
	if detail := errorDetail(data); detail != "" {
		what += ": " + detail
	}
	var env toolresult.Envelope
	if t, ok := statusError(code); ok {
		env = toolresult.Failure(t, what)
	} else if code >= 500 {
		env = toolresult.Failure(toolresult.UpstreamError, what)
	} else {
		env = toolresult.Failure(toolresult.UpstreamError, what)
		env.Error.Retryable = false
	}
	if ra := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ra > 0 {
		env.Error.RetryAfter = ra
	}
	return env
}

// statusError classifies the HTTP statuses that name what went wrong.
func statusError(code int) (toolresult.ErrorType, bool) {
	switch code {
	case http.StatusTooManyRequests:
		return toolresult.RateLimited, true
	case http.StatusNotFound, http.StatusGone:
		return toolresult.NotFound, true
	case http.StatusUnauthorized, http.StatusForbidden:
		return toolresult.PermissionDenied, true
	case http.StatusConflict:
		return toolresult.Conflict, true
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return toolresult.InvalidArguments, true
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		return toolresult.Timeout, true
	}
	return "", false
}

// statusText renders "404 Not Found".
func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return strconv.Itoa(code) + " " + t
	}
	return strconv.Itoa(code)
}

// errorDetail extracts a short message from an error response body: a
// JSON "message" or "error" field, else the text itself.
func errorDetail(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var obj map[string]any
	if jsonx.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"message", "error_description", "detail", "error"} {
			switch v := obj[k].(type) {
			case string:
				return truncate(strings.Join(strings.Fields(v), " "), 200)
			case map[string]any:
				if m, ok := v["message"].(string); ok {
					return truncate(strings.Join(strings.Fields(m), " "), 200)
				}
			}
		}
	}
	if !utf8.Valid(body) {
		return ""
	}
	return truncate(strings.Join(strings.Fields(string(body)), " "), 200)
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

// scalar renders an argument for a URL: strings as they are, other
// values as JSON.
func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case jsonx.Number:
		return v.String()
	case nil:
		return ""
	}
	b, _ := jsonx.Marshal(v)
	return string(b)
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
