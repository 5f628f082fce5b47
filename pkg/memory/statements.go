package memory

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/domain"
	"github.com/recallhq/recall/pkg/search"
)

// How a context's statements are chosen: at most matchedFirst of those
// that bear on the message, then at most strongest of the strongest of the
// rest, then the others in the same two orders; the statements' share of
// the budget (CONTEXT_STATEMENT_CHARS) cuts the tail.
const (
	matchedFirst = 6
	strongest    = 4
	// maxStatements bounds what is ranked: the newest of a user's
	// statements.
	maxStatements = 400
)

// pickStatements orders the user's current statements for a message. A
// statement bears on it when they share a term (the search's analyzer:
// stems, Chinese words) or a life domain (relate); among those, more shared
// and more strongly said first. A statement whose matter is a key the
// profile already states (filled: "location", "reply_language") is left
// to the key's line.
func pickStatements(said []attribute.Value, query string, filled map[string]bool) []assemble.Statement {
	if len(said) == 0 {
		return nil
	}
	if len(said) > maxStatements {
		slices.SortFunc(said, func(a, b attribute.Value) int { return b.At.Compare(a.At) })
		said = said[:maxStatements]
	}
	type cand struct {
		v     attribute.Value
		score float64
	}
	an := search.SharedAnalyzer()
	q := map[string]bool{}
	for _, t := range an.Terms(query, nil) {
		q[t] = true
	}
	qd := relate.of(query)
	var matched, rest []cand
	var terms []string
	for _, v := range said {
		if filled[v.Item] {
			continue
		}
		shared := 0
		terms = an.Terms(v.Value, terms[:0])
		seen := map[string]bool{}
		for _, t := range terms {
			if q[t] && !seen[t] {
				seen[t] = true
				shared++
			}
		}
		domains := relate.shared(qd, v.Value)
		c := cand{v: v, score: float64(shared) + 1.5*float64(domains) + v.Confidence}
		if shared+domains > 0 {
			matched = append(matched, c)
		} else {
			rest = append(rest, c)
		}
	}
	byScore := func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.score, a.score), b.v.At.Compare(a.v.At), cmp.Compare(a.v.Item, b.v.Item))
	}
	slices.SortFunc(matched, byScore)
	slices.SortFunc(rest, byScore)
	out := make([]assemble.Statement, 0, len(matched)+len(rest))
	add := func(cs []cand, isMatch bool) {
		for _, c := range cs {
			out = append(out, assemble.Statement{Text: c.v.Value, At: c.v.At, SessionID: c.v.SessionID, Matched: isMatch})
		}
	}
	m1, r1 := min(len(matched), matchedFirst), min(len(rest), strongest)
	add(matched[:m1], true)
	add(rest[:r1], false)
	add(matched[m1:], true)
	add(rest[r1:], false)
	return out
}

// relater finds the life domains (pkg/domain) a message and a statement
// share.
type relater struct{}

var relate relater

func (relater) of(text string) domain.Set { return domain.Of(text) }

// shared is how many domains the statement's text shares with the
// message's.
func (relater) shared(q domain.Set, text string) int {
	if q.Empty() {
		return 0
	}
	return bits.OnesCount32(uint32(q & domain.Of(text)))
}
