package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/toolresult"
)

// ResultStore returns the [toolresult.Keeper] of one session's offloaded tool
// results, kept by r (a store's [Results] capability): what the
// observation pipeline offloads during a run is stored with the session,
// so that read_result finds it after a restart, and goes with the session
// when it is deleted.
func ResultStore(r Results, sessionID string) toolresult.Keeper {
	return resultStore{r: r, session: sessionID}
}

type resultStore struct {
	r       Results
	session string
}

// rulesJSON is how the shaping rules of a stored result are written.
type rulesJSON struct {
	Fields     []string `json:"fields,omitempty"`
	SortBy     string   `json:"sort_by,omitempty"`
	Order      string   `json:"order,omitempty"`
	MaxRecords int      `json:"max_records,omitempty"`
}

var _ toolresult.Keeper = resultStore{}

func (s resultStore) Put(ctx context.Context, st toolresult.Stored) (string, error) {
	return s.put(ctx, "", st)
}

// Keep keeps st under ref, replacing the session's result of that ref.
func (s resultStore) Keep(ctx context.Context, ref string, st toolresult.Stored) error {
	if ref == "" {
		return fmt.Errorf("session: keep a result of %s: the ref is empty", st.Tool)
	}
	_, err := s.put(ctx, ref, st)
	return err
}

func (s resultStore) put(ctx context.Context, ref string, st toolresult.Stored) (string, error) {
	var rules []byte
	if !st.Rules.IsZero() {
		var err error
		rules, err = json.Marshal(rulesJSON{Fields: st.Rules.Fields, SortBy: st.Rules.SortBy, Order: string(st.Rules.Order), MaxRecords: st.Rules.MaxRecords})
		if err != nil {
			return "", fmt.Errorf("session: offload a result of %s: %w", st.Tool, err)
		}
	}
	return s.r.PutResult(ctx, s.session, Offloaded{Ref: ref, Tool: st.Tool, Kind: string(st.Kind), MediaType: st.MediaType, Data: st.Data, Rules: rules})
}

func (s resultStore) Get(ctx context.Context, ref string) (toolresult.Stored, error) {
	o, err := s.r.Result(ctx, s.session, ref)
	if errors.Is(err, ErrNotFound) {
		return toolresult.Stored{}, fmt.Errorf("%w: %s in session %s", toolresult.ErrNotFound, ref, s.session)
	}
	if err != nil {
		return toolresult.Stored{}, err
	}
	st := toolresult.Stored{Tool: o.Tool, Kind: toolresult.Kind(o.Kind), MediaType: o.MediaType, Data: o.Data}
	if len(o.Rules) > 0 {
		var r rulesJSON
		if err := json.Unmarshal(o.Rules, &r); err != nil {
			return toolresult.Stored{}, &CorruptError{Session: s.session, Item: "result " + ref + " rules", Err: err}
		}
		st.Rules = toolresult.Rules{Fields: r.Fields, SortBy: r.SortBy, Order: toolresult.Order(r.Order), MaxRecords: r.MaxRecords}
	}
	return st, nil
}
