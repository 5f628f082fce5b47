// Package textcheck holds what every function that turns a user's text into a
// value Recall stores or shows must keep: the value is valid UTF-8, holds no
// NUL, stays within its bound, and PostgreSQL takes it. The fuzz targets of
// those functions (the extractor's rules, the gazetteer, the segmenter, the
// summarizer, the search analyzer, snippet cutting) check their outputs with
// one Checker, so a property added here holds for all of them, and seed
// themselves from the same real conversations (Seeds).
//
// A turn the API accepted must never fail in a worker for a reason of the
// worker's own code: a value PostgreSQL refuses makes the turn retried and
// then dead-lettered.
package textcheck

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/unicode/norm"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
)

// Acceptable reports whether the API takes s as a turn's text: valid UTF-8
// without NUL (events.Validate refuses anything else, and JSON decoding makes
// every string valid UTF-8). The functions under test only ever see such
// text, so fuzz targets return early for other inputs.
func Acceptable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// Bound is the most a value may hold, as the function that makes it
// documents; a zero field leaves that measure unbounded.
type Bound struct {
	Runes int
	Bytes int
}

// InputBound bounds a value made of the input's own words by a function that
// documents no bound of its own: three times the larger of the input and its
// NFKC form, in bytes. NFKC writes one character as up to 18 (ﷺ, 3 bytes,
// becomes 33), lower-casing a two-byte letter can take three (İ), and a
// function may add a mark of its own; a value past that holds something the
// input did not.
func InputBound(in string) Bound {
	return Bound{Bytes: 3 * max(len(in), len(norm.NFKC.String(in)))}
}

// Problem says what is wrong with a value PostgreSQL is to store: invalid
// UTF-8, a NUL (a text column refuses both) or more than its bound. It
// returns nil for a value that keeps every property.
func Problem(v string, b Bound) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s is not valid UTF-8", Quote(v))
	}
	if i := strings.IndexByte(v, 0); i >= 0 {
		return fmt.Errorf("%s holds a NUL at byte %d", Quote(v), i)
	}
	if b.Bytes > 0 && len(v) > b.Bytes {
		return fmt.Errorf("%s is %d bytes, over its bound of %d", Quote(v), len(v), b.Bytes)
	}
	if n := utf8.RuneCountInString(v); b.Runes > 0 && n > b.Runes {
		return fmt.Errorf("%s is %d characters, over its bound of %d", Quote(v), n, b.Runes)
	}
	return nil
}

// quoteBytes is how much of a value a failure message quotes.
const quoteBytes = 160

// Quote is s as a Go string literal for a failure message, its first
// quoteBytes bytes only when it is longer (fuzz inputs can be megabytes;
// the fuzzer keeps the whole input under testdata/fuzz).
func Quote(s string) string {
	if len(s) <= quoteBytes {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d bytes)", events.ClipUTF8(s, quoteBytes, ""), len(s))
}

// Column is the PostgreSQL type a value is stored as.
type Column string

// The columns values are stored in, each made and indexed like the columns
// it stands for: Text is a text column (a fact's display, a summary, a
// snippet); Key is a text column under a btree index, whose entries
// PostgreSQL bounds (about 2.7 kB), as a fact's value is part of the primary
// keys of facts, fact_mentions and search_entries; TSVector is a tsvector
// column (search_entries.terms). TSQuery is no column: a query's
// terms are cast to a tsquery as a parameter of the search, never stored
// (a row could not hold a long one: tsquery is never moved out of line).
const (
	Text     Column = "text"
	Key      Column = "key"
	TSVector Column = "tsvector"
	TSQuery  Column = "tsquery"
)

// columns are the statements that create each column's temporary table
// and store a batch of values ($1, a text array) in it.
var columns = map[Column]struct{ create, store string }{
	Text: {`CREATE TEMP TABLE stored_text (v text)`,
		`INSERT INTO stored_text SELECT x FROM unnest($1::text[]) AS x`},
	Key: {`CREATE TEMP TABLE stored_key (v text); CREATE INDEX ON stored_key (v)`,
		`INSERT INTO stored_key SELECT x FROM unnest($1::text[]) AS x`},
	TSVector: {`CREATE TEMP TABLE stored_tsvector (v tsvector)`,
		`INSERT INTO stored_tsvector SELECT x::tsvector FROM unnest($1::text[]) AS x`},
	TSQuery: {``, `SELECT count(x::tsquery) FROM unnest($1::text[]) AS x`},
}

// Value is one output of a function under test, with the input it was made
// from.
type Value struct {
	Column Column
	In     string
	Out    string
}

// Checker checks the outputs of one fuzz target. In a plain test run (the
// seed corpus and the regression inputs under testdata/fuzz, no -fuzz) it
// also keeps them and, when the target ends, stores them all in a table of a
// test database (testenv.NewDB), so that PostgreSQL itself judges what a
// predicate could miss. While fuzzing, only the predicate runs: a round trip
// per input would take more of the fuzzer's time than the input itself.
type Checker struct {
	mu     sync.Mutex
	values []Value
	keep   bool
}

// New returns the checker of the fuzz target f.
func New(f *testing.F) *Checker {
	f.Helper()
	c := &Checker{keep: !fuzzing()}
	if c.keep {
		db := testenv.NewDB(f)
		f.Cleanup(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if err := Store(context.Background(), db.URL, c.values); err != nil {
				f.Error(err)
			}
		})
	}
	return c
}

// Load runs load (a dictionary to read, a model to build) before the
// target's first input, in every process that runs inputs: the fuzzer counts
// an input that runs over ten seconds as a hung process, and the first
// input would pay for the load. The fuzzing coordinator runs no input, and
// does not load.
func Load(f *testing.F, load func() error) {
	f.Helper()
	if fuzzing() && !flagSet("test.fuzzworker") {
		return
	}
	if err := load(); err != nil {
		f.Fatalf("textcheck: load: %v", err)
	}
}

// fuzzing reports whether the test binary runs as the fuzzer (-test.fuzz) or
// one of its workers.
func fuzzing() bool {
	if fl := flag.Lookup("test.fuzz"); fl != nil && fl.Value.String() != "" {
		return true
	}
	return flagSet("test.fuzzworker")
}

// flagSet reports whether the boolean test flag name is set.
func flagSet(name string) bool {
	fl := flag.Lookup(name)
	return fl != nil && fl.Value.String() == "true"
}

// Check fails t when out, made from in, breaks a property (Problem), and
// keeps it to be stored in a col column.
func (c *Checker) Check(t *testing.T, col Column, in, out string, b Bound) {
	t.Helper()
	if _, ok := columns[col]; !ok {
		t.Fatalf("textcheck: unknown column %q", col)
	}
	if err := Problem(out, b); err != nil {
		t.Fatalf("made from %s: %v", Quote(in), err)
	}
	if c.keep {
		c.mu.Lock()
		c.values = append(c.values, Value{Column: col, In: in, Out: out})
		c.mu.Unlock()
	}
}

// Store inserts values into temporary tables of the database at url, one
// statement per column, and names the first value PostgreSQL refuses.
func Store(ctx context.Context, url string, values []Value) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("textcheck: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	byColumn := map[Column][]Value{}
	var order []Column
	for _, v := range values {
		if _, ok := columns[v.Column]; !ok {
			return fmt.Errorf("textcheck: unknown column %q", v.Column)
		}
		if byColumn[v.Column] == nil {
			order = append(order, v.Column)
		}
		byColumn[v.Column] = append(byColumn[v.Column], v)
	}
	for _, col := range order {
		stmt := columns[col]
		if stmt.create != "" {
			if _, err := conn.Exec(ctx, stmt.create); err != nil {
				return fmt.Errorf("textcheck: create the %s table: %w", col, err)
			}
		}
		vs := byColumn[col]
		outs := make([]string, len(vs))
		for i, v := range vs {
			outs[i] = v.Out
		}
		_, err := conn.Exec(ctx, stmt.store, outs)
		if err == nil {
			continue
		}
		if ctx.Err() == nil {
			// Find the value refused.
			for _, v := range vs {
				if _, err := conn.Exec(ctx, stmt.store, []string{v.Out}); err != nil {
					return fmt.Errorf("textcheck: PostgreSQL refuses the %s %s made from %s: %w", col, Quote(v.Out), Quote(v.In), err)
				}
			}
		}
		return fmt.Errorf("textcheck: store %d %s values: %w", len(outs), col, err)
	}
	return nil
}

// FuzzText is a fuzz target over one text a user may write: the seed corpus
// (Seeds), a Checker, load run before the first input (Load; nil for none),
// and body for every input the API would accept (Acceptable), in parallel.
func FuzzText(f *testing.F, load func() error, body func(t *testing.T, c *Checker, text string)) {
	f.Helper()
	for _, s := range Seeds(f) {
		f.Add(s)
	}
	c := New(f)
	if load != nil {
		Load(f, load)
	}
	f.Fuzz(func(t *testing.T, text string) {
		t.Parallel()
		if !Acceptable(text) {
			return
		}
		body(t, c, text)
	})
}
