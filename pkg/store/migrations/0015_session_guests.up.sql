-- A session belongs to one user: the user of the first turn that a front door
-- (the API, MCP, the gateway) or a turn-stream worker accepted for it, which
-- is sessions.user_id and never changes (SessionClaim). From this version on,
-- a turn of another user for the session is refused: the front doors answer
-- 409, the workers dead-letter it.
--
-- Before, a turn of any user of the tenant was stored in whatever session it
-- named. Those users are the session's guests, listed here once, so that
-- forgetting a user finds their turns in other users' sessions too (a user's
-- messages are otherwise found through their own sessions, on the session
-- index), and `recall sessions` reports them. Turns whose session row is gone
-- are listed as well, with owner '' . Nothing adds a guest after this: the
-- list only shrinks, as guests are forgotten or their sessions deleted.
-- `recall sessions -scan` reads messages again (after a rollout during which
-- workers of the earlier version still ran).
CREATE TABLE session_guests (
    tenant_id  text        NOT NULL,
    user_id    text        NOT NULL,
    session_id text        NOT NULL,
    -- the session's owner when this was found ('' when its row was gone)
    owner_id   text        NOT NULL,
    messages   bigint      NOT NULL,
    first_at   timestamptz NOT NULL,
    last_at    timestamptz NOT NULL,
    found_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id, session_id)
);

-- Deleting a session deletes its guests.
CREATE INDEX session_guests_session_idx ON session_guests (tenant_id, session_id);

-- One pass over messages, joined to their sessions by hash.
INSERT INTO session_guests (tenant_id, user_id, session_id, owner_id, messages, first_at, last_at)
SELECT m.tenant_id, m.user_id, m.session_id, coalesce(min(s.user_id), ''), count(*), min(m.occurred_at), max(m.occurred_at)
FROM messages m
LEFT JOIN sessions s ON s.tenant_id = m.tenant_id AND s.session_id = m.session_id
WHERE s.user_id IS NULL OR m.user_id <> s.user_id
GROUP BY m.tenant_id, m.user_id, m.session_id;
