-- The bookshelf and interest vectors: a tenant's catalog, its users' shelves, and
-- one interest vector per user.

-- Catalog items. Embeddings have no fixed dimension (the embedding model is a
-- deployment choice); dims records each row's, and the HNSW index is a partial
-- expression index per dimension, created by the workers for the dimension they
-- embed with (see store.EnsureCatalogIndex).
CREATE TABLE catalog_items (
    tenant_id       text        NOT NULL,
    ref             text        NOT NULL,
    type            text        NOT NULL DEFAULT '',
    title           text        NOT NULL DEFAULT '',
    attrs           jsonb,
    embedding       vector,
    embedding_model text,
    dims            integer,
    deleted         boolean     NOT NULL DEFAULT false,
    -- The event that wrote the row. Last writer wins by event time, with the
    -- event id breaking ties, so redelivery and replay in any order converge.
    source_event_id text        NOT NULL,
    source_event_at timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, ref),
    CHECK ((embedding IS NULL) = (dims IS NULL) AND (embedding IS NULL) = (embedding_model IS NULL)),
    CHECK (embedding IS NULL OR vector_dims(embedding) = dims)
);

-- A user's status per catalog item; 'removed' rows are kept as tombstones so
-- that an older entry replayed later cannot put the item back.
CREATE TABLE shelf_items (
    tenant_id   text        NOT NULL,
    user_id     text        NOT NULL,
    ref         text        NOT NULL,
    status      text        NOT NULL CHECK (status IN ('want', 'reading', 'read', 'abandoned', 'removed')),
    occurred_at timestamptz NOT NULL,
    event_id    text        NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id, ref)
);

-- Finds the users who hold an item whose embedding changed.
CREATE INDEX shelf_items_ref_idx ON shelf_items (tenant_id, ref);

-- One interest vector per user. vector is NULL when nothing gives it a
-- direction yet (no shelf items with embeddings, no facts); sources says what
-- went into it.
CREATE TABLE user_profiles (
    tenant_id     text        NOT NULL,
    user_id       text        NOT NULL,
    vector        vector,
    model         text        NOT NULL,
    dims          integer     NOT NULL,
    sources       jsonb       NOT NULL DEFAULT '{}',
    -- The event time the profile reflects: the newest of the tasks' requested_at
    -- and of the inputs' event times. Fact weights are decayed up to it.
    computed_from timestamptz NOT NULL,
    -- When the inputs were read (the profiler's clock): every change committed
    -- before it is in the vector. Debounce decisions compare against it.
    snapshot_at   timestamptz NOT NULL,
    -- Counts the writes, so that debouncing can be observed.
    revision      bigint      NOT NULL DEFAULT 1,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id),
    CHECK (vector IS NULL OR vector_dims(vector) = dims)
);
