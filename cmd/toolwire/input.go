package main

import (
	"io"
	"math"
	"os"
	"runtime/debug"

	"github.com/toolwire/toolwire/internal/units"
)

// maxInput bounds what a command reads, so that a wrong file cannot
// exhaust memory.
const maxInput = 256 << 20

// readInput reads the named file, or standard input for "-" or no name.
// The returned name is what error messages call the input.
func readInput(e *env, args []string) (data []byte, name string, err error) {
	name = "-"
	if len(args) > 0 {
		name = args[0]
	}
	return readLimited(e, name, "")
}

// readLimited reads the named file, or standard input for "-", refusing
// more than maxInput bytes: a regular file by its size, before reading
// it; standard input as it streams. fix, when set, tells the user what
// to do about an input too large.
func readLimited(e *env, name, fix string) ([]byte, string, error) {
	if fix != "" {
		fix = ": " + fix
	}
	var r io.Reader = e.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, name, usageError("cannot read %s", userText(err))
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, name, usageError("%s is a directory: give a file, or - for standard input", name)
		} else if err == nil && st.Mode().IsRegular() && st.Size() > maxInput {
			return nil, name, usageError("%s is %s, larger than the %d MiB toolwire reads%s", name, units.Bytes(int(st.Size())), maxInput>>20, fix)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, name, usageError("cannot read %s: %v", displayName(name), err)
	}
	if len(data) > maxInput {
		return nil, name, usageError("%s is larger than the %d MiB toolwire reads%s", displayName(name), maxInput>>20, fix)
	}
	return data, name, nil
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// inputError reports unusable input, naming it.
func inputError(name string, err error) error {
	return usageError("%s: %s", displayName(name), userText(err))
}

// boundMemory sets the Go runtime's soft memory limit to three times the
// size of an input of n bytes, for an input of 32 MiB or more, unless
// GOMEMLIMIT sets one. check and convert hold at most about 2.6 times the
// input (its bytes, its parse tree and its decoded messages), and --fix
// on a rejected body about 3.5 times while it writes the repaired body;
// without a limit the garbage collector lets as much again pile up on top
// (docs/benchmarks.md). Where the live data exceeds the limit, the
// command still completes, with more collections.
func boundMemory(n int) {
	if n < 32<<20 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return // a small input needs no limit; GOMEMLIMIT is the user's choice
	}
	debug.SetMemoryLimit(int64(n) * 3)
}

// writeBody writes a request body and a newline. It writes body as it is:
// fmt would copy it, and a body may be hundreds of megabytes.
func writeBody(w io.Writer, body []byte) {
	_, _ = w.Write(body)
	_, _ = io.WriteString(w, "\n")
}
