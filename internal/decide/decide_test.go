package decide

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/exitcode"
)

func TestFlags(t *testing.T) {
	type flags struct{ message, approve, reject, reasons, edit, args []string }
	for _, tt := range []struct {
		name string
		in   flags
		want toolwire.Decisions
		err  string
	}{
		{"nothing", flags{}, toolwire.Decisions{Calls: map[string]toolwire.Decision{}}, ""},
		{"message", flags{message: []string{"go on"}}, toolwire.Decisions{Message: "go on", Calls: map[string]toolwire.Decision{}}, ""},
		{"one of each", flags{approve: []string{"a"}, reject: []string{"r1", "r2"}, reasons: []string{"no", "not now"}, edit: []string{"e"}, args: []string{`{"x":1}`}},
			toolwire.Decisions{Calls: map[string]toolwire.Decision{
				"a":  toolwire.Approve(),
				"r1": toolwire.Reject("no"),
				"r2": toolwire.Reject("not now"),
				"e":  toolwire.Edit([]byte(`{"x":1}`)),
			}}, ""},
		{"reject without reason", flags{reject: []string{"c"}}, toolwire.Decisions{}, "give one --reason for each --reject (1 --reject, 0 --reason)"},
		{"edit without args", flags{edit: []string{"c"}, args: []string{"{}", "{}"}}, toolwire.Decisions{}, "give one --args for each --edit (1 --edit, 2 --args)"},
		{"two decisions", flags{approve: []string{"c"}, edit: []string{"c"}, args: []string{"{}"}}, toolwire.Decisions{}, "call c has two decisions; give one"},
		{"approved twice", flags{approve: []string{"c", "c"}}, toolwire.Decisions{}, "call c has two decisions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Flags(tt.in.message, tt.in.approve, tt.in.reject, tt.in.reasons, tt.in.edit, tt.in.args)
			if tt.err != "" {
				var ee *exitcode.Error
				if !errors.As(err, &ee) || ee.Code != exitcode.Usage || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v; want a usage error saying %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Flags = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
