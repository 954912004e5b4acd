package rows

import (
	"testing"
	"time"

	"github.com/toolwire/toolwire/session"
)

func TestCheckConfig(t *testing.T) {
	bad := session.Retention{MaxAge: -time.Hour}
	for _, tc := range []struct {
		ret      session.Retention
		problems []string
		want     string // "" for nil
	}{
		{session.Retention{}, nil, ""},
		{session.Retention{MaxAge: time.Hour, MaxBytes: 1}, nil, ""},
		{bad, nil, "session/x: invalid config: Retention.MaxAge and Retention.MaxBytes must not be negative"},
		{session.Retention{MaxBytes: -1}, nil, "session/x: invalid config: Retention.MaxAge and Retention.MaxBytes must not be negative"},
		{session.Retention{}, []string{"BusyTimeout 1µs is below 1ms"}, "session/x: invalid config: BusyTimeout 1µs is below 1ms"},
		{bad, []string{"BusyTimeout 1µs is below 1ms"}, "session/x: invalid config: Retention.MaxAge and Retention.MaxBytes must not be negative; BusyTimeout 1µs is below 1ms"},
	} {
		err := CheckConfig("session/x", tc.ret, tc.problems...)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckConfig(%+v, %q) = %q, want %q", tc.ret, tc.problems, got, tc.want)
		}
	}
}
