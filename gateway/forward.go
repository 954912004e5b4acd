package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// rewrite points the outgoing request at the route's upstream: the
// upstream's scheme and host, its path followed by the request's, the
// request's query (Gemini's ?key= included) and headers as they came,
// less the gateway's own token. ReverseProxy has already removed the
// hop-by-hop headers and adds no X-Forwarded-* header.
func (g *Gateway) rewrite(pr *httputil.ProxyRequest) {
	x := pr.In.Context().Value(exchangeKey{}).(*exchange)
	up := g.upstreams[x.p.dialect]
	out := pr.Out.URL
	out.Scheme, out.Host = up.Scheme, up.Host
	out.Path, out.RawPath = joinPath(up.Path, pr.In.URL.Path), ""
	pr.Out.Host = ""
	pr.Out.Header.Del(TokenHeader)
}

// joinPath appends path to base; a base that ends in the version segment
// path starts with ("/v1", "/v1beta") does not repeat it.
func joinPath(base, path string) string {
	if seg, _, ok := strings.Cut(path[1:], "/"); ok && strings.HasSuffix(base, "/"+seg) {
		return base + path[len(seg)+1:]
	}
	return base + path
}

// modifyResponse adds the gateway's headers to the upstream's answer and
// bounds the silence of its body.
func (g *Gateway) modifyResponse(resp *http.Response) error {
	x := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	x.wait()
	h := resp.Header
	h.Set(VerdictHeader, string(x.verdict))
	if x.rules != "" {
		h.Set(RulesHeader, x.rules)
	}
	if x.record != "" {
		h.Set(RecordHeader, x.record)
	}
	resp.Body = newIdleBody(resp.Body, g.cfg.IdleTimeout)
	return nil
}

// upstreamError answers a request whose upstream could not be reached,
// or did not answer in time: 504 for a timeout, else 502, in the
// provider's shape. The message never holds the upstream URL, whose
// query may hold a key.
func (g *Gateway) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	x := r.Context().Value(exchangeKey{}).(*exchange)
	x.wait()
	if r.Context().Err() != nil {
		return // the client went away: nobody to answer
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its URL may hold ?key=
	}
	host := g.upstreams[x.p.dialect].Host
	e := &refusal{status: http.StatusBadGateway, code: codeUnreachable,
		message: fmt.Sprintf("toolwire gateway: the upstream %s cannot be reached: %v", host, err)}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		e = &refusal{status: http.StatusGatewayTimeout, code: codeTimeout,
			message: fmt.Sprintf("toolwire gateway: the upstream %s did not answer within %s (toolwire gateway --upstream-timeout)", host, g.cfg.UpstreamTimeout)}
	}
	g.log.WarnContext(r.Context(), "gateway: upstream failed", "dialect", x.p.dialect, "upstream", host, "err", err.Error())
	g.refuseX(w, r, x, e)
	x.verdict = VerdictError
}

// errIdle is the read error of an answer that stayed silent too long.
var errIdle = errors.New("gateway: the upstream's answer stayed silent longer than the idle timeout")

// idleBody is an upstream answer's body that is closed when no read
// returns for the idle timeout, which ends the copy to the client.
type idleBody struct {
	rc       io.ReadCloser
	idle     time.Duration
	timer    *time.Timer
	timedOut atomic.Bool
}

func newIdleBody(rc io.ReadCloser, idle time.Duration) *idleBody {
	b := &idleBody{rc: rc, idle: idle}
	b.timer = time.AfterFunc(idle, func() {
		b.timedOut.Store(true)
		rc.Close()
	})
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && b.timedOut.Load() {
		return n, errIdle
	}
	b.timer.Reset(b.idle)
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.rc.Close()
}
