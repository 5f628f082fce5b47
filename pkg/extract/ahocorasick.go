package extract

import (
	"slices"
	"sort"
)

// automaton is a compact byte-level Aho-Corasick automaton.
//
// It is written here rather than imported because the gazetteer needs
// every match with its position, so that it can apply word boundaries
// before choosing leftmost-longest: github.com/cloudflare/ahocorasick
// reports which patterns occur but not where, and
// github.com/petar-dambovaliev/aho-corasick (a port of Rust's aho-corasick)
// reports only non-overlapping leftmost matches, so a catalog name rejected
// for cutting a word in two ("Rain Man" in "Rain Manor") would hide the
// shorter valid one ("Rain"). About two hundred lines keep the dependency
// list short; the sorted edge arrays below hold a 100k-name catalog in a
// few tens of megabytes and build in a fraction of a second. Matching works
// on UTF-8 bytes, so Chinese and Latin names share one automaton and match
// offsets are byte offsets.
type automaton struct {
	root [256]int32 // goto from the root for every byte; 0 means stay at root

	// Edges of node n are labels[first[n]:first[n+1]] (sorted) with the
	// matching targets in next.
	first  []int32
	labels []byte
	next   []int32

	fail   []int32 // longest proper suffix that is also a trie node
	out    []int32 // pattern ending exactly at this node, or -1
	dict   []int32 // nearest suffix node (via fail links) with out >= 0, or -1
	patLen []int32 // byte length of each pattern
}

// acMatch is one occurrence of a pattern: text[start:end] == patterns[pattern].
type acMatch struct {
	start, end int
	pattern    int
}

// newAutomaton builds an automaton for patterns. Empty patterns are ignored;
// duplicate patterns report the index of their first occurrence.
//
// The trie is built from the patterns in sorted order, which creates every
// node's children in label order; edges are then grouped by parent with a
// counting sort. This avoids a per-node slice or map while building, which
// matters for catalogs of 100k names.
func newAutomaton(patterns []string) *automaton {
	order := make([]int, 0, len(patterns))
	for i, p := range patterns {
		if p != "" {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(x, y int) bool { return patterns[order[x]] < patterns[order[y]] })

	type edge struct {
		parent, child int32
		label         byte
	}
	var edges []edge
	outs := []int32{-1}
	path := []int32{0} // path[d] is the node at depth d of the previous pattern
	prev := ""
	for _, idx := range order {
		p := patterns[idx]
		lcp := 0
		for lcp < len(p) && lcp < len(prev) && p[lcp] == prev[lcp] {
			lcp++
		}
		path = path[:lcp+1]
		for d := lcp; d < len(p); d++ {
			child := int32(len(outs))
			outs = append(outs, -1)
			edges = append(edges, edge{parent: path[d], child: child, label: p[d]})
			path = append(path, child)
		}
		if n := path[len(p)]; outs[n] < 0 {
			outs[n] = int32(idx)
		}
		prev = p
	}

	nodes := len(outs)
	a := &automaton{
		first:  make([]int32, nodes+1),
		labels: make([]byte, len(edges)),
		next:   make([]int32, len(edges)),
		fail:   make([]int32, nodes),
		out:    outs,
		dict:   make([]int32, nodes),
		patLen: make([]int32, len(patterns)),
	}
	for i, p := range patterns {
		a.patLen[i] = int32(len(p))
	}
	for _, e := range edges {
		a.first[e.parent+1]++
	}
	for i := 1; i <= nodes; i++ {
		a.first[i] += a.first[i-1]
	}
	fill := slices.Clone(a.first[:nodes])
	for _, e := range edges { // edges of one parent arrive in label order
		k := fill[e.parent]
		a.labels[k] = e.label
		a.next[k] = e.child
		fill[e.parent]++
	}
	for k := a.first[0]; k < a.first[1]; k++ {
		a.root[a.labels[k]] = a.next[k]
	}

	// Breadth-first construction of failure and dictionary-suffix links.
	a.dict[0] = -1
	queue := make([]int32, 0, nodes)
	for k := a.first[0]; k < a.first[1]; k++ {
		child := a.next[k]
		a.dict[child] = -1
		queue = append(queue, child)
	}
	for head := 0; head < len(queue); head++ {
		n := queue[head]
		for k := a.first[n]; k < a.first[n+1]; k++ {
			c, child := a.labels[k], a.next[k]
			f := a.fail[n]
			for {
				if t := a.step(f, c); t >= 0 {
					a.fail[child] = t
					break
				}
				if f == 0 {
					break
				}
				f = a.fail[f]
			}
			if fc := a.fail[child]; a.out[fc] >= 0 {
				a.dict[child] = fc
			} else {
				a.dict[child] = a.dict[fc]
			}
			queue = append(queue, child)
		}
	}
	return a
}

// step follows the trie edge labelled c from node n, or returns -1.
func (a *automaton) step(n int32, c byte) int32 {
	if n == 0 {
		if t := a.root[c]; t != 0 {
			return t
		}
		return -1
	}
	lo, hi := int(a.first[n]), int(a.first[n+1])
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch l := a.labels[mid]; {
		case l == c:
			return a.next[mid]
		case l < c:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

// findAll appends every occurrence of every pattern in text to dst, in order
// of their end offsets.
func (a *automaton) findAll(text string, dst []acMatch) []acMatch {
	if a == nil || len(a.out) <= 1 {
		return dst
	}
	n := int32(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		for {
			if t := a.step(n, c); t >= 0 {
				n = t
				break
			}
			if n == 0 {
				break
			}
			n = a.fail[n]
		}
		for m := n; m > 0; m = a.dict[m] {
			if p := a.out[m]; p >= 0 {
				dst = append(dst, acMatch{start: i + 1 - int(a.patLen[p]), end: i + 1, pattern: int(p)})
			}
		}
	}
	return dst
}

// leftmostLongest keeps, from matches, a set of non-overlapping matches that
// starts as early as possible and, at each start, is as long as possible.
// keep filters candidates before selection (for example on word
// boundaries); a nil keep accepts all. The result is sorted by start.
func leftmostLongest(matches []acMatch, keep func(acMatch) bool) []acMatch {
	sort.Slice(matches, func(i, j int) bool {
		if matches[i].start != matches[j].start {
			return matches[i].start < matches[j].start
		}
		return matches[i].end > matches[j].end
	})
	out := matches[:0]
	lastEnd := -1
	for _, m := range matches {
		if m.start < lastEnd {
			continue
		}
		if keep != nil && !keep(m) {
			continue
		}
		out = append(out, m)
		lastEnd = m.end
	}
	return out
}
