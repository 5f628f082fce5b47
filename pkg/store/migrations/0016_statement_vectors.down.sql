ALTER TABLE attribute_assertions
    DROP COLUMN IF EXISTS embedding,
    DROP COLUMN IF EXISTS embedding_model;
