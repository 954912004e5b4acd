package sessiontest

import (
	"fmt"
	"strings"
	"testing"
)

// Dump describes a database's tables and how many rows each holds, as
// "name:count " for each, for the tests of a database store that check
// that something left the database as it was. tables is the query that
// lists the table names; column runs a query and returns its one column
// as text.
func Dump(t testing.TB, tables string, column func(query string) ([]string, error)) string {
	t.Helper()
	names, err := column(tables)
	if err != nil {
		t.Fatalf("%s: %v", tables, err)
	}
	var b strings.Builder
	for _, name := range names {
		query := "SELECT CAST(COUNT(*) AS TEXT) FROM " + name
		n, err := column(query)
		if err != nil || len(n) != 1 {
			t.Fatalf("%s = %q, %v; want one row", query, n, err)
		}
		fmt.Fprintf(&b, "%s:%s ", name, n[0])
	}
	return b.String()
}
