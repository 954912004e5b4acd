package main

import (
	"io"
	"math"
	"os"
	"runtime/debug"
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
	var r io.Reader = e.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, name, usageError("cannot read input: %v", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, name, usageError("%s is a directory: give a file, or - for standard input", name)
		}
		r = f
	}
	data, err = io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, name, usageError("cannot read %s: %v", displayName(name), err)
	}
	if len(data) > maxInput {
		return nil, name, usageError("%s is larger than %d MiB", displayName(name), maxInput>>20)
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
	return usageError("%s: %v", displayName(name), err)
}

// boundMemory sets the Go runtime's soft memory limit to three times the
// size of an input of n bytes, plus 64 MiB for the runtime itself, for an
// input of 32 MiB or more, unless GOMEMLIMIT sets one (a smaller input
// needs no limit): check and convert hold about twice the input (its
// bytes and its decoded messages), and --fix a little more while it writes
// the repaired body, so that what the garbage collector lets pile up on
// top is what the limit bounds (docs/benchmarks.md). A body whose live
// data exceeds the limit still goes through, with more collections.
func boundMemory(n int) {
	if n < 32<<20 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return // GOMEMLIMIT is set: the user's choice
	}
	debug.SetMemoryLimit(int64(n)*3 + 64<<20)
}
