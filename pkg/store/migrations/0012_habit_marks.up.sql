-- Where each user's usage habits were last derived (pkg/habits, the decayer's
-- habits step): the newest message of their sessions then (event time) and
-- how many assertions of their time zone there were. A user is due again when
-- their sessions hold a newer message or their time zone was asserted again;
-- a user without a row is due. Deleting one of the user's sessions resets the
-- row (through_at -infinity) and counts one more generation: a derivation
-- that read the user before the delete writes nothing after it.
CREATE TABLE habit_marks (
    tenant_id           text        NOT NULL,
    user_id             text        NOT NULL,
    through_at          timestamptz NOT NULL,
    timezone_assertions bigint      NOT NULL DEFAULT 0,
    generation          bigint      NOT NULL DEFAULT 0,
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id)
);
