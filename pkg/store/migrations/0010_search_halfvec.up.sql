-- Search embeddings at half precision (pgvector's halfvec, 0.7 or newer):
-- a search reads every entry of the user, so the row's width is the scan's
-- cost, and a 256-dimension vector was two thirds of it. Measured on 1M
-- entries (10k users of 100 LoCoMo turns, 256 dimensions, pgbench of
-- SearchScan, 32 clients on 2 cores): heap 1523 MB -> 974 MB, table with
-- its indexes 1669 MB -> 1065 MB, 4270 -> 4890 scans/s. Cosine distance
-- does not depend on a vector's length, so vectors are stored at unit
-- length, which keeps every component within half precision's range.
DO $$
BEGIN
    IF to_regtype('halfvec') IS NULL THEN
        RAISE EXCEPTION 'pgvector % has no halfvec type: version 0.7.0 or newer is needed (ALTER EXTENSION vector UPDATE)',
            (SELECT extversion FROM pg_extension WHERE extname = 'vector');
    END IF;
END
$$;

ALTER TABLE search_entries
    ALTER COLUMN embedding TYPE halfvec USING l2_normalize(embedding)::halfvec;
