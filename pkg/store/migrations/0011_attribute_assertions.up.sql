-- Who a user is and what they asked for (pkg/attribute): every assertion that
-- put or removed a value of a profile key, by its source (explicit, stated,
-- inferred, derived), at its event time. Rows are never updated: which values
-- are current, and when each earlier one ended, is resolved from all of a
-- user's rows (attribute.Resolve), so a replay or a late event changes
-- nothing once its rows are in. The key makes a redelivered or replayed
-- assertion a no-op.
CREATE TABLE attribute_assertions (
    tenant_id   text        NOT NULL,
    user_id     text        NOT NULL,
    -- the event that made it: a profile edit, or the turn it was read from
    event_id    text        NOT NULL,
    key         text        NOT NULL,
    -- a set's item (its normalized value); '' for a single key, and for a
    -- removal that clears a set
    item        text        NOT NULL DEFAULT '',
    op          text        NOT NULL CHECK (op IN ('put', 'remove')),
    value       text        NOT NULL DEFAULT '',
    source      text        NOT NULL CHECK (source IN ('explicit', 'stated', 'inferred', 'derived')),
    -- the turns it was read from, and their session
    evidence    text[]      NOT NULL DEFAULT '{}',
    session_id  text        NOT NULL DEFAULT '',
    confidence  double precision NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    occurred_at timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id, event_id, key, item, op)
);

-- A session's delete removes what was read from it alone.
CREATE INDEX attribute_assertions_session ON attribute_assertions (tenant_id, session_id) WHERE session_id <> '';
