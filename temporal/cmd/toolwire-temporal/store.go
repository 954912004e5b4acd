package main

import (
	"context"
	"errors"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/dsn"
)

// openStore opens the session store of a worker's --db, as toolwire run
// opens its own (session/dsn): a SQLite file, a postgres:// URL or a
// key/value string. The workers of a task queue keep their sessions'
// offloaded results there, so that read_result finds them on any
// worker.
func openStore(ctx context.Context, name string) (session.Store, func(), error) {
	s, closeStore, err := dsn.Open(ctx, name)
	if err != nil {
		var de *dsn.Error
		if !errors.As(err, &de) {
			de = dsn.Explain(name, err)
		}
		switch {
		case de != nil && de.Kind == dsn.Unavailable:
			return nil, nil, exitcode.Envf("--db: %s", de.Msg)
		case de != nil:
			return nil, nil, exitcode.Usagef("--db: %s", de.Msg)
		}
		// The store's own error: a damaged or foreign database.
		return nil, nil, exitcode.Usagef("--db %s: %s", dsn.Redact(name, name), dsn.Plain(name, err))
	}
	return s, closeStore, nil
}
