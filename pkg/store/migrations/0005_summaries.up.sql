-- Session summaries: the cross-session layer of memory.

-- What summarization has accounted for, per session. Counts are of non-system
-- messages (system prompts are never summarized). None of these columns is
-- indexed, so the ingest upserts that maintain them stay HOT updates.
ALTER TABLE sessions
    -- non-system messages the current summary accounts for
    ADD COLUMN summarized_count        bigint      NOT NULL DEFAULT 0,
    -- event time of the newest message the current summary covers; NULL until
    -- the first summary
    ADD COLUMN summarized_at           timestamptz,
    -- the non-system message count at which the threshold trigger last asked
    -- for a summary; a request is outstanding while it is above summarized_count
    ADD COLUMN summary_requested_count bigint      NOT NULL DEFAULT 0;

-- Every version of every session's summary. A version is keyed by the point
-- it starts from (from_count: the previous version's through_count), so two
-- summarizers racing on one session cannot both write the next version, and a
-- redelivered request finds its range already covered.
CREATE TABLE session_summaries (
    tenant_id      text        NOT NULL,
    session_id     text        NOT NULL,
    user_id        text        NOT NULL,
    version        integer     NOT NULL,
    -- non-system messages of the session before and through this version
    from_count     bigint      NOT NULL,
    through_count  bigint      NOT NULL,
    -- the messages read for it (at most the newest 20 since the previous
    -- version): first and last by event time, and how many had text
    first_event_id text        NOT NULL,
    first_at       timestamptz NOT NULL,
    last_event_id  text        NOT NULL,
    last_at        timestamptz NOT NULL,
    messages_read  integer     NOT NULL,
    summary        text        NOT NULL,
    key_topics     text[]      NOT NULL DEFAULT '{}',
    -- "extractive" or the language model that wrote it
    model          text        NOT NULL,
    -- what asked for it: threshold, request or idle
    reason         text        NOT NULL,
    -- only the newest version of a session is current
    current        boolean     NOT NULL DEFAULT true,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, session_id, from_count),
    UNIQUE (tenant_id, session_id, version),
    CHECK (through_count > from_count)
);

-- One current version per session, found by session.
CREATE UNIQUE INDEX session_summaries_current_idx ON session_summaries (tenant_id, session_id) WHERE current;
-- A user's latest sessions by the time their summaries reach, for the context.
CREATE INDEX session_summaries_user_idx ON session_summaries (tenant_id, user_id, last_at DESC) WHERE current;
