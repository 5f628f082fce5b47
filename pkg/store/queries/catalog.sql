-- name: CatalogUpsertBatch
-- Applies a batch of catalog events, at most one per (tenant, ref): the newest
-- event by (event time, event id) wins, so redelivery and replays in any order
-- converge (a replay with another embedding model re-embeds). A deletion keeps the item's data (only the flag changes), or leaves
-- a tombstone when the item was never seen, so an older event replayed later
-- cannot bring it back. Returns the items whose embedding changed (users who
-- hold them need a new vector), plus the forced ones (redelivered: the refresh
-- may not have been published the first time), with the event time.
WITH rows AS (
    SELECT *
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::vector[],
                $7::text[], $8::int[], $9::boolean[], $10::text[], $11::timestamptz[], $12::boolean[])
      AS r(tenant_id, ref, type, title, attrs, embedding, embedding_model, dims, deleted, event_id, occurred_at, force)
), old AS (
    SELECT c.tenant_id, c.ref, c.embedding
    FROM catalog_items c
    JOIN rows r ON r.tenant_id = c.tenant_id AND r.ref = c.ref
), up AS (
    INSERT INTO catalog_items AS c (tenant_id, ref, type, title, attrs, embedding, embedding_model, dims,
                                    deleted, source_event_id, source_event_at)
    SELECT tenant_id, ref, type, title, attrs, embedding, embedding_model, dims, deleted, event_id, occurred_at
    FROM rows
    ORDER BY tenant_id, ref
    ON CONFLICT (tenant_id, ref) DO UPDATE
    SET type            = CASE WHEN EXCLUDED.deleted THEN c.type ELSE EXCLUDED.type END,
        title           = CASE WHEN EXCLUDED.deleted THEN c.title ELSE EXCLUDED.title END,
        attrs           = CASE WHEN EXCLUDED.deleted THEN c.attrs ELSE EXCLUDED.attrs END,
        embedding       = CASE WHEN EXCLUDED.deleted THEN c.embedding ELSE EXCLUDED.embedding END,
        embedding_model = CASE WHEN EXCLUDED.deleted THEN c.embedding_model ELSE EXCLUDED.embedding_model END,
        dims            = CASE WHEN EXCLUDED.deleted THEN c.dims ELSE EXCLUDED.dims END,
        deleted         = EXCLUDED.deleted,
        source_event_id = EXCLUDED.source_event_id,
        source_event_at = EXCLUDED.source_event_at,
        updated_at      = now()
    WHERE (EXCLUDED.source_event_at, EXCLUDED.source_event_id) > (c.source_event_at, c.source_event_id)
       -- The same event replayed after the deployment changed its embedding
       -- model re-embeds the item: replaying the catalog is how a new model
       -- reaches the stored items.
       OR ((EXCLUDED.source_event_at, EXCLUDED.source_event_id) = (c.source_event_at, c.source_event_id)
           AND NOT EXCLUDED.deleted AND EXCLUDED.embedding IS NOT NULL
           AND EXCLUDED.embedding_model IS DISTINCT FROM c.embedding_model)
    RETURNING c.tenant_id, c.ref, c.embedding, c.source_event_at
)
SELECT up.tenant_id, up.ref, up.source_event_at
FROM up
LEFT JOIN old ON old.tenant_id = up.tenant_id AND old.ref = up.ref
WHERE up.embedding IS DISTINCT FROM old.embedding
UNION
SELECT tenant_id, ref, occurred_at FROM rows WHERE force;

-- name: ShelfUpsertBatch
-- Applies a batch of shelf entries, at most one per (tenant, user, ref), last
-- writer wins by (event time, event id). Returns each user whose shelf changed
-- (or whose entry was redelivered, forced) with the newest event time.
WITH rows AS (
    SELECT *
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::boolean[])
      AS r(tenant_id, user_id, ref, status, occurred_at, event_id, force)
), up AS (
    INSERT INTO shelf_items AS s (tenant_id, user_id, ref, status, occurred_at, event_id)
    SELECT tenant_id, user_id, ref, status, occurred_at, event_id
    FROM rows
    ORDER BY tenant_id, user_id, ref
    ON CONFLICT (tenant_id, user_id, ref) DO UPDATE
    SET status      = EXCLUDED.status,
        occurred_at = EXCLUDED.occurred_at,
        event_id    = EXCLUDED.event_id,
        updated_at  = now()
    WHERE (EXCLUDED.occurred_at, EXCLUDED.event_id) > (s.occurred_at, s.event_id)
    RETURNING s.tenant_id, s.user_id, s.occurred_at
)
SELECT tenant_id, user_id, max(occurred_at)
FROM (
    SELECT tenant_id, user_id, occurred_at FROM up
    UNION ALL
    SELECT tenant_id, user_id, occurred_at FROM rows WHERE force
) changed
GROUP BY tenant_id, user_id;

-- name: ShelfHoldersByRefs
-- The users (per tenant) who have any of the given items on their shelf, with
-- the newest of the items' event times.
SELECT s.tenant_id, s.user_id, max(r.occurred_at)
FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS r(tenant_id, ref, occurred_at)
JOIN shelf_items s ON s.tenant_id = r.tenant_id AND s.ref = r.ref
WHERE s.status <> 'removed'
GROUP BY s.tenant_id, s.user_id;

-- name: CatalogItemGet
SELECT ref, type, title, attrs, embedding, embedding_model, coalesce(dims, 0), deleted,
       source_event_id, source_event_at, updated_at
FROM catalog_items
WHERE tenant_id = $1 AND ref = $2;

-- name: ShelfListByUser
-- A user's shelf (removed items left out) with each item's embedding, when the
-- catalog has one: the inputs of the user's interest vector; with the item's
-- title and type, for people reading it.
SELECT s.ref, s.status, s.occurred_at, c.embedding, coalesce(c.embedding_model, ''),
       coalesce(c.title, ''), coalesce(c.type, '')
FROM shelf_items s
LEFT JOIN catalog_items c ON c.tenant_id = s.tenant_id AND c.ref = s.ref
WHERE s.tenant_id = $1 AND s.user_id = $2 AND s.status <> 'removed'
ORDER BY s.ref;

-- name: CatalogSearchSettings
-- Session settings of a nearest-neighbour search, for its transaction only.
-- Iterative scans keep walking the HNSW graph until the filters (tenant,
-- model, not on the shelf) have let LIMIT rows through, instead of filtering
-- the first ef_search candidates and returning fewer; relaxed order lets them
-- return slightly out of order, which CatalogNearest re-sorts exactly.
SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', $1::text, true);

-- name: CatalogNearest
-- The tenant's items nearest to a vector by cosine distance, leaving out
-- deleted items, items of another embedding model and items on the user's
-- shelf. {{dims}} is the vector's dimension as an integer literal: the HNSW
-- index is a partial expression index per dimension, and the planner uses it
-- only when the query spells the same expression (embedding::vector(N)) and
-- a predicate that implies the index's (dims = N AND NOT deleted) as
-- constants. The inner query may come out of the index in relaxed order; the
-- outer one orders exactly.
WITH candidates AS MATERIALIZED (
    SELECT c.ref, c.type, c.title, c.attrs,
           c.embedding::vector({{dims}}) <=> $3::vector({{dims}}) AS distance
    FROM catalog_items c
    WHERE c.tenant_id = $1
      AND c.dims = {{dims}} AND NOT c.deleted
      AND c.embedding_model = $4
      AND NOT EXISTS (
          SELECT 1 FROM shelf_items s
          WHERE s.tenant_id = $1 AND s.user_id = $2 AND s.ref = c.ref AND s.status <> 'removed')
    ORDER BY c.embedding::vector({{dims}}) <=> $3::vector({{dims}})
    LIMIT $5
)
SELECT ref, type, title, attrs, distance
FROM candidates
ORDER BY distance, ref;

-- name: CatalogIndexCreate
-- The HNSW index for one dimension (see CatalogNearest). Built concurrently so
-- that catalog writes go on while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS catalog_items_hnsw_{{dims}} ON catalog_items
USING hnsw ((embedding::vector({{dims}})) vector_cosine_ops)
WHERE dims = {{dims}} AND NOT deleted;

-- name: CatalogIndexValid
-- Whether an index exists and is valid; a concurrent build that failed leaves
-- an invalid index behind, which IF NOT EXISTS would then keep forever.
SELECT i.indisvalid
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace;

-- name: CatalogIndexDrop
DROP INDEX CONCURRENTLY IF EXISTS catalog_items_hnsw_{{dims}};

-- name: CatalogNamesList
-- The names a tenant's catalog knows, for matching them in chat text: each live
-- item's type and title, and the people named in its attributes.
SELECT type, title,
       ARRAY(SELECT jsonb_array_elements_text(CASE jsonb_typeof(v) WHEN 'array' THEN v ELSE jsonb_build_array(v) END)
             FROM jsonb_each(coalesce(attrs, '{}'::jsonb)) AS a(k, v)
             WHERE k IN ('author', 'authors', 'artist', 'artists', 'director', 'directors', 'actor', 'actors', 'singer')
               AND jsonb_typeof(v) IN ('string', 'array')) AS people
FROM catalog_items
WHERE tenant_id = $1 AND NOT deleted AND title <> ''
ORDER BY ref
LIMIT $2;
