-- Structured results: the list a session showed last, and which items each user
-- has been shown (or notified of).

-- A session's current list is its newest turn (event time, then event id) that
-- presented one. Only such turns are in this index, so finding the list is one
-- index probe however long the session has gone on since, and turns without a
-- list cost ingest nothing here.
CREATE INDEX messages_session_list_idx ON messages (tenant_id, session_id, occurred_at DESC, event_id DESC)
    WHERE items IS NOT NULL;

-- Every item presented to a user: one row per (tenant, user, ref), capped per
-- user at write time (oldest first_seen_at evicted), deleted once last_seen_at
-- is older than the retention. Times are event times; title and attrs are those
-- of the newest showing.
CREATE TABLE seen_items (
    tenant_id       text        NOT NULL,
    user_id         text        NOT NULL,
    ref             text        NOT NULL,
    title           text        NOT NULL DEFAULT '',
    attrs           jsonb,
    times_shown     bigint      NOT NULL,
    first_seen_at   timestamptz NOT NULL,
    last_seen_at    timestamptz NOT NULL,
    last_event_id   text        NOT NULL,
    last_session_id text        NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id, ref)
);

-- Age-based clean-up across tenants, in batches.
CREATE INDEX seen_items_last_seen_idx ON seen_items (last_seen_at);

-- One row per turn whose list was folded into seen_items: the idempotency key of
-- the registry. A redelivered, re-published or replayed turn finds its row and
-- changes nothing (times_shown counts each turn once).
CREATE TABLE seen_lists (
    tenant_id   text        NOT NULL,
    event_id    text        NOT NULL,
    user_id     text        NOT NULL,
    occurred_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, event_id)
);

CREATE INDEX seen_lists_occurred_idx ON seen_lists (occurred_at);

-- Items a notifier told the user about (POST /v1/users/{user_id}/items/unseen with
-- mark_notified). notification_id lets a retried request get the same answer.
CREATE TABLE item_notifications (
    tenant_id       text        NOT NULL,
    user_id         text        NOT NULL,
    ref             text        NOT NULL,
    notification_id text        NOT NULL DEFAULT '',
    notified_at     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, user_id, ref)
);

CREATE INDEX item_notifications_notified_idx ON item_notifications (notified_at);
