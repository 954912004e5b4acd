package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/examples/agent"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/temporal"
)

// keyVars are the environment variables that hold each provider's key,
// as toolwire run reads them.
var keyVars = map[string][]string{
	"openai":           {"OPENAI_API_KEY"},
	"openai-responses": {"OPENAI_API_KEY"},
	"anthropic":        {"ANTHROPIC_API_KEY"},
	"gemini":           {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
}

// agentName is the name a session names the agent of an agent file by:
// its name, or the file's name without its extension.
func agentName(def *agentfile.Definition) string {
	if def.Name != "" {
		return def.Name
	}
	return strings.TrimSuffix(filepath.Base(def.File), filepath.Ext(def.File))
}

// loadAgent reads an agent file.
func loadAgent(path string) (*agentfile.Definition, error) {
	def, err := agentfile.Load(path)
	if err != nil {
		return nil, exitcode.Usagef("%s", err)
	}
	return def, nil
}

// openAgent opens the agent of an agent file as toolwire run opens it:
// the example tools, its MCP servers started, the API key from the
// environment, its recorded run when its provider has no key. close
// stops its MCP servers.
// baseURL, when not "", points an OpenAI client at a compatible server.
func openAgent(ctx context.Context, e *env, path, baseURL string) (temporal.Agent, func(), error) {
	def, err := loadAgent(path)
	if err != nil {
		return temporal.Agent{}, nil, err
	}
	opts := &agentfile.Options{
		Tools:        agent.NewSet(&agent.Options{Ledger: e.getenv("TOOLWIRE_LEDGER")}).Registry(),
		AllowOutside: true,
		Replay:       true,
		LookupEnv: func(name string) (string, bool) {
			v := e.getenv(name)
			return v, v != ""
		},
	}
	prov, _, _ := strings.Cut(def.Model, ":")
	key := ""
	for _, v := range keyVars[prov] {
		if key = e.getenv(v); key != "" {
			break
		}
	}
	opts.Provider = &provider.Options{APIKey: key, BaseURL: baseURL}
	if key == "" && baseURL == "" && len(keyVars[prov]) > 0 && def.Replay != "" {
		opts.Model = "replay:" + def.Replay
		fmt.Fprintf(e.stderr, "toolwire: %s is not set, so %s replays its recorded model turns (%s)\n", keyVars[prov][0], path, def.Replay)
	}
	model, cfg, tools, err := def.Open(ctx, opts)
	if err != nil {
		return temporal.Agent{}, nil, exitcode.Usagef("%s", err)
	}
	return temporal.Agent{Name: agentName(def), Model: model, Config: cfg}, func() { _ = tools.Close() }, nil
}
