ALTER TABLE search_entries ALTER COLUMN embedding TYPE vector USING embedding::vector;
