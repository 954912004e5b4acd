package main

import (
	"io"
	"os"
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
