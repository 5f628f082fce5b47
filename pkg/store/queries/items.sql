-- name: ListItemAt
-- Item $3 (1-based) of a session's current list: its newest turn, by event time
-- then event id, that presented one (messages_session_list_idx). The item is
-- NULL when $3 is beyond the list's length. Only the session owner's turns: a
-- list another user's turn showed in it before sessions had one owner is
-- never answered.
SELECT event_id, occurred_at, jsonb_array_length(items), items -> ($3::int - 1)
FROM messages
WHERE tenant_id = $1 AND session_id = $2 AND items IS NOT NULL
  AND user_id = (SELECT s.user_id FROM sessions s WHERE s.tenant_id = $1 AND s.session_id = $2)
ORDER BY occurred_at DESC, event_id DESC
LIMIT 1;

-- name: SeenLockUsers
-- Serializes registry writes per user: one transaction-scoped advisory lock per
-- key, taken in the order given (the caller sorts), so that two batches touching
-- the same users never deadlock on each other's rows while evicting.
SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) AS k;

-- name: SeenRecordBatch
-- Folds the items of a batch's turns into seen_items, once per turn: a turn whose
-- seen_lists row exists changes nothing. Within a turn a ref counts once. Times
-- are event times; title, attrs and the last event/session are the newest
-- showing's (event time, then event id), so replays in any order converge. Rows
-- are upserted in key order. It returns the turns recorded now (tenant and
-- event id): those a change feed tells of.
WITH rows AS (
    SELECT *
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                $7::text[], $8::timestamptz[])
      AS r(tenant_id, event_id, user_id, session_id, ref, title, attrs, occurred_at)
), lists AS (
    INSERT INTO seen_lists (tenant_id, event_id, user_id, occurred_at)
    SELECT DISTINCT ON (tenant_id, event_id) tenant_id, event_id, user_id, occurred_at
    FROM rows
    ORDER BY tenant_id, event_id
    ON CONFLICT (tenant_id, event_id) DO NOTHING
    RETURNING tenant_id, event_id
), shown AS (
    SELECT DISTINCT ON (r.tenant_id, r.event_id, r.ref) r.*
    FROM rows r
    JOIN lists USING (tenant_id, event_id)
), agg AS (
    -- One row per (tenant, user, ref): the newest showing, with the count and the
    -- first time over all of them (one sort, no per-group aggregates).
    SELECT DISTINCT ON (tenant_id, user_id, ref)
           tenant_id, user_id, ref, title, attrs, event_id, session_id,
           occurred_at AS last_at,
           count(*) OVER w AS n,
           min(occurred_at) OVER w AS first_at
    FROM shown
    WINDOW w AS (PARTITION BY tenant_id, user_id, ref)
    ORDER BY tenant_id, user_id, ref, occurred_at DESC, event_id DESC
), upsert AS (
INSERT INTO seen_items AS s (tenant_id, user_id, ref, title, attrs, times_shown,
                             first_seen_at, last_seen_at, last_event_id, last_session_id)
SELECT tenant_id, user_id, ref, title, attrs::jsonb, n, first_at, last_at, event_id, session_id
FROM agg
ORDER BY tenant_id, user_id, ref
ON CONFLICT (tenant_id, user_id, ref) DO UPDATE
SET times_shown     = s.times_shown + EXCLUDED.times_shown,
    first_seen_at   = least(s.first_seen_at, EXCLUDED.first_seen_at),
    last_seen_at    = greatest(s.last_seen_at, EXCLUDED.last_seen_at),
    title           = CASE WHEN (EXCLUDED.last_seen_at, EXCLUDED.last_event_id) >= (s.last_seen_at, s.last_event_id) THEN EXCLUDED.title ELSE s.title END,
    attrs           = CASE WHEN (EXCLUDED.last_seen_at, EXCLUDED.last_event_id) >= (s.last_seen_at, s.last_event_id) THEN EXCLUDED.attrs ELSE s.attrs END,
    last_session_id = CASE WHEN (EXCLUDED.last_seen_at, EXCLUDED.last_event_id) >= (s.last_seen_at, s.last_event_id) THEN EXCLUDED.last_session_id ELSE s.last_session_id END,
    last_event_id   = CASE WHEN (EXCLUDED.last_seen_at, EXCLUDED.last_event_id) >= (s.last_seen_at, s.last_event_id) THEN EXCLUDED.last_event_id ELSE s.last_event_id END,
    updated_at      = now()
RETURNING 1
)
SELECT tenant_id, event_id FROM lists;

-- name: SeenEvictBeyondCap
-- Keeps at most $3 items per user: the ones first seen most recently (ties by
-- ref); the others are deleted. Each user's rows are read through the primary
-- key, whatever the table's size.
WITH users AS (
    SELECT DISTINCT tenant_id, user_id
    FROM unnest($1::text[], $2::text[]) AS u(tenant_id, user_id)
), doomed AS (
    SELECT d.tenant_id, d.user_id, d.ref
    FROM users u
    CROSS JOIN LATERAL (
        SELECT s.tenant_id, s.user_id, s.ref
        FROM seen_items s
        WHERE s.tenant_id = u.tenant_id AND s.user_id = u.user_id
        ORDER BY s.first_seen_at DESC, s.ref DESC
        OFFSET $3
    ) d
)
DELETE FROM seen_items s
USING doomed d
WHERE s.tenant_id = d.tenant_id AND s.user_id = d.user_id AND s.ref = d.ref;

-- name: SeenItemListByUser
-- A user's seen items, most recently shown first.
SELECT ref, title, attrs, times_shown, first_seen_at, last_seen_at, last_event_id, last_session_id
FROM seen_items
WHERE tenant_id = $1 AND user_id = $2
ORDER BY last_seen_at DESC, ref
LIMIT $3;

-- name: ItemUnseenList
-- Which of the refs $3 (in that order) the user was never shown nor notified of;
-- a notification under the same non-empty id $4 does not count, so a retried
-- request gets the same answer.
SELECT r.ref
FROM unnest($3::text[]) WITH ORDINALITY AS r(ref, ord)
WHERE NOT EXISTS (SELECT 1 FROM seen_items s
                  WHERE s.tenant_id = $1 AND s.user_id = $2 AND s.ref = r.ref)
  AND NOT EXISTS (SELECT 1 FROM item_notifications n
                  WHERE n.tenant_id = $1 AND n.user_id = $2 AND n.ref = r.ref
                    AND ($4 = '' OR n.notification_id <> $4))
ORDER BY r.ord;

-- name: ItemUnseenMark
-- As ItemUnseenList, and records the answer as notified at $5. A ref is answered
-- to the request that records it (or to a retry with the same id): of two
-- concurrent requests with different ids, only one gets it. marked says whether
-- this request recorded it.
WITH req AS (
    SELECT r.ref, r.ord
    FROM unnest($3::text[]) WITH ORDINALITY AS r(ref, ord)
    WHERE NOT EXISTS (SELECT 1 FROM seen_items s
                      WHERE s.tenant_id = $1 AND s.user_id = $2 AND s.ref = r.ref)
), ins AS (
    INSERT INTO item_notifications (tenant_id, user_id, ref, notification_id, notified_at)
    SELECT $1, $2, ref, $4, $5 FROM req
    ORDER BY ref
    ON CONFLICT (tenant_id, user_id, ref) DO NOTHING
    RETURNING ref
), same AS (
    SELECT n.ref
    FROM item_notifications n
    JOIN req USING (ref)
    WHERE n.tenant_id = $1 AND n.user_id = $2 AND $4 <> '' AND n.notification_id = $4
)
SELECT req.ref, req.ref IN (SELECT ref FROM ins) AS marked
FROM req
WHERE req.ref IN (SELECT ref FROM ins) OR req.ref IN (SELECT ref FROM same)
ORDER BY req.ord;

-- name: SeenItemPrune
-- Deletes up to $2 seen items last shown before $1, across tenants; rows being
-- written right now are left for the next round.
WITH doomed AS (
    SELECT tenant_id, user_id, ref
    FROM seen_items
    WHERE last_seen_at < $1
    ORDER BY last_seen_at
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)
DELETE FROM seen_items s
USING doomed d
WHERE s.tenant_id = d.tenant_id AND s.user_id = d.user_id AND s.ref = d.ref;

-- name: ItemNotificationPrune
WITH doomed AS (
    SELECT tenant_id, user_id, ref
    FROM item_notifications
    WHERE notified_at < $1
    ORDER BY notified_at
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)
DELETE FROM item_notifications n
USING doomed d
WHERE n.tenant_id = d.tenant_id AND n.user_id = d.user_id AND n.ref = d.ref;

-- name: SeenListPrune
WITH doomed AS (
    SELECT tenant_id, event_id
    FROM seen_lists
    WHERE occurred_at < $1
    ORDER BY occurred_at
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)
DELETE FROM seen_lists l
USING doomed d
WHERE l.tenant_id = d.tenant_id AND l.event_id = d.event_id;
