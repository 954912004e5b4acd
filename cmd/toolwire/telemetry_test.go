package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// OTEL_TRACES_EXPORTER=console prints the run's spans, as the README
// shows: the agent, each model call and each tool call, with its id.
// Without an OTEL_* variable, no span is printed.
func TestTelemetryConsole(t *testing.T) {
	agentFile := filepath.Join("..", "..", "examples", "agent", "agent.yaml")
	for _, c := range []struct {
		env   []string
		spans bool
	}{
		{[]string{"OTEL_TRACES_EXPORTER=console", "OTEL_METRICS_EXPORTER=none"}, true},
		{nil, false},
		{[]string{"OTEL_TRACES_EXPORTER=console", "OTEL_SDK_DISABLED=true"}, false},
	} {
		cmd := exec.Command(os.Args[0], "run", "--db", tempDB(t), agentFile, "北京今天适合穿什么衣服")
		cmd.Env = append(os.Environ(), childVar+"=1", "OPENAI_API_KEY=")
		for _, k := range []string{"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SDK_DISABLED"} {
			cmd.Env = append(cmd.Env, k+"=")
		}
		cmd.Env = append(cmd.Env, c.env...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s%s", c.env, err, out.String(), errOut.String())
		}
		got := out.String()
		for _, want := range []string{`"Name":"invoke_agent shop-assistant"`, `"Name":"chat `, `"Name":"execute_tool get_weather"`,
			`"Key":"gen_ai.tool.call.id"`, `"Key":"gen_ai.conversation.id"`} {
			if strings.Contains(got, want) != c.spans {
				t.Errorf("%v: stdout holds %s: %v, want %v:\n%s", c.env, want, !c.spans, c.spans, got)
			}
		}
		if !strings.Contains(got, "answer:") {
			t.Errorf("%v: no answer:\n%s", c.env, got)
		}
	}
}

// An exporter the SDK does not know is a usage error that names the
// variable.
func TestTelemetryUnknownExporter(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkinx")
	_, stderr, code := runWith(t, map[string]string{"OTEL_TRACES_EXPORTER": "zipkinx"}, "run", filepath.Join("..", "..", "examples", "agent", "agent.yaml"), "Hi")
	if code != exitcode.Usage || !strings.Contains(stderr, "OTEL_TRACES_EXPORTER") {
		t.Errorf("exit %d, stderr %q; want %d naming OTEL_TRACES_EXPORTER", code, stderr, exitcode.Usage)
	}
}
