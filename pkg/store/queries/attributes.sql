-- name: AttributeAssertionInsertBatch
-- Stores assertions, one row per element of the arrays; one already stored
-- (a redelivery, a replay) is left as it is.
INSERT INTO attribute_assertions (tenant_id, user_id, event_id, key, item, op, value, source, evidence, session_id,
                                  confidence, occurred_at)
SELECT a.tenant_id, a.user_id, a.event_id, a.key, a.item, a.op, a.value, a.source,
       COALESCE(ARRAY(SELECT jsonb_array_elements_text(a.evidence)), '{}'), a.session_id, a.confidence, a.occurred_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
            $9::jsonb[], $10::text[], $11::float8[], $12::timestamptz[])
     AS a(tenant_id, user_id, event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at)
ON CONFLICT DO NOTHING;

-- name: AttributeAssertionListByUser
-- Every assertion of a user, oldest first; resolution orders them itself.
SELECT event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at
FROM attribute_assertions
WHERE tenant_id = $1 AND user_id = $2
ORDER BY occurred_at, event_id, key, item, op;

-- name: AttributeAssertionListByUserBefore
-- AttributeAssertionListByUser as the user stood before $3: the assertions
-- made before then, oldest first, so that resolving them gives the values
-- current then (a value superseded since is current again).
SELECT event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at
FROM attribute_assertions
WHERE tenant_id = $1 AND user_id = $2 AND occurred_at < $3
ORDER BY occurred_at, event_id, key, item, op;

-- name: AttributeAssertionListByUsersKeys
-- The assertions of a few keys of each of the users, oldest first: what
-- resolving those keys alone needs (the extractor's names of a batch's
-- users), without reading the rest of their profiles.
SELECT user_id, event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at
FROM attribute_assertions
WHERE tenant_id = $1 AND user_id = ANY ($2::text[]) AND key = ANY ($3::text[])
ORDER BY user_id, occurred_at, event_id, key, item, op;

-- name: SessionAttributesForget
-- What was read from the session's turns (stated and inferred values) goes
-- with it; what was set explicitly is not the session's, and what was
-- derived from usage goes by SessionHabitsForget (it counted every session).
DELETE FROM attribute_assertions
WHERE tenant_id = $1 AND session_id = $2 AND source IN ('stated', 'inferred');

-- name: AttributeDeleteOld
-- Retention: what was read from the given sessions' turns older than $3
-- (stated and inferred values) goes with those turns; what was set
-- explicitly or derived from usage is not theirs.
DELETE FROM attribute_assertions
WHERE tenant_id = $1 AND session_id = ANY ($2::text[]) AND occurred_at < $3 AND source IN ('stated', 'inferred');
