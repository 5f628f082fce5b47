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

-- name: UserCount
-- What UserDelete* would delete, table by table (the same rows: messages and
-- summaries through the user's sessions), for a confirmation before it.
SELECT 'messages', count(*) FROM messages m
  JOIN sessions s ON m.tenant_id = s.tenant_id AND m.session_id = s.session_id
  WHERE s.tenant_id = $1 AND s.user_id = $2
UNION ALL SELECT 'session_summaries', count(*) FROM session_summaries ss
  JOIN sessions s ON ss.tenant_id = s.tenant_id AND ss.session_id = s.session_id
  WHERE s.tenant_id = $1 AND s.user_id = $2
UNION ALL SELECT 'sessions', count(*) FROM sessions WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'fact_mentions', count(*) FROM fact_mentions WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'facts', count(*) FROM facts WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'shelf_items', count(*) FROM shelf_items WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'user_profiles', count(*) FROM user_profiles WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'profile_refresh_outbox', count(*) FROM profile_refresh_outbox WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'seen_items', count(*) FROM seen_items WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'seen_lists', count(*) FROM seen_lists WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'item_notifications', count(*) FROM item_notifications WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'search_entries', count(*) FROM search_entries WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'attribute_assertions', count(*) FROM attribute_assertions WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'habit_marks', count(*) FROM habit_marks WHERE tenant_id = $1 AND user_id = $2;

-- name: UserListActive
-- A tenant's users by their latest activity (their sessions' newest message,
-- event time), newest first, after the keyset cursor ($2, $3; NULL: from the
-- start), optionally only ids starting with $4. The tenant's sessions are
-- aggregated on the session index: one pass per page.
SELECT user_id, count(*), sum(message_count), min(first_message_at), max(last_message_at)
FROM sessions
WHERE tenant_id = $1 AND ($4 = '' OR starts_with(user_id, $4))
GROUP BY user_id
HAVING $2::timestamptz IS NULL OR (max(last_message_at), user_id) < ($2::timestamptz, $3::text)
ORDER BY max(last_message_at) DESC, user_id DESC
LIMIT $5;

-- name: UserSessionList
-- A user's sessions, latest activity first, after the keyset cursor ($3, $4;
-- NULL: from the start).
SELECT session_id, user_id, site_id, agent_id, message_count, system_count,
       first_message_at, last_message_at, created_at, updated_at
FROM sessions
WHERE tenant_id = $1 AND user_id = $2
  AND ($3::timestamptz IS NULL OR (last_message_at, session_id) < ($3::timestamptz, $4::text))
ORDER BY last_message_at DESC, session_id DESC
LIMIT $5;

-- name: UserDeleteAttributes
-- Every assertion about who the user is and what they asked for.
DELETE FROM attribute_assertions WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteHabitMarks
-- Where the user's habits were last derived.
DELETE FROM habit_marks WHERE tenant_id = $1 AND user_id = $2;
