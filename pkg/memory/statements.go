package memory

import (
	"cmp"
	"hash/maphash"
	"math"
	"regexp"
	"slices"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/attribute/stated"
	"github.com/recallhq/recall/pkg/domain"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// How a context's statements are chosen: at most matchedFirst of those
// that bear on the message, then at most strongest of the strongest of the
// rest, then the others in the same two orders; the statements' share of
// the budget (CONTEXT_STATEMENT_CHARS) cuts the tail. The strongest come
// early enough that long statements that bear on the message (a choice
// among long options) cannot crowd them out.
const (
	matchedFirst = 4
	strongest    = 3
	// maxStatements bounds what is ranked: the newest of a user's
	// statements.
	maxStatements = 400
	// bearsOn is the least relevance (relevance) that makes a statement
	// bear on a message.
	bearsOn = 0.15
)

// pickStatements orders the user's current statements for a message. A
// statement bears on it by the life domains they share (pkg/domain: the
// cosine of their weights) and the terms they share (the search's
// analyzer: stems, Chinese words; each weighed by how rare it is among the
// user's statements); among those, the more it bears on the message and the
// more strongly it was said, the earlier. A statement whose matter is a key
// the attributes already state (filled: "location", "reply_language") is left
// to the key's line, and of statements that say the same thing only the
// newest is kept.
//
// With an embedder, the message's vector joins in (statementQuery's
// similarity): relative to the user's other statements, the statement
// nearest the message gains embedWeight, one no nearer than their mean
// nothing, in between in proportion.
func pickStatements(said []attribute.Value, sq statementQuery, filled map[string]bool) []assemble.Statement {
	query := sq.text
	if len(said) == 0 {
		return nil
	}
	if len(said) > maxStatements {
		slices.SortFunc(said, func(a, b attribute.Value) int { return b.At.Compare(a.At) })
		said = said[:maxStatements]
	}
	type cand struct {
		v     attribute.Value
		r     read
		score float64
		match bool
	}
	cands := make([]cand, 0, len(said))
	df := map[string]int{}
	seen := map[string]bool{}
	// Newest first, so that of two that say the same the newest is kept.
	slices.SortStableFunc(said, func(a, b attribute.Value) int { return b.At.Compare(a.At) })
	for _, v := range said {
		if filled[v.Item] {
			continue
		}
		r := readStatement(v.Value)
		if seen[r.gist] {
			continue
		}
		seen[r.gist] = true
		for _, t := range r.terms {
			df[t]++
		}
		cands = append(cands, cand{v: v, r: r})
	}
	q := readQuery(query)
	n := float64(len(cands))
	near := nearness(cands, func(c cand) (float64, bool) {
		sim, ok := sq.similarity[store.StatementKey(c.v.EventID, c.v.Item)]
		return sim, ok
	})
	for i := range cands {
		c := &cands[i]
		rel := embed.Cosine(q.domains[:], c.r.domains[:]) + embedWeight*near[i]
		var terms float64
		for _, t := range c.r.terms {
			if q.has[t] {
				terms += math.Log(1 + n/float64(df[t]))
			}
		}
		if len(c.r.terms) > 0 {
			terms /= math.Sqrt(float64(len(c.r.terms)))
		}
		rel += 0.5 * terms
		c.match = rel >= bearsOn
		// Strength counts twice: what the user said strongly (an allergy,
		// "I strongly dislike") bears more on an answer in its domain than a
		// plan or a passing interest does.
		c.score = rel * (0.3 + c.v.Confidence)
		if !c.match {
			// Whatever the message: the strongest first, and what the user
			// keeps away from (an allergy, a fear, a dislike) before what
			// they like at the same strength: an answer that ignores it
			// does harm.
			c.score = c.v.Confidence
			if c.r.negative {
				c.score += 0.1
			}
		}
	}
	byScore := func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.score, a.score), b.v.At.Compare(a.v.At), cmp.Compare(a.v.Item, b.v.Item))
	}
	var matched, rest []cand
	for _, c := range cands {
		if c.match {
			matched = append(matched, c)
		} else {
			rest = append(rest, c)
		}
	}
	slices.SortFunc(matched, byScore)
	slices.SortFunc(rest, byScore)
	out := make([]assemble.Statement, 0, len(cands))
	add := func(cs []cand, isMatch bool) {
		for _, c := range cs {
			out = append(out, assemble.Statement{Text: c.v.Value, At: c.v.At, SessionID: c.v.SessionID, EventID: c.v.EventID, Matched: isMatch})
		}
	}
	r1 := min(len(rest), strongest)
	m1 := min(len(matched), matchedFirst)
	add(matched[:m1], true)
	add(rest[:r1], false)
	add(matched[m1:], true)
	add(rest[r1:], false)
	return out
}

// statementQuery is what statements are chosen for: the message, and the
// cosine similarity of the user's embedded statements to its vector (by
// store.StatementKey; nil without an embedder or a vector).
type statementQuery struct {
	text       string
	similarity map[string]float64
}

// embedWeight is what the embedder's similarity adds to the statement
// nearest the message: enough to make it bear on the message (bearsOn).
const embedWeight = 0.3

// nearness is each item's similarity to the message relative to the
// others': 1 for the nearest, 0 at or below their mean, linear between.
// Cosines of different embedding models live on different scales; their
// order and spread within one user's statements do not. Items without a
// similarity (not embedded, or by another model) get 0; with fewer than
// three measured, all do.
func nearness[T any](items []T, sim func(T) (float64, bool)) []float64 {
	out := make([]float64, len(items))
	var sum, top float64
	measured := 0
	top = math.Inf(-1)
	for _, it := range items {
		if s, ok := sim(it); ok {
			sum += s
			top = max(top, s)
			measured++
		}
	}
	if measured < 3 {
		return out
	}
	mean := sum / float64(measured)
	if top-mean <= 1e-9 {
		return out
	}
	for i, it := range items {
		if s, ok := sim(it); ok && s > mean {
			out[i] = (s - mean) / (top - mean)
		}
	}
	return out
}

// read is what ranking needs of a statement's text, worked out once per
// text and kept (statements do not change; the same ones are ranked for
// every message of their user).
type read struct {
	terms   []string // distinct
	domains domain.Vector
	// gist is the text's terms in order: two statements with the same
	// gist say the same thing.
	gist string
	// negative: the statement keeps the user away from something
	// (stated.Said.Negative).
	negative bool
}

var (
	readCache, _ = lru.New[uint64, read](20000)
	readSeed     = maphash.MakeSeed()
)

func readStatement(text string) read {
	h := maphash.String(readSeed, text)
	if r, ok := readCache.Get(h); ok {
		return r
	}
	all := search.SharedAnalyzer().Terms(text, nil)
	r := read{domains: domain.Scores(text)}
	for _, st := range stated.Self(text) {
		r.negative = r.negative || st.Negative
	}
	seen := map[string]bool{}
	for _, t := range all {
		if !seen[t] {
			seen[t] = true
			r.terms = append(r.terms, t)
		}
		r.gist += t + " "
	}
	readCache.Add(h, r)
	return r
}

// query is what ranking needs of the message.
type query struct {
	has     map[string]bool
	domains domain.Vector
}

func readQuery(text string) query {
	q := query{has: map[string]bool{}, domains: domain.Scores(text)}
	for _, t := range search.SharedAnalyzer().Terms(text, nil) {
		q.has[t] = true
	}
	return q
}

// recalledFirst is how many of the recalled hits, most relevant first, a
// statement gives way to: the budget all but always keeps them.
const recalledFirst = 8

// withoutRecalled leaves out the statements whose turn, holding their words,
// is among the first hits the history search recalled for the message: the
// prompt shows that turn, dated, in the recalled part, and the budget goes
// to something else.
func withoutRecalled(st []assemble.Statement, r *assemble.Recalled) []assemble.Statement {
	if r == nil || len(st) == 0 {
		return st
	}
	shown := map[string]string{}
	for _, h := range r.Hits[:min(len(r.Hits), recalledFirst)] {
		shown[h.EventID] = h.Text
	}
	// Only what the turn's own words say: a choice is the option the reply
	// offered, which the pick's turn does not hold.
	return slices.DeleteFunc(st, func(s assemble.Statement) bool {
		text, ok := shown[s.EventID]
		return ok && strings.Contains(text, s.Text)
	})
}

// asksAdvice matches a message that asks for a suggestion, a
// recommendation, a choice, a plan or the assistant's judgment of the
// user's situation ("what do you think?", "could there be a reason?"):
// where who the user is bears on the answer most.
var asksAdvice = regexp.MustCompile(`(?i)\b(?:what do you think|do you think|could (?:there|it|this|that) be|is it (?:a good idea|worth)|recommend\w*|suggest\w*|ideas?|tips?|advice|advise|should i|what (?:can|could) i|best (?:way|place|option|time)s?|where (?:can|could|should) i|help me (?:choose|find|plan|pick|decide|with)|looking for|planning|plan (?:a|my|to)|options?|what are some|any good|for me|would you|ways? to|how (?:can|do|should) i|what(?: would|'s| is| are) (?:be )?(?:a |some )?(?:good|great|nice))\b|推荐|建议|有什么好|怎么选|帮我|适合我|应该|计划|打算|想去|哪里|哪些|你觉得|怎么看`)

// statementLimit is the statements' share of a context's budget: all of
// CONTEXT_STATEMENT_CHARS for a message that asks for advice (or none at
// all); for another message a third of it, out of what the other parts
// leave (last): a question about what happened is answered from the
// history, which the budget goes to first.
func statementLimit(chars int, query string) (limit int, last bool) {
	switch {
	case chars <= 0:
		return 0, false
	case query == "" || asksAdvice.MatchString(query):
		return chars, false
	default:
		return max(chars/3, 1), true
	}
}
