-- A self-statement's embedding (the key statements), by the embedder the
-- extractor is configured with (EMBED_*), at half precision and unit length
-- as search entries are: a context whose message was embedded by the same
-- model measures each statement against it. NULL when there was no
-- embedder, it failed, or the row is no statement; a replay of the
-- extractor with an embedder fills what is NULL.
ALTER TABLE attribute_assertions
    ADD COLUMN embedding       halfvec,
    ADD COLUMN embedding_model text NOT NULL DEFAULT '';
