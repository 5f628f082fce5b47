package store

// Query and WithDims expose the query text to the external tests, which check
// the plans PostgreSQL makes for it; the Q names are the queries they check.
var (
	Query    = q
	WithDims = withDims

	QListItemAt            = qListItemAt
	QCatalogNearest        = qCatalogNearest
	QCatalogSearchSettings = qCatalogSearchSettings
)

// UserTableNames are the tables ForgetUser deletes from.
func UserTableNames() []string {
	out := make([]string, len(userTables))
	for i, ut := range userTables {
		out[i] = ut.table
	}
	return out
}

// MigrationsIn reads migrations from another file system.
var MigrationsIn = migrationsIn

// TSVectorFrequencies is tsvectorFrequencies, for the tests of the search.
var TSVectorFrequencies = tsvectorFrequencies
