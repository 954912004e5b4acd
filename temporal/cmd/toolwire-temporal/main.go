// Command toolwire-temporal is toolwire's Temporal plugin. toolwire runs
// it, found next to the toolwire binary or on PATH, for
//
//	toolwire worker --temporal HOST:PORT [--namespace NS] [--task-queue Q] [--base-url URL] [--db PATH|postgres://…] AGENT…
//	toolwire run --temporal HOST:PORT [--namespace NS] [--task-queue Q] [--db PATH|postgres://…] AGENT "question"
//	toolwire resume --temporal HOST:PORT [--namespace NS] [--db PATH|postgres://…] ID [--approve CALL] [--reject CALL --reason TEXT] [--edit CALL --args JSON] ["new message"]
//	toolwire approve --temporal HOST:PORT [--namespace NS] [--db PATH|postgres://…] ID [CALL…]
//
// so that the toolwire module never imports the Temporal SDK. Install it
// from a clone of toolwire with
//
//	(cd temporal && go install ./cmd/toolwire-temporal)
//
// docs/temporal.md describes the commands; the exit codes are toolwire's,
// from the same package (internal/exitcode).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolwire/toolwire/internal/exitcode"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// env is what every command reads and writes.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
}

// run runs one command and returns its exit code.
func run(args []string, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "toolwire: internal error: %v (please report it)\n", r)
			code = exitcode.Internal
		}
	}()
	e := &env{stdout: stdout, stderr: stderr, getenv: getenv}
	err := dispatch(e, args)
	if err == nil {
		return exitcode.OK
	}
	var ee *exitcode.Error
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(stderr, "toolwire: %s\n", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintf(stderr, "toolwire: %s\n", err)
	return exitcode.Env
}

const usage = `toolwire-temporal runs toolwire sessions on Temporal; toolwire runs it for:
  toolwire worker --temporal HOST:PORT [--namespace NS] [--task-queue Q] [--base-url URL] [--db PATH|postgres://…] AGENT…
  toolwire run --temporal HOST:PORT [--namespace NS] [--task-queue Q] [--db PATH|postgres://…] AGENT "question"
  toolwire resume --temporal HOST:PORT [--namespace NS] [--db PATH|postgres://…] ID [--approve CALL] [--reject CALL --reason TEXT] [--edit CALL --args JSON] ["new message"]
  toolwire approve --temporal HOST:PORT [--namespace NS] [--db PATH|postgres://…] ID [CALL…]`

// dispatch runs the command args name.
func dispatch(e *env, args []string) error {
	if len(args) == 0 {
		return exitcode.Usagef("%s", usage)
	}
	switch args[0] {
	case "worker":
		return workerCmd(e, args[1:])
	case "run":
		return runCmd(e, args[1:])
	case "resume":
		return resumeCmd(e, args[1:])
	case "approve":
		return approveCmd(e, args[1:])
	case "help", "-h", "--help":
		fmt.Fprintln(e.stdout, usage)
		return nil
	}
	return exitcode.Usagef("unknown command %q\n%s", args[0], usage)
}

// flags are a command's parsed flags: each given value, by name.
type flags map[string][]string

func (f flags) one(name string) string {
	if v := f[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// parse splits args into the flags of known (each takes a value, as
// --name VALUE or --name=VALUE, and may repeat) and the positional
// arguments, in any order; "--" ends the flags.
func parse(cmd string, args []string, known ...string) (flags, []string, error) {
	f := flags{}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !contains(known, name) {
			return nil, nil, exitcode.Usagef("%s: unknown flag --%s (it takes --%s)", cmd, name, strings.Join(known, ", --"))
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, nil, exitcode.Usagef("%s: --%s needs a value", cmd, name)
			}
			i++
			value = args[i]
		}
		f[name] = append(f[name], value)
	}
	if f.one("temporal") == "" {
		return nil, nil, exitcode.Usagef("%s: give the Temporal frontend with --temporal HOST:PORT (e.g. --temporal 127.0.0.1:7233)", cmd)
	}
	return f, pos, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
