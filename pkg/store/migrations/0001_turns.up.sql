-- Sessions and messages: the turn pipeline's storage.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE sessions (
    tenant_id        text        NOT NULL,
    session_id       text        NOT NULL,
    user_id          text        NOT NULL,
    site_id          text        NOT NULL DEFAULT '',
    agent_id         text        NOT NULL DEFAULT '',
    message_count    bigint      NOT NULL DEFAULT 0,
    -- System turns are stored but never replayed into a context window.
    system_count     bigint      NOT NULL DEFAULT 0,
    first_message_at timestamptz NOT NULL,
    last_message_at  timestamptz NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, session_id)
) WITH (fillfactor = 80);

-- Sessions are updated by every ingest batch. No indexed column changes on those
-- updates (last_message_at is deliberately not indexed) and pages keep room, so
-- they are HOT updates: no index entries written, no index bloat. A user's
-- sessions are found by (tenant, user) and ordered in memory.
CREATE INDEX sessions_user_idx ON sessions (tenant_id, user_id);

CREATE TABLE messages (
    tenant_id   text        NOT NULL,
    event_id    text        NOT NULL,
    session_id  text        NOT NULL,
    user_id     text        NOT NULL,
    site_id     text        NOT NULL DEFAULT '',
    agent_id    text        NOT NULL DEFAULT '',
    role        text        NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
    content     text        NOT NULL,
    tool_calls  jsonb,
    items       jsonb,
    metadata    jsonb,
    occurred_at timestamptz NOT NULL,
    stored_at   timestamptz NOT NULL DEFAULT now(),
    stream_seq  bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, event_id)
);

-- Serves the recent window (newest first) and pagination (either direction).
CREATE INDEX messages_session_time_idx ON messages (tenant_id, session_id, occurred_at DESC, event_id DESC);
