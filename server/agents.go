package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
)

// agentExts are the file name endings of agent files, in the order a
// name is looked up.
var agentExts = []string{".yaml", ".yml", ".json"}

// validName reports whether name can name an agent: 1 to 64 letters,
// digits, '_', '-' and '.', not starting with a dot: never a path.
func validName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '.' || strings.Contains(name, "..") {
		return false
	}
	for _, c := range []byte(name) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// agents opens the agents of the configured directory by name, and keeps
// each once built: an agent is safe for concurrent runs.
type agents struct {
	dir   string
	build func(*agentfile.Definition) (llm.Model, *toolwire.Config, error)
	hook  toolwire.Hook
	store session.Store

	mu    sync.Mutex
	built map[string]*agentEntry
}

// An agentEntry is an agent built from its file.
type agentEntry struct {
	name   string
	def    *agentfile.Definition
	agent  *toolwire.Agent
	window int
}

// file returns the path of the agent file of name.
func (as *agents) file(name string) (string, error) {
	if !validName(name) {
		return "", errorf(http.StatusBadRequest, codeBadRequest, "%q is not an agent name: an agent is named by its file in the server's agents directory, without the extension (letters, digits, _, - and ., no slashes)", cut(name, 80))
	}
	for _, ext := range agentExts {
		p := filepath.Join(as.dir, name+ext)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", errorf(http.StatusNotFound, codeNotFound, "no agent is named %q; GET /v1/agents lists them", name)
}

// open returns the agent of name, built on first use.
func (as *agents) open(name string) (*agentEntry, error) {
	as.mu.Lock()
	defer as.mu.Unlock()
	if e, ok := as.built[name]; ok {
		return e, nil
	}
	path, err := as.file(name)
	if err != nil {
		return nil, err
	}
	def, err := agentfile.Load(path)
	if err != nil {
		return nil, errorf(http.StatusInternalServerError, codeAgentError, "the agent %s cannot be used: %v", name, err)
	}
	build := as.build
	if build == nil {
		build = func(d *agentfile.Definition) (llm.Model, *toolwire.Config, error) { return d.Build(nil) }
	}
	model, cfg, err := build(def)
	if err != nil {
		return nil, errorf(http.StatusInternalServerError, codeAgentError, "the agent %s cannot be used: %v", name, err)
	}
	// Sessions record the agent file's path, as toolwire run records it:
	// this server finds the agent by it, and toolwire resume too.
	if cfg.Name, err = filepath.Abs(path); err != nil {
		return nil, errorf(http.StatusInternalServerError, codeAgentError, "the agent %s cannot be used: %v", name, err)
	}
	cfg.Sessions = as.store
	cfg.Hooks = append(slices.Clip(cfg.Hooks), as.hook)
	a, err := toolwire.New(model, cfg)
	if err != nil {
		return nil, errorf(http.StatusInternalServerError, codeAgentError, "the agent %s cannot be used: %s", name, strings.TrimPrefix(err.Error(), "toolwire: "))
	}
	e := &agentEntry{name: name, def: def, agent: a, window: cfg.WithDefaults().Limits.Window}
	if as.built == nil {
		as.built = map[string]*agentEntry{}
	}
	as.built[name] = e
	return e, nil
}

// shown is how a session's agent is shown to clients: its name when
// it is a file of the agents directory, else the file's name, never the
// server's paths.
func (as *agents) shown(agent string) string {
	if n, ok := as.inDir(agent); ok {
		return n
	}
	return filepath.Base(agent)
}

// inDir returns the name of the agent a session records: the path of a
// file in the agents directory (what this server and toolwire run
// record), or a bare name.
func (as *agents) inDir(a string) (string, bool) {
	if validName(a) {
		return a, true
	}
	if !filepath.IsAbs(a) {
		return "", false
	}
	// The path of an agent file: of this directory, or of another
	// (another server's, a moved one) whose name this directory has.
	base := filepath.Base(a)
	for _, ext := range agentExts {
		if n, ok := strings.CutSuffix(base, ext); ok && validName(n) {
			if _, err := as.file(n); err == nil {
				return n, true
			}
		}
	}
	return "", false
}

// nameOf returns the agent name a session records, or why this server
// cannot run it.
func (as *agents) nameOf(s session.Session) (string, error) {
	a := s.Agent
	if n, ok := as.inDir(a); ok {
		return n, nil
	}
	if a == "" {
		return "", errorf(http.StatusConflict, codeAgent, "session %s names no agent, so this server cannot continue it", s.ID)
	}
	return "", errorf(http.StatusConflict, codeAgent, "session %s was run with the agent file %s, which is not in this server's agents directory; continue it with toolwire resume", s.ID, filepath.Base(a))
}

// forSession opens the agent of a stored session.
func (as *agents) forSession(s session.Session) (*agentEntry, error) {
	name, err := as.nameOf(s)
	if err != nil {
		return nil, err
	}
	e, err := as.open(name)
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil, errorf(http.StatusConflict, codeAgent, "session %s was run with the agent %s, which is not in this server's agents directory any more", s.ID, name)
	}
	return e, err
}

// windowOf returns the context window of the agent a session names,
// when it was built; 0 when not.
func (as *agents) windowOf(agent string) int {
	name, _ := as.inDir(agent)
	as.mu.Lock()
	defer as.mu.Unlock()
	if e, ok := as.built[name]; ok {
		return e.window
	}
	return 0
}

// agentJSON describes an agent for GET /v1/agents.
type agentJSON struct {
	Name        string   `json:"name"`
	Title       string   `json:"title,omitzero"` // the file's name: field
	Description string   `json:"description,omitzero"`
	Model       string   `json:"model,omitzero"`
	Tools       []string `json:"tools"`
	Approval    []string `json:"approval"` // the tools that wait for a person's approval
	Error       string   `json:"error,omitzero"`
}

// list describes every agent of the directory, by name.
func (as *agents) list() ([]agentJSON, error) {
	entries, err := os.ReadDir(as.dir)
	if err != nil {
		return nil, fmt.Errorf("server: list agents: %w", err)
	}
	seen := map[string]bool{}
	out := []agentJSON{}
	for _, ent := range entries {
		if !ent.Type().IsRegular() && ent.Type()&fs.ModeSymlink == 0 {
			continue
		}
		ext := filepath.Ext(ent.Name())
		name := strings.TrimSuffix(ent.Name(), ext)
		if !slices.Contains(agentExts, ext) || !validName(name) || seen[name] {
			continue
		}
		path, err := as.file(name)
		if err != nil || filepath.Base(path) != ent.Name() {
			continue // a name with two files: the first extension wins
		}
		seen[name] = true
		aj := agentJSON{Name: name, Tools: []string{}, Approval: []string{}}
		def, err := agentfile.Load(path)
		if err != nil {
			aj.Error = err.Error()
			out = append(out, aj)
			continue
		}
		aj.Title, aj.Description, aj.Model = def.Name, def.Description, def.Model
		for _, t := range def.Tools {
			n := t.Name
			if n == "" {
				n = filepath.Base(t.Spec)
			}
			aj.Tools = append(aj.Tools, n)
			if t.Approval {
				aj.Approval = append(aj.Approval, n)
			}
		}
		out = append(out, aj)
	}
	return out, nil
}

// cut returns s cut to n bytes, with an ellipsis.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
