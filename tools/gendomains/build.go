package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/recallhq/recall/pkg/domain"
)

// Thresholds of the lexicon.
const (
	// minWeight is the least weight a domain keeps in a word's entry; below
	// it the domain is noise from a rare sense.
	minWeight = 0.1
	// spreadFrom is the number of domains (of weight minWeight or more)
	// past which a word is taken for ambiguous: a word in n domains has its
	// weights scaled by spreadFrom/n, so that a word of many domains says
	// little.
	spreadFrom = 3
)

// result is what a generation makes: the English and Chinese lexicons.
type result struct {
	wn  *wordnet
	mem *membership
	en  map[string]vector
	zh  map[string]vector
	// enPOS are the parts of speech of each English entry ("nv"), which
	// pkg/domain's morphology checks a base form against; "" for forms
	// that are no lemma.
	enPOS map[string]string
	// sums are the sources' checksums (sources.go), written in the data.
	sums []string
}

func build(wordnetDir, cedictPath string, exploring bool) (*result, error) {
	sums, err := checkWordNet(wordnetDir)
	if err != nil {
		return nil, err
	}
	wn, err := readWordNet(wordnetDir)
	if err != nil {
		return nil, err
	}
	mem, err := assign(wn, seeds)
	if err != nil {
		return nil, err
	}
	r := &result{wn: wn, mem: mem, sums: sums}
	r.en, r.enPOS = english(wn, mem)
	if err := supplement(r.en, supplementEN); err != nil {
		return nil, err
	}
	if exploring {
		if _, err := os.Stat(cedictPath); err != nil {
			return r, nil
		}
	}
	sum, err := checkCEDICT(cedictPath)
	if err != nil {
		return nil, err
	}
	r.sums = append(r.sums, sum)
	entries, err := readCEDICT(cedictPath)
	if err != nil {
		return nil, err
	}
	enData, err := r.encode("English", r.en, r.enPOS, "wordnet/")
	if err != nil {
		return nil, err
	}
	lex, err := domain.ReadLexicon(enData, nil)
	if err != nil {
		return nil, err
	}
	r.zh = chinese(entries, lex)
	if err := supplement(r.zh, supplementZH); err != nil {
		return nil, err
	}
	if err := override(r.zh, overrideZH); err != nil {
		return nil, err
	}
	return r, nil
}

// english makes the English lexicon: every WordNet lemma (multi-word ones
// with spaces) whose weights pass the thresholds, every other single-word
// lemma with no weight (a known word, which the compound splitter leaves
// whole), and the irregular forms of WordNet's exception lists. A lemma that
// is also an inflected form of another (flying, fly) takes both words'
// weights, each by how often its senses were tagged, as WordNet's morphy
// would find both.
func english(wn *wordnet, mem *membership) (map[string]vector, map[string]string) {
	lemmas := map[string]bool{}
	for _, f := range posFiles {
		for w := range wn.index[f.pos] {
			lemmas[w] = true
		}
	}
	out := map[string]vector{}
	poses := map[string]string{}
	for w := range lemmas {
		if strings.ContainsAny(w, "0123456789") {
			continue
		}
		var v vector
		if !stopwords[w] {
			v = settle(lemmaWeights(wn, mem, w))
		}
		if stopwords[w] && strings.Contains(w, "_") {
			// Its words count on their own ("at home").
			continue
		}
		// A phrase without a domain is kept too: it is read whole, so its
		// words do not count on their own ("air conditioning" is no
		// conditioning of athletes).
		out[strings.ReplaceAll(w, "_", " ")] = v
		poses[strings.ReplaceAll(w, "_", " ")] = wn.poses(w)
	}
	// A verb whose weights as a verb differ from the word's also gets an
	// entry of its own, "word#v", which pkg/domain reads for forms that
	// only a verb has (booked, booking: "book" as a verb is no reading).
	for w := range lemmas {
		if stopwords[w] || strings.Contains(w, "_") || wn.index['v'][w] == nil || strings.ContainsAny(w, "0123456789") {
			continue
		}
		v := settle(wordVector(wn, mem, w, 'v'))
		if differ(v, out[w]) {
			out[w+verbSuffix] = v
			poses[w+verbSuffix] = "v"
		}
	}
	unhyphenated(lemmas, out, poses)
	exceptionForms(wn, mem, lemmas, out)
	for w, v := range out {
		if v.zero() && len(w) < minCompound && !strings.Contains(w, " ") {
			// A known word shorter than any compound is never looked
			// at: the scorer splits only unknown words.
			delete(out, w)
			delete(poses, w)
		}
	}
	return out, poses
}

// lemmaWeights is a lemma's weights: its senses', and where it is also an
// inflected form of other words (flying, fly), theirs too, each word's by
// how often its senses were tagged.
func lemmaWeights(wn *wordnet, mem *membership, w string) vector {
	v := wordVector(wn, mem, w)
	bs := wn.morphy(w)
	if len(bs) == 0 {
		return v
	}
	own := float64(wn.tagged(w)) + 1
	sum := own
	for d := range v {
		v[d] *= own
	}
	for _, b := range bs {
		if stopwords[b.word] {
			continue
		}
		c := (float64(wn.taggedAs(b.word, b.pos)) + 1) * inflectedShare
		sum += c
		for d, x := range wordVector(wn, mem, b.word, b.pos) {
			v[d] += x * c
		}
	}
	for d := range v {
		v[d] /= sum
	}
	return v
}

// unhyphenated writes a hyphenated lemma without its hyphen too (co-worker,
// coworker; e-mail, email), unless that is a word of its own.
func unhyphenated(lemmas map[string]bool, out map[string]vector, poses map[string]string) {
	for _, w := range slices.Sorted(maps.Keys(lemmas)) {
		if !strings.Contains(w, "-") || strings.Contains(w, "_") {
			continue
		}
		joined := strings.ReplaceAll(w, "-", "")
		if _, ok := out[joined]; ok || lemmas[joined] {
			continue
		}
		if v, ok := out[w]; ok {
			out[joined] = v
			poses[joined] = poses[w]
		}
	}
}

// exceptionForms adds the irregular forms of WordNet's exception lists that
// are no lemma (went, geese), with the weights of the words they are forms
// of; a phrase only where it has a domain.
func exceptionForms(wn *wordnet, mem *membership, lemmas map[string]bool, out map[string]vector) {
	for _, f := range posFiles {
		for form, bs := range wn.exc[f.pos] {
			if lemmas[form] || stopwords[form] || strings.ContainsAny(form, "0123456789") {
				continue
			}
			var v vector
			for _, b := range bs {
				if !stopwords[b] {
					v.maxWith(wordVector(wn, mem, b, f.pos), 1)
				}
			}
			form = strings.ReplaceAll(form, "_", " ")
			if old, ok := out[form]; ok {
				v.maxWith(old, 1)
			}
			v = settle(v)
			if !v.zero() || !strings.Contains(form, " ") {
				out[form] = v
			}
		}
	}
}

// minCompound is the length from which pkg/domain splits an unknown word in
// two (compound); a shorter word without a domain need not be in the
// lexicon.
const minCompound = 8

// settle applies the thresholds to a word's weights: the weights of a word
// spread over many domains are lowered, weights under minWeight dropped, and
// the rest rounded to hundredths (as the data file holds them).
func settle(v vector) vector {
	n := 0
	for _, x := range v {
		if x >= minWeight {
			n++
		}
	}
	scale := 1.0
	if n > spreadFrom {
		scale = float64(spreadFrom) / float64(n)
	}
	for d, x := range v {
		x *= scale
		if x < minWeight {
			x = 0
		}
		v[d] = math.Round(x*100) / 100
	}
	return v
}

// inflectedShare is how much more a lemma's reading as an inflected form
// of another counts than the same tag count of its own: "nuts" is more often
// the plural than the adjective.
const inflectedShare = 2

// verbSuffix marks the entry of a word's weights as a verb.
const verbSuffix = "#v"

// differ reports whether two weight vectors differ by a tenth or more in a
// domain.
func differ(a, b vector) bool {
	for d := range a {
		if math.Abs(a[d]-b[d]) >= 0.1 {
			return true
		}
	}
	return false
}

func (r *result) show(w io.Writer, word string) {
	if r.zh != nil {
		if v, ok := r.zh[word]; ok {
			fmt.Fprintf(w, "%s => %s\n", word, v.format())
			return
		}
	}
	show(w, r.wn, r.mem, r.en, word)
	fmt.Fprintln(w)
}

func sortedWords(m map[string]vector) []string {
	out := make([]string, 0, len(m))
	for w := range m {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}
