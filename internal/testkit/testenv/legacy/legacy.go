// Package legacy writes data as earlier versions of Recall wrote it, for
// tests of what a newer version does with it.
package legacy

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// Turns stores turns as Recall stored them before a session had one
// owner: each in whatever session it names, whoever's that session is, with
// the session's counts and the turn's search entry, as ingest and the
// indexer wrote them then. The sessions' guests are then recorded as the
// migration that brought owners in found them (store.ScanSessionGuests).
// For tests of data from before that rule: no front door or worker stores
// such a turn now.
func Turns(t testing.TB, db *testenv.DB, turns ...events.Turn) {
	t.Helper()
	ctx := context.Background()
	pool := db.Store.Pool()
	an := search.SharedAnalyzer()
	var entries []store.SearchEntry
	for _, tu := range turns {
		_, err := pool.Exec(ctx, `
			INSERT INTO messages (tenant_id, event_id, session_id, user_id, site_id, agent_id, role, content, occurred_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			tu.TenantID, tu.ID, tu.SessionID, tu.UserID, tu.SiteID, tu.AgentID, tu.Role, tu.Content, tu.OccurredAt)
		require.NoError(t, err)
		_, err = pool.Exec(ctx, `
			INSERT INTO sessions AS s (tenant_id, session_id, user_id, site_id, agent_id, message_count, system_count,
			                           first_message_at, last_message_at)
			VALUES ($1, $2, $3, $4, $5, 1, 0, $6, $6)
			ON CONFLICT (tenant_id, session_id) DO UPDATE
			SET message_count = s.message_count + 1,
			    first_message_at = least(s.first_message_at, EXCLUDED.first_message_at),
			    last_message_at = greatest(s.last_message_at, EXCLUDED.last_message_at)`,
			tu.TenantID, tu.SessionID, tu.UserID, tu.SiteID, tu.AgentID, tu.OccurredAt)
		require.NoError(t, err)
		if e, ok := search.TurnEntry(tu); ok {
			e.Terms = an.Terms(e.Text, nil)
			entries = append(entries, e)
		}
	}
	if len(entries) > 0 {
		_, err := db.Store.UpsertSearchEntries(ctx, entries)
		require.NoError(t, err)
	}
	_, err := db.Store.ScanSessionGuests(ctx, "")
	require.NoError(t, err)
}
