-- name: FactMentionBatch
-- Records a batch of mentions; only mentions not seen before (by event and fact)
-- touch the facts: count, first/last mention (event time), display of the newest
-- mention, weight back to 1.0 (and the decayer's decayed weight cleared) and
-- expiry extended when the mention is the newest, and the fact active again. Facts are upserted in key order so concurrent batches
-- lock them in the same order. A fact the batch creates keeps the event of its
-- first mention (first_event_id: the earliest new one, by event time then
-- event id). It returns every fact the batch touched, saying which it
-- created (xmax is 0 on a row this statement inserted), with what a change
-- feed tells of them.
WITH rows AS (
    SELECT *
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                $7::text[], $8::timestamptz[], $9::text[], $10::timestamptz[])
      AS r(tenant_id, event_id, type, value, display, user_id, session_id, occurred_at, source, expires_at)
), new AS (
    INSERT INTO fact_mentions (tenant_id, event_id, type, value, user_id, session_id, occurred_at)
    SELECT DISTINCT ON (tenant_id, event_id, type, value)
           tenant_id, event_id, type, value, user_id, session_id, occurred_at
    FROM rows
    ON CONFLICT (tenant_id, event_id, type, value) DO NOTHING
    RETURNING tenant_id, event_id, type, value
), agg AS (
    SELECT r.tenant_id, r.user_id, r.type, r.value,
           count(*) AS n,
           min(r.occurred_at) AS first_at,
           max(r.occurred_at) AS last_at,
           max(r.expires_at) AS expires_at,
           (array_agg(r.display ORDER BY r.occurred_at DESC, r.event_id DESC))[1] AS display,
           (array_agg(r.source ORDER BY r.occurred_at DESC, r.event_id DESC))[1] AS source,
           (array_agg(r.session_id ORDER BY r.occurred_at DESC, r.event_id DESC))[1] AS session_id,
           (array_agg(r.event_id ORDER BY r.occurred_at, r.event_id))[1] AS first_event_id
    FROM new
    JOIN (SELECT DISTINCT ON (tenant_id, event_id, type, value) * FROM rows) r
      USING (tenant_id, event_id, type, value)
    GROUP BY r.tenant_id, r.user_id, r.type, r.value
)
INSERT INTO facts AS f (tenant_id, user_id, type, value, display, weight, mention_count,
                        first_seen_at, last_mentioned_at, expires_at, status, source, source_session_id, first_event_id)
SELECT tenant_id, user_id, type, value, display, 1.0, n, first_at, last_at, expires_at, 'active', source, session_id, first_event_id
FROM agg
ORDER BY tenant_id, user_id, type, value
ON CONFLICT (tenant_id, user_id, type, value) DO UPDATE
SET mention_count     = f.mention_count + EXCLUDED.mention_count,
    first_seen_at     = least(f.first_seen_at, EXCLUDED.first_seen_at),
    last_mentioned_at = greatest(f.last_mentioned_at, EXCLUDED.last_mentioned_at),
    expires_at        = greatest(f.expires_at, EXCLUDED.expires_at),
    weight            = CASE WHEN EXCLUDED.last_mentioned_at >= f.last_mentioned_at THEN 1.0 ELSE f.weight END,
    status            = CASE WHEN EXCLUDED.last_mentioned_at >= f.last_mentioned_at THEN 'active' ELSE f.status END,
    display           = CASE WHEN EXCLUDED.last_mentioned_at >= f.last_mentioned_at THEN EXCLUDED.display ELSE f.display END,
    source            = CASE WHEN EXCLUDED.last_mentioned_at >= f.last_mentioned_at THEN EXCLUDED.source ELSE f.source END,
    source_session_id = CASE WHEN EXCLUDED.last_mentioned_at >= f.last_mentioned_at THEN EXCLUDED.source_session_id ELSE f.source_session_id END,
    decayed_weight    = CASE WHEN EXCLUDED.last_mentioned_at >= f.last_mentioned_at THEN NULL ELSE f.decayed_weight END,
    decayed_at        = CASE WHEN EXCLUDED.last_mentioned_at >= f.last_mentioned_at THEN NULL ELSE f.decayed_at END,
    updated_at        = now()
RETURNING tenant_id, user_id, f.xmax = 0, type, value, display, weight, mention_count, first_seen_at,
          last_mentioned_at, expires_at, status, source, source_session_id, first_event_id;

-- name: FactListFirstMentioned
-- The facts whose first mention is one of the given ones (tenant $1, users
-- $2, events $3, types $4, values $5, side by side): those that the
-- mentions' events created, as a change feed tells of them, with the event
-- time of that first mention.
SELECT f.user_id, f.type, f.value, f.display, f.weight, f.mention_count, f.first_seen_at,
       f.last_mentioned_at, f.expires_at, f.status, f.source, f.source_session_id, f.first_event_id,
       fm.occurred_at
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS m(user_id, event_id, type, value)
JOIN facts f ON f.tenant_id = $1 AND f.user_id = m.user_id AND f.type = m.type AND f.value = m.value
            AND f.first_event_id = m.event_id
JOIN fact_mentions fm ON fm.tenant_id = $1 AND fm.event_id = m.event_id AND fm.type = m.type AND fm.value = m.value
ORDER BY f.user_id, f.type, f.value;

-- name: FactListByUser
-- A user's facts with a given status, newest mention first.
SELECT type, value, display, weight, mention_count, first_seen_at, last_mentioned_at,
       expires_at, status, source, source_session_id
FROM facts
WHERE tenant_id = $1 AND user_id = $2 AND status = ANY($3::text[])
ORDER BY last_mentioned_at DESC, type, value
LIMIT $4;

-- name: FactListByUserBefore
-- A user's facts as they stood before $3, newest mention first (at most
-- $4): each fact mentioned before then, counted from those mentions alone
-- (their number, the first and the last, the session of the last), with
-- the expiry the last one gave it (the fact's time to live as stored,
-- expires_at - last_mentioned_at). Every mention sets the base weight, so
-- the stored one holds. The status is left empty: the stored one is
-- today's, and the reader judges each fact at $3 (decay.Policy.Assess).
-- What only a later mention changed (how the value was written, which
-- extractor saw it) is read as it is now. The user's mentions before $3
-- are read on their index, the user's facts on their key, and the two are
-- merged in the key's order (the store reads this with nested loops off:
-- queueFacts).
WITH m AS (
    SELECT type, value, count(*) AS n, min(occurred_at) AS first_at, max(occurred_at) AS last_at,
           (array_agg(session_id ORDER BY occurred_at DESC, event_id DESC))[1] AS session_id
    FROM fact_mentions
    WHERE tenant_id = $1 AND user_id = $2 AND occurred_at < $3
    GROUP BY type, value
)
SELECT f.type, f.value, f.display, f.weight, m.n, m.first_at, m.last_at,
       m.last_at + (f.expires_at - f.last_mentioned_at), '', f.source, m.session_id
FROM m
JOIN facts f ON f.tenant_id = $1 AND f.user_id = $2 AND f.type = m.type AND f.value = m.value
ORDER BY m.last_at DESC, f.type, f.value
LIMIT $4;

-- name: FactPageByUser
-- A page of a user's facts with the given statuses, newest mention first,
-- after the keyset cursor ($4 last mention, $5 type, $6 value; NULL: from the
-- start), each with the times of its newest $8 mentions (ascending). The
-- user's mentions are read once, on their index, for the page's facts.
WITH page AS (
    SELECT type, value, display, weight, mention_count, first_seen_at, last_mentioned_at,
           expires_at, status, source, source_session_id
    FROM facts
    WHERE tenant_id = $1 AND user_id = $2 AND status = ANY ($3::text[])
      AND ($4::timestamptz IS NULL
           OR last_mentioned_at < $4::timestamptz
           OR (last_mentioned_at = $4::timestamptz AND (type, value) > ($5::text, $6::text)))
    ORDER BY last_mentioned_at DESC, type, value
    LIMIT $7
), ranked AS (
    SELECT m.type, m.value, m.occurred_at,
           row_number() OVER (PARTITION BY m.type, m.value ORDER BY m.occurred_at DESC) AS rn
    FROM fact_mentions m
    JOIN page p ON p.type = m.type AND p.value = m.value
    WHERE m.tenant_id = $1 AND m.user_id = $2
)
SELECT p.type, p.value, p.display, p.weight, p.mention_count, p.first_seen_at, p.last_mentioned_at,
       p.expires_at, p.status, p.source, p.source_session_id,
       coalesce((SELECT array_agg(r.occurred_at ORDER BY r.occurred_at)
                 FROM ranked r WHERE r.type = p.type AND r.value = p.value AND r.rn <= $8),
                '{}')
FROM page p
ORDER BY p.last_mentioned_at DESC, p.type, p.value;

-- name: FactListCreatedBy
-- A user's facts that one event's mentions created (first_event_id $3),
-- with the event time of that mention: a summary version's, told again.
SELECT f.user_id, f.type, f.value, f.display, f.weight, f.mention_count, f.first_seen_at,
       f.last_mentioned_at, f.expires_at, f.status, f.source, f.source_session_id, f.first_event_id,
       fm.occurred_at
FROM facts f
JOIN fact_mentions fm ON fm.tenant_id = f.tenant_id AND fm.event_id = f.first_event_id
                     AND fm.type = f.type AND fm.value = f.value
WHERE f.tenant_id = $1 AND f.user_id = $2 AND f.first_event_id = $3
ORDER BY f.type, f.value;
