package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/toolwire/toolwire/internal/decide"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/dsn"
	"github.com/toolwire/toolwire/temporal"
)

// dial connects to the Temporal frontend the flags name, for a command
// that runs until Ctrl-C or SIGTERM: ctx ends on either. With --db,
// payloads larger than temporal.DefaultPayloadLimit are kept in that
// session store (temporal.NewPayloadCodec), and only their references
// in the histories: every worker and client of the namespace must then
// give the same --db. store is that store, nil without --db; done closes
// the client and the store, and stops listening for the signals.
func dial(f flags) (ctx context.Context, c client.Client, store session.Store, done func(), err error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ns := f.one("namespace")
	if ns == "" {
		ns = "default"
	}
	opts := client.Options{HostPort: f.one("temporal"), Namespace: ns, Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))}
	closeStore := func() {}
	if name := f.one("db"); name != "" {
		if store, closeStore, err = openStore(ctx, name); err != nil {
			stop()
			return nil, nil, nil, nil, err
		}
		codec, err := temporal.NewPayloadCodec(store, 0)
		if err != nil {
			closeStore()
			stop()
			return nil, nil, nil, nil, exitcode.Usagef("--db %s: %v", dsn.Redact(name, name), err)
		}
		opts.DataConverter = converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), codec)
	}
	c, err = client.Dial(opts)
	if err != nil {
		closeStore()
		stop()
		return nil, nil, nil, nil, exitcode.Envf("--temporal %s: cannot reach the Temporal frontend: %v; start a server (temporal server start-dev) or give its HOST:PORT", f.one("temporal"), err)
	}
	return ctx, c, store, func() { c.Close(); closeStore(); stop() }, nil
}

func queueOf(f flags) string {
	if q := f.one("task-queue"); q != "" {
		return q
	}
	return temporal.DefaultTaskQueue
}

// workerCmd runs a worker for the agents of the agent files given, until
// Ctrl-C or SIGTERM.
func workerCmd(e *env, args []string) error {
	f, files, err := parse("worker", args, "temporal", "namespace", "task-queue", "base-url", "db")
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return exitcode.Usagef("worker: give at least one agent file; e.g. toolwire worker --temporal 127.0.0.1:7233 examples/agent/agent.yaml")
	}
	ctx, c, store, done, err := dial(f)
	if err != nil {
		return err
	}
	defer done()
	var agents []temporal.Agent
	var names []string
	for _, path := range files {
		a, closeAgent, err := openAgent(ctx, e, path, f.one("base-url"))
		if err != nil {
			return err
		}
		defer closeAgent()
		if store != nil {
			a.Config.Sessions = store // offloaded results, shared by the workers
		}
		agents = append(agents, a)
		names = append(names, a.Name+" ("+path+")")
	}
	rt, err := temporal.New(agents, nil)
	if err != nil {
		return exitcode.Usagef("worker: %s", strings.TrimPrefix(err.Error(), "temporal: new: "))
	}
	// On Ctrl-C the calls in flight get half a minute to finish, so that a
	// level_0 call that was running is not left with an unknown outcome.
	w := worker.New(c, queueOf(f), worker.Options{WorkerStopTimeout: 30 * time.Second})
	rt.Register(w)
	if err := w.Start(); err != nil {
		return exitcode.Envf("worker: %v", err)
	}
	fmt.Fprintf(e.stdout, "toolwire worker: %s on task queue %s at %s; Ctrl-C stops it\n", strings.Join(names, ", "), queueOf(f), f.one("temporal"))
	<-ctx.Done()
	w.Stop() // waits for the activities in flight, within the worker's stop timeout
	fmt.Fprintln(e.stdout, "toolwire worker: stopped; its sessions go on on the other workers")
	return nil
}

// runCmd starts a session of AGENT with the question, and follows it.
func runCmd(e *env, args []string) error {
	f, pos, err := parse("run", args, "temporal", "namespace", "task-queue", "db")
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return exitcode.Usagef("run takes an agent file and a question (got %d arguments); e.g. toolwire run --temporal 127.0.0.1:7233 examples/agent/agent.yaml \"Weather in Paris?\"", len(pos))
	}
	if strings.TrimSpace(pos[1]) == "" {
		return exitcode.Usagef("run: the question is empty; ask something")
	}
	def, err := loadAgent(pos[0])
	if err != nil {
		return err
	}
	ctx, c, store, done, err := dial(f)
	if err != nil {
		return err
	}
	defer done()
	wr, err := temporal.Start(ctx, c, temporal.StartOptions{TaskQueue: queueOf(f), Agent: agentName(def), Question: pos[1]})
	if err != nil {
		return exitcode.Envf("run: %v", err)
	}
	fmt.Fprintf(e.stdout, "session %s (Temporal, task queue %s)\n", wr.GetID(), queueOf(f))
	return follow(ctx, e, c, store, f, wr.GetID(), 0)
}

// resumeCmd applies decisions or a message to session ID, and follows it.
func resumeCmd(e *env, args []string) error {
	f, pos, err := parse("resume", args, "temporal", "namespace", "task-queue", "db", "approve", "reject", "reason", "edit", "args")
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return exitcode.Usagef("resume takes a session id and, optionally, a new message (got %d arguments); e.g. toolwire resume --temporal HOST:PORT ID --approve CALL", len(pos))
	}
	d, err := decisionsOf(f, pos[1:])
	if err != nil {
		return err
	}
	return act(e, f, pos[0], d)
}

// approveCmd approves the named waiting calls of session ID, or all of
// them, and follows it.
func approveCmd(e *env, args []string) error {
	f, pos, err := parse("approve", args, "temporal", "namespace", "task-queue", "db")
	if err != nil {
		return err
	}
	if len(pos) < 1 {
		return exitcode.Usagef("approve takes a session id and, optionally, the calls to approve; e.g. toolwire approve --temporal HOST:PORT ID")
	}
	calls := pos[1:]
	if len(calls) == 0 {
		ctx, c, _, done, err := dial(f)
		if err != nil {
			return err
		}
		pending, err := temporal.Pending(ctx, c, pos[0])
		done()
		if err != nil {
			return exitcode.Envf("approve: %v", err)
		}
		if len(pending) == 0 {
			return exitcode.Usagef("approve: no call of session %s waits for approval", pos[0])
		}
		for _, p := range pending {
			calls = append(calls, p.ID)
		}
	}
	d := temporal.Decisions{Calls: map[string]temporal.Decision{}}
	for _, id := range calls {
		d.Calls[id] = temporal.Decision{Kind: "approve"}
	}
	return act(e, f, pos[0], d)
}

// decisionsOf makes the decisions of resume's flags and its message, as
// toolwire resume makes them.
func decisionsOf(f flags, message []string) (temporal.Decisions, error) {
	d, err := decide.Flags(message, f["approve"], f["reject"], f["reason"], f["edit"], f["args"])
	if err != nil {
		return temporal.Decisions{}, err
	}
	out := temporal.Decisions{Message: d.Message, Calls: map[string]temporal.Decision{}}
	for id, dc := range d.Calls {
		out.Calls[id] = temporal.Decision{Kind: string(dc.Kind), Reason: dc.Reason, Args: dc.Args}
	}
	return out, nil
}

// act gives session id the decisions (an update) or the message (a
// signal, or a new run of an ended session), and follows the session
// from the events it had.
func act(e *env, f flags, id string, d temporal.Decisions) error {
	ctx, c, store, done, err := dial(f)
	if err != nil {
		return err
	}
	defer done()
	after := lastEvent(ctx, c, id)
	switch {
	case len(d.Calls) > 0:
		if err := temporal.Decide(ctx, c, id, d); err != nil {
			return exitcode.Usagef("resume %s: %s", id, strings.TrimPrefix(err.Error(), "temporal: decide "+id+": "))
		}
	case d.Message != "" || ended(ctx, c, id):
		// A message; or, to an ended session, none: make its failed model
		// call again.
		if err := temporal.Message(ctx, c, id, queueOf(f), d.Message); err != nil {
			return exitcode.Usagef("resume %s: %s", id, strings.TrimPrefix(err.Error(), "temporal: message "+id+": "))
		}
	}
	return follow(ctx, e, c, store, f, id, after)
}

// ended reports whether session id's workflow has closed.
func ended(ctx context.Context, c client.Client, id string) bool {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	return err == nil && d.GetWorkflowExecutionInfo().GetStatus() != enums.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// lastEvent is the number of the session's last event, 0 when it has
// none or cannot be asked.
func lastEvent(ctx context.Context, c client.Client, id string) int {
	v, err := c.QueryWorkflow(ctx, id, "", temporal.QueryEvents, 0)
	if err != nil {
		return 0
	}
	var evs temporal.Events
	if v.Get(&evs) != nil || len(evs.Events) == 0 {
		return 0
	}
	return evs.Events[len(evs.Events)-1].Seq
}
