-- name: FactPages
-- The facts table's size in heap pages, and its density as last analyzed.
SELECT pg_relation_size('facts') / current_setting('block_size')::bigint,
       CASE WHEN c.relpages > 0 AND c.reltuples > 0 THEN c.reltuples / c.relpages ELSE 0 END
FROM pg_class c
WHERE c.oid = 'facts'::regclass;

-- name: FactDecayRange
-- Brings the facts stored in heap pages [$1, $2) up to date as of $3 (the run's
-- time): weight now, and status expired (expiry passed), archived (weight below
-- the type's floor) or active. Expired facts are final until a new mention.
-- Only rows whose weight or status changes are written, so a second run at the
-- same time, or later within the same period, writes nothing. Their users go to
-- the refresh outbox in the same transaction (a user already owed a refresh as
-- of this time is not written again).
--
-- The weight is the one SQL form of the decay formula (Go:
-- decay.Policy.DecayedWeight; a test proves them equal on the same rows):
--   n      = full periods since the last mention, in whole microseconds,
--            capped at the table's last entry
--   weight = base × mult[n], mult being the type's multiplier table
-- The rule of a fact type is found with array_position in $4 (the overrides;
-- $4[1] is NULL, the default rule); $5 periods in microseconds, $6 floors, $7
-- the multiplier tables flattened in rows of $8 entries, each padded with its
-- last entry.
--
-- The update joins on the row version read (ctid): a fact re-mentioned after
-- this statement's snapshot has a new version and is left to the next run.
--
-- The last column is the facts this statement archived or expired (a status
-- they did not have), as a JSON array, for the change feed.
WITH cur AS (
    SELECT f.ctid AS tid, f.tenant_id, f.user_id, f.status AS old_status,
           coalesce(f.decayed_weight, f.weight) AS old_weight,
           w.weight AS new_weight,
           CASE WHEN f.expires_at <= $3::timestamptz THEN 'expired'
                WHEN w.weight < ($6::float8[])[r.i] THEN 'archived'
                ELSE 'active' END AS new_status
    FROM facts f
    CROSS JOIN LATERAL (SELECT coalesce(array_position($4::text[], f.type), 1) AS i) r
    CROSS JOIN LATERAL (
        SELECT CASE WHEN $3::timestamptz > f.last_mentioned_at
                    THEN least((extract(epoch FROM $3::timestamptz - f.last_mentioned_at) * 1000000)::bigint
                               / ($5::bigint[])[r.i], $8::int - 1)
                    ELSE 0 END AS n
    ) p
    CROSS JOIN LATERAL (SELECT f.weight * ($7::float8[])[(r.i - 1) * $8::int + p.n::int + 1] AS weight) w
    WHERE f.ctid >= $1::tid AND f.ctid < $2::tid AND f.status <> 'expired'
), upd AS (
    UPDATE facts f
    SET decayed_weight = c.new_weight,
        decayed_at     = $3::timestamptz,
        status         = c.new_status,
        updated_at     = now()
    FROM cur c
    WHERE f.ctid = c.tid AND f.ctid >= $1::tid AND f.ctid < $2::tid
      AND (c.new_status <> c.old_status OR c.new_weight <> c.old_weight)
    RETURNING f.tenant_id, f.user_id, c.old_status, c.new_status,
              f.type, f.value, f.display, f.weight, c.new_weight, f.mention_count, f.first_seen_at,
              f.last_mentioned_at, f.expires_at, f.source, f.source_session_id
), outbox AS (
    INSERT INTO profile_refresh_outbox AS o (tenant_id, user_id, requested_at)
    SELECT DISTINCT u.tenant_id, u.user_id, $3::timestamptz FROM upd u
    WHERE NOT EXISTS (SELECT 1 FROM profile_refresh_outbox x
                      WHERE x.tenant_id = u.tenant_id AND x.user_id = u.user_id AND x.requested_at >= $3::timestamptz)
    ORDER BY 1, 2
    ON CONFLICT (tenant_id, user_id) DO UPDATE
    SET requested_at = EXCLUDED.requested_at
    WHERE o.requested_at < EXCLUDED.requested_at
    RETURNING 1
)
SELECT (SELECT count(*) FROM cur),
       count(*) FILTER (WHERE new_status = old_status),
       count(*) FILTER (WHERE new_status = 'archived' AND old_status = 'active'),
       count(*) FILTER (WHERE new_status = 'expired'),
       count(*) FILTER (WHERE new_status = 'active' AND old_status = 'archived'),
       (SELECT count(*) FROM outbox),
       coalesce(jsonb_agg(jsonb_build_object(
           'tenant_id', tenant_id, 'user_id', user_id, 'type', type, 'value', value, 'display', display,
           'status', new_status, 'base_weight', weight, 'weight', new_weight, 'mention_count', mention_count,
           'first_seen_at', first_seen_at, 'last_mentioned_at', last_mentioned_at, 'expires_at', expires_at,
           'source', source, 'session_id', source_session_id))
         FILTER (WHERE new_status <> old_status AND new_status IN ('archived', 'expired')), '[]')
FROM upd;

-- name: RefreshOutboxList
-- The next users owed a profile refresh, in key order after ($1, $2).
SELECT tenant_id, user_id, requested_at
FROM profile_refresh_outbox
WHERE (tenant_id, user_id) > ($1, $2)
ORDER BY tenant_id, user_id
LIMIT $3;

-- name: RefreshOutboxDelete
-- Forgets refreshes once published, unless a newer one was owed meanwhile.
DELETE FROM profile_refresh_outbox o
USING unnest($1::text[], $2::text[], $3::timestamptz[]) AS d(tenant_id, user_id, requested_at)
WHERE o.tenant_id = d.tenant_id AND o.user_id = d.user_id AND o.requested_at <= d.requested_at;

-- name: SessionTenants
-- Every tenant with sessions, by a skip scan of the primary key.
WITH RECURSIVE t AS (
    (SELECT tenant_id FROM sessions ORDER BY tenant_id LIMIT 1)
    UNION ALL
    SELECT (SELECT s.tenant_id FROM sessions s WHERE s.tenant_id > t.tenant_id ORDER BY s.tenant_id LIMIT 1)
    FROM t
    WHERE t.tenant_id IS NOT NULL
)
SELECT tenant_id FROM t WHERE tenant_id IS NOT NULL;

-- name: SessionLockOld
-- Locks the tenant's next sessions (key order, after $2) holding messages older
-- than $3. Ingest locks sessions in the same order.
SELECT session_id
FROM sessions
WHERE tenant_id = $1 AND session_id > $2 AND first_message_at < $3
ORDER BY session_id
LIMIT $4
FOR UPDATE;

-- name: MessageDeleteOld
-- Deletes at most $4 messages of the given sessions that are older than $3,
-- with their search entries, and returns how many per session (and how many
-- of them system turns).
WITH del AS (
    DELETE FROM messages m
    WHERE m.tenant_id = $1
      AND m.ctid = ANY (ARRAY(
          SELECT ctid FROM messages
          WHERE tenant_id = $1 AND session_id = ANY ($2::text[]) AND occurred_at < $3
          LIMIT $4))
    RETURNING m.session_id, m.role, m.user_id, m.event_id, m.summarized
), entries AS (
    DELETE FROM search_entries e
    USING del d
    WHERE e.tenant_id = $1 AND e.user_id = d.user_id AND e.kind = 'message' AND e.source_id = d.event_id
)
SELECT session_id, count(*), count(*) FILTER (WHERE role = 'system'),
       count(*) FILTER (WHERE role <> 'system' AND summarized)
FROM del
GROUP BY session_id;

-- name: SessionFoldDeleted
-- Takes deleted messages out of their sessions' aggregates; the first message
-- time is read again from what is left. The summarized ones leave the
-- summarized (and requested) counts too, so that the count of messages not
-- yet summarized, which the threshold and the idle sweep read, stays what it
-- was: otherwise new messages would wait until they outnumbered the deleted.
UPDATE sessions s
SET message_count    = s.message_count - d.n,
    system_count     = s.system_count - d.sys,
    summarized_count = greatest(s.summarized_count - d.summarized, 0),
    summary_requested_count = greatest(s.summary_requested_count - d.summarized, 0),
    first_message_at = coalesce((SELECT min(m.occurred_at) FROM messages m
                                 WHERE m.tenant_id = $1 AND m.session_id = s.session_id), s.first_message_at),
    updated_at       = now()
FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::bigint[]) AS d(session_id, n, sys, summarized)
WHERE s.tenant_id = $1 AND s.session_id = d.session_id;

-- name: SessionDeleteEmpty
-- Deletes those of the given sessions that have no message left, with the
-- search entries of their summaries (made from the messages retention just
-- deleted), and returns how many sessions it deleted.
WITH del AS (
    DELETE FROM sessions s
    WHERE s.tenant_id = $1 AND s.session_id = ANY ($2::text[])
      AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.tenant_id = $1 AND m.session_id = s.session_id)
    RETURNING s.user_id, s.session_id
), entries AS (
    DELETE FROM search_entries e
    USING del d
    WHERE e.tenant_id = $1 AND e.user_id = d.user_id AND e.kind = 'summary' AND e.source_id = d.session_id
)
SELECT count(*) FROM del;

-- name: FactPurgeRange
-- Deletes the facts stored in heap pages [$1, $2) that expired before $3, their
-- mentions (all at or before the fact's last mention, so the user's mention
-- index bounds the search) and their search entries. A fact mentioned again
-- meanwhile is active again and no longer matches.
WITH doomed AS (
    DELETE FROM facts
    WHERE ctid >= $1 AND ctid < $2 AND status = 'expired' AND expires_at < $3
    RETURNING tenant_id, user_id, type, value, last_mentioned_at
), mentions AS (
    DELETE FROM fact_mentions m
    USING doomed d
    WHERE m.tenant_id = d.tenant_id AND m.user_id = d.user_id
      AND m.occurred_at <= d.last_mentioned_at
      AND m.type = d.type AND m.value = d.value
    RETURNING 1
), entries AS (
    DELETE FROM search_entries e
    USING doomed d
    WHERE e.tenant_id = d.tenant_id AND e.user_id = d.user_id
      AND e.kind = 'fact' AND e.source_id = d.type || E'\x1f' || d.value
)
SELECT (SELECT count(*) FROM doomed), (SELECT count(*) FROM mentions);

-- name: DecayerRunSave
-- Keeps the newest run of each outcome.
INSERT INTO decayer_runs (result, at, started_at, finished_at, steps, error)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (result) DO UPDATE
SET at = EXCLUDED.at, started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at,
    steps = EXCLUDED.steps, error = EXCLUDED.error;

-- name: DecayerRunList
-- The newest run of each outcome, newest first.
SELECT result, at, started_at, finished_at, steps, error
FROM decayer_runs
ORDER BY finished_at DESC;
