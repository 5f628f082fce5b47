package bench

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
)

// settle lets the machine go quiet before a measured phase, so a phase is not
// charged for the one before it: the writes of earlier phases are checkpointed
// (not flushed in the middle of this one), autovacuum workers still busy with
// their tables get up to half a minute to finish, and this process's garbage
// is collected.
func settle(b *testing.B) {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testenv.AdminURL())
	require.NoError(b, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CHECKPOINT")
	require.NoError(b, err)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var busy int
		require.NoError(b, conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`).Scan(&busy))
		if busy == 0 {
			break
		}
	}
	runtime.GC()
}
