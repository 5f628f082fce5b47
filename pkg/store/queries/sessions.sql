-- name: SessionGet
SELECT session_id, user_id, site_id, agent_id, message_count, system_count,
       first_message_at, last_message_at, created_at, updated_at
FROM sessions
WHERE tenant_id = $1 AND session_id = $2;

-- name: SessionDelete
DELETE FROM sessions WHERE tenant_id = $1 AND session_id = $2
RETURNING user_id;

-- name: SessionGuestsDelete
-- The users who were guests in a deleted session: their turns there went
-- with it.
DELETE FROM session_guests WHERE tenant_id = $1 AND session_id = $2;


-- name: SessionSeenForget
-- The session's turns that presented a list leave the seen registry: their
-- seen_lists rows go, and each item they showed counts one showing fewer
-- (a turn counts each ref once, as the seen worker counted it). Runs before
-- the session's messages are deleted, which it reads the lists from.
WITH lists AS (
    DELETE FROM seen_lists l
    USING messages m
    WHERE m.tenant_id = $1 AND m.session_id = $2
      AND l.tenant_id = $1 AND l.event_id = m.event_id
    RETURNING m.user_id, m.event_id, m.items
), shown AS (
    SELECT user_id, ref, count(*) AS n
    FROM (SELECT DISTINCT l.user_id, l.event_id, it->>'ref' AS ref
          FROM lists l
          CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(l.items) = 'array' THEN l.items ELSE '[]' END) it
          WHERE it->>'ref' IS NOT NULL) x
    GROUP BY user_id, ref
), lowered AS (
    UPDATE seen_items s
    SET times_shown = s.times_shown - shown.n, updated_at = now()
    FROM shown
    WHERE s.tenant_id = $1 AND s.user_id = shown.user_id AND s.ref = shown.ref
    RETURNING 1
)
SELECT (SELECT count(*) FROM lists), (SELECT count(*) FROM lowered);

-- name: SessionSeenDropUnshown
-- The seen items of a user that no stored showing is left for.
DELETE FROM seen_items WHERE tenant_id = $1 AND user_id = $2 AND times_shown <= 0;

-- name: SessionFactsForget
-- The session's fact mentions go. A fact with no mention left goes with its
-- search entry; one still mentioned in other sessions is counted again from
-- its mentions left: mention count, first and last mention, its expiry moved
-- back by as much as its last mention moved (the expiry is a fixed time
-- after the last mention), and the session it was last mentioned in.
WITH gone AS (
    DELETE FROM fact_mentions
    WHERE tenant_id = $1 AND session_id = $2
    RETURNING user_id, type, value
), affected AS (
    SELECT DISTINCT user_id, type, value FROM gone
), remaining AS (
    SELECT m.user_id, m.type, m.value, count(*) AS n, min(m.occurred_at) AS first_at, max(m.occurred_at) AS last_at,
           (array_agg(m.session_id ORDER BY m.occurred_at DESC, m.event_id DESC))[1] AS session_id
    FROM fact_mentions m
    JOIN affected a USING (user_id, type, value)
    WHERE m.tenant_id = $1 AND m.session_id <> $2
    GROUP BY m.user_id, m.type, m.value
), recounted AS (
    UPDATE facts f
    SET mention_count = r.n, first_seen_at = r.first_at,
        expires_at = f.expires_at - greatest(f.last_mentioned_at - r.last_at, interval '0'),
        last_mentioned_at = r.last_at, source_session_id = r.session_id, updated_at = now()
    FROM remaining r
    WHERE f.tenant_id = $1 AND f.user_id = r.user_id AND f.type = r.type AND f.value = r.value
    RETURNING 1
), dropped AS (
    DELETE FROM facts f
    USING affected a
    WHERE f.tenant_id = $1 AND f.user_id = a.user_id AND f.type = a.type AND f.value = a.value
      AND NOT EXISTS (SELECT 1 FROM remaining r WHERE (r.user_id, r.type, r.value) = (a.user_id, a.type, a.value))
    RETURNING f.user_id, f.type, f.value
), entries AS (
    DELETE FROM search_entries e
    USING dropped d
    WHERE e.tenant_id = $1 AND e.user_id = d.user_id AND e.kind = 'fact' AND e.source_id = d.type || E'\x1f' || d.value
    RETURNING 1
)
SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM dropped), (SELECT count(*) FROM recounted), (SELECT count(*) FROM entries);

-- name: SessionOwnerList
-- The owners of those of the given sessions that exist ($1 tenants, $2
-- sessions, pairwise): one probe of the primary key each.
SELECT s.tenant_id, s.session_id, s.user_id
FROM unnest($1::text[], $2::text[]) AS k(tenant_id, session_id)
JOIN sessions s ON s.tenant_id = k.tenant_id AND s.session_id = k.session_id;

-- name: SessionClaimBatch
-- Claims sessions that have no row yet for the user of their first turn:
-- the row is made with no messages (ingest counts them in), at the turn's
-- event time. A session made meanwhile by another claim or by ingest is
-- left as it is (the caller reads its owner again). Key order, as ingest
-- upserts them, so concurrent writers lock them in the same order.
INSERT INTO sessions (tenant_id, session_id, user_id, site_id, agent_id, first_message_at, last_message_at)
SELECT tenant_id, session_id, user_id, site_id, agent_id, at, at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
  AS c(tenant_id, session_id, user_id, site_id, agent_id, at)
ORDER BY tenant_id, session_id
ON CONFLICT (tenant_id, session_id) DO NOTHING
RETURNING tenant_id, session_id, user_id;

-- name: SessionGuestList
-- The users whose turns sit in another user's session (session_guests), of
-- one tenant or ($1 = '') of all, by tenant and session.
SELECT tenant_id, session_id, owner_id, user_id, messages, first_at, last_at
FROM session_guests
WHERE $1 = '' OR tenant_id = $1
ORDER BY tenant_id, session_id, user_id;

-- name: SessionGuestScan
-- Reads every message again for turns of users other than their session's
-- owner (or whose session row is gone), of one tenant or ($1 = '') of all,
-- and records them in session_guests, counted as they are now: the
-- migration's pass, for turns that workers of an earlier version stored
-- after it. Returns how many guest rows it wrote.
WITH found AS (
    SELECT m.tenant_id, m.user_id, m.session_id, coalesce(min(s.user_id), '') AS owner_id,
           count(*) AS messages, min(m.occurred_at) AS first_at, max(m.occurred_at) AS last_at
    FROM messages m
    LEFT JOIN sessions s ON s.tenant_id = m.tenant_id AND s.session_id = m.session_id
    WHERE ($1 = '' OR m.tenant_id = $1) AND (s.user_id IS NULL OR m.user_id <> s.user_id)
    GROUP BY m.tenant_id, m.user_id, m.session_id
), written AS (
    INSERT INTO session_guests AS g (tenant_id, user_id, session_id, owner_id, messages, first_at, last_at)
    SELECT * FROM found
    ON CONFLICT (tenant_id, user_id, session_id) DO UPDATE
    SET owner_id = EXCLUDED.owner_id, messages = EXCLUDED.messages,
        first_at = EXCLUDED.first_at, last_at = EXCLUDED.last_at, found_at = now()
    RETURNING 1
)
SELECT count(*) FROM written;

-- name: SessionLock
-- Locks a session's row for a transaction that deletes it: taken first, as
-- a summary's write and ingest take it first, so that they wait for each
-- other instead of each holding what the other needs next (the session's
-- messages). No row for a session whose row is gone.
SELECT 1 FROM sessions WHERE tenant_id = $1 AND session_id = $2 FOR UPDATE;
