package testenv

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// Dump is the database as pg_dump writes it (schema and data, plain SQL):
// what an operator's backup of it would hold.
func (db *DB) Dump(t testing.TB) []byte {
	t.Helper()
	out, err := exec.Command("pg_dump", "--no-owner", "--dbname", db.URL).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("pg_dump: %v: %s", err, ee.Stderr)
	}
	require.NoError(t, err)
	return out
}
