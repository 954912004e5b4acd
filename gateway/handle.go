package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/toolwire/toolwire/internal/units"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// A Verdict is what the gateway did with a request, as the
// Toolwire-Verdict header of every answer says.
type Verdict string

// The verdicts.
const (
	// VerdictAccepted: the provider would accept the body; it went
	// upstream unchanged.
	VerdictAccepted Verdict = "accepted"
	// VerdictRepaired: the repaired body went upstream in its place.
	VerdictRepaired Verdict = "repaired"
	// VerdictRejected: the gateway answered 400 itself; nothing went
	// upstream.
	VerdictRejected Verdict = "rejected"
	// VerdictPassed: the provider would reject the body, and policy pass
	// sent it upstream unchanged.
	VerdictPassed Verdict = "passed"
	// VerdictUnreadable: policy pass sent upstream a body the gateway
	// could not read (not JSON, or not a request of the route's dialect).
	VerdictUnreadable Verdict = "unreadable"
	// VerdictShaped: a record's verdict (never a header's): shaping
	// cut down the request's large tool results (see [Shaping]).
	VerdictShaped Verdict = "shaped"
	// VerdictError: the gateway answered itself for another reason than
	// the body's rules: a wrong path or method, a missing token, a body
	// too large or unreadable, an upstream that cannot be reached.
	VerdictError Verdict = "error"
)

// The headers the gateway adds to every answer.
const (
	// VerdictHeader holds the [Verdict].
	VerdictHeader = "Toolwire-Verdict"
	// RulesHeader lists the IDs of the rules the body broke, comma
	// separated, when it broke any (warnings included).
	RulesHeader = "Toolwire-Rules"
	// RecordHeader names the session that records the request, when the
	// gateway recorded it (with shaping, the record of the shaping).
	RecordHeader = "Toolwire-Record"
	// ShapedHeader counts the tool results the gateway shaped, and the
	// read_result rounds it answered: "3 results, 1 read".
	ShapedHeader = "Toolwire-Shaped"
)

// routes returns the gateway's handler: one route per provider path.
func (g *Gateway) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", g.route(openAIChat))
	mux.HandleFunc("/v1/responses", g.route(openAIResponses))
	mux.HandleFunc("/v1/messages", g.route(anthropic))
	mux.HandleFunc("/v1beta/models/{call}", g.geminiRoute)
	mux.HandleFunc("/v1/models/{call}", g.geminiRoute)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		g.refuse(w, r, nil, &refusal{status: http.StatusNotFound, code: codeUnknownRoute,
			message: fmt.Sprintf("toolwire gateway: no route %s %s; it serves POST /v1/chat/completions, /v1/responses, /v1/messages and /v1beta/models/MODEL:generateContent or :streamGenerateContent (docs/gateway.md)", r.Method, cut(r.URL.Path, 200))})
	})
	return mux
}

// geminiRoute serves Gemini's model paths: MODEL:generateContent and
// MODEL:streamGenerateContent.
func (g *Gateway) geminiRoute(w http.ResponseWriter, r *http.Request) {
	call := r.PathValue("call")
	i := strings.LastIndexByte(call, ':')
	if i <= 0 || (call[i+1:] != "generateContent" && call[i+1:] != "streamGenerateContent") {
		g.refuse(w, r, gemini, &refusal{status: http.StatusNotFound, code: codeUnknownRoute,
			message: fmt.Sprintf("toolwire gateway: no route %s %s; the Gemini routes are MODEL:generateContent and MODEL:streamGenerateContent (docs/gateway.md)", r.Method, cut(r.URL.Path, 200))})
		return
	}
	g.serve(w, r, gemini)
}

func (g *Gateway) route(p *provider) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { g.serve(w, r, p) }
}

// exchange is one request going through the gateway, for the log line
// and the answer's headers.
type exchange struct {
	p       *provider
	model   string // the model the URL names (Gemini), for the rules that depend on it
	policy  Policy
	verdict Verdict
	rules   string
	record  string
	in      int // the body's size as received
	out     int // the size of the body sent upstream
	shaped  []string
	reads   int
	// judged, when the body is judged while it travels (policy pass), is
	// closed once verdict and rules are set; nil when they were set
	// before the body was sent.
	judged chan struct{}
}

// wait returns once the exchange's verdict is known.
func (x *exchange) wait() {
	if x.judged != nil {
		<-x.judged
	}
}

type exchangeKey struct{}

// serve judges a request of provider p by its route's policy and
// forwards it, or answers it.
func (g *Gateway) serve(w http.ResponseWriter, r *http.Request, p *provider) {
	start := time.Now()
	x := &exchange{p: p, policy: g.policy(p.dialect), model: urlModel(r)}
	sw := &statusWriter{ResponseWriter: w}
	defer func() { g.logExchange(r, x, sw.status, start) }()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		g.refuseX(sw, r, x, &refusal{status: http.StatusMethodNotAllowed, code: codeMethod,
			message: fmt.Sprintf("toolwire gateway: %s is not allowed on %s; use POST", r.Method, r.URL.Path)})
		return
	}
	if no := g.browser.Check(r); no != nil {
		msg := fmt.Sprintf("toolwire gateway: a page of another site (%s) may not send requests through this gateway", cut(no.Origin, 100))
		if no.Host != "" {
			msg = fmt.Sprintf("toolwire gateway: this gateway has no token, so it answers only to localhost, 127.0.0.1 or [::1], not to %q; use one of those names, or start it with a token (--token)", cut(no.Host, 100))
		}
		g.refuseX(sw, r, x, &refusal{status: http.StatusForbidden, code: codeCrossOrigin, message: msg})
		return
	}
	if !g.authorized(r) {
		g.refuseX(sw, r, x, &refusal{status: http.StatusUnauthorized, code: codeUnauthorized,
			message: "toolwire gateway: this gateway needs its token: send it in the " + TokenHeader + " header (the provider's key goes in its usual header, as without the gateway)"})
		return
	}
	rt, shaping := g.cfg.Routes[p.dialect]
	shaping = shaping && rt.Shape != nil
	declared := r.ContentLength
	if shaping {
		declared = -1 // shaping keeps results of the body: not in a pooled buffer
	}
	h, body, err := hold(http.MaxBytesReader(sw, r.Body, g.cfg.MaxBody), declared, g.cfg.MaxBody)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			g.refuseX(sw, r, x, &refusal{status: http.StatusRequestEntityTooLarge, code: codeTooLarge,
				message: fmt.Sprintf("toolwire gateway: the request body is larger than the gateway's limit of %s bytes (toolwire gateway --max-body)", units.Count(int(g.cfg.MaxBody)))})
			return
		}
		return // the client went away while sending
	}
	defer func() {
		x.wait() // a passed body is judged meanwhile
		h.release()
	}()
	x.in = len(body)
	out := body
	if x.policy == Pass && !shaping {
		// A passed body goes upstream unchanged, whatever its verdict:
		// it is judged while the upstream works, and the verdict waits
		// only for the answer's headers and the log line.
		x.judged = make(chan struct{})
		go func() {
			defer close(x.judged)
			g.verdict(x, body)
		}()
	} else {
		var stop bool
		if out, stop = g.judge(sw, r, x, body); stop {
			return
		}
	}
	if shaping && g.shapeAndSend(sw, r, x, body, out, rt.Shape.withDefaults()) {
		return
	}
	x.out = len(out)
	r.Body = h.upstream(out)
	r.ContentLength = int64(len(out))
	r.GetBody = nil
	g.proxy.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x)))
}

// judge checks body by the exchange's policy. It returns the body to send
// upstream, or stop when it answered the request itself.
func (g *Gateway) judge(w http.ResponseWriter, r *http.Request, x *exchange, body []byte) (out []byte, stop bool) {
	d := x.p.dialect
	vs, err := g.verdict(x, body)
	if x.policy == Pass || x.verdict == VerdictAccepted {
		return body, false
	}
	if err != nil {
		g.refuseX(w, r, x, &refusal{status: http.StatusBadRequest, code: codeInvalidBody,
			message: fmt.Sprintf("toolwire gateway: the body is not a %s request: %v", d, err)})
		return nil, true
	}
	b, err := wire.Decode(body, d)
	if err != nil {
		g.refuseX(w, r, x, &refusal{status: http.StatusInternalServerError, code: codeInternal,
			message: fmt.Sprintf("toolwire gateway: %v", err)})
		return nil, true
	}
	b.SetModel(x.model)
	f, err := b.Fix(g.cfg.Repair)
	if err != nil {
		g.refuseX(w, r, x, &refusal{status: http.StatusInternalServerError, code: codeInternal,
			message: fmt.Sprintf("toolwire gateway: %v", err)})
		return nil, true
	}
	b = nil // the decoded body is not needed from here on
	fixable := f.Accepted()
	if x.policy == Reject || !fixable {
		e := rejection(x.policy, d, vs, f)
		e.record = g.record(r.Context(), r, x, body, f, e)
		g.refuseX(w, r, x, e)
		return nil, true
	}
	x.verdict = VerdictRepaired
	x.record = g.record(r.Context(), r, x, body, f, nil)
	return f.Body, false
}

// verdict judges body, by skimming it (most bodies are accepted, and a
// passed one is only logged; a body to repair or reject is decoded whole
// after), and sets the exchange's verdict and rules: accepted, passed (a
// rejected body under policy pass) or unreadable. It returns the
// violations, or why the body cannot be read.
func (g *Gateway) verdict(x *exchange, body []byte) ([]transcript.Violation, error) {
	vs, err := g.judging.Violations(body, x.p.dialect, x.model)
	switch {
	case err != nil:
		x.verdict = VerdictUnreadable
	case transcript.Accepted(vs):
		x.verdict = VerdictAccepted
	case x.policy == Pass:
		x.verdict = VerdictPassed
	}
	x.rules = ruleList(vs)
	return vs, err
}

// rejection is the refusal of a body with violations vs, by policy
// (Reject, or Repair when f, the repair, leaves some).
func rejection(policy Policy, d transcript.Dialect, vs []transcript.Violation, f *wire.Fixed) *refusal {
	fixable := f.Accepted()
	e := &refusal{status: http.StatusBadRequest, code: codeRejected, policy: policy, dialect: d, violations: vs, fixable: &fixable}
	var errs []transcript.Violation
	for _, v := range vs {
		if !v.Warning {
			errs = append(errs, v)
		}
	}
	first := errs[0]
	e.param = first.Path
	var msg strings.Builder
	if first.ProviderError != "" {
		msg.WriteString(first.ProviderError + " ")
	}
	fmt.Fprintf(&msg, "[toolwire gateway: %s would reject this request: %s at %s: %s", d, first.Rule, orDash(first.Path), first.Message)
	if len(errs) > 1 {
		var more []string
		for _, v := range errs[1:] {
			more = append(more, string(v.Rule)+" at "+orDash(v.Path))
		}
		fmt.Fprintf(&msg, "; and %d more: %s", len(more), strings.Join(more, ", "))
	}
	switch {
	case policy == Repair:
		e.code = codeUnrepairable
		e.violations = f.Violations
		msg.WriteString("; the gateway's repair cannot fix it without guessing")
		if f.Unrepaired != nil {
			msg.WriteString(": " + strings.ReplaceAll(f.Unrepaired.Error(), "\n", " "))
		}
	case fixable:
		msg.WriteString("; toolwire check --fix repairs it, as the gateway's policy repair would")
	default:
		msg.WriteString("; toolwire check --fix cannot repair all of it")
	}
	msg.WriteString("]")
	e.message = msg.String()
	return e
}

// refuse answers e in p's shape.
func (g *Gateway) refuse(w http.ResponseWriter, _ *http.Request, p *provider, e *refusal) {
	writeRefusal(w, p, e)
}

// refuseX answers e in the exchange's provider's shape.
func (g *Gateway) refuseX(w http.ResponseWriter, r *http.Request, x *exchange, e *refusal) {
	x.verdict = verdictOf(e)
	if e.dialect == "" {
		e.dialect = x.p.dialect
	}
	if e.policy == "" {
		e.policy = x.policy
	}
	g.refuse(w, r, x.p, e)
}

// ruleList is the IDs of vs, each once, comma separated, in order.
func ruleList(vs []transcript.Violation) string {
	var ids []string
	for _, v := range vs {
		if !slices.Contains(ids, string(v.Rule)) {
			ids = append(ids, string(v.Rule))
		}
	}
	return strings.Join(ids, ",")
}

// logExchange logs one line about a request: never a header, the query
// (Gemini's ?key=) or the body.
func (g *Gateway) logExchange(r *http.Request, x *exchange, status int, start time.Time) {
	x.wait()
	g.log.InfoContext(r.Context(), "gateway", "method", r.Method, "path", cut(r.URL.Path, 200), "dialect", x.p.dialect, "policy", x.policy,
		"verdict", x.verdict, "rules", x.rules, "shaped", len(x.shaped), "reads", x.reads, "record", x.record, "status", status, "bytes_in", x.in, "bytes_out", x.out,
		"duration", time.Since(start).Round(time.Microsecond))
}

// statusWriter notes the status of the answer, for the log line.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController flush the answer as it streams.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush flushes the answer.
func (w *statusWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// cut shortens s to at most n bytes, for a message.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
