// Package decide makes the decisions of the resume command's flags, for
// toolwire and its Temporal plugin, which take the same flags.
package decide

import (
	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/exitcode"
)

// Flags makes the decisions of --approve CALL, --reject CALL with its
// --reason, --edit CALL with its --args (each --reason and --args in the
// order of its --reject or --edit), and the new message, if any. Its
// errors exit [exitcode.Usage] and say which flags to fix.
func Flags(message, approve, reject, reasons, edit, args []string) (toolwire.Decisions, error) {
	d := toolwire.Decisions{Calls: map[string]toolwire.Decision{}}
	if len(message) > 0 {
		d.Message = message[0]
	}
	add := func(id string, dc toolwire.Decision) error {
		if _, dup := d.Calls[id]; dup {
			return exitcode.Usagef("call %s has two decisions; give one", id)
		}
		d.Calls[id] = dc
		return nil
	}
	for _, id := range approve {
		if err := add(id, toolwire.Approve()); err != nil {
			return d, err
		}
	}
	if len(reasons) != len(reject) {
		return d, exitcode.Usagef("give one --reason for each --reject (%d --reject, %d --reason)", len(reject), len(reasons))
	}
	for i, id := range reject {
		if err := add(id, toolwire.Reject(reasons[i])); err != nil {
			return d, err
		}
	}
	if len(args) != len(edit) {
		return d, exitcode.Usagef("give one --args for each --edit (%d --edit, %d --args)", len(edit), len(args))
	}
	for i, id := range edit {
		if err := add(id, toolwire.Edit([]byte(args[i]))); err != nil {
			return d, err
		}
	}
	return d, nil
}
