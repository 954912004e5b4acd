package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/toolwire/toolwire/session"
)

// PayloadSession is the session of the store that keeps the payloads a
// [PayloadCodec] offloads.
const PayloadSession = "toolwire-temporal-payloads"

// payloadEncoding marks a payload that is a reference to one kept in the
// store.
const payloadEncoding = "toolwire/ref"

// DefaultPayloadLimit is the size past which a [PayloadCodec] offloads a
// payload when given 0: well under the 2 MB a Temporal server refuses by
// default, and under the 512 KB it warns of.
const DefaultPayloadLimit = 256 << 10

// NewPayloadCodec returns a codec that keeps every payload larger than
// limit bytes (0 means [DefaultPayloadLimit]) in store — a session store
// with session.Results, which every client and worker of the namespace
// shares (PostgreSQL) — under [PayloadSession], and puts only its
// reference in the workflow's history: the claim-check pattern. A
// session's state, which the model activity takes whole, grows with its
// history; without this, a state past the server's payload limit (2 MB
// by default) could not be sent at all.
//
// Install it on the client and the workers alike:
//
//	dc := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), codec)
//	c, err := client.Dial(client.Options{HostPort: hp, DataConverter: dc})
//
// References are content hashes: the same payload is kept once. The
// store's retention (session.Config.Retention, Prune) must keep payloads
// as long as the namespace keeps histories, or a replay of an old
// workflow will not find them.
func NewPayloadCodec(store session.Store, limit int) (converter.PayloadCodec, error) {
	r, ok := store.(session.Results)
	if !ok {
		return nil, errors.New("temporal: payload codec: the store cannot keep results (it has no session.Results)")
	}
	if limit < 0 {
		return nil, fmt.Errorf("temporal: payload codec: limit %d is negative", limit)
	}
	if limit == 0 {
		limit = DefaultPayloadLimit
	}
	return &codec{store: store, results: r, limit: limit}, nil
}

type codec struct {
	store   session.Store
	results session.Results
	limit   int
	mu      sync.Mutex
	made    bool // the store has PayloadSession
}

// timeout bounds one store operation of the codec, whose interface
// carries no context.
const timeout = 30 * time.Second

func (c *codec) Encode(in []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(in))
	for i, p := range in {
		if proto.Size(p) <= c.limit {
			out[i] = p
			continue
		}
		b, err := proto.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("temporal: payload codec: %w", err)
		}
		ref := contentRef(b)
		if err := c.keep(ref, b); err != nil {
			return nil, err
		}
		out[i] = &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(payloadEncoding)}, Data: []byte(ref)}
	}
	return out, nil
}

func (c *codec) Decode(in []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(in))
	for i, p := range in {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != payloadEncoding {
			out[i] = p
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		kept, err := c.results.Result(ctx, PayloadSession, string(p.GetData()))
		cancel()
		if err != nil {
			return nil, fmt.Errorf("temporal: payload codec: the payload %s: %w", p.GetData(), err)
		}
		var q commonpb.Payload
		if err := proto.Unmarshal(kept.Data, &q); err != nil {
			return nil, fmt.Errorf("temporal: payload codec: the payload %s is damaged: %w", p.GetData(), err)
		}
		out[i] = &q
	}
	return out, nil
}

// keep stores b under ref, in the payloads' session.
func (c *codec) keep(ref string, b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := c.session(ctx); err != nil {
		return fmt.Errorf("temporal: payload codec: %w", err)
	}
	if _, err := c.results.PutResult(ctx, PayloadSession, session.Offloaded{Ref: ref, Tool: "temporal", Kind: "payload", MediaType: "application/x-protobuf", Data: b}); err != nil {
		return fmt.Errorf("temporal: payload codec: keep %s: %w", ref, err)
	}
	return nil
}

// session makes sure the store has PayloadSession.
func (c *codec) session(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.made {
		return nil
	}
	_, err := c.store.Create(ctx, session.Session{ID: PayloadSession, Title: "Temporal payloads kept out of workflow histories"})
	if err != nil && !errors.Is(err, session.ErrConflict) {
		return err
	}
	c.made = true
	return nil
}

// contentRef is the reference of payload bytes b: "r-" and 40 letters
// and digits of their SHA-256.
func contentRef(b []byte) string {
	sum := sha256.Sum256(b)
	return "r-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:25]))
}
