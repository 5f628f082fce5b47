package store

import "time"

// Query and WithDims expose the query text to the external tests, which check
// the plans PostgreSQL makes for it; the Q names are the queries they check.
var (
	Query    = q
	WithDims = withDims

	SetNoNestLoop = setNoNestLoop

	QListItemAt            = qListItemAt
	QCatalogNearest        = qCatalogNearest
	QCatalogSearchSettings = qCatalogSearchSettings
	QSummaryRetire         = qSummaryRetire
	QSummaryGetCurrent     = qSummaryGetCurrent
	QSummaryListForContext = qSummaryListForContext
	QSearchScan            = qSearchScan
	QSearchCandidates      = qSearchCandidates
	QSearchDeleteBySession = qSearchDeleteBySession
	QSummaryListCurrent    = qSummaryListCurrent
	QFactListByUserBefore  = qFactListByUserBefore
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

// TSVectorFrequencies is tsvectorFrequencies of the bytes of a row, for the
// tests of the search.
func TSVectorFrequencies(b []byte, index map[string]int, tf []int32) (bool, error) {
	return tsvectorFrequencies(b, termsOf(index), tf)
}

// TSVectorReader is tsvectorFrequencies of the bytes of rows for one
// query's terms, prepared once, as a scan reads them.
func TSVectorReader(index map[string]int) func(b []byte, tf []int32) (bool, error) {
	q := termsOf(index)
	return func(b []byte, tf []int32) (bool, error) { return tsvectorFrequencies(b, q, tf) }
}

// TSVectorFrequenciesKept is tsvectorFrequencies of the terms a row kept.
func TSVectorFrequenciesKept(b string, index map[string]int, tf []int32) (bool, error) {
	return tsvectorFrequencies(b, termsOf(index), tf)
}

// LagSince is lsnHistory's time lag over the samples given (at, lsn
// pairs), for its table test.
func LagSince(samples [][2]int64, keep time.Duration, replay int64, now time.Time) time.Duration {
	var h lsnHistory
	for _, s := range samples {
		h.add(time.Unix(s[0], 0), s[1], keep)
	}
	return h.since(replay, now)
}

// ReplicaFailure is replicaFailure, for its table test.
var ReplicaFailure = replicaFailure
