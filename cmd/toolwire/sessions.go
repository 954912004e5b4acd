package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/internal/decide"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/units"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/dsn"
)

// defaultDB is where sessions are saved without --db.
const defaultDB = "./toolwire.db"

// dbFlag adds --db to cmd.
func dbFlag(cmd *cobra.Command, db *string) {
	cmd.Flags().StringVar(db, "db", defaultDB, "where sessions are saved: a SQLite file `PATH`, a postgres:// URL or a key/value string (host=… dbname=…)")
}

// openStore opens the session store dsn names and returns it with the
// function that closes it.
func openStore(ctx context.Context, e *env, name string) (session.Store, func(), error) {
	s, closeStore, err := dsn.Open(ctx, name)
	if err != nil {
		return nil, nil, storeError(name, err)
	}
	return s, closeStore, nil
}

// storeError is what a user reads for an error of the session store: no
// Go type names, the store's package prefix dropped, exit 2 for what the
// user named (a missing session, a damaged or foreign database), 1 for a
// conflict with another process.
func storeError(name string, err error) error {
	var de *dsn.Error
	if !errors.As(err, &de) {
		de = dsn.Explain(name, err)
	}
	if de != nil {
		code := exitcode.Usage
		if de.Kind == dsn.Unavailable {
			code = exitcode.Env
		}
		return &exitcode.Error{Code: code, Err: fmt.Errorf("--db: %s", de.Msg)}
	}
	msg := dsn.Plain(name, err)
	switch {
	case errors.Is(err, session.ErrConflict):
		return &exitcode.Error{Code: exitcode.Rejected, Err: errors.New(msg)}
	case errors.Is(err, session.ErrNotFound):
		return exitcode.Usagef("%s (in %s; toolwire sessions list shows the sessions there)", msg, dsn.Redact(name, name))
	case errors.Is(err, session.ErrSchema), errors.Is(err, session.ErrCorrupt), errors.Is(err, session.ErrInvalid):
		return &exitcode.Error{Code: exitcode.Usage, Err: errors.New(msg)}
	}
	var re *toolwire.ResumeError
	if errors.As(err, &re) {
		return &exitcode.Error{Code: exitcode.Usage, Err: errors.New(msg)}
	}
	return &exitcode.Error{Code: exitcode.Internal, Err: errors.New(msg)}
}

// runFailure is the error of a run that ended without a result.
func runFailure(o runOptions, id string, err error) error {
	var se *toolwire.StopError
	if errors.As(err, &se) {
		return &exitcode.Error{Code: exitcode.Rejected, Err: err}
	}
	return storeError(o.db, err)
}

// sessionModel is what a run stores of its model: spec, the model it
// talks to ("openai:gpt-4o", "replay:FILE"), its --base-url without a
// password (a session never holds a secret; a resume then needs
// --base-url again), and the options given on the command line.
func (o runOptions) sessionModel(spec string) session.Model {
	base := o.baseURL
	if u, err := url.Parse(base); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.User(u.User.Username())
			base = u.String()
		}
	}
	return session.Model{Spec: spec, BaseURL: base, Options: session.ModelOptions{Timeout: o.timeout, IdleTimeout: o.timeout, MaxTurns: o.maxTurns}}
}

// withStored returns o with what a session stored of its model where the
// command line gave nothing: resume talks to the model and the server the
// run used, with its options, unless --model or --base-url say otherwise.
// A --model of another provider leaves the stored base URL out: it was
// the other provider's server.
func (o runOptions) withStored(m session.Model) runOptions {
	if o.model == "" {
		o.model = m.Spec
	}
	prov, _, _ := strings.Cut(o.model, ":")
	stored, _, _ := strings.Cut(m.Spec, ":")
	if o.baseURL == "" && prov == stored {
		o.baseURL = m.BaseURL
	}
	if o.timeout == 0 {
		o.timeout = m.Options.Timeout
	}
	if o.maxTurns == 0 {
		o.maxTurns = m.Options.MaxTurns
	}
	return o
}

// resumeHint says how to resume a paused run: the command to type, with
// the --db, --model and --base-url the run was given (a resume without
// them would open another database, or send the history elsewhere).
func resumeHint(res *toolwire.Result, o runOptions) string {
	var ids []string
	for _, pc := range res.State.Next.Calls {
		if pc.Result == nil {
			ids = append(ids, pc.Call.ID)
		}
	}
	cmd := "toolwire resume " + res.Session
	if o.db != "" && o.db != defaultDB {
		cmd += " --db " + shellQuote(dsn.Redact(o.db, o.db))
	}
	if o.model != "" {
		cmd += " --model " + shellQuote(o.model)
	}
	if o.baseURL != "" {
		cmd += " --base-url " + shellQuote(o.baseURL)
	}
	return fmt.Sprintf("session %s is paused; resume it with: %s --approve %s (or --reject CALL --reason TEXT, or --edit CALL --args JSON)",
		res.Session, cmd, strings.Join(ids, " --approve "))
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and _-./:=@%+,.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-./:=@%+,", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func newResumeCmd(e *env) *cobra.Command {
	var o runOptions
	var approve, reject, reasons, edit, args []string
	var temporalAddr string
	cmd := &cobra.Command{
		Use:   "resume ID [--approve CALL] [--reject CALL --reason TEXT] [--edit CALL --args JSON] [\"new message\"]",
		Short: "Continue a saved session: after a pause for approval, a model error, a crash or Ctrl-C",
		Long: `resume continues the session ID saved in --db, with the agent file it
was run with (--agent overrides it) and the model, base URL and options
(--timeout, --max-turns) it was run with: --model and --base-url override
them (a --model of another provider drops the stored base URL). The API
key comes from the environment, as for run: a session never stores it.

A session paused for approval needs a decision for every waiting call:
--approve CALL runs it; --reject CALL --reason TEXT answers it
rejected_by_user with the reason; --edit CALL --args JSON runs it with
other arguments, checked against the tool's schema first. A new message
given as the last argument is placed after every tool result of the turn.

A session that ended on a failed model call (an outage or a rate limit
past the client's retries) makes that call again; one that ended otherwise
needs a new message.

A session that a crash (kill -9) or Ctrl-C left running is recovered first,
by one rule: a call that finished keeps its result; one that never started
runs; one that started and never finished runs again if its tool is
level_2, again with its stored idempotency key if level_1, and is answered
interrupted if level_0 (it never runs twice).

Of two processes resuming the same session at once, one goes on and the
other stops with a conflict error.

Exit codes (toolwire --help has the table): 0 the model answered; 1 the
run stopped without an answer, or another process resumed the session
first; 2 the session, a decision, --db or the command line cannot be used;
3 the model provider or the database cannot be reached; 4 an internal
error.`,
		Example: `  toolwire resume run_8f3a… --approve call_1_1
  toolwire resume run_8f3a… --reject call_1_1 --reason "too expensive" "Book the train instead."
  toolwire resume run_8f3a… --edit call_1_1 --args '{"city":"Lyon"}'`,
		Args: func(cmd *cobra.Command, a []string) error {
			if len(a) < 1 || len(a) > 2 {
				return exitcode.Usagef("resume takes a session id and, optionally, a new message (got %d arguments); e.g. toolwire resume ID --approve CALL", len(a))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, a []string) error {
			if temporalAddr != "" {
				return delegate(e, e.args) // a session on Temporal, through the plugin
			}
			d, err := decide.Flags(a[1:], approve, reject, reasons, edit, args)
			if err != nil {
				return err
			}
			o.resume, o.decisions = a[0], &d
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runAgent(ctx, e, o)
		},
	}
	cmd.Flags().StringArrayVar(&approve, "approve", nil, "run the waiting call `CALL` (repeatable)")
	cmd.Flags().StringArrayVar(&reject, "reject", nil, "do not run the waiting call `CALL`; give --reason (repeatable)")
	cmd.Flags().StringArrayVar(&reasons, "reason", nil, "why the call of the matching --reject is refused, told to the model")
	cmd.Flags().StringArrayVar(&edit, "edit", nil, "run the waiting call `CALL` with other arguments; give --args (repeatable)")
	cmd.Flags().StringArrayVar(&args, "args", nil, "the `JSON` arguments of the matching --edit")
	cmd.Flags().StringVar(&o.agent, "agent", "", "the agent file (default: the one the session was run with)")
	cmd.Flags().StringVar(&o.model, "model", "", "the model (default: the one the session was run with)")
	cmd.Flags().StringVar(&o.baseURL, "base-url", "", "the API's base URL (default: the one the session was run with)")
	cmd.Flags().BoolVar(&o.log, "log", false, "also write the loop's structured log line for each turn to standard error")
	dbFlag(cmd, &o.db)
	temporalFlags(cmd, &temporalAddr)
	return cmd
}

func newSessionsCmd(e *env) *cobra.Command {
	// Titles, messages and errors come from database rows, and were
	// written by a model: shown, never acted on by the terminal.
	safe := *e
	safe.stdout, safe.stderr = printableWriter{e.stdout}, printableWriter{e.stderr}
	e = &safe
	var db string
	cmd := &cobra.Command{
		Use:   "sessions {list|show ID|rm ID}",
		Short: "List, show and delete the sessions saved by toolwire run",
		Args: func(cmd *cobra.Command, a []string) error {
			return exitcode.Usagef("sessions needs a subcommand: list, show ID or rm ID")
		},
		RunE: func(cmd *cobra.Command, a []string) error { return nil },
	}
	cmd.PersistentFlags().StringVar(&db, "db", defaultDB, "where sessions are saved: a SQLite file `PATH`, a postgres:// URL or a key/value string (host=… dbname=…)")
	withCatalog := func(ctx context.Context, f func(session.Store, session.Catalog) error) error {
		if !dsn.IsPostgres(db) {
			if _, err := os.Stat(db); err != nil {
				return exitcode.Usagef("--db %s: no such database (toolwire run saves sessions there)", db)
			}
		}
		s, closeStore, err := openStore(ctx, e, db)
		if err != nil {
			return err
		}
		defer closeStore()
		return f(s, s.(session.Catalog))
	}
	oneID := func(what string) cobra.PositionalArgs {
		return func(cmd *cobra.Command, a []string) error {
			if len(a) != 1 {
				return exitcode.Usagef("sessions %s takes one session id (got %d arguments)", what, len(a))
			}
			return nil
		}
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the saved sessions, newest first",
		Args:  nArgs(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withCatalog(cmd.Context(), func(_ session.Store, c session.Catalog) error {
				return listSessions(cmd.Context(), e, c, db)
			})
		},
	}
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Print a session's full trace: each turn, what the model saw, each tool message, timings, tokens",
		Args:  oneID("show"),
		RunE: func(cmd *cobra.Command, a []string) error {
			return withCatalog(cmd.Context(), func(_ session.Store, c session.Catalog) error {
				tr, err := c.Show(cmd.Context(), a[0])
				if err != nil {
					return storeError(db, err)
				}
				printTrace(e, tr)
				return nil
			})
		},
	}
	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "Delete a session with its messages, steps, call records and offloaded results",
		Args:  oneID("rm"),
		RunE: func(cmd *cobra.Command, a []string) error {
			return withCatalog(cmd.Context(), func(_ session.Store, c session.Catalog) error {
				if err := c.Delete(cmd.Context(), a[0]); err != nil {
					return storeError(db, err)
				}
				fmt.Fprintf(e.stdout, "deleted session %s\n", a[0])
				return nil
			})
		},
	}
	cmd.AddCommand(list, show, rm)
	return cmd
}

// listSessions prints the sessions of c, newest first, a page at a time.
func listSessions(ctx context.Context, e *env, c session.Catalog, db string) error {
	opts := &session.ListOptions{Limit: 1000}
	n := 0
	for {
		page, err := c.List(ctx, opts)
		if err != nil {
			return storeError(db, err)
		}
		for _, s := range page.Sessions {
			if n == 0 {
				fmt.Fprintf(e.stdout, "%-28s  %-7s  %5s  %8s  %-19s  %s\n", "ID", "STATUS", "STEPS", "MESSAGES", "UPDATED (UTC)", "TITLE")
			}
			n++
			fmt.Fprintf(e.stdout, "%-28s  %-7s  %5d  %8d  %-19s  %s\n", s.ID, s.Status, s.Step, s.Messages, s.Updated.UTC().Format("2006-01-02 15:04:05"), s.Title)
		}
		if page.Next == "" {
			break
		}
		opts.Cursor = page.Next
	}
	if n == 0 {
		fmt.Fprintf(e.stdout, "no sessions in %s\n", dsn.Redact(db, db))
	}
	return nil
}

// printTrace writes a session's trace for people.
func printTrace(e *env, tr *session.Trace) {
	w := e.stdout
	s := tr.Session
	fmt.Fprintf(w, "session %s · %s · %d step(s), %d message(s) · created %s, updated %s\n", s.ID, s.Status, s.Step, s.Messages,
		s.Created.UTC().Format(time.RFC3339), s.Updated.UTC().Format(time.RFC3339))
	if s.Title != "" {
		fmt.Fprintf(w, "title: %s\n", s.Title)
	}
	if s.Agent != "" {
		fmt.Fprintf(w, "agent: %s\n", s.Agent)
	}
	if s.Agent == gateway.RecordAgent {
		printRecords(w, tr)
		return
	}
	calls := map[string][]session.Call{}
	for _, c := range tr.Calls {
		calls[c.ID] = append(calls[c.ID], c)
	}
	var total llm.Usage
	// Turns are numbered from 1 as run shows them: a model call belongs to
	// the turn after the state it was made from, answered or not.
	turn, turns := 0, 0
	for _, st := range tr.Steps {
		cp, err := toolwire.ParseCheckpoint(st.State)
		if err != nil {
			fmt.Fprintf(w, "\nstep %d: its state cannot be read (%s)\n", st.Number, strings.TrimPrefix(err.Error(), "toolwire: "))
			continue
		}
		t := cp.Trace
		head := fmt.Sprintf("step %d · %s · %s", st.Number, st.Created.UTC().Format("15:04:05.000"), t.Did)
		switch t.Did {
		case toolwire.CallModel:
			turn = turns + 1
			u := t.UsageOf()
			total = total.Add(u)
			head = fmt.Sprintf("\n── turn %d · %s · model call %s", turn, head, t.Duration().Round(time.Millisecond))
			fmt.Fprintln(w, head)
			saw := fmt.Sprintf("   the model saw %d message(s), %s tokens", t.Sent, units.Count(t.Tokens))
			if t.Fitted {
				saw += fmt.Sprintf(" (fitted: %d result(s) cleared, %d round(s) summarized)", t.Cleared, t.Removed)
			} else {
				saw += fmt.Sprintf(": messages 1–%d below", t.Sent)
			}
			fmt.Fprintln(w, saw)
			fmt.Fprintf(w, "   usage: %s in, %s out", units.Count(u.InputTokens), units.Count(u.OutputTokens))
			if u.CacheReadTokens > 0 {
				fmt.Fprintf(w, ", %s cached", units.Count(u.CacheReadTokens))
			}
			fmt.Fprintln(w)
			if t.Error != "" {
				fmt.Fprintf(w, "   the call failed: %s\n", t.Error)
			}
		case toolwire.RunTools:
			fmt.Fprintf(w, "%s · tools %s\n", head, t.Duration().Round(time.Millisecond))
		default:
			fmt.Fprintln(w, head)
		}
		for i := st.First; i < st.First+st.Messages && i < len(tr.Messages); i++ {
			printMessage(w, i+1, tr.Messages[i], calls)
		}
		turns = cp.State.Turn
		switch cp.State.Next.Kind {
		case toolwire.AwaitApproval:
			for _, pc := range cp.State.Next.Calls {
				if pc.Result == nil {
					fmt.Fprintf(w, "   waits for approval: %s %s [%s]\n", pc.Call.Name, string(pc.Call.Input), pc.Call.ID)
				}
			}
		case toolwire.Done:
			if stop := cp.State.Next.Stop; stop != nil {
				fmt.Fprintf(w, "   ended: %s: %s\n", stop.Reason, stop.Message)
			}
		}
	}
	printInFlight(w, toolwire.InFlightCalls(tr))
	fmt.Fprintf(w, "\n%d turn(s) · usage: %s input tokens, %s output tokens", turns, units.Count(total.InputTokens), units.Count(total.OutputTokens))
	if len(tr.Results) > 0 {
		var size int64
		for _, r := range tr.Results {
			size += r.Size
		}
		fmt.Fprintf(w, " · %d offloaded result(s), %s bytes", len(tr.Results), units.Count(int(size)))
	}
	fmt.Fprintln(w)
}

// printInFlight writes the calls a run left in flight (started, never
// finished: the process died while they ran), with what resume will do
// with each.
func printInFlight(w io.Writer, calls []toolwire.InFlight) {
	for _, f := range calls {
		c := f.Call
		fmt.Fprintf(w, "   in flight: %s %s [%s] · attempt %d (%s) started %s, never finished · on resume: %s\n",
			c.Tool, c.Arguments, c.ID, c.Attempt, levelKey(c), c.Started.UTC().Format("15:04:05.000"), f.Recovery)
	}
}

// levelKey names a call record's idempotency level, and its key if any.
func levelKey(c session.Call) string {
	level := string(c.Idempotency)
	if level == "" {
		level = "no level"
	}
	if c.IdempotencyKey != "" {
		level += " key " + c.IdempotencyKey
	}
	return level
}

// printMessage writes message n of a trace, with the call records of its
// calls.
func printMessage(w interface{ Write([]byte) (int, error) }, n int, m llm.Message, calls map[string][]session.Call) {
	switch m.Role {
	case llm.RoleTool:
		for _, r := range m.ToolResults() {
			fmt.Fprintf(w, "   %d tool ← %s %s [%s]: %s\n", n, r.Name, r.Status, r.CallID, r.Text())
			for _, c := range calls[r.CallID] {
				state := "unfinished"
				if c.Result != nil {
					state = "finished in " + c.Duration.Round(100*time.Microsecond).String()
				}
				fmt.Fprintf(w, "      attempt %d (%s) started %s, %s\n", c.Attempt, levelKey(c), c.Started.UTC().Format("15:04:05.000"), state)
			}
		}
	default:
		text := m.Text()
		if text != "" {
			fmt.Fprintf(w, "   %d %s: %s\n", n, m.Role, text)
		} else if len(m.ToolCalls()) == 0 {
			fmt.Fprintf(w, "   %d %s\n", n, m.Role)
		}
		for _, c := range m.ToolCalls() {
			fmt.Fprintf(w, "   %d %s → %s %s [%s]\n", n, m.Role, c.Name, string(c.Input), c.ID)
		}
	}
}

// printRecords writes the steps of a session that holds the gateway's
// record of a request: what the body broke, what was done, the diff.
func printRecords(w io.Writer, tr *session.Trace) {
	for _, st := range tr.Steps {
		rec, err := gateway.ParseRecord(st.State)
		if err != nil {
			fmt.Fprintf(w, "\nstep %d: its record cannot be read (%s)\n", st.Number, strings.TrimPrefix(err.Error(), "gateway: "))
			continue
		}
		fmt.Fprintf(w, "\n%s %s · %s · policy %s · %s · %s bytes in", rec.Method, rec.Path, rec.Dialect, rec.Policy, rec.Verdict, units.Count(rec.BytesIn))
		if rec.BytesOut > 0 {
			fmt.Fprintf(w, ", %s bytes sent", units.Count(rec.BytesOut))
		}
		if rec.Status != 0 {
			fmt.Fprintf(w, ", answered %d", rec.Status)
		}
		fmt.Fprintln(w)
		if rec.Model != "" {
			fmt.Fprintf(w, "model: %s\n", rec.Model)
		}
		fmt.Fprintf(w, "violations (%d):\n", len(rec.Violations))
		for _, v := range rec.Violations {
			kind := ""
			if v.Warning {
				kind = " (warning)"
			}
			fmt.Fprintf(w, "  %s  %s%s\n      %s\n", orDash(v.Path), v.Rule, kind, v.Message)
		}
		if len(rec.Changes) > 0 {
			what := "repairs"
			if rec.Verdict == gateway.VerdictRejected {
				what = "repairs it would have made"
			}
			fmt.Fprintf(w, "%s (%d):\n", what, len(rec.Changes))
			for _, c := range rec.Changes {
				fmt.Fprintf(w, "  %s  %s  %s\n      %s\n", orDash(c.Path), c.Rule, c.Action, c.Reason)
			}
		}
		if rec.Message != "" {
			fmt.Fprintf(w, "answer: %s\n", rec.Message)
		}
		if len(rec.Diff) > 0 {
			fmt.Fprintf(w, "diff (received → sent):\n")
			for _, d := range rec.Diff {
				fmt.Fprintf(w, "  %s %s %s\n", d.Op, d.Path, d.Value)
			}
		}
	}
}
