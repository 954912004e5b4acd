package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/replay"
)

// recorder is the hook of run --record: it keeps each answer the model
// gave, as the run's history holds it, to write the run as a replay file
// (provider/replay) that answers its question the same way offline.
type recorder struct {
	mu    sync.Mutex
	turns []replay.Turn
}

var _ toolwire.Hook = (*recorder)(nil)

// Observe keeps the assistant messages each step adds.
func (r *recorder) Observe(_ context.Context, e toolwire.Event) {
	se, ok := e.(toolwire.StepEvent)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range se.Added {
		if m.Role != llm.RoleAssistant {
			continue
		}
		t := replay.Turn{Text: m.Text()}
		for _, c := range m.ToolCalls() {
			t.Calls = append(t.Calls, replay.Call{ID: c.ID, Name: c.Name, Args: c.Input})
		}
		if t.Text != "" || len(t.Calls) > 0 {
			r.turns = append(r.turns, t)
		}
	}
}

// write writes the recorded turns of question into the replay file path,
// with the dialect and the model whose limits apply. A replay file
// already there keeps its other questions (one recorded again is
// replaced); a file that is not one is left alone, with an error.
func (r *recorder) write(path, question, dialect, model string) error {
	r.mu.Lock()
	turns := r.turns
	r.mu.Unlock()
	if len(turns) == 0 {
		return fmt.Errorf("--record %s: the model gave no answer to record", path)
	}
	f := &replay.File{Dialect: dialect, Model: model}
	if _, err := os.Stat(path); err == nil {
		old, err := replay.Load(path)
		if err != nil {
			return fmt.Errorf("--record %s: the file is there and is not a replay file toolwire can add to (%s); give another file", path, strings.TrimPrefix(err.Error(), "replay: "))
		}
		if f = old.Contents(); f.Dialect != dialect && dialect != "" {
			return fmt.Errorf("--record %s: the file records %s turns and this run is %s; give another file", path, f.Dialect, dialect)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--record %s: %v", path, err)
	}
	f.Add(replay.Conversation{Question: question, Turns: turns})
	data, err := f.Marshal()
	if err != nil {
		return fmt.Errorf("--record %s: %v", path, err)
	}
	// The file holds the conversation: its user's only, as dumps are.
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("--record %s: %v", path, err)
	}
	return nil
}
