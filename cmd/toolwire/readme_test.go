package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// shellWords splits a command line as a POSIX shell does for the README's
// commands: words apart at spaces, '...' and "..." quoting, and a # that
// starts a word starting a comment.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words
		case c == '\'' || c == '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				t.Fatalf("unclosed quote in %q", line)
			}
			w.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// The README's approval example works as written, with the bundled
// agent: the run pauses for the call the README names, sessions list and
// show it, each resume line (approve, reject, edit) goes on from a paused
// run to an answer, and rm deletes it. Only the database is moved to a
// temporary folder, and the session id is the run's own.
func TestREADMEApprovalExample(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Durable runs")
	if !ok {
		t.Fatal("README.md has no section Durable runs")
	}
	_, block, ok := strings.Cut(section, "```console\n")
	if !ok {
		t.Fatal("the Durable runs section has no console block")
	}
	block, _, _ = strings.Cut(block, "```")
	db := tempDB(t)
	var cmds [][]string
	for _, l := range strings.Split(block, "\n") {
		cmd, ok := strings.CutPrefix(l, "$ ")
		if !ok {
			continue
		}
		args := shellWords(t, cmd)
		if len(args) < 2 || args[0] != "toolwire" {
			t.Fatalf("README command %q does not run toolwire", cmd)
		}
		args = args[1:]
		if i := strings.Index(strings.Join(args, " "), "--db"); i >= 0 {
			for k := range args {
				if args[k] == "--db" {
					args[k+1] = db
				}
			}
		} else {
			args = append(args, "--db", db)
		}
		cmds = append(cmds, args)
	}
	if len(cmds) == 0 || cmds[0][0] != "run" {
		t.Fatalf("the block does not start with toolwire run: %q", cmds)
	}
	paused := func() string {
		t.Helper()
		stdout, stderr, code := runWith(t, nil, cmds[0]...)
		if code != exitcode.Rejected || !strings.Contains(stdout, "(needs approval)") || !strings.Contains(stdout, "is paused; resume it with") {
			t.Fatalf("toolwire %q: exit %d, want 1 and a run paused for approval:\n%s%s", cmds[0], code, stdout, stderr)
		}
		return runIDs.FindString(stdout)
	}
	id := paused()
	fresh := false // the paused run was resumed: the next resume needs another
	for _, args := range cmds[1:] {
		if args[0] == "resume" && fresh {
			id = paused()
		}
		for k := range args {
			if args[k] == readmeRunID || args[k] == "ID" {
				args[k] = id
			}
		}
		stdout, stderr, code := runWith(t, nil, args...)
		if code != 0 {
			t.Errorf("toolwire %q: exit %d:\n%s%s", args, code, stdout, stderr)
			continue
		}
		if args[0] == "resume" {
			fresh = true
			if !strings.Contains(stdout, "answer:") {
				t.Errorf("toolwire %q does not end with an answer:\n%s", args, stdout)
			}
		}
	}
}
