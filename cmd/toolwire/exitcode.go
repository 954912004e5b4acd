package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/neterr"
	"github.com/toolwire/toolwire/llm"
)

// An exitCode is one row of the exit code table: the code a command exits
// with, and when.
type exitCode struct {
	// Code is the process's exit status.
	Code int
	// When says, for a user, what ends a command with Code.
	When string
}

// exitCodes is the exit code table, in order. One table for every
// command: a command's own help may say what each code means for it, but
// never gives a code another meaning.
func exitCodes() []exitCode {
	return []exitCode{
		{exitcode.OK, "success: the body is accepted, the model answered, every tool scored high enough"},
		{exitcode.Rejected, "the input was read and judged, and failed: a provider would reject the body, a tool scored below --min-score, the shaped output is over the budget, the run stopped without an answer (a loop guard, a provider refusing the request, a call waiting for approval, Ctrl-C), another process changed the session"},
		{exitcode.Usage, "the command line or the input cannot be used: an unknown flag or a bad value, a file that is missing, a directory or not the expected format, a --db that is not a database, a refused API key; the message says what, where and how to fix it"},
		{exitcode.Env, "something toolwire needs is unreachable or failing: the PostgreSQL server, the model provider (after its retries), an MCP server that does not start or answer, the disk"},
		{exitcode.Internal, "an internal error in toolwire: please report it"},
	}
}

// exitCodeHelp is the exit code table as help text: a heading and one
// paragraph per code, wrapped to 76 columns.
func exitCodeHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes (every command):")
	for _, c := range exitCodes() {
		fmt.Fprintf(&b, "\n  %d  %s", c.Code, wrap(c.When, 71, "     "))
	}
	return b.String()
}

// wrap breaks s at spaces into lines of at most width bytes, joined by a
// newline and indent.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := 0
	for _, w := range strings.Fields(s) {
		switch {
		case line == 0:
		case line+1+len(w) > width:
			b.WriteString("\n" + indent)
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// providerFailure is the exit of a run that stopped without an answer:
// 3, with a line saying so, when the model provider could not be reached
// or kept failing through the client's retries; 1 otherwise (the run
// already said why it stopped). baseURL is --base-url, "" for the
// provider's own host.
func providerFailure(err error, baseURL string) error {
	at := "the model provider"
	if baseURL != "" {
		at += " at " + baseURL
	}
	switch {
	case errors.Is(err, llm.Transport):
		return exitcode.Envf("cannot reach %s: %s; check --base-url and the network, then toolwire resume the session", at, neterr.Reason(err))
	case errors.Is(err, llm.Overloaded), errors.Is(err, llm.RateLimited):
		return exitcode.Envf("%s kept failing through the retries (%s); try again later with toolwire resume", at, llmKind(err))
	}
	return &exitcode.Error{Code: exitcode.Rejected}
}

// llmKind is the kind of the provider failure in err, in words.
func llmKind(err error) string {
	if errors.Is(err, llm.RateLimited) {
		return "rate limited"
	}
	return "overloaded or failing"
}
