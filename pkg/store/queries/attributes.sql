-- name: AttributeAssertionInsertBatch
-- Stores assertions, one row per element of the arrays; one already stored
-- (a redelivery, a replay) is left as it is, and not locked: a session's
-- delete may take it at the same time. Of rows with the same key in the
-- batch (a turn that says the same matter twice) the first is stored.
-- Returns the identity of each row stored now: what the change feed tells.
INSERT INTO attribute_assertions (tenant_id, user_id, event_id, key, item, op, value, source, evidence, session_id,
                                  confidence, occurred_at, embedding, embedding_model)
SELECT DISTINCT ON (a.tenant_id, a.user_id, a.event_id, a.key, a.item, a.op)
       a.tenant_id, a.user_id, a.event_id, a.key, a.item, a.op, a.value, a.source,
       COALESCE(ARRAY(SELECT jsonb_array_elements_text(a.evidence)), '{}'), a.session_id, a.confidence, a.occurred_at,
       a.embedding, COALESCE(a.embedding_model, '')
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
            $9::jsonb[], $10::text[], $11::float8[], $12::timestamptz[], $13::halfvec[], $14::text[]) WITH ORDINALITY
     AS a(tenant_id, user_id, event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at,
          embedding, embedding_model, n)
ORDER BY a.tenant_id, a.user_id, a.event_id, a.key, a.item, a.op, a.n
ON CONFLICT DO NOTHING
RETURNING tenant_id, user_id, event_id, key, item, op;

-- name: AttributeStatementEmbed
-- Gives statements stored without an embedding the one given (a replay of
-- the extractor with an embedder): only those rows are locked. Returns the
-- rows written.
UPDATE attribute_assertions AS s
SET embedding = a.embedding, embedding_model = a.embedding_model
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::halfvec[], $7::text[])
     AS a(tenant_id, user_id, event_id, item, op, embedding, embedding_model)
WHERE s.tenant_id = a.tenant_id AND s.user_id = a.user_id AND s.event_id = a.event_id AND s.key = 'statements'
  AND s.item = a.item AND s.op = a.op AND s.embedding IS NULL;

-- name: AttributeStatementSimilarity
-- The cosine similarity to a message's vector $4 of each of a user's newest
-- $7 statements (key $3) made before $6 (infinity: now) that is embedded
-- by model $5. Vectors are stored and given at unit length, so the inner
-- product is the cosine.
SELECT event_id, item, (-(embedding <#> $4::halfvec))::float8
FROM (
    SELECT event_id, item, embedding, embedding_model
    FROM attribute_assertions
    WHERE tenant_id = $1 AND user_id = $2 AND key = $3 AND occurred_at < $6
    ORDER BY occurred_at DESC
    LIMIT $7
) s
WHERE embedding_model = $5 AND embedding IS NOT NULL AND vector_dims(embedding) = vector_dims($4::halfvec);

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

-- name: AttributeAssertionListForContext
-- What a context resolves of a user: every assertion of every key but one
-- ($3, the self-statements), and of that key the newest $4 only; oldest
-- first, as AttributeAssertionListByUser. A user's statements grow with
-- their history; a context ranks the newest few hundred of them. None
-- while the user's assertions are still at revision $5 (what the reader
-- holds of them; 0 for nothing: a revision is never 0).
SELECT event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at
FROM (
    SELECT event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at
    FROM attribute_assertions
    WHERE tenant_id = $1 AND user_id = $2 AND (key < $3 OR key > $3)
    UNION ALL
    (SELECT event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at
     FROM attribute_assertions
     WHERE tenant_id = $1 AND user_id = $2 AND key = $3
     ORDER BY occurred_at DESC
     LIMIT $4)
) a
WHERE NOT EXISTS (SELECT 1 FROM attribute_revisions v WHERE v.tenant_id = $1 AND v.user_id = $2 AND v.revision = $5)
ORDER BY occurred_at, event_id, key, item, op;

-- name: AttributeRevision
-- The revision of a user's assertions (attribute_revisions): no row for a
-- user who never had any, or was forgotten since.
SELECT revision FROM attribute_revisions WHERE tenant_id = $1 AND user_id = $2;

-- name: AttributeAssertionListForContextBefore
-- AttributeAssertionListForContext as the user stood before $5.
SELECT event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at
FROM (
    SELECT event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at
    FROM attribute_assertions
    WHERE tenant_id = $1 AND user_id = $2 AND (key < $3 OR key > $3) AND occurred_at < $5
    UNION ALL
    (SELECT event_id, key, item, op, value, source, evidence, session_id, confidence, occurred_at
     FROM attribute_assertions
     WHERE tenant_id = $1 AND user_id = $2 AND key = $3 AND occurred_at < $5
     ORDER BY occurred_at DESC
     LIMIT $4)
) a
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
