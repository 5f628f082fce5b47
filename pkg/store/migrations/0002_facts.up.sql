-- Interest facts: what a user reads, watches, listens to and cares about.
CREATE TABLE facts (
    tenant_id         text             NOT NULL,
    user_id           text             NOT NULL,
    type              text             NOT NULL,
    -- value is the normalized key (so 《三体》, 三体 and "三体 " are one fact);
    -- display is how it was last written.
    value             text             NOT NULL,
    display           text             NOT NULL,
    -- weight is the base weight, 1.0 at every mention; time decay is computed
    -- from last_mentioned_at (event time), never from when a row was written.
    weight            double precision NOT NULL DEFAULT 1.0,
    mention_count     bigint           NOT NULL DEFAULT 0,
    first_seen_at     timestamptz      NOT NULL,
    last_mentioned_at timestamptz      NOT NULL,
    expires_at        timestamptz      NOT NULL,
    status            text             NOT NULL DEFAULT 'active'
                      CHECK (status IN ('active', 'archived', 'expired')),
    source            text             NOT NULL,
    source_session_id text             NOT NULL DEFAULT '',
    updated_at        timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id, type, value)
);

CREATE INDEX facts_user_recent_idx ON facts (tenant_id, user_id, last_mentioned_at DESC);

-- One row per (event, fact): the idempotency key of a mention. Redelivery, a
-- duplicate publish or a replay of the same turn finds its row and changes nothing.
CREATE TABLE fact_mentions (
    tenant_id   text        NOT NULL,
    event_id    text        NOT NULL,
    type        text        NOT NULL,
    value       text        NOT NULL,
    user_id     text        NOT NULL,
    session_id  text        NOT NULL,
    occurred_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, event_id, type, value)
);

CREATE INDEX fact_mentions_user_idx ON fact_mentions (tenant_id, user_id, occurred_at);
