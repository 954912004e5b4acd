// Command toolwire checks, converts and renders tool-call transcripts and
// scores tool definitions. It is a thin shell over the toolwire packages.
//
// Exit codes are in one table, exitCodes: 0 success; 1 the input was
// judged and failed; 2 the command line or the input cannot be used; 3
// something toolwire needs is unreachable; 4 an internal error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// rejected exits 1 without a message: the command already printed why.
func rejected() error { return &exitcode.Error{Code: exitcode.Rejected} }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the CLI with the process's environment and returns its
// exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(args, stdin, stdout, stderr, os.Getenv)
}

// runEnv executes the CLI, reading environment variables (the API keys
// of toolwire run) with getenv. It never panics: an internal failure is
// reported in one line.
func runEnv(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "toolwire: internal error: %s (please report it)\n", printable(fmt.Sprint(r)))
			code = exitcode.Internal
		}
	}()
	re := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, args: args}
	root := rootCmd(re)
	root.AddCommand(newRunCmd(re), newResumeCmd(re), newSessionsCmd(re), newServeCmd(re), newGatewayCmd(re), newToolsCmd(re), newMCPCmd(re),
		newWorkerCmd(re), newApproveCmd(re))
	setRootHelp(root)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitcode.OK
	}
	var ee *exitcode.Error
	if errors.As(err, &ee) {
		if ee.Err != nil {
			// An error may quote a provider, a model or a database row.
			fmt.Fprintf(stderr, "toolwire: %s\n", printable(ee.Err.Error()))
		}
		return ee.Code
	}
	// Errors from cobra itself: an unknown command.
	fmt.Fprintf(stderr, "toolwire: %s\n", printable(commandError(err)))
	return exitcode.Usage
}

// env is what every command reads and writes.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// getenv reads the environment: the API keys of toolwire run, and
	// what an agent's MCP servers inherit. nil in tests of the command
	// tree alone.
	getenv func(string) string
	// maxInput, when not 0, replaces the default maxInput (in tests).
	maxInput int
	// args are the command line, as given: what a command handed to the
	// Temporal plugin passes on.
	args []string
}

// env returns the environment variable k, "" when there is none.
func (e *env) env(k string) string {
	if e.getenv == nil {
		return ""
	}
	return e.getenv(k)
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return rootCmd(&env{stdin: stdin, stdout: stdout, stderr: stderr})
}

// rootCmd is the command tree of every command that runs without the
// environment's keys; runEnv adds run, resume, sessions, tools and mcp.
func rootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "toolwire",
		Short: "Correct tool-call loops for LLM agents",
		Long: `toolwire runs agents — a model, its tools and the loop between them, saved
as sessions that survive a crash — and checks, repairs, converts and
renders the tool calls and tool results of LLM conversations, and scores
tool definitions.

` + exitCodeHelp(),
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newVersionCmd(e),
		newRenderCmd(e),
		newLintCmd(e),
		newCheckCmd(e),
		newConvertCmd(e),
		newShapeCmd(e),
	)
	return root
}
