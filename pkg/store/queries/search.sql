-- name: SearchEntryUpsertBatch
-- Stores a batch of search entries in one statement. A repeat of an entry
-- (same tenant, user, kind and source) changes nothing: the row is written
-- only when the incoming revision is newer, or it is the same revision and
-- something differs: its text, terms, attributes, or its embedding model
-- (a replay after a change of embedding model). An entry without an
-- embedding keeps the stored one when its text is unchanged (a vector
-- belongs to its text); with changed text the old vector goes. Within the
-- batch the newest revision of a key wins, and rows are written in key order
-- so that concurrent batches lock them in the same order. Returns the rows
-- written.
WITH rows AS (
    SELECT DISTINCT ON (tenant_id, user_id, kind, source_id) *
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[],
                $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::text[],
                $12::int[], $13::halfvec[], $14::text[])
      AS r(tenant_id, user_id, kind, source_id, revision, session_id,
           agent_id, role, occurred_at, body, terms,
           term_count, embedding, embedding_model)
    ORDER BY tenant_id, user_id, kind, source_id, revision DESC, (embedding IS NOT NULL) DESC
)
INSERT INTO search_entries AS e (tenant_id, user_id, kind, source_id, revision, session_id,
                                 agent_id, role, occurred_at, body, terms, term_count,
                                 embedding, embedding_model)
SELECT tenant_id, user_id, kind, source_id, revision, session_id,
       agent_id, role, occurred_at, body, terms::tsvector, term_count,
       embedding, embedding_model
FROM rows
ORDER BY tenant_id, user_id, kind, source_id
ON CONFLICT (tenant_id, user_id, kind, source_id) DO UPDATE
SET revision        = EXCLUDED.revision,
    session_id      = EXCLUDED.session_id,
    agent_id        = EXCLUDED.agent_id,
    role            = EXCLUDED.role,
    occurred_at     = EXCLUDED.occurred_at,
    body            = EXCLUDED.body,
    terms           = EXCLUDED.terms,
    term_count      = EXCLUDED.term_count,
    embedding       = CASE WHEN EXCLUDED.embedding IS NULL AND EXCLUDED.body = e.body
                           THEN e.embedding ELSE EXCLUDED.embedding END,
    embedding_model = CASE WHEN EXCLUDED.embedding IS NULL AND EXCLUDED.body = e.body
                           THEN e.embedding_model ELSE EXCLUDED.embedding_model END,
    indexed_at      = now()
WHERE EXCLUDED.revision > e.revision
   OR (EXCLUDED.revision = e.revision
       AND (EXCLUDED.body <> e.body
            OR EXCLUDED.terms <> e.terms
            OR EXCLUDED.term_count <> e.term_count
            OR EXCLUDED.session_id <> e.session_id
            OR EXCLUDED.agent_id <> e.agent_id
            OR EXCLUDED.role <> e.role
            OR EXCLUDED.occurred_at <> e.occurred_at
            OR (EXCLUDED.embedding IS NOT NULL
                AND e.embedding_model IS DISTINCT FROM EXCLUDED.embedding_model)));

-- name: SearchEntryDelete
-- Deletes a user's entries of one kind by source.
DELETE FROM search_entries
WHERE tenant_id = $1 AND user_id = $2 AND kind = $3 AND source_id = ANY ($4::text[]);

-- name: SearchDeleteBySession
-- A session's turns and summary. A fact's entry goes with the fact, when no
-- other session mentions it (SessionFactsForget).
DELETE FROM search_entries
WHERE tenant_id = $1 AND session_id = $2 AND kind IN ('message', 'summary');

-- name: UserDeleteSearchEntries
DELETE FROM search_entries WHERE tenant_id = $1 AND user_id = $2;

-- name: SearchScan
-- One user's entries, one row each, as the search ranks them (in Go, package
-- search: search.Find; read by SearchScan): $1 tenant, $2 user; $3 the query as a tsquery ('a' | 'b',
-- NULL for none), $4 the query vector (NULL: none) and $5 its model; $6 true
-- for every entry's terms (SearchScan.KeepTerms: a search its first hits
-- extend scores the same rows again for more terms). Each row has its terms
-- when it holds a query term, or with $6 (tsvectorsend's binary form; NULL
-- otherwise), its cosine distance to the query vector when it is embedded by
-- the query's model, and, for a fact, whether the fact is active; with its
-- text, and the attributes the filters and the hits read (the filters are
-- applied in Go: as expressions here they cost a sixth of the scan). The
-- user's range of the primary key is the only index read: one heap row per
-- entry, no sort, no join, nothing planned per query. The order is the
-- primary key's, which costs nothing on it and is what keeps the plan there
-- when the statement is prepared on a table never analyzed (a new
-- deployment's first contexts): without it the planner took the session
-- index with the tenant as its only condition, a scan of every entry of
-- the tenant for each search, and kept that plan until the next analyze.
SELECT e.kind, e.source_id, e.session_id, e.role, e.occurred_at, e.term_count, e.agent_id, e.body,
       CASE WHEN $6::boolean OR ts_match_vq(e.terms, $3::tsquery) THEN tsvectorsend(e.terms) END AS terms,
       CASE WHEN e.embedding_model = $5 AND vector_dims(e.embedding) = vector_dims($4::halfvec)
            THEN e.embedding <=> $4::halfvec END AS distance,
       e.kind <> 'fact' OR EXISTS (
           SELECT 1 FROM facts x
           WHERE x.tenant_id = $1 AND x.user_id = $2
             AND x.type = split_part(e.source_id, E'\x1f', 1)
             AND x.value = substr(e.source_id, strpos(e.source_id, E'\x1f') + 1)
             AND x.status = 'active') AS live
FROM search_entries e
WHERE e.tenant_id = $1 AND e.user_id = $2
ORDER BY e.kind, e.source_id;
