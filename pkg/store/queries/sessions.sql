-- name: SessionGet
SELECT session_id, user_id, site_id, agent_id, message_count, system_count,
       first_message_at, last_message_at, created_at, updated_at
FROM sessions
WHERE tenant_id = $1 AND session_id = $2;

-- name: SessionDelete
DELETE FROM sessions WHERE tenant_id = $1 AND session_id = $2
RETURNING user_id;


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
