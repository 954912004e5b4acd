package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/sse"
)

// BaseURL returns base, or def when base is "", without its trailing
// slashes; an error when it is not an absolute http or https URL.
func BaseURL(base, def string) (string, error) {
	if base == "" {
		base = def
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("BaseURL %q is not an http or https URL", base)
	}
	return strings.TrimRight(base, "/"), nil
}

// CheckFields checks a Config's extra body fields, of a codec's own field
// type read by kv: no key the client writes (written) or twice, and every
// value JSON.
func CheckFields[F any](fields []F, kv func(F) (string, []byte), written ...string) error {
	seen := make(map[string]bool, len(written)+len(fields))
	for _, k := range written {
		seen[k] = true
	}
	for _, f := range fields {
		k, v := kv(f)
		if seen[k] {
			return fmt.Errorf("the field %q in Fields is one the client writes itself (or is there twice)", k)
		}
		if !jsontext.Value(v).IsValid() {
			return fmt.Errorf("the value of the field %q in Fields is not JSON", k)
		}
		seen[k] = true
	}
	return nil
}

// Post returns the function that builds each attempt's request: a POST of
// body to url, with header and a JSON content type.
func Post(url string, header http.Header, body []byte) func(ctx context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		for k, vs := range header {
			r.Header[k] = vs
		}
		r.Header.Set("Content-Type", "application/json")
		return r, nil
	}
}

// Read reads an answer the way every decoder does: whole, when it is a
// JSON document, else event by event until event reports the stream done,
// with eof called when the stream ends first (it says whether that is an
// error). Empty events (keep-alives) are skipped.
func Read(resp *http.Response, whole func(data []byte) error, event func(data []byte) (done bool, err error), eof func() error) error {
	if IsJSON(resp.Header) {
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return fmt.Errorf("read the answer: %w", err)
		}
		return whole(data)
	}
	sr := sse.NewReader(resp.Body, 0)
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return eof()
		}
		if err != nil {
			return fmt.Errorf("read the stream: %w", err)
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			continue
		}
		done, err := event(ev.Data)
		if err != nil || done {
			return err
		}
	}
}

// PostSegments is [Post] for a body given in pieces, which are written
// to the connection one after the other, never joined into one buffer:
// a loop's cached message encodings go out as they are. The pieces must
// not change while requests are made from them.
func PostSegments(url string, header http.Header, segs [][]byte) func(ctx context.Context) (*http.Request, error) {
	n := 0
	for _, s := range segs {
		n += len(s)
	}
	body := func() io.ReadCloser {
		b := net.Buffers(slices.Clone(segs))
		return io.NopCloser(&b)
	}
	return func(ctx context.Context) (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return nil, err
		}
		r.Body = body()
		r.GetBody = func() (io.ReadCloser, error) { return body(), nil }
		r.ContentLength = int64(n)
		for k, vs := range header {
			r.Header[k] = vs
		}
		r.Header.Set("Content-Type", "application/json")
		return r, nil
	}
}
