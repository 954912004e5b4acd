package sessiontest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
)

// The environment of a child process of [Processes].
const (
	envRole    = "SESSIONTEST_PROCESS" // "child"
	envDSN     = "SESSIONTEST_DSN"
	envName    = "SESSIONTEST_NAME" // the child's name, its own session's id
	envRace    = "SESSIONTEST_RACE" // the session both children race on
	linePrefix = "sessiontest: "
)

// childSteps is how many steps each child commits to its own session while
// the other does the same: writers of two processes meeting on the
// database's locks.
const childSteps = 25

// Processes checks that writers in different processes behave as writers
// in one: two processes that read a session at the same version and commit
// to it get exactly one success and one [*session.ConflictError]; two that
// start the same attempt of the same call get exactly one success; and the
// steps each commits to a session of its own, interleaved with the other's,
// are all kept, in order.
//
// It re-executes the test binary (os.Args[0]) twice, running only the test
// that called it, with the environment variable SESSIONTEST_PROCESS set; in
// those children, Processes plays a child's part. setup runs in the parent
// only and returns what open needs to reach the database (a file name, a
// schema); open runs in every process and opens a store over it.
func Processes(t *testing.T, setup func(t *testing.T) string, open func(t *testing.T, dsn string) session.Store) {
	if os.Getenv(envRole) == "child" {
		child(t, open(t, os.Getenv(envDSN)), os.Getenv(envName), os.Getenv(envRace))
		return
	}
	dsn := setup(t)
	s := open(t, dsn)
	ctx := context.Background()
	create(t, s, "race")
	base := commit(t, s, textStep("race", 1, 1, "before the race"))
	for _, name := range []string{"child-a", "child-b"} {
		create(t, s, name)
	}

	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	children := []*process{
		start(cctx, t, dsn, "child-a"),
		start(cctx, t, dsn, "child-b"),
	}
	outcome := func(phase string) (won string) {
		t.Helper()
		for _, c := range children {
			c.send(phase)
		}
		wins := 0
		for _, c := range children {
			switch line := c.expect(t, phase+" "); line {
			case phase + " won":
				wins++
				won = c.name
			case phase + " conflict":
			default:
				t.Fatalf("%s: %s: %q, want %q or %q", c.name, phase, line, phase+" won", phase+" conflict")
			}
		}
		if wins != 1 {
			t.Fatalf("%s: %d processes won, want exactly 1", phase, wins)
		}
		return won
	}
	for _, c := range children {
		c.expect(t, "ready")
	}
	commitWinner := outcome("commit")
	recordWinner := outcome("record")
	for _, c := range children {
		c.send("exit")
		c.wait(t)
	}

	snap := load(t, s, "race")
	want := append(textStep("", 0, 0, "before the race").Messages, llm.User("committed by "+commitWinner))
	sameMessages(t, "Load(race)", snap.Messages, want)
	if snap.Session.Version != base.Version+1 {
		t.Errorf("Load(race): version %d, want %d", snap.Session.Version, base.Version+1)
	}
	if len(snap.Calls) != 1 || snap.Calls[0].IdempotencyKey != recordWinner {
		t.Errorf("Load(race).Calls = %+v, want the one record of %s", snap.Calls, recordWinner)
	}
	for _, c := range children {
		snap := load(t, s, c.name)
		sameMessages(t, "Load("+c.name+")", snap.Messages, ownSteps(c.name))
	}
}

// ownSteps returns the messages a child commits to its own session.
func ownSteps(name string) []llm.Message {
	var msgs []llm.Message
	for i := 1; i <= childSteps; i++ {
		msgs = append(msgs, llm.User(fmt.Sprintf("%s step %d", name, i)))
	}
	return msgs
}

// child plays one child's part: commit its own steps, then race the other
// child when told to, and report each outcome on stdout.
func child(t *testing.T, s session.Store, name, race string) {
	ctx := context.Background()
	say := func(format string, args ...any) { fmt.Printf(linePrefix+format+"\n", args...) }
	in := bufio.NewScanner(os.Stdin)
	await := func(want string) {
		if !in.Scan() || in.Text() != want {
			t.Fatalf("%s: waiting for %q, read %q (%v)", name, want, in.Text(), in.Err())
		}
	}
	snap := load(t, s, race)
	version := snap.Session.Version
	own := load(t, s, name).Session
	for i, m := range ownSteps(name) {
		st := &session.Step{Session: name, Version: own.Version, Number: i + 1, Messages: []llm.Message{m}}
		if err := s.Record(ctx, name, own.Version, session.Call{ID: fmt.Sprint("call-", i), Tool: "t", Attempt: 1}); err != nil {
			t.Fatalf("%s: Record = %v", name, err)
		}
		own = commit(t, s, st)
	}
	say("ready")
	outcome := func(phase string, err error) {
		switch {
		case err == nil:
			say("%s won", phase)
		case errors.Is(err, session.ErrConflict):
			say("%s conflict", phase)
		default:
			t.Fatalf("%s: %s = %v", name, phase, err)
		}
	}
	await("commit")
	_, err := s.Commit(ctx, &session.Step{Session: race, Version: version, Number: snap.Session.Step + 1,
		Messages: []llm.Message{llm.User("committed by " + name)}})
	outcome("commit", err)
	await("record")
	version = load(t, s, race).Session.Version // the same in both: a record does not move it
	outcome("record", s.Record(ctx, race, version, session.Call{ID: "pay-1", Tool: "pay", Attempt: 1, IdempotencyKey: name}))
	await("exit")
}

// A process is a child: its input, the lines it prints, and its output for
// failure messages.
type process struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	mu    sync.Mutex
	out   bytes.Buffer // everything it wrote
	done  chan struct{}
}

func start(ctx context.Context, t *testing.T, dsn, name string) *process {
	t.Helper()
	var run []string
	for _, part := range strings.Split(t.Name(), "/") {
		run = append(run, "^"+regexp.QuoteMeta(part)+"$")
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+strings.Join(run, "/"), "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), envRole+"=child", envDSN+"="+dsn, envName+"="+name, envRace+"=race")
	p := &process{name: name, cmd: cmd, lines: make(chan string, 16), done: make(chan struct{})}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = writerFunc(p.record)
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			p.record([]byte(line + "\n"))
			if rest, ok := strings.CutPrefix(line, linePrefix); ok {
				p.lines <- rest
			}
		}
		close(p.lines)
		_ = cmd.Wait() // after the last read, as exec.Cmd requires
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func (p *process) record(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *process) send(line string) {
	_, _ = io.WriteString(p.stdin, line+"\n")
}

// expect returns the child's next line, which must start with prefix.
func (p *process) expect(t *testing.T, prefix string) string {
	t.Helper()
	line, ok := <-p.lines
	if !ok || !strings.HasPrefix(line, prefix) {
		t.Fatalf("%s: got %q, want a line starting %q; its output:\n%s", p.name, line, prefix, p.output())
	}
	return line
}

func (p *process) wait(t *testing.T) {
	t.Helper()
	<-p.done
	if err := p.cmd.ProcessState; err == nil || !err.Success() {
		t.Fatalf("%s exited with %v; its output:\n%s", p.name, p.cmd.ProcessState, p.output())
	}
}
