// Package viewer is toolwire's web trace viewer: a few plain HTML, CSS
// and JavaScript files (ES modules, no build step) embedded in the
// binary, which the server serves at / beside the API under /v1 when
// they are the UI of its [github.com/toolwire/toolwire/server.Config].
//
//	srv, err := server.New(&server.Config{Store: store, Agents: "agents", UI: viewer.FS()})
//
// The viewer lists sessions, starts one of an agent with a message, and
// shows a session's turns as a timeline that a run's event stream keeps
// up to date: the model's message, each call with its arguments, each
// tool message as it was sent, durations and the context budget each
// model call used. It takes the decisions on calls that wait for
// approval, pages an offloaded result and shows the request body a turn
// sent. It loads nothing from another origin and inserts every text it
// shows as text, never as markup, so it runs under the server's
// same-origin Content-Security-Policy. docs/viewer.md describes it.
package viewer

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// FS returns the viewer's files, index.html at its root.
func FS() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // unreachable: "static" is a valid path embedded above
	}
	return sub
}
