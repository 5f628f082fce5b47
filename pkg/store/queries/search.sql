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
                $12::int[], $13::vector[], $14::text[])
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
-- A session's turns and summary. Facts first mentioned in the session are
-- the user's, not the session's, and stay.
DELETE FROM search_entries
WHERE tenant_id = $1 AND session_id = $2 AND kind IN ('message', 'summary');

-- name: UserDeleteSearchEntries
DELETE FROM search_entries WHERE tenant_id = $1 AND user_id = $2;

-- name: SearchHybrid
-- One user's history searched in one statement: lexical rank (BM25) and
-- vector similarity (cosine), fused by reciprocal rank, with a mild recency
-- prior and a cap per session; optionally each turn's neighbours.
--
-- $1 tenant, $2 user; $3 the query's distinct terms and $4 the same as a
-- tsquery ('a' | 'b'); $5 the query vector (NULL: lexical only) and $6 its
-- model; filters $7 session, $8 agent ('' for any), $9 roles, $10 kinds
-- (empty for any), $11 since and $12 until (NULL for open); $13 k; $14 the
-- cap per session (facts count one per fact); $15 the time the recency prior
-- measures age from, $16 its half-life in seconds and $17 its weight; $18
-- whether to read neighbours; $19 how deep each ranked list goes; $20 the
-- weight of the vector list in the fusion.
--
-- BM25: k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5)), with
-- N, the document frequencies and the average length taken over the user's
-- whole history (every kind, whatever the filters), so that a filter
-- narrows the results without changing the weights. A term's frequency is
-- its number of positions in the entry's tsvector; the length is the
-- entry's term count.
--
-- Fusion: score = (1/(10 + lexical rank) + $20 × 1/(10 + vector rank)) ×
-- (1 + $17 × 2^(-age / half-life)), a missing rank adding nothing. The
-- constant is 10, not the 60 of the RRF paper, which fused 1000-deep lists of
-- many strong systems: here two short lists feed a top 10, and 10 lets a
-- list's first place count. Measured with the offline hashing embedder (see
-- search.Searcher): KdConv topic questions MRR 0.66 at 60 and 0.95 at 10,
-- LoCoMo evidence in the top 10 0.24 and 0.40 (vector weights 1 and 0.25). The
-- prior lifts a fresh entry by at most $17 (0.1: the gap between neighbouring
-- places at the top), enough to order near-equal hits, not to overturn
-- relevance. Equal scores share a rank (the same text twice scores the same);
-- ties go to the newer entry.
WITH matched AS (
    -- every entry of the user holding a query term, with its filter verdict
    SELECT e.kind, e.source_id, e.terms, e.term_count,
           (($7 = '' OR e.session_id = $7)
            AND ($8 = '' OR e.agent_id = $8)
            AND (cardinality($9::text[]) = 0 OR e.role = ANY ($9::text[]))
            AND (cardinality($10::text[]) = 0 OR e.kind = ANY ($10::text[]))
            AND ($11::timestamptz IS NULL OR e.occurred_at >= $11::timestamptz)
            AND ($12::timestamptz IS NULL OR e.occurred_at < $12::timestamptz)) AS wanted
    FROM search_entries e
    WHERE e.tenant_id = $1 AND e.user_id = $2 AND ts_match_vq(e.terms, $4::tsquery)
), tf AS (
    SELECT m.kind, m.source_id, m.term_count, m.wanted, t.lexeme, cardinality(t.positions) AS tf
    FROM matched m
    CROSS JOIN LATERAL unnest(m.terms) t
    WHERE t.lexeme = ANY ($3::text[])
), df AS (
    SELECT lexeme, count(*)::float8 AS df FROM tf GROUP BY lexeme
), corpus AS (
    SELECT count(*)::float8 AS n, greatest(avg(term_count), 1)::float8 AS avgdl
    FROM search_entries
    WHERE tenant_id = $1 AND user_id = $2 AND EXISTS (SELECT 1 FROM tf)
), bm25 AS (
    SELECT tf.kind, tf.source_id,
           sum(ln(1 + (c.n - df.df + 0.5) / (df.df + 0.5))
               * tf.tf * 2.2 / (tf.tf + 1.2 * (0.25 + 0.75 * tf.term_count / c.avgdl))) AS score
    FROM tf
    JOIN df USING (lexeme)
    CROSS JOIN corpus c
    WHERE tf.wanted
    GROUP BY tf.kind, tf.source_id
), lexical AS (
    SELECT kind, source_id, score,
           rank() OVER (ORDER BY score DESC) AS rank
    FROM bm25
    ORDER BY score DESC, kind, source_id
    LIMIT $19
), nearest AS (
    SELECT kind, source_id, distance,
           rank() OVER (ORDER BY distance) AS rank
    FROM (
        SELECT e.kind, e.source_id, e.embedding <=> $5::vector AS distance
        FROM search_entries e
        WHERE $5::vector IS NOT NULL
          AND e.tenant_id = $1 AND e.user_id = $2
          AND e.embedding_model = $6
          AND vector_dims(e.embedding) = vector_dims($5::vector)
          AND ($7 = '' OR e.session_id = $7)
          AND ($8 = '' OR e.agent_id = $8)
          AND (cardinality($9::text[]) = 0 OR e.role = ANY ($9::text[]))
          AND (cardinality($10::text[]) = 0 OR e.kind = ANY ($10::text[]))
          AND ($11::timestamptz IS NULL OR e.occurred_at >= $11::timestamptz)
          AND ($12::timestamptz IS NULL OR e.occurred_at < $12::timestamptz)
        ORDER BY distance, e.kind, e.source_id
        LIMIT $19
    ) v
), fused AS (
    SELECT coalesce(l.kind, n.kind) AS kind, coalesce(l.source_id, n.source_id) AS source_id,
           l.rank AS lexical_rank, l.score AS lexical_score,
           n.rank AS vector_rank, 1 - n.distance AS similarity,
           coalesce(1.0 / (10 + l.rank), 0) + $20::float8 * coalesce(1.0 / (10 + n.rank), 0) AS rrf
    FROM lexical l
    FULL JOIN nearest n ON n.kind = l.kind AND n.source_id = l.source_id
), scored AS (
    SELECT f.*, e.session_id, e.agent_id, e.role, e.occurred_at, e.body,
           -- (the exponent is capped: 2^-60 is nothing, and power() fails
           -- on underflow)
           f.rrf * (1 + $17::float8 * power(2::float8, -least(
               greatest(extract(epoch FROM $15::timestamptz - e.occurred_at)::float8, 0) / $16::float8, 60))) AS score
    FROM fused f
    JOIN search_entries e
      ON e.tenant_id = $1 AND e.user_id = $2 AND e.kind = f.kind AND e.source_id = f.source_id
    -- a fact is found while it is active
    WHERE e.kind <> 'fact' OR EXISTS (
        SELECT 1 FROM facts x
        WHERE x.tenant_id = $1 AND x.user_id = $2
          AND x.type = split_part(e.source_id, E'\x1f', 1)
          AND x.value = substr(e.source_id, strpos(e.source_id, E'\x1f') + 1)
          AND x.status = 'active')
), capped AS (
    SELECT s.*,
           row_number() OVER (PARTITION BY CASE WHEN s.kind = 'fact' THEN 'f' || s.source_id ELSE 's' || s.session_id END
                              ORDER BY s.score DESC, s.occurred_at DESC, s.kind, s.source_id) AS nth
    FROM scored s
), top AS (
    SELECT * FROM capped
    WHERE $14::int <= 0 OR nth <= $14::int
    ORDER BY score DESC, occurred_at DESC, kind, source_id
    LIMIT $13
)
SELECT t.kind, t.source_id, t.session_id, t.agent_id, t.role, t.occurred_at, t.body,
       t.score, coalesce(t.lexical_rank, 0), coalesce(t.lexical_score, 0),
       coalesce(t.vector_rank, 0), coalesce(t.similarity, 0),
       p.event_id, p.role, p.occurred_at, p.content,
       x.event_id, x.role, x.occurred_at, x.content
FROM top t
LEFT JOIN LATERAL (
    SELECT m.event_id, m.role, m.occurred_at, m.content
    FROM messages m
    WHERE $18 AND t.kind = 'message'
      AND m.tenant_id = $1 AND m.session_id = t.session_id AND m.user_id = $2 AND m.role <> 'system'
      AND (m.occurred_at, m.event_id) < (t.occurred_at, t.source_id)
    ORDER BY m.occurred_at DESC, m.event_id DESC
    LIMIT 1
) p ON true
LEFT JOIN LATERAL (
    SELECT m.event_id, m.role, m.occurred_at, m.content
    FROM messages m
    WHERE $18 AND t.kind = 'message'
      AND m.tenant_id = $1 AND m.session_id = t.session_id AND m.user_id = $2 AND m.role <> 'system'
      AND (m.occurred_at, m.event_id) > (t.occurred_at, t.source_id)
    ORDER BY m.occurred_at, m.event_id
    LIMIT 1
) x ON true
ORDER BY t.score DESC, t.occurred_at DESC, t.kind, t.source_id;
