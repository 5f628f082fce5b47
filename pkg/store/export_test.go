package store

// Query and WithDims expose the query text to the external tests, which check
// the plans PostgreSQL makes for it.
var (
	Query    = q
	WithDims = withDims
)
