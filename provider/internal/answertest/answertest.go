// Package answertest holds the checks every client's answer decoder
// passes, as codectest does for the request codecs: recorded answers (one
// txtar file per case under testdata/answers) decode to their golden
// result, and decoding arbitrary bytes never panics nor names a Go type in
// its errors (the fuzz target).
//
// A case's archive holds the answer as "stream" (server-sent events) or
// "json" (a whole answer), optionally the conversation it answers as
// "history" (llm.Conversation JSON, for the ids a client makes), and the
// golden result as "want", rewritten by go test -update.
package answertest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
)

// NewDecoder returns a client's decoder for an answer to history.
type NewDecoder func(history []llm.Message) client.Decoder

// A Case is one recorded answer.
type Case struct {
	Path    string
	Name    string
	Body    []byte
	Stream  bool
	History []llm.Message
}

// Cases returns the cases matching glob ("testdata/answers/chat_*.txtar").
func Cases(t testing.TB, glob string) []Case {
	t.Helper()
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases match %s", glob)
	}
	var cases []Case
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		a := golden.ParseArchive(data)
		c := Case{Path: p, Name: strings.TrimSuffix(filepath.Base(p), ".txtar")}
		if b, ok := a.Get("stream"); ok {
			c.Body, c.Stream = b, true
		} else if b, ok := a.Get("json"); ok {
			c.Body = bytes.TrimSpace(b)
		} else {
			t.Fatalf("%s has neither a stream nor a json file", p)
		}
		if h, ok := a.Get("history"); ok {
			var conv llm.Conversation
			if err := conv.UnmarshalJSON(h); err != nil {
				t.Fatalf("%s: history: %v", p, err)
			}
			c.History = conv.Messages
		}
		cases = append(cases, c)
	}
	return cases
}

// Run decodes every case matching glob and compares the result with the
// case's "want" file.
func Run(t *testing.T, glob string, newDecoder NewDecoder) {
	for _, c := range Cases(t, glob) {
		t.Run(c.Name, func(t *testing.T) {
			resp, err := client.DecodeAnswer(newDecoder(c.History), c.Body, c.Stream)
			golden.CheckFile(t, c.Path, "want", Render(resp, err))
		})
	}
}

// Render writes a decoded answer, or its error, one line per part.
func Render(resp *llm.Response, err error) []byte {
	var b strings.Builder
	if resp != nil {
		for _, p := range resp.Message.Parts {
			switch p := p.(type) {
			case llm.Text:
				fmt.Fprintf(&b, "text %q\n", p.Text)
			case llm.ToolCall:
				fmt.Fprintf(&b, "call id=%s name=%s input=%s", p.ID, p.Name, string(p.Input))
				if p.ItemID != "" {
					fmt.Fprintf(&b, " item=%s", p.ItemID)
				}
				b.WriteString("\n")
			case llm.Reasoning:
				fmt.Fprintf(&b, "reasoning provider=%s text=%q", p.Provider, p.Text)
				if p.Signature != "" {
					fmt.Fprintf(&b, " signature=%s", p.Signature)
				}
				if p.Data != nil {
					fmt.Fprintf(&b, " data=%s", string(p.Data))
				}
				b.WriteString("\n")
			default:
				fmt.Fprintf(&b, "part %#v\n", p)
			}
		}
		u := resp.Usage
		fmt.Fprintf(&b, "finish %s (%s)\n", resp.Finish.Reason, resp.Finish.Raw)
		if resp.Model != "" {
			fmt.Fprintf(&b, "model %s\n", resp.Model)
		}
		fmt.Fprintf(&b, "usage input=%d output=%d cache_read=%d cache_write=%d reasoning=%d\n",
			u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens)
	}
	if err != nil {
		var le *llm.Error
		if errors.As(err, &le) {
			fmt.Fprintf(&b, "error kind=%s: %v\n", string(le.Kind), err)
		} else {
			fmt.Fprintf(&b, "error: %v\n", err)
		}
	}
	return []byte(b.String())
}

// goType matches what a Go type name looks like in an error message;
// quoted is what the message quotes from the input, which is not checked.
var (
	goType = regexp.MustCompile(`\bGo (type|value)\b|\bstruct ?\{|\bjsontext\.|\bjson\.|\*[a-z]+\.[A-Z]|\[\][a-z]`)
	quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// Fuzz is a decoder's fuzz target: arbitrary bytes, as a stream and as
// JSON, decode without a panic into a usable message or an error that
// names no Go type; every call of a message without an incomplete-call
// error has an id and a name. Seeds are the bodies of the cases matching
// glob.
func Fuzz(f *testing.F, glob string, newDecoder NewDecoder) {
	for _, c := range Cases(f, glob) {
		f.Add(c.Body, c.Stream)
	}
	f.Fuzz(func(t *testing.T, body []byte, stream bool) {
		resp, err := client.DecodeAnswer(newDecoder(nil), body, stream)
		if err != nil {
			if goType.MatchString(quoted.ReplaceAllString(err.Error(), `""`)) {
				t.Fatalf("error names a Go type: %v", err)
			}
			var ie *llm.IncompleteError
			if !errors.As(err, &ie) && !errors.Is(err, llm.ErrEmptyMessage) {
				return
			}
		}
		if resp == nil {
			t.Fatalf("no response and error %v", err)
		}
		if err == nil {
			for _, c := range resp.Message.ToolCalls() {
				if c.ID == "" || c.Name == "" {
					t.Fatalf("call %+v lacks an id or a name, and no error says so", c)
				}
			}
		}
	})
}
