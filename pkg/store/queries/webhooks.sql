-- name: WebhookEndpointInsert
-- A tenant's new webhook endpoint; returns when it was made.
INSERT INTO webhook_endpoints (tenant_id, id, url, types, secret)
VALUES ($1, $2, $3, $4, $5)
RETURNING created_at;

-- name: WebhookEndpointList
-- The tenant's webhook endpoints, oldest first, secrets included (the
-- worker signs with them; the API never answers them).
SELECT id, url, types, secret, created_at
FROM webhook_endpoints
WHERE tenant_id = $1
ORDER BY created_at, id;

-- name: WebhookEndpointGet
-- One of the tenant's webhook endpoints.
SELECT id, url, types, secret, created_at
FROM webhook_endpoints
WHERE tenant_id = $1 AND id = $2;

-- name: WebhookEndpointDelete
-- Removes one of the tenant's endpoints, and its deliveries with it (the
-- foreign key cascades).
DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2;

-- name: WebhookDeliveryInsertBatch
-- One delivery of a change ($2: id, $3: type, $4: user, $5: stream
-- sequence, $6: body) for each of the endpoints $7, due now. A delivery the
-- endpoint already has for the change is left as it is (a change seen
-- again); returns the endpoints that got a new one.
INSERT INTO webhook_deliveries (tenant_id, endpoint_id, change_id, change_type, user_id, stream_seq, body)
SELECT $1, e.id, $2, $3, $4, $5, $6
FROM unnest($7::text[]) AS e(id)
ON CONFLICT (tenant_id, endpoint_id, change_id) DO NOTHING
RETURNING endpoint_id;

-- name: WebhookDeliveryClaim
-- Claims at most $1 deliveries due now, of every tenant, for claim $3: at
-- most $2 of an endpoint, and none of an endpoint that has a claim in
-- flight, so that a slow or failing endpoint holds few of the worker's
-- attempts. A claimed delivery is due again at the end of its lease ($4
-- microseconds) unless its attempt is recorded first. The oldest due are
-- looked at, a thousand at most; the UPDATE checks each row again under its
-- lock, so that two claims at once never both take a delivery. Returns the
-- deliveries, with their last errors, and their endpoints' URL and secret.
WITH due AS (
    SELECT tenant_id, endpoint_id, change_id, next_attempt_at
    FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at <= now()
    ORDER BY next_attempt_at
    LIMIT 1000
), ranked AS (
    SELECT d.tenant_id, d.endpoint_id, d.change_id, d.next_attempt_at,
           row_number() OVER (PARTITION BY d.tenant_id, d.endpoint_id ORDER BY d.next_attempt_at, d.change_id) AS n
    FROM due d
    WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries b
                      WHERE b.tenant_id = d.tenant_id AND b.endpoint_id = d.endpoint_id
                        AND b.status = 'pending' AND b.claimed_by IS NOT NULL AND b.next_attempt_at > now())
), picked AS (
    SELECT tenant_id, endpoint_id, change_id FROM ranked WHERE n <= $2 ORDER BY next_attempt_at LIMIT $1
)
UPDATE webhook_deliveries w
SET claimed_by = $3, next_attempt_at = now() + $4::bigint * interval '1 microsecond', updated_at = now()
FROM picked p, webhook_endpoints e
WHERE w.tenant_id = p.tenant_id AND w.endpoint_id = p.endpoint_id AND w.change_id = p.change_id
  AND w.status = 'pending' AND w.next_attempt_at <= now()
  AND e.tenant_id = w.tenant_id AND e.id = w.endpoint_id
RETURNING w.tenant_id, w.endpoint_id, w.change_id, w.change_type, w.user_id, w.stream_seq, w.body,
          w.attempts, w.redrives, w.last_error, e.url, e.secret;

-- name: WebhookDeliveryRecord
-- What an attempt of claim $4 came to: $5 more attempts (1 for an attempt
-- made, 0 for a delivery given up on before any), the status $6, due again
-- in $7 microseconds when still pending, the answer's status code $8 (NULL:
-- none), the error $9 ('' keeps the last one), the attempt's time $10.
-- A claim whose lease ran out and was taken again records nothing.
UPDATE webhook_deliveries
SET attempts = attempts + $5,
    status = $6,
    next_attempt_at = CASE WHEN $6 = 'pending' THEN now() + $7::bigint * interval '1 microsecond' ELSE next_attempt_at END,
    claimed_by = NULL,
    last_status_code = coalesce($8, last_status_code),
    last_error = CASE WHEN $9 = '' THEN last_error ELSE $9 END,
    last_attempt_at = coalesce($10, last_attempt_at),
    finished_at = CASE WHEN $6 = 'pending' THEN NULL ELSE now() END,
    updated_at = now()
WHERE tenant_id = $1 AND endpoint_id = $2 AND change_id = $3 AND claimed_by = $4;

-- name: WebhookDeliveryList
-- An endpoint's deliveries, newest first, of status $3 ('' for any), at
-- most $4.
SELECT change_id, change_type, user_id, status, attempts, redrives, next_attempt_at, claimed_by IS NOT NULL,
       last_status_code, last_error, last_attempt_at, created_at, updated_at, finished_at
FROM webhook_deliveries
WHERE tenant_id = $1 AND endpoint_id = $2 AND ($3 = '' OR status = $3)
ORDER BY created_at DESC, change_id
LIMIT $4;

-- name: WebhookDeliveryCounts
-- How many deliveries an endpoint has of each status.
SELECT status, count(*)
FROM webhook_deliveries
WHERE tenant_id = $1 AND endpoint_id = $2
GROUP BY status;

-- name: WebhookDeliveryRedrive
-- A failed delivery of an endpoint due again now, with its attempts counted
-- afresh; returns nothing for a delivery that is not failed.
UPDATE webhook_deliveries
SET status = 'pending', attempts = 0, redrives = redrives + 1, next_attempt_at = now(),
    claimed_by = NULL, finished_at = NULL, updated_at = now()
WHERE tenant_id = $1 AND endpoint_id = $2 AND change_id = $3 AND status = 'failed'
RETURNING change_id, change_type, user_id, status, attempts, redrives, next_attempt_at, claimed_by IS NOT NULL,
          last_status_code, last_error, last_attempt_at, created_at, updated_at, finished_at;

-- name: WebhookDeliveryGet
-- One delivery of an endpoint.
SELECT change_id, change_type, user_id, status, attempts, redrives, next_attempt_at, claimed_by IS NOT NULL,
       last_status_code, last_error, last_attempt_at, created_at, updated_at, finished_at
FROM webhook_deliveries
WHERE tenant_id = $1 AND endpoint_id = $2 AND change_id = $3;

-- name: WebhookDeliveryPrune
-- Deliveries of every tenant finished (delivered or given up on) before $1,
-- at most $2 of them: what the worker keeps is bounded in time.
DELETE FROM webhook_deliveries
WHERE ctid IN (SELECT ctid FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < $1 LIMIT $2);
