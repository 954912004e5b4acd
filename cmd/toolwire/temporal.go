package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// This file hands the Temporal commands to the plugin toolwire-temporal,
// built from the nested module temporal/, as git and kubectl hand theirs
// to plugins: the toolwire module never imports the Temporal SDK.

// pluginName is the Temporal plugin's binary.
const pluginName = "toolwire-temporal"

// pluginInstall says how to install it. Not with go install …@latest:
// the plugin's module points at the toolwire module beside it with a
// replace directive, which go install refuses outside the clone.
const pluginInstall = "(cd temporal && go install ./cmd/toolwire-temporal) in a clone of toolwire"

// temporalFlags adds run's and resume's flags that send them to the
// plugin.
func temporalFlags(cmd *cobra.Command, hostPort *string) {
	cmd.Flags().StringVar(hostPort, "temporal", "", "run on the Temporal cluster whose frontend is `HOST:PORT`, through the plugin "+pluginName+" (docs/temporal.md)")
	cmd.Flags().String("namespace", "", "with --temporal: the Temporal `NS` (default: default)")
	cmd.Flags().String("task-queue", "", "with --temporal: the task queue `Q` the workers poll (default: toolwire)")
}

func newWorkerCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "worker --temporal HOST:PORT [--namespace NS] [--task-queue Q] [--base-url URL] [--db PATH|postgres://…] AGENT…",
		Short: "Run a Temporal worker for agents: sessions survive the loss of a machine",
		Long: `worker runs the sessions of the agent files AGENT… on a Temporal cluster:
it polls the task queue Q (default toolwire) of the namespace NS (default
default) at HOST:PORT, and runs each session's loop as a workflow and each
model call and tool call as an activity, until Ctrl-C or SIGTERM. Start as
many workers as you like, on as many machines; a session goes on on the
others when one is lost. Agents are opened as toolwire run opens them (API
keys from the environment; --base-url points them at a compatible
server); a session names its agent by the agent file's name. --db is the
session store the workers and clients of the namespace share
(PostgreSQL across machines): the results that shaping offloads, so that
read_result finds them on any worker, and the payloads over 256 KB, whose
references alone go in the workflow histories.

It is run by the plugin ` + pluginName + `, found next to toolwire or on
PATH: ` + pluginInstall + `.
docs/temporal.md says what each idempotency level means when a worker is
lost.

Exit codes (toolwire --help has the table): 0 stopped by Ctrl-C or
SIGTERM; 2 an agent file or the command line cannot be used; 3 the
Temporal frontend cannot be reached, or the plugin is not installed.`,
		Example:            `  toolwire worker --temporal 127.0.0.1:7233 examples/agent/agent.yaml`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if slices.Contains(args, "--help") || slices.Contains(args, "-h") {
				return cmd.Help()
			}
			return delegate(e, append([]string{"worker"}, args...))
		},
	}
}

func newApproveCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "approve --temporal HOST:PORT [--namespace NS] [--db PATH|postgres://…] ID [CALL…]",
		Short: "Approve the waiting calls of a Temporal session, and follow it",
		Long: `approve approves the calls CALL… of the Temporal session ID that wait for
a person's approval (all of them when none is named), then prints the
session's events as toolwire run does until it answers, stops or waits
again. To reject or edit a call, or for a session saved in --db, use
toolwire resume.

Exit codes (toolwire --help has the table): 0 the model answered; 1 the
session stopped without an answer or waits again; 2 no call waits, or the
command line cannot be used; 3 the Temporal frontend cannot be reached,
or the plugin ` + pluginName + ` is not installed.`,
		Example:            `  toolwire approve --temporal 127.0.0.1:7233 run_8f3a… call_1_1`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if slices.Contains(args, "--help") || slices.Contains(args, "-h") {
				return cmd.Help()
			}
			if !slices.ContainsFunc(args, isTemporalFlag) {
				return exitcode.Usagef("approve works on a Temporal session: give --temporal HOST:PORT; for a session in --db, use toolwire resume ID --approve CALL")
			}
			return delegate(e, append([]string{"approve"}, args...))
		},
	}
}

func isTemporalFlag(a string) bool { return a == "--temporal" || strings.HasPrefix(a, "--temporal=") }

// delegate runs the plugin with args, its output the command's, and
// exits with its exit code.
func delegate(e *env, args []string) error {
	path, err := findPlugin(e)
	if err != nil {
		return err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	// Ctrl-C reaches the plugin through the terminal; toolwire waits for
	// it to stop, and passes SIGTERM on.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	if err := cmd.Start(); err != nil {
		return exitcode.Envf("cannot run the Temporal plugin %s: %v; reinstall it: %s", path, err, pluginInstall)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sig:
			if s == syscall.SIGTERM {
				_ = cmd.Process.Signal(s)
			}
		case err := <-done:
			var xe *exec.ExitError
			if errors.As(err, &xe) {
				if xe.ExitCode() < 0 {
					return &exitcode.Error{Code: exitcode.Rejected} // stopped by a signal
				}
				return &exitcode.Error{Code: xe.ExitCode()} // the plugin said why
			}
			return err
		}
	}
}

// findPlugin returns the plugin's path: next to the toolwire binary, or
// on PATH.
func findPlugin(e *env) (string, error) {
	var dirs []string
	if self, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(self))
	}
	dirs = append(dirs, filepath.SplitList(e.env("PATH"))...)
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, pluginName)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exitcode.Envf("the Temporal commands run through the plugin %s, which is neither next to toolwire nor on PATH; install it with %s (into the folder of toolwire, or one on PATH)", pluginName, pluginInstall)
}
