-- name: HabitUserPage
-- A page of the tenant's users with sessions, by user id after $2, at most
-- $3 of them: the newest message of their sessions (event time), how many
-- assertions of their time zone key ($4) they have, their mark's generation
-- (NULL: none) and whether their habits are due: no mark, a newer message
-- than the mark's, or another count of time zone assertions. The sessions
-- are read on the session index, a page of users at a time.
WITH page AS (
    SELECT user_id, max(last_message_at) AS through
    FROM sessions
    WHERE tenant_id = $1 AND user_id > $2
    GROUP BY user_id
    ORDER BY user_id
    LIMIT $3
)
SELECT p.user_id, p.through, tz.n, h.generation,
       h.user_id IS NULL OR h.through_at < p.through OR h.timezone_assertions <> tz.n AS due
FROM page p
LEFT JOIN habit_marks h ON h.tenant_id = $1 AND h.user_id = p.user_id
CROSS JOIN LATERAL (SELECT count(*) AS n FROM attribute_assertions a
                    WHERE a.tenant_id = $1 AND a.user_id = p.user_id AND a.key = $4) tz
ORDER BY p.user_id;

-- name: HabitMessagesByUsers
-- The users' ($2) own messages (role user) since $3 (per user), newest first,
-- at most $4 per user: their length in characters and the first $5
-- characters, what habits are derived from. Only the sessions active since
-- then are read.
SELECT u.user_id, m.event_id, m.occurred_at, m.site_id, m.agent_id, char_length(m.content), left(m.content, $5)
FROM unnest($2::text[], $3::timestamptz[]) AS u(user_id, since)
CROSS JOIN LATERAL (
    SELECT m.event_id, m.occurred_at, m.site_id, m.agent_id, m.content
    FROM sessions s
    JOIN messages m ON m.tenant_id = s.tenant_id AND m.session_id = s.session_id
    WHERE s.tenant_id = $1 AND s.user_id = u.user_id AND s.last_message_at >= u.since
      AND m.user_id = u.user_id AND m.role = 'user' AND m.occurred_at >= u.since
    ORDER BY m.occurred_at DESC, m.event_id DESC
    LIMIT $4
) m
ORDER BY u.user_id, m.occurred_at DESC, m.event_id DESC;

-- name: HabitMarkSaveBatch
-- Marks the users' habits derived as of the newest message of their
-- sessions ($3) and their count of time zone assertions ($4), unless their
-- generation is no longer the one read ($5): a session deleted since then
-- makes the derivation stale. It returns the users marked, whose derived
-- assertions may be stored in the same transaction. A user's row is locked
-- until then, so a session delete that bumps it waits, and then deletes
-- what was stored.
INSERT INTO habit_marks AS h (tenant_id, user_id, through_at, timezone_assertions, generation)
SELECT $1, u.user_id, u.through_at, u.n, u.generation
FROM unnest($2::text[], $3::timestamptz[], $4::bigint[], $5::bigint[]) AS u(user_id, through_at, n, generation)
ORDER BY u.user_id
ON CONFLICT (tenant_id, user_id) DO UPDATE
SET through_at = EXCLUDED.through_at, timezone_assertions = EXCLUDED.timezone_assertions, updated_at = now()
WHERE h.generation = EXCLUDED.generation
RETURNING user_id;

-- name: HabitMarkReset
-- A session of the user ($2) is deleted: their habits are due again, and a
-- derivation that read them before (at an older generation) stores nothing.
-- Runs before SessionHabitsForget, so a derivation storing now finishes
-- first and what it stored is deleted with the rest.
INSERT INTO habit_marks AS h (tenant_id, user_id, through_at, generation)
VALUES ($1, $2, '-infinity', 1)
ON CONFLICT (tenant_id, user_id) DO UPDATE
SET through_at = '-infinity', timezone_assertions = 0, generation = h.generation + 1, updated_at = now();

-- name: SessionHabitsForget
-- What was derived from the user's ($2) usage counted the deleted session's
-- messages: it goes, and is derived again from what is left (the decayer's
-- habits step; the mark was reset).
DELETE FROM attribute_assertions
WHERE tenant_id = $1 AND user_id = $2 AND source = 'derived';

-- name: AttributeAssertionListByUsers
-- Every assertion of each of the users, oldest first; resolution orders
-- them itself.
SELECT user_id, event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at
FROM attribute_assertions
WHERE tenant_id = $1 AND user_id = ANY ($2::text[])
ORDER BY user_id, occurred_at, event_id, key, item, op;
