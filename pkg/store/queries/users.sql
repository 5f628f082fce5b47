-- name: UserGuestSummariesForget
-- The sessions of other users that the user was a guest in (turns stored in
-- them before a session had one owner: session_guests) lose every summary
-- version, which may quote the user, with its search entry (the owner's);
-- their summarized state starts over, so that the summarizer writes a new
-- summary of what is left (the idle sweep asks for it); and the user's turns
-- there leave their counts (UserDeleteMessages deletes them next). Returns
-- the summary versions and search entries deleted.
WITH hosts AS (
    SELECT g.session_id, s.user_id AS owner
    FROM session_guests g
    LEFT JOIN sessions s ON s.tenant_id = $1 AND s.session_id = g.session_id
    WHERE g.tenant_id = $1 AND g.user_id = $2
), sums AS (
    DELETE FROM session_summaries ss
    USING hosts h
    WHERE ss.tenant_id = $1 AND ss.session_id = h.session_id
    RETURNING 1
), entries AS (
    DELETE FROM search_entries e
    USING hosts h
    WHERE e.tenant_id = $1 AND e.user_id = h.owner AND e.kind = 'summary' AND e.source_id = h.session_id
    RETURNING 1
), unread AS (
    UPDATE messages m
    SET summarized = false
    FROM hosts h
    WHERE m.tenant_id = $1 AND m.session_id = h.session_id AND m.user_id <> $2 AND m.summarized
    RETURNING 1
), theirs AS (
    SELECT m.session_id, count(*) AS n, count(*) FILTER (WHERE m.role = 'system') AS sys
    FROM messages m
    JOIN hosts h ON m.session_id = h.session_id
    WHERE m.tenant_id = $1 AND m.user_id = $2
    GROUP BY m.session_id
), reset AS (
    UPDATE sessions s
    SET message_count = s.message_count - coalesce(t.n, 0),
        system_count = s.system_count - coalesce(t.sys, 0),
        summarized_count = 0, summarized_at = NULL, summary_requested_count = 0,
        updated_at = now()
    FROM hosts h
    LEFT JOIN theirs t ON t.session_id = h.session_id
    WHERE s.tenant_id = $1 AND s.session_id = h.session_id AND s.user_id <> $2
    RETURNING 1
)
SELECT (SELECT count(*) FROM sums), (SELECT count(*) FROM entries),
       (SELECT count(*) FROM unread), (SELECT count(*) FROM reset);

-- name: UserDeleteMessages
-- The user's own turns, wherever they are: in their sessions (a session
-- belongs to the user of its first turn), found on the session index, and in
-- the sessions they were a guest in (session_guests). Other users' turns in
-- the user's sessions, stored before a session had one owner, are theirs and
-- stay (as their guest rows say).
DELETE FROM messages m
USING (SELECT session_id FROM sessions WHERE tenant_id = $1 AND user_id = $2
       UNION
       SELECT session_id FROM session_guests WHERE tenant_id = $1 AND user_id = $2) s
WHERE m.tenant_id = $1 AND m.session_id = s.session_id AND m.user_id = $2;

-- name: UserDeleteGuests
-- Where the user was a guest: nothing of theirs is left there. The guests of
-- the user's own sessions keep their rows (their turns stay), without the
-- forgotten owner's id.
WITH orphaned AS (
    UPDATE session_guests SET owner_id = ''
    WHERE tenant_id = $1 AND owner_id = $2 AND user_id <> $2
)
DELETE FROM session_guests WHERE tenant_id = $1 AND user_id = $2;

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
-- What ForgetUser would delete, table by table (the same rows: the user's
-- messages through their sessions and those they were a guest in, the
-- summaries of both, the owners' summary entries of the latter), for a
-- confirmation before it.
WITH own AS (
    SELECT session_id FROM sessions WHERE tenant_id = $1 AND user_id = $2
), hosts AS (
    SELECT g.session_id, s.user_id AS owner
    FROM session_guests g
    LEFT JOIN sessions s ON s.tenant_id = $1 AND s.session_id = g.session_id
    WHERE g.tenant_id = $1 AND g.user_id = $2
)
SELECT 'messages', count(*) FROM messages m
  JOIN (SELECT session_id FROM own UNION SELECT session_id FROM hosts) s ON m.session_id = s.session_id
  WHERE m.tenant_id = $1 AND m.user_id = $2
UNION ALL SELECT 'session_summaries', count(*) FROM session_summaries ss
  JOIN (SELECT session_id FROM own UNION SELECT session_id FROM hosts) s ON ss.session_id = s.session_id
  WHERE ss.tenant_id = $1
UNION ALL SELECT 'sessions', count(*) FROM own
UNION ALL SELECT 'session_guests', count(*) FROM hosts
UNION ALL SELECT 'fact_mentions', count(*) FROM fact_mentions WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'facts', count(*) FROM facts WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'shelf_items', count(*) FROM shelf_items WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'user_profiles', count(*) FROM user_profiles WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'profile_refresh_outbox', count(*) FROM profile_refresh_outbox WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'seen_items', count(*) FROM seen_items WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'seen_lists', count(*) FROM seen_lists WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'item_notifications', count(*) FROM item_notifications WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'search_entries', (SELECT count(*) FROM search_entries WHERE tenant_id = $1 AND user_id = $2)
  + (SELECT count(*) FROM search_entries e JOIN hosts h ON e.user_id = h.owner AND e.source_id = h.session_id
     WHERE e.tenant_id = $1 AND e.kind = 'summary')
UNION ALL SELECT 'search_user_stats', count(*) FROM search_user_stats WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'attribute_assertions', count(*) FROM attribute_assertions WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'attribute_revisions', count(*) FROM attribute_revisions WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'habit_marks', count(*) FROM habit_marks WHERE tenant_id = $1 AND user_id = $2
UNION ALL SELECT 'webhook_deliveries', count(*) FROM webhook_deliveries WHERE tenant_id = $1 AND user_id = $2;

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

-- name: UserDeleteAttributeRevisions
-- The revision of the user's assertions (after UserDeleteAttributes, whose
-- triggers move it).
DELETE FROM attribute_revisions WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteHabitMarks
-- Where the user's habits were last derived.
DELETE FROM habit_marks WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteWebhookDeliveries
-- The user's webhook deliveries, whose bodies hold their changes: those not
-- yet delivered are not sent.
DELETE FROM webhook_deliveries WHERE tenant_id = $1 AND user_id = $2;
