package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// userTables are every table that holds a user's data, each with the statement
// that deletes the user's rows, in the order they run (messages are found
// through the sessions, so they go first). A test checks that every table with
// a user_id column is here.
var userTables = []struct{ table, query string }{
	{"messages", "UserDeleteMessages"},
	{"session_summaries", "UserDeleteSummaries"},
	{"sessions", "UserDeleteSessions"},
	{"fact_mentions", "UserDeleteFactMentions"},
	{"facts", "UserDeleteFacts"},
	{"shelf_items", "UserDeleteShelf"},
	{"user_profiles", "UserDeleteProfile"},
	{"profile_refresh_outbox", "UserDeleteRefreshOutbox"},
	{"seen_items", "UserDeleteSeenItems"},
	{"seen_lists", "UserDeleteSeenLists"},
	{"item_notifications", "UserDeleteNotifications"},
	{"search_entries", "UserDeleteSearchEntries"},
}

// ForgetUser deletes everything stored about a user in one transaction and
// returns the rows deleted per table. Forgetting a user twice, or one never
// seen, deletes nothing and is no error.
func (t *Tenant) ForgetUser(ctx context.Context, userID string) (map[string]int64, error) {
	counts := make(map[string]int64, len(userTables))
	err := pgx.BeginFunc(ctx, t.s.pool, func(tx pgx.Tx) error {
		for _, ut := range userTables {
			tag, err := tx.Exec(ctx, q(ut.query), t.id, userID)
			if err != nil {
				return fmt.Errorf("%s: %w", ut.table, err)
			}
			counts[ut.table] = tag.RowsAffected()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("forget user: %w", err)
	}
	return counts, nil
}
