package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/toolwire/toolwire/internal/exitcode"
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
// more than maxInput bytes (e.maxInput when set): a regular file by its
// size, before reading it; standard input as it streams, as soon as it
// crosses the limit (it reads limit+1 bytes, no more). fix, when set,
// tells the user what to do about an input too large.
func readLimited(e *env, name, fix string) ([]byte, string, error) {
	if fix != "" {
		fix = ": " + fix
	}
	limit := maxInput
	if e.maxInput > 0 {
		limit = e.maxInput
	}
	var r io.Reader = e.stdin
	size := -1
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, name, exitcode.Usagef("cannot read %s", userText(err))
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, name, exitcode.Usagef("%s is a directory: give a file, or - for standard input", name)
		} else if err == nil && st.Mode().IsRegular() && st.Size() > int64(limit) {
			return nil, name, exitcode.Usagef("%s is %s, larger than the %s toolwire reads%s", name, units.Bytes(int(st.Size())), mib(limit), fix)
		} else if err == nil && st.Mode().IsRegular() {
			size = int(st.Size())
		}
		r = f
	}
	data, err := readAll(io.LimitReader(r, int64(limit)+1), size, limit)
	if err != nil && !errors.Is(err, errTooLarge) {
		return nil, name, exitcode.Usagef("cannot read %s: %s", displayName(name), userText(err))
	}
	if err != nil || len(data) > limit {
		return nil, name, exitcode.Usagef("%s is larger than the %s toolwire reads%s", displayName(name), mib(limit), fix)
	}
	return data, name, nil
}

// readAll reads r to its end. size, when not -1, is what r should hold
// (a regular file's size): the buffer is made that large at once. Else r
// is read in chunks, copied once into a buffer of the exact size at the
// end: io.ReadAll grows one buffer by copying, which leaves up to twice
// the input behind as garbage.
func readAll(r io.Reader, size, limit int) ([]byte, error) {
	if size < 0 {
		var chunks [][]byte
		total, n := 0, 64<<10
		for {
			c := make([]byte, n)
			k, err := io.ReadFull(r, c)
			chunks = append(chunks, c[:k])
			total += k
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				return nil, err
			}
			n = min(n*2, 16<<20)
		}
		if total > limit {
			return nil, errTooLarge // not copied: refused as read
		}
		buf := make([]byte, 0, total)
		for i, c := range chunks {
			buf = append(buf, c...)
			chunks[i] = nil // collectable as soon as copied
		}
		return buf, nil
	}
	buf := make([]byte, 0, size+1) // +1: to see the end without growing
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) { // the file grew while read
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// errTooLarge is readAll's error for an input over its limit.
var errTooLarge = errors.New("the input is over the limit")

// mib writes a limit of n bytes in MiB.
func mib(n int) string { return fmt.Sprintf("%d MiB", n>>20) }

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// inputError reports unusable input, naming it.
func inputError(name string, err error) error {
	return exitcode.Usagef("%s: %s", displayName(name), userText(err))
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
	// What reading left behind (standard input is read in chunks, then
	// copied whole) goes now, before the command's own work piles on it.
	runtime.GC()
}

// writeBody writes a request body and a newline. It writes body as it is:
// fmt would copy it, and a body may be hundreds of megabytes.
func writeBody(w io.Writer, body []byte) {
	_, _ = w.Write(body)
	_, _ = io.WriteString(w, "\n")
}
