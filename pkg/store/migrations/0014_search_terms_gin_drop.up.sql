-- The GIN index of search_entries' terms is dropped: no statement reads it.
-- A search reads the user's range of the primary key and tests each entry's
-- terms against the query there (SearchScan); the index was made for an
-- earlier search that looked up entries by a rare term, and has not been
-- planned since that search became one scan of the range. Every entry
-- written still paid for it: an insert of each of its terms (a turn of
-- LongMemEval has a hundred or more), the largest of the table's indexes
-- (37 MB for 138k entries, against 21 MB for the primary key), and the
-- writes of a backfill that keep PostgreSQL busy.
DROP INDEX IF EXISTS search_entries_terms_idx;
