package rows

import (
	"errors"
	"strings"

	"github.com/toolwire/toolwire/session"
)

// CheckConfig reports the problems of a store's configuration as one
// error that names the store (pkg, such as "session/sqlite"), or nil if
// there are none. Every store has a retention, checked first; a store
// with settings of its own passes their problems, which follow in order.
func CheckConfig(pkg string, ret session.Retention, problems ...string) error {
	if !ret.Valid() {
		problems = append([]string{"Retention.MaxAge and Retention.MaxBytes must not be negative"}, problems...)
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New(pkg + ": invalid config: " + strings.Join(problems, "; "))
}
