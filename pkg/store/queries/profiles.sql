-- name: ProfileGet
SELECT vector, model, dims, sources, computed_from, snapshot_at, revision, updated_at
FROM user_profiles
WHERE tenant_id = $1 AND user_id = $2;

-- name: ProfileUpsert
-- Stores a computed profile unless the stored one is at least as new in both
-- respects (inputs read no earlier, event time no earlier): two profilers
-- computing the same user at once cannot put an older result over a newer one.
-- Returns the revision written, or no row when nothing was written.
INSERT INTO user_profiles AS p (tenant_id, user_id, vector, model, dims, sources, computed_from, snapshot_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (tenant_id, user_id) DO UPDATE
SET vector        = EXCLUDED.vector,
    model         = EXCLUDED.model,
    dims          = EXCLUDED.dims,
    sources       = EXCLUDED.sources,
    computed_from = EXCLUDED.computed_from,
    snapshot_at   = EXCLUDED.snapshot_at,
    revision      = p.revision + 1,
    updated_at    = now()
WHERE EXCLUDED.snapshot_at >= p.snapshot_at AND EXCLUDED.computed_from >= p.computed_from
  AND (EXCLUDED.snapshot_at > p.snapshot_at OR EXCLUDED.computed_from > p.computed_from)
RETURNING revision;
