package contexteval

import (
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/recallhq/recall/internal/eval/datasets"
)

// BM25 parameters: the usual defaults, which nobody tuned on LoCoMo or
// LongMemEval.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// snippetLine renders a turn the way the context renders a dated snippet of
// past conversation: "[2023-05-08] Caroline: ...".
func snippetLine(t datasets.Turn) string {
	return "[" + t.OccurredAt.UTC().Format("2006-01-02") + "] " + t.Content
}

// fill renders the turns in the given order, one line each, stopping before
// the first line that would take the block over budget characters (newlines
// included). It returns the lines, so the caller picks the order they are
// shown in. budget < 0 means no budget.
func fill(order []datasets.Turn, budget int) []datasets.Turn {
	var out []datasets.Turn
	used := 0
	for _, t := range order {
		n := utf8.RuneCountInString(snippetLine(t))
		if len(out) > 0 {
			n++ // the newline before it
		}
		if budget >= 0 && used+n > budget {
			break
		}
		used += n
		out = append(out, t)
	}
	return out
}

// Prompts are one question's prompts, one per row, in RowNames' order:
// Recall's, then the baselines'.
type Prompts [4]string

// Baselines hold what the baselines need of one user's turns, so that every
// question over them is scored against the same recency and full-history
// prompts and the same BM25 index.
type Baselines struct {
	bm25          *bm25Index
	recency, full string
	budget        int
}

// NewBaselines builds the baselines over turns (in event-time order) at
// budget characters.
func NewBaselines(turns []datasets.Turn, budget int) *Baselines {
	return &Baselines{bm25: newBM25(turns), recency: recencyPrompt(turns, budget), full: fullHistoryPrompt(turns), budget: budget}
}

// Prompts are the rows' prompts for the question query, given Recall's.
func (b *Baselines) Prompts(recall, query string) Prompts {
	return Prompts{recall, b.bm25.prompt(query, b.budget), b.recency, b.full}
}

// render joins the turns' snippet lines.
func render(turns []datasets.Turn) string {
	lines := make([]string, len(turns))
	for i, t := range turns {
		lines[i] = snippetLine(t)
	}
	return strings.Join(lines, "\n")
}

// recencyPrompt is the user's newest turns that fit in budget, shown oldest
// first: what a context made of recent history alone would hold.
func recencyPrompt(turns []datasets.Turn, budget int) string {
	newest := make([]datasets.Turn, len(turns))
	for i, t := range turns {
		newest[len(turns)-1-i] = t
	}
	kept := fill(newest, budget)
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	return render(kept)
}

// fullHistoryPrompt is every turn of the user, oldest first: the upper bound
// any budgeted context is measured against.
func fullHistoryPrompt(turns []datasets.Turn) string {
	return render(turns)
}

// bm25Index ranks one user's turns against a question with Okapi BM25 over
// content words (tokens minus stopwords).
type bm25Index struct {
	turns []datasets.Turn
	tf    []map[string]int
	lens  []int
	df    map[string]int
	avgdl float64
}

func newBM25(turns []datasets.Turn) *bm25Index {
	ix := &bm25Index{turns: turns, tf: make([]map[string]int, len(turns)), lens: make([]int, len(turns)), df: map[string]int{}}
	total := 0
	for i, t := range turns {
		words := contentWords(t.Content)
		tf := make(map[string]int, len(words))
		for _, w := range words {
			tf[w]++
		}
		for w := range tf {
			ix.df[w]++
		}
		ix.tf[i], ix.lens[i] = tf, len(words)
		total += len(words)
	}
	if len(turns) > 0 {
		ix.avgdl = float64(total) / float64(len(turns))
	}
	return ix
}

// scores is the BM25 score of every turn for the query's distinct content
// words, with the non-negative idf ln(1 + (N − df + 0.5)/(df + 0.5)).
func (ix *bm25Index) scores(query string) []float64 {
	q := map[string]bool{}
	for _, w := range contentWords(query) {
		q[w] = true
	}
	n := float64(len(ix.turns))
	out := make([]float64, len(ix.turns))
	for w := range q {
		df := ix.df[w]
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		for i, tf := range ix.tf {
			f := float64(tf[w])
			if f == 0 {
				continue
			}
			norm := 1 - bm25B + bm25B*float64(ix.lens[i])/ix.avgdl
			out[i] += idf * f * (bm25K1 + 1) / (f + bm25K1*norm)
		}
	}
	return out
}

// rank returns the turns that share a content word with the query, best
// first; ties keep the conversation's order.
func (ix *bm25Index) rank(query string) []datasets.Turn {
	s := ix.scores(query)
	idx := make([]int, 0, len(s))
	for i, v := range s {
		if v > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
	out := make([]datasets.Turn, len(idx))
	for i, j := range idx {
		out[i] = ix.turns[j]
	}
	return out
}

// prompt is the best-ranked turns that fit in budget, best first.
func (ix *bm25Index) prompt(query string, budget int) string {
	return render(fill(ix.rank(query), budget))
}
