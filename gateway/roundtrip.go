package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// maxAnswer bounds an upstream answer the gateway reads whole (a shaped
// request's): 64 MiB.
const maxAnswer = 64 << 20

// shapeAndSend shapes the large tool results of body, the request to
// send (received as in), and when it shaped one, sends it upstream itself
// and answers the model's read_result calls until the model answers
// without one, which it writes to the client. It reports whether it
// answered the request; when it did not (nothing to shape, or a stream
// the gateway cannot join), the caller forwards body as usual. A request
// that asks for a stream gets one (streamShaped).
func (g *Gateway) shapeAndSend(w http.ResponseWriter, r *http.Request, x *exchange, in, body []byte, cfg Shaping) bool {
	stream := streamed(r, body)
	if stream && x.p.dialect == transcript.Gemini && r.URL.Query().Get("alt") != "sse" {
		return false // a JSON array streamed, not events: forwarded unshaped
	}
	ctx := r.Context()
	s, err := newShaping(cfg)
	if err == nil {
		var b *wire.Body
		if b, err = wire.Decode(body, x.p.dialect); err == nil {
			req := b.Request()
			var changed bool
			if changed, err = s.shape(ctx, &req); err == nil && !changed {
				return false
			} else if err == nil {
				body, err = b.Rewrite(req)
			}
		}
	}
	if err != nil {
		g.refuseX(w, r, x, &refusal{status: http.StatusInternalServerError, code: codeInternal, message: fmt.Sprintf("toolwire gateway: shaping the request failed: %v", err)})
		return true
	}
	x.shaped, x.out = s.shaped, len(body)
	if stream {
		g.streamShaped(w, r, x, s, in, body)
		return true
	}
	first := body
	for round := 1; ; round++ {
		resp, answer, err := g.roundTrip(ctx, r, x, body)
		if err != nil {
			g.upstreamError(w, r.WithContext(context.WithValue(ctx, exchangeKey{}, x)), err)
			return true
		}
		if resp.StatusCode == http.StatusOK {
			next, err := continuation(ctx, x.p.dialect, s, body, answer, false, round)
			if err != nil {
				g.refuseX(w, r, x, &refusal{status: http.StatusInternalServerError, code: codeInternal, message: fmt.Sprintf("toolwire gateway: answering read_result failed: %v", err)})
				return true
			}
			if next != nil {
				body = next
				x.reads++
				continue
			}
		}
		x.record = g.recordShaping(ctx, r, x, in, first)
		g.writeAnswer(w, x, resp, answer)
		return true
	}
}

// streamed reports whether a request asks for a streamed answer.
func streamed(r *http.Request, body []byte) bool {
	if call := r.PathValue("call"); call != "" {
		return len(call) > len(":streamGenerateContent") && call[len(call)-len(":streamGenerateContent"):] == ":streamGenerateContent"
	}
	var s struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &s, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return s.Stream
}

// hopHeaders are the headers of one connection, not forwarded.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// send sends body upstream with the client's headers (less the
// connection's, the gateway's token and Accept-Encoding: the gateway
// reads this answer) and returns the answer, its body unread.
func (g *Gateway) send(ctx context.Context, r *http.Request, x *exchange, body []byte) (*http.Response, error) {
	up := g.upstreams[x.p.dialect]
	u := url.URL{Scheme: up.Scheme, Host: up.Host, Path: joinPath(up.Path, r.URL.Path), RawQuery: r.URL.RawQuery}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = r.Header.Clone()
	for _, h := range append(hopHeaders, TokenHeader, "Accept-Encoding", "Content-Length") {
		req.Header.Del(h)
	}
	return g.proxy.Transport.RoundTrip(req)
}

// roundTrip sends body upstream (see send) and returns the answer, read
// whole.
func (g *Gateway) roundTrip(ctx context.Context, r *http.Request, x *exchange, body []byte) (*http.Response, []byte, error) {
	resp, err := g.send(ctx, r, x, body)
	if err != nil {
		return nil, nil, err
	}
	answer, err := readAnswer(resp, g.cfg.IdleTimeout)
	if err != nil {
		return nil, nil, err
	}
	return resp, answer, nil
}

// readAnswer reads resp's body whole, up to maxAnswer, and closes it.
func readAnswer(resp *http.Response, idle time.Duration) ([]byte, error) {
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(newIdleBody(resp.Body, idle), maxAnswer+1))
	if err == nil && len(answer) > maxAnswer {
		err = errors.New("the answer is larger than 64 MiB")
	}
	if err != nil {
		return nil, &url.Error{Op: "read", URL: "", Err: err}
	}
	return answer, nil
}

// writeAnswer writes the upstream's answer to the client, with the
// gateway's headers.
func (g *Gateway) writeAnswer(w http.ResponseWriter, x *exchange, resp *http.Response, answer []byte) {
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	for _, k := range append(hopHeaders, "Content-Length") {
		h.Del(k)
	}
	h.Set("Content-Length", strconv.Itoa(len(answer)))
	h.Set(VerdictHeader, string(x.verdict))
	if x.rules != "" {
		h.Set(RulesHeader, x.rules)
	}
	if x.record != "" {
		h.Set(RecordHeader, x.record)
	}
	h.Set(ShapedHeader, fmt.Sprintf("%d results, %d reads", len(x.shaped), x.reads))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}
