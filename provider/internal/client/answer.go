package client

import (
	"bytes"
	"io"
	"net/http"

	"github.com/toolwire/toolwire/llm"
)

// DecodeAnswer runs dec on body, an answer held in memory — server-sent
// events when stream is set, else one JSON response — and returns the
// answer its events make: what a client reading the same bytes from the
// network would return.
func DecodeAnswer(dec Decoder, body []byte, stream bool) (*llm.Response, error) {
	ct := "application/json"
	if stream {
		ct = "text/event-stream"
	}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(bytes.NewReader(body))}
	var acc llm.Accumulator
	if err := dec(resp, func(ev llm.Event) bool { acc.Add(ev); return true }); err != nil {
		return nil, err
	}
	return acc.Response()
}
