package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/recallhq/recall/pkg/events"
)

// SearchRow is one of a user's search entries as a SearchScan reads it:
// what ranking needs of it. A search reads every entry of the user, so a
// row is kept small: its texts share one allocation, and of its terms only
// the query terms' frequencies are kept.
type SearchRow struct {
	Kind, SourceID, SessionID, Role string
	// AgentID and Text are the entry's agent and text (its snippet).
	AgentID, Text string
	// OccurredAt is the entry's event time.
	OccurredAt time.Time
	// TermCount is the entry's number of terms: BM25's document length.
	TermCount int32
	// Live is false for a fact that is no longer active.
	Live bool
	// TF is the frequency of each distinct query term in the entry, in the
	// order of their first occurrence in the query's terms
	// (SearchScan.NumTerms of them); nil when it holds none.
	TF []int32
	// Terms are the entry's terms in tsvectorsend's binary form, kept only
	// by a scan told to (SearchScan.KeepTerms); empty otherwise.
	Terms string
	// Distance is the cosine distance to the query vector, when the entry
	// is embedded by the query's model; HasDistance says whether it is.
	Distance    float64
	HasDistance bool
}

// SearchStats are the statistics of a large user's whole history that a
// search read through indexes (SearchScan.Large) ranks its rows by, in
// place of counting them among the rows read: the number of entries, their
// terms (BM25's average length is Terms / Entries), and the number of
// entries holding each query term (DF, in the order of a row's TF; -1 for
// a term whose number is not known: one a search's feedback added,
// SearchScan.Rescore).
type SearchStats struct {
	Entries, Terms float64
	DF             []float64
}

// searchColumns are SearchScan's columns, in order, with the types
// decodeSearchRow reads: in binary format, which pgx asks for these types
// (a text is the same either way).
var searchColumns = [...]struct {
	name string
	oid  uint32
}{
	{"kind", pgtype.TextOID}, {"source_id", pgtype.TextOID}, {"session_id", pgtype.TextOID}, {"role", pgtype.TextOID},
	{"occurred_at", pgtype.TimestamptzOID}, {"term_count", pgtype.Int4OID}, {"agent_id", pgtype.TextOID},
	{"body", pgtype.TextOID}, {"terms", pgtype.ByteaOID}, {"distance", pgtype.Float8OID}, {"live", pgtype.BoolOID},
	{"stats", pgtype.Float8ArrayOID},
}

// readSearchRows reads the scan's rows, appending them to out: one
// allocation for each row's texts, and only the query terms' frequencies
// kept of its terms (index: term -> place). A user's whole history is read
// on every search of a user below the switch to indexes, so this is the
// search's hottest loop. With before set, the rows of entries at or after
// it are passed over unread (SearchScan.Before); with keep, each row keeps
// its terms (SearchScan.KeepTerms). The statistics a row carries
// (SearchCandidates' stats) are decoded once, into stats. seen counts the
// rows returned, those passed over included.
func readSearchRows(rows pgx.Rows, index *queryTerms, before time.Time, keep bool, out []SearchRow, stats **SearchStats) (_ []SearchRow, seen int, _ error) {
	defer rows.Close()
	checked, bounded := false, !before.IsZero()
	for rows.Next() {
		seen++
		// The columns are checked with the first row: a failed statement
		// (a cancelled request, an aborted batch) has none, and says why
		// in Err.
		if !checked {
			if err := checkSearchColumns(rows.FieldDescriptions()); err != nil {
				return nil, seen, err
			}
			checked = true
		}
		v := rows.RawValues()
		if *stats == nil && v[11] != nil {
			st, err := decodeSearchStats(v[11])
			if err != nil {
				return out, seen, fmt.Errorf("search scan: stats: %w", err)
			}
			*stats = st
		}
		if bounded && len(v[4]) == 8 && !pgTimestamp(v[4]).Before(before) {
			continue
		}
		out = append(out, SearchRow{})
		if err := decodeSearchRow(v, index, keep, &out[len(out)-1]); err != nil {
			return out, seen, fmt.Errorf("search scan: row %d: %w", len(out), err)
		}
	}
	return out, seen, rows.Err()
}

// decodeSearchStats decodes SearchCandidates' stats: a one-dimensional
// float8 array in binary form (dimensions, a flag for NULLs, the element
// type; each dimension's length and lower bound; each element's length and
// value), the entries and their terms, then each query term's entries.
func decodeSearchStats(b []byte) (*SearchStats, error) {
	u32 := func(at int) int { return int(binary.BigEndian.Uint32(b[at:])) }
	if len(b) < 20 || u32(0) != 1 || u32(8) != pgtype.Float8OID {
		return nil, errors.New("not a one-dimensional float8 array")
	}
	n := u32(12)
	if n < 2 || len(b) != 20+12*n {
		return nil, errors.New("malformed float8 array")
	}
	vals := make([]float64, n)
	for i := range vals {
		at := 20 + 12*i
		if u32(at) != 8 {
			return nil, errors.New("NULL or malformed element")
		}
		vals[i] = math.Float64frombits(binary.BigEndian.Uint64(b[at+4:]))
	}
	return &SearchStats{Entries: vals[0], Terms: vals[1], DF: vals[2:]}, nil
}

// checkSearchColumns checks that the scan's columns are what
// decodeSearchRow and decodeSearchStats read.
func checkSearchColumns(fields []pgconn.FieldDescription) error {
	if len(fields) != len(searchColumns) {
		return fmt.Errorf("search scan: %d columns, want %d", len(fields), len(searchColumns))
	}
	for i, f := range fields {
		// A text is the same bytes in either format.
		if c := searchColumns[i]; f.Name != c.name || f.DataTypeOID != c.oid || (f.Format != pgx.BinaryFormatCode && c.oid != pgtype.TextOID) {
			return fmt.Errorf("search scan: column %d is %s (type %d, format %d), want %s (type %d) in binary",
				i, f.Name, f.DataTypeOID, f.Format, c.name, c.oid)
		}
	}
	return nil
}

// pgEpoch is where PostgreSQL's binary timestamps count from.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// pgTimestamp decodes a timestamptz in binary format (8 bytes).
func pgTimestamp(b []byte) time.Time {
	return pgEpoch.Add(time.Duration(int64(binary.BigEndian.Uint64(b))) * time.Microsecond)
}

// decodeSearchRow decodes one row of SearchScan in binary format, keeping
// its terms with keep.
func decodeSearchRow(v [][]byte, index *queryTerms, keep bool, e *SearchRow) error {
	for _, i := range [...]int{0, 1, 2, 3, 4, 5, 6, 7, 10} {
		if v[i] == nil {
			return fmt.Errorf("%s is NULL", searchColumns[i].name)
		}
	}
	if len(v[4]) != 8 || len(v[5]) != 4 || len(v[10]) != 1 {
		return errors.New("malformed binary value")
	}
	// The texts share one string: source, session, agent, body, and the
	// terms when they are kept; kind and role are one of a few words.
	var terms []byte
	if keep {
		terms = v[8]
	}
	var b strings.Builder
	b.Grow(len(v[1]) + len(v[2]) + len(v[6]) + len(v[7]) + len(terms))
	for _, i := range [...]int{1, 2, 6, 7} {
		b.Write(v[i])
	}
	b.Write(terms)
	all := b.String()
	cut := func(n int) string {
		s := all[:n]
		all = all[n:]
		return s
	}
	e.SourceID, e.SessionID, e.AgentID, e.Text = cut(len(v[1])), cut(len(v[2])), cut(len(v[6])), cut(len(v[7]))
	e.Terms = cut(len(terms))
	e.Kind, e.Role = knownWord(v[0]), knownWord(v[3])
	e.OccurredAt = pgTimestamp(v[4])
	e.TermCount = int32(binary.BigEndian.Uint32(v[5]))
	e.Live = v[10][0] != 0
	if v[9] != nil {
		if len(v[9]) != 8 {
			return errors.New("malformed distance")
		}
		e.Distance, e.HasDistance = math.Float64frombits(binary.BigEndian.Uint64(v[9])), true
	}
	if v[8] != nil {
		tf, err := rowFrequencies(v[8], index)
		if err != nil {
			return err
		}
		e.TF = tf
	}
	return nil
}

// rowFrequencies returns the frequencies of index's terms in a row's terms
// (tsvectorsend's form; see SearchRow.TF): nil when it holds none of them.
func rowFrequencies[T string | []byte](terms T, index *queryTerms) ([]int32, error) {
	if len(terms) == 0 || len(index.index) == 0 {
		return nil, nil
	}
	tf := make([]int32, len(index.index))
	found, err := tsvectorFrequencies(terms, index, tf)
	if err != nil || !found {
		return nil, err
	}
	return tf, nil
}

// knownWord returns b as a string, without allocating for the kinds and
// roles an entry has.
func knownWord(b []byte) string {
	switch string(b) {
	case SearchMessage:
		return SearchMessage
	case SearchSummary:
		return SearchSummary
	case SearchFact:
		return SearchFact
	case events.RoleUser:
		return events.RoleUser
	case events.RoleAssistant:
		return events.RoleAssistant
	case events.RoleTool:
		return events.RoleTool
	case events.RoleSystem:
		return events.RoleSystem
	case "":
		return ""
	}
	return string(b)
}

// tsvectorFrequencies reads a tsvector in PostgreSQL's binary form
// (tsvectorsend: the number of lexemes; then each lexeme's text, a NUL, its
// number of positions and the positions, 16 bits each) and sets
// tf[index[lexeme]] to the number of positions of each lexeme index holds
// (1 for a lexeme stored without positions); found says whether it held
// any. The form is read from the bytes of a row as it arrives, or from the
// string a row kept (SearchRow.Terms).
func tsvectorFrequencies[T string | []byte](b T, index *queryTerms, tf []int32) (found bool, err error) {
	if len(b) < 4 {
		return false, errors.New("malformed tsvector")
	}
	n := int(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
	b = b[4:]
	for range n {
		end := indexNUL(b)
		if end < 0 || len(b) < end+3 {
			return false, errors.New("malformed tsvector")
		}
		npos := int(b[end+1])<<8 | int(b[end+2])
		if j, ok := place(index, b[:end]); ok {
			tf[j] = int32(max(npos, 1))
			found = true
		}
		b = b[end+3:]
		if len(b) < 2*npos {
			return false, errors.New("malformed tsvector")
		}
		b = b[2*npos:]
	}
	return found, nil
}

// indexNUL is the place of the first NUL byte of b, -1 when there is none.
// A loop: lexemes are a few bytes long, shorter than bytes.IndexByte pays
// off on (measured: BenchmarkTSVectorFrequencies).
func indexNUL[T string | []byte](b T) int {
	for i := 0; i < len(b); i++ {
		if b[i] == 0 {
			return i
		}
	}
	return -1
}

// queryTerms are a query's terms as a scan looks for them among a row's
// lexemes: each distinct term's place in SearchRow.TF, and a filter that
// passes over most lexemes without hashing them (the lengths and the first
// bytes the terms have): a search reads every lexeme of every entry of the
// user's history.
type queryTerms struct {
	index map[string]int
	lens  [4]uint64 // bit n: a term of n bytes, for n < 256
	first [4]uint64 // bit c: a term whose first byte is c
	long  bool      // a term of 256 bytes or more
}

// termIndex gives each distinct query term its place in SearchRow.TF.
func termIndex(terms []string) *queryTerms {
	index := make(map[string]int, len(terms))
	for _, t := range terms {
		if _, ok := index[t]; !ok && t != "" {
			index[t] = len(index)
		}
	}
	return termsOf(index)
}

// termsOf is the filter of the terms placed by index.
func termsOf(index map[string]int) *queryTerms {
	q := &queryTerms{index: index}
	for t := range index {
		if t == "" {
			continue
		}
		if len(t) >= 256 {
			q.long = true
		} else {
			q.lens[len(t)/64] |= 1 << (len(t) % 64)
		}
		q.first[t[0]/64] |= 1 << (t[0] % 64)
	}
	return q
}

// place is the place of lexeme among the terms, ok false when it is none
// of them.
func place[T string | []byte](q *queryTerms, lexeme T) (int, bool) {
	n := len(lexeme)
	switch {
	case n == 0:
		return 0, false
	case n >= 256:
		if !q.long {
			return 0, false
		}
	case q.lens[n/64]&(1<<(n%64)) == 0:
		return 0, false
	}
	if c := lexeme[0]; q.first[c/64]&(1<<(c%64)) == 0 {
		return 0, false
	}
	j, ok := q.index[string(lexeme)]
	return j, ok
}
