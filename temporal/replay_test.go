package temporal

import (
	"log/slog"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/toolwire/toolwire/temporal/internal/fixture"
)

// replayer returns a replayer of the session workflow of the fixture
// agent, configured with cfg. The model is never called: a replay
// performs no activity.
func replayer(t *testing.T, cfg *Config) worker.WorkflowReplayer {
	t.Helper()
	m, c, err := fixture.New(t.TempDir(), "http://127.0.0.1:1/v1")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New([]Agent{{Name: fixture.Name, Model: m, Config: c}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := worker.NewWorkflowReplayer()
	rt.RegisterWorkflow(r)
	return r
}

// The histories the server tests recorded (temporal/servertest, with
// -update) replay with the current code: Step and the workflow around it
// make the same commands from the same inputs. A change that breaks
// determinism fails here before it fails a running session.
func TestReplayRecordedHistories(t *testing.T) {
	tests := []struct {
		file string
		cfg  *Config
	}{
		{"answers.json", nil},                          // three calls of three levels, then the answer
		{"approval.json", nil},                         // a pause, a refused edit, an approval with a message
		{"continued.json", &Config{HistoryEvents: 12}}, // the first run of a session that continued as new
		{"lost-level0.json", nil},                      // a level_0 call whose worker was killed: answered interrupted
		{"lost-level1.json", nil},                      // a level_1 call whose worker was killed: its second attempt
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "histories", tt.file)
			if err := replayer(t, tt.cfg).ReplayWorkflowHistoryFromJSONFile(nil, path); err != nil {
				t.Errorf("replay %s: %v", path, err)
			}
		})
	}
}

// A workflow that decides otherwise than the recorded run is caught:
// with a lower history limit it would have continued as new where the
// recorded run scheduled an activity.
func TestReplayCatchesNonDeterminism(t *testing.T) {
	path := filepath.Join("testdata", "histories", "answers.json")
	quiet := log.NewStructuredLogger(slog.New(slog.DiscardHandler))
	if err := replayer(t, &Config{HistoryEvents: 6}).ReplayWorkflowHistoryFromJSONFile(quiet, path); err == nil {
		t.Errorf("replay %s with another history limit succeeded, want a non-determinism error", path)
	}
}
