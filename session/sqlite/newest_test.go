package sqlite

import (
	"testing"

	"github.com/toolwire/toolwire/session/internal/sqlstore"
)

// SchemaVersion names the newest embedded migration (checked here without
// a database; the tests against one check what New records).
func TestSchemaVersionIsNewest(t *testing.T) {
	if v, err := sqlstore.Newest(migrationFiles); err != nil || v != SchemaVersion {
		t.Fatalf("the newest embedded migration is %d (%v); SchemaVersion is %d", v, err, SchemaVersion)
	}
}
