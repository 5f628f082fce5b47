-- name: UserDeleteMessages
-- A user's messages are found through their sessions (a session belongs to the
-- user of its first turn), on the session index.
DELETE FROM messages m
USING sessions s
WHERE s.tenant_id = $1 AND s.user_id = $2
  AND m.tenant_id = $1 AND m.session_id = s.session_id;

-- name: UserDeleteSessions
DELETE FROM sessions WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteFactMentions
DELETE FROM fact_mentions WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteFacts
DELETE FROM facts WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteShelf
DELETE FROM shelf_items WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteProfile
DELETE FROM user_profiles WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteRefreshOutbox
DELETE FROM profile_refresh_outbox WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteSummaries
-- Through the user's sessions, on the summaries' primary key (as messages).
DELETE FROM session_summaries ss
USING sessions s
WHERE s.tenant_id = $1 AND s.user_id = $2
  AND ss.tenant_id = $1 AND ss.session_id = s.session_id;

-- name: UserDeleteSeenItems
DELETE FROM seen_items WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteSeenLists
-- The idempotency keys of the lists shown to the user (pruned by age, so small).
DELETE FROM seen_lists WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteNotifications
DELETE FROM item_notifications WHERE tenant_id = $1 AND user_id = $2;
