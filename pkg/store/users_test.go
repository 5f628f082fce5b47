package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/store"
)

// Every table that holds a user's rows is one ForgetUser deletes from: a new
// table with a user_id column fails here until it is added.
func TestForgetUserCoversEveryUserTable(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	rows, err := db.Store.Pool().Query(context.Background(), `
		SELECT table_name FROM information_schema.columns
		WHERE table_schema = 'public' AND column_name = 'user_id' ORDER BY 1`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	covered := store.UserTableNames()
	slices.Sort(covered)
	require.Equal(t, tables, covered)
}
