package servertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/toolwire/toolwire/internal/syncbuf"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/temporal"
	"github.com/toolwire/toolwire/temporal/internal/fixture"
)

// streamText is the model's text beside its call in the first turn,
// streamed in fragments of 5 bytes: the first is "Let m".
const streamText = "Let me look that up for you."

// streamRig is a server, a worker in this process whose agent keeps its
// sessions in a SQLite file, and the plugin, whose run follows a session
// with that file as its --db.
type streamRig struct {
	*rig
	db    string
	store session.Store
	bin   string
}

func newStreamRig(t *testing.T, cfg *temporal.Config) *streamRig {
	t.Helper()
	r := &streamRig{rig: newRig(t,
		llmtest.Turn{Text: streamText, Chunk: 5, Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a")}},
		llmtest.Turn{Text: "The item a is found."}), bin: plugin(t)}
	r.db = filepath.Join(r.dir, "toolwire.db")
	r.store = openStore(t, r.db)
	m, c, err := fixture.New(r.dir, r.model.URL+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	c.Sessions = r.store
	rt, err := temporal.New([]temporal.Agent{{Name: fixture.Name, Model: m, Config: c}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.ts.NewWorker(r.queue, func(w worker.Registry) { rt.Register(w) })
	return r
}

// run starts `toolwire-temporal run` of the fixture agent, with the
// model paused after its first fragment of text (hold-text), and
// returns its output as it comes and a function that waits for its
// exit code.
func (r *streamRig) run(t *testing.T) (*syncbuf.Buffer, func() int) {
	t.Helper()
	agentFile := filepath.Join(r.dir, "fixture.yaml")
	if err := os.WriteFile(agentFile, []byte("name: fixture\nmodel: openai:gpt-4o-mini\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return r.plugin(t, "run", agentFile, "look a up")
}

// plugin starts a command of the plugin on the rig's session store,
// with the model paused after its first fragment of text (hold-text).
func (r *streamRig) plugin(t *testing.T, command string, args ...string) (*syncbuf.Buffer, func() int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, "hold-text"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, r.bin, append([]string{command, "--temporal", r.ts.GetFrontendHostPort(), "--namespace", r.ts.GetDefaultNamespace(),
		"--task-queue", r.queue, "--db", r.db}, args...)...)
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	wait := func() int {
		defer cancel()
		err := cmd.Wait()
		if xe, ok := err.(*exec.ExitError); ok {
			return xe.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return out, wait
}

// paused reports whether the model is paused after the first fragment
// of its nth answer held.
func (r *streamRig) paused(n int) (bool, error) {
	l, err := fixture.Lines(r.dir, "text")
	return len(l) == n, err
}

func (r *streamRig) release(t *testing.T) {
	t.Helper()
	if err := os.Remove(filepath.Join(r.dir, "hold-text")); err != nil {
		t.Fatal(err)
	}
}

// streamSessions lists the store's sessions that hold streamed text.
func (r *streamRig) streamSessions(t *testing.T) []string {
	t.Helper()
	page, err := r.store.(session.Catalog).List(context.Background(), &session.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range page.Sessions {
		if strings.HasPrefix(s.ID, "toolwire-stream-") {
			out = append(out, s.ID)
		}
	}
	return out
}

// finish waits for the run to exit, and checks that it printed the
// turn's text once, where a local run prints it, and the answer.
func finish(t *testing.T, out *syncbuf.Buffer, wait func() int) string {
	t.Helper()
	code := wait()
	got := out.String()
	if code != 0 {
		t.Fatalf("run = exit %d:\n%s\nwant 0", code, got)
	}
	if n := strings.Count(got, streamText); n != 1 {
		t.Errorf("run printed the turn's text %d times, want once:\n%s", n, got)
	}
	if !strings.Contains(got, "── turn 1\n"+streamText+"\n→ lookup") || !strings.Contains(got, "answer:\nThe item a is found.") {
		t.Errorf("run printed\n%s\nwant the turn's text, then its call, and the answer", got)
	}
	return got
}

// toolwire run --temporal with --db prints the model's text as it
// streams: while the model call is paused after its first fragment, the
// fragment is on the screen; once the call ends, the rest follows, the
// text printed once; the streamed text is then gone from the store. So
// does resume --temporal, following the session's next run.
func TestRunStreamsTextOnServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	r := newStreamRig(t, nil)
	out, wait := r.run(t)
	eventually(t, "the first fragment on the screen", func() (bool, error) {
		return strings.Contains(out.String(), "── turn 1\nLet m"), nil
	})
	if p, err := r.paused(1); err != nil || !p {
		t.Fatalf("the first fragment was printed, but the model is not paused after it (%v)", err)
	}
	if got := out.String(); strings.Contains(got, "Let me") || strings.Contains(got, "→ lookup") {
		t.Fatalf("while the model call is paused after its first fragment, run printed\n%s\nwant that fragment alone", got)
	}
	if len(r.streamSessions(t)) != 1 {
		t.Errorf("stream sessions while the call streams = %q, want one", r.streamSessions(t))
	}
	r.release(t)
	got := finish(t, out, wait)
	if left := r.streamSessions(t); len(left) != 0 {
		t.Errorf("the streamed text is left in the store after the calls: %q", left)
	}

	// resume with a new message follows the session's next run the same
	// way; its answer streams in its turn, then is the answer, as a local
	// run prints it.
	id := regexp.MustCompile(`session (run_[0-9a-f]{24})`).FindStringSubmatch(got)
	if id == nil {
		t.Fatalf("run printed no session id:\n%s", got)
	}
	const more = "Resumed: here is more text."
	r.model.Add(llmtest.Turn{Text: more, Chunk: 5})
	out, wait = r.plugin(t, "resume", id[1], "tell me more")
	eventually(t, "the resumed answer's first fragment on the screen", func() (bool, error) {
		return strings.Contains(out.String(), "\nResum"), nil
	})
	if p, err := r.paused(2); err != nil || !p {
		t.Fatalf("the first fragment was printed, but the model is not paused after it (%v)", err)
	}
	if got := out.String(); strings.Contains(got, "Resume") || strings.Contains(got, "answer:") {
		t.Fatalf("while the model call is paused after its first fragment, resume printed\n%s\nwant that fragment alone", got)
	}
	r.release(t)
	if code := wait(); code != 0 {
		t.Fatalf("resume = exit %d:\n%s\nwant 0", code, out.String())
	}
	if got := out.String(); !strings.Contains(got, "── turn 3\n"+more+"\n\nanswer:\n"+more+"\n") || strings.Count(got, more) != 2 {
		t.Errorf("resume printed\n%s\nwant the answer streamed once in turn 3, then under answer:", got)
	}
}

// When the workers publish nothing (TextInterval < 0: no deltas in the
// store), run prints each turn's text when its model call ends, once,
// as before streaming.
func TestRunWithoutDeltasOnServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	r := newStreamRig(t, &temporal.Config{TextInterval: -1})
	out, wait := r.run(t)
	eventually(t, "the model paused after its first fragment", func() (bool, error) {
		if !strings.Contains(out.String(), "── turn 1\n") {
			return false, nil
		}
		return r.paused(1)
	})
	time.Sleep(time.Second) // ten reads of the store, at least
	if got := out.String(); strings.Contains(got, "Let m") {
		t.Fatalf("with nothing published, run printed text before the model call ended:\n%s", got)
	}
	if left := r.streamSessions(t); len(left) != 0 {
		t.Errorf("stream sessions = %q, want none when nothing is published", left)
	}
	r.release(t)
	finish(t, out, wait)
}

// The worker streaming a model call is killed after its first fragment;
// another worker makes the call again and streams another text. run,
// following with --db, printed the first fragment, then says the call
// was made again and prints the new text once; nothing of the lost
// attempt is left in the store.
func TestRunStreamsAcrossALostWorkerOnServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes and kills them")
	}
	const again = "Checking that for you."
	r := &streamRig{rig: newRig(t,
		llmtest.Turn{Text: streamText, Chunk: 5, Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a")}},
		llmtest.Turn{Text: again, Chunk: 5, Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a")}}, // the call made again
		llmtest.Turn{Text: "The item a is found."}), bin:                                              plugin(t)}
	r.db = filepath.Join(r.dir, "toolwire.db")
	r.store = openStore(t, r.db)
	workers := map[int]*exec.Cmd{}
	for range 2 {
		cmd := startWorker(t, r.ts, r.queue, r.dir, r.model.URL+"/v1", envDB+"="+r.db)
		workers[cmd.Process.Pid] = cmd
	}
	out, wait := r.run(t)
	eventually(t, "the first fragment on the screen", func() (bool, error) {
		return strings.Contains(out.String(), "── turn 1\nLet m"), nil
	})
	pids, err := fixture.Pids(r.dir, "text")
	if err != nil || len(pids) != 1 {
		t.Fatalf("the model paused in %v (%v), want one worker", pids, err)
	}
	victim, ours := workers[pids[0]]
	if !ours {
		t.Fatalf("pid %d is none of the workers %v", pids[0], workers)
	}
	if err := victim.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = victim.Wait()
	r.release(t)
	code := wait()
	got := out.String()
	if code != 0 {
		t.Fatalf("run = exit %d:\n%s\nwant 0", code, got)
	}
	want := "── turn 1\nLet m\n(the model call was made again; its text from the start:)\n" + again + "\n→ lookup"
	if !strings.Contains(got, want) || strings.Count(got, again) != 1 || strings.Contains(got, streamText) {
		t.Errorf("run printed\n%s\nwant the lost attempt's fragment, the restart, and the new text once:\n%s", got, want)
	}
	if left := r.streamSessions(t); len(left) != 0 {
		t.Errorf("the streamed text is left in the store after the calls: %q", left)
	}
}
