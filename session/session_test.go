package session_test

import (
	"errors"
	"testing"
	"time"

	"github.com/toolwire/toolwire/session"
)

func TestRetentionValid(t *testing.T) {
	tests := []struct {
		r    session.Retention
		want bool
	}{
		{session.Retention{}, true},
		{session.Retention{MaxAge: time.Hour, MaxBytes: 1 << 20}, true},
		{session.Retention{MaxAge: -time.Hour}, false},
		{session.Retention{MaxBytes: -1}, false},
	}
	for _, tt := range tests {
		if got := tt.r.Valid(); got != tt.want {
			t.Errorf("%+v.Valid() = %v, want %v", tt.r, got, tt.want)
		}
	}
}

func TestCorruptError(t *testing.T) {
	tests := []struct {
		e    session.CorruptError
		want string
	}{
		{session.CorruptError{Session: "s1", Item: "message 3", Err: errors.New("it is missing")}, "session s1: message 3 is corrupt: it is missing"},
		{session.CorruptError{Item: "id", Err: errors.New("toolwire_sessions.id = NULL: want text")}, "a session's id is corrupt: toolwire_sessions.id = NULL: want text"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%+v.Error() = %q, want %q", tt.e, got, tt.want)
		}
	}
}
