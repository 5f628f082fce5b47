CREATE INDEX IF NOT EXISTS search_entries_terms_idx ON search_entries USING gin (terms);
