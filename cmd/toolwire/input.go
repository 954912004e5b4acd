package main

import (
	"io"
	"os"

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
			return nil, name, usageError("cannot read input: %v", err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > maxInput {
			return nil, name, usageError("%s is %s, larger than the %d MiB toolwire reads%s", name, units.Bytes(int(fi.Size())), maxInput>>20, fix)
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
	return usageError("%s: %v", displayName(name), err)
}
