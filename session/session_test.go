package session_test

import (
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
