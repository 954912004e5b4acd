package main

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
)

// The crash tests' fault injection. It is part of the test binary only:
// the tests run the binary as the CLI (childVar), with this hook set as
// testHook; the released binary has none.

// killVar names the environment variable of the fault-injection hook that
// the crash tests set: "POINT:N" kills the process with SIGKILL at the Nth
// time it reaches POINT — model (the model's answer arrived, before it is
// committed), started (a call's started record was written, before the
// tool runs), finished (a call's finished record was written), commit (in
// the middle of a SQLite transaction's commit). "meet:N:DIR" waits after
// loading a session until N processes have loaded it (each leaves a file
// in DIR), so that they resume it at once whatever the machine's load.
// Unset, nothing changes.
const killVar = "TOOLWIRE_TEST_KILL"

// faults is the parsed hook.
type faults struct {
	point string
	n     int
	meet  int    // processes to wait for after a Load; 0 for none
	dir   string // where they meet
	met   bool   // this process's file is in dir
	mu    sync.Mutex
	seen  map[string]int
}

func parseFaults(v string) (*faults, error) {
	f := &faults{seen: map[string]int{}}
	if v == "" {
		return f, nil
	}
	point, arg, ok := strings.Cut(v, ":")
	switch {
	case !ok:
		return nil, fmt.Errorf("%q: want POINT:N or meet:N:DIR", v)
	case point == "meet":
		num, dir, _ := strings.Cut(arg, ":")
		n, err := strconv.Atoi(num)
		if err != nil || n < 2 || dir == "" {
			return nil, fmt.Errorf("%q: want meet:N:DIR with N from 2", v)
		}
		f.meet, f.dir = n, dir
		return f, nil
	case point == "model", point == "started", point == "finished", point == "commit":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q: N must be a whole number from 1", v)
		}
		f.point, f.n = point, n
	default:
		return nil, fmt.Errorf("%q: the point is model, started, finished or commit", v)
	}
	if f.point == "commit" {
		sqlite.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, _ string) error {
			if h, ok := c.(sqlite.HookRegisterer); ok {
				h.RegisterCommitHook(func() int32 {
					f.hit("commit")
					return 0
				})
			}
			return nil
		})
	}
	return f, nil
}

// hit counts a point reached and kills the process at the chosen one.
func (f *faults) hit(point string) {
	if f.point != point {
		return
	}
	f.mu.Lock()
	f.seen[point]++
	n := f.seen[point]
	f.mu.Unlock()
	if n == f.n {
		p, _ := os.FindProcess(os.Getpid())
		_ = p.Kill() // SIGKILL: no deferred function runs, nothing is flushed
		select {}
	}
}

// wrap puts the hook around the model and the store.
func (f *faults) wrap(m llm.Model, s session.Store) (llm.Model, session.Store) {
	if f.point == "" && f.meet == 0 {
		return m, s
	}
	return &faultModel{Model: m, f: f}, &faultStore{Store: s, f: f}
}

type faultModel struct {
	llm.Model
	f *faults
}

func (m *faultModel) Name() string {
	if n, ok := m.Model.(llm.Named); ok {
		return n.Name()
	}
	return ""
}

func (m *faultModel) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		failed := false
		for ev, err := range m.Model.Stream(ctx, req) {
			if err != nil {
				failed = true
			}
			if !yield(ev, err) {
				return
			}
		}
		if !failed {
			m.f.hit("model")
		}
	}
}

type faultStore struct {
	session.Store
	f *faults
}

func (s *faultStore) Record(ctx context.Context, id string, v int64, calls ...session.Call) error {
	err := s.Store.Record(ctx, id, v, calls...)
	if err == nil {
		for _, c := range calls {
			if c.Result == nil {
				s.f.hit("started")
			} else {
				s.f.hit("finished")
			}
		}
	}
	return err
}

func (s *faultStore) Load(ctx context.Context, id string) (*session.Snapshot, error) {
	snap, err := s.Store.Load(ctx, id)
	if s.f.meet > 0 {
		s.f.wait()
	}
	return snap, err
}

// wait leaves this process's file in the meeting folder, once, and waits
// until the others' are there too; after a minute it goes on, and the
// test sees what the processes did.
func (f *faults) wait() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.met {
		f.met = true
		_ = os.WriteFile(filepath.Join(f.dir, strconv.Itoa(os.Getpid())), nil, 0o600)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ents, err := os.ReadDir(f.dir); err == nil && len(ents) >= f.meet {
			return
		}
	}
}

func (s *faultStore) PutResult(ctx context.Context, id string, r session.Offloaded) (string, error) {
	return s.Store.(session.Results).PutResult(ctx, id, r)
}

func (s *faultStore) Result(ctx context.Context, id, ref string) (session.Offloaded, error) {
	return s.Store.(session.Results).Result(ctx, id, ref)
}
