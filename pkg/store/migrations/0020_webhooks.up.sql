-- Webhooks on the change feed (pkg/webhooks, docs/webhooks.md).
--
-- An endpoint is a tenant's receiver: where changes are POSTed, which types
-- it wants (exact types, or a prefix as "attribute.*", or "*"), and the
-- secret its deliveries are signed with.
CREATE TABLE webhook_endpoints (
    tenant_id  text        NOT NULL,
    id         text        NOT NULL,
    url        text        NOT NULL,
    types      text[]      NOT NULL,
    secret     text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);

-- A delivery is one change for one endpoint: at most one row per (endpoint,
-- change id), so that a change seen again (a redelivery, a replay, a publish
-- past the stream's duplicate window) changes nothing. body is the change's
-- JSON as the feed carried it, what is POSTed and signed. status is pending
-- (waiting for its next attempt at next_attempt_at), delivered or failed
-- (given up on, and dead-lettered). claimed_by is the attempt in flight
-- (next_attempt_at is then the end of its lease): one worker attempts a
-- delivery at a time, and an endpoint has deliveries of one claim in flight
-- at most.
CREATE TABLE webhook_deliveries (
    tenant_id        text        NOT NULL,
    endpoint_id      text        NOT NULL,
    change_id        text        NOT NULL,
    change_type      text        NOT NULL,
    user_id          text        NOT NULL,
    stream_seq       bigint      NOT NULL,
    body             text        NOT NULL,
    status           text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         int         NOT NULL DEFAULT 0,
    redrives         int         NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    claimed_by       text,
    last_status_code int,
    last_error       text        NOT NULL DEFAULT '',
    last_attempt_at  timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    PRIMARY KEY (tenant_id, endpoint_id, change_id),
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id) ON DELETE CASCADE
);

-- The deliveries due, for the worker's claim.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- An endpoint's recent deliveries, for the API and the inspector.
CREATE INDEX webhook_deliveries_recent_idx ON webhook_deliveries (tenant_id, endpoint_id, created_at DESC, change_id);
-- A user's deliveries, for forgetting them.
CREATE INDEX webhook_deliveries_user_idx ON webhook_deliveries (tenant_id, user_id);
-- Old finished deliveries, for pruning.
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (finished_at) WHERE status <> 'pending';
