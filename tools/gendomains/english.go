package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/recallhq/recall/pkg/domain"
)

// vector is a weight per domain.
type vector [domain.Count]float64

func (v *vector) maxWith(o vector, scale float64) {
	for d, x := range o {
		v[d] = math.Max(v[d], x*scale)
	}
}

func (v vector) max() float64 { return slices.Max(v[:]) }

func (v vector) zero() bool { return v.max() == 0 }

func (v vector) format() string {
	var parts []string
	for d, x := range v {
		if x > 0 {
			parts = append(parts, fmt.Sprintf("%s:%.2f", domain.Domain(d), x))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// membership is how much each synset belongs to each domain.
type membership struct {
	m map[key]vector
	// why says what gave each synset its weight in each domain (for -show).
	why map[key][domain.Count]string
	// reason is what the weights raised now come from.
	reason string
}

func (m *membership) of(k key) vector { return m.m[k] }

// raise lifts synset k's weight for d to w, reporting whether it rose.
func (m *membership) raise(k key, d domain.Domain, w float64) bool {
	v := m.m[k]
	if v[d] >= w {
		return false
	}
	v[d] = w
	m.m[k] = v
	r := m.why[k]
	r[d] = m.reason
	m.why[k] = r
	return true
}

// Weights of what is reached other than by a seed's own tree, relative to
// the weight of what it was reached from.
const (
	// derivScale is for a verb, adjective or noun derived from or related
	// to a synset in a domain ("+", "\", "<"): "medical" from medicine,
	// "driver" from drive.
	derivScale = 0.6
	// verbDerivScale is derivScale for a verb: a verb is often derived from
	// one sense of a noun and used in many others (walk, a walk).
	verbDerivScale = 0.4
	// similarScale is for an adjective similar ("&") to one in a domain.
	similarScale = 0.6
	// plantFoodWeight is the food weight of a plant sense of a word that
	// has a food sense.
	plantFoodWeight = 0.8
	// edibleNatureWeight is the most nature weight a food synset keeps.
	edibleNatureWeight = 0.3
	// petNatureFrom is the pets weight from which a synset's nature weight
	// is lowered as a food's is.
	petNatureFrom = 0.7
)

// assign computes every synset's membership: the seeds' trees, then the
// synsets whose topic is in a domain (and their trees), then the lexicographer
// files' signals, then one step along derivation, pertainym and similarity
// pointers.
func assign(wn *wordnet, seeds []seed) (*membership, error) {
	a := &assignment{wn: wn, m: &membership{m: map[key]vector{}, why: map[key][domain.Count]string{}}, blocked: make([]map[key]bool, domain.Count)}
	for i := range a.blocked {
		a.blocked[i] = map[key]bool{}
	}
	roots, err := a.readSeeds(seeds)
	if err != nil {
		return nil, err
	}
	for _, r := range roots {
		a.m.reason = "seed " + wn.name(wn.synsets[r.k])
		a.down(r.k, r.d, r.w)
	}
	if err := a.topics(); err != nil {
		return nil, err
	}
	a.seedsAlone(seeds)
	a.ediblePlants()
	a.lexfiles()
	a.eatenNotNature()
	a.oneStep()
	return a.m, nil
}

// assignment is the membership being assigned, and the subtrees each
// domain's seeds keep out of it.
type assignment struct {
	wn      *wordnet
	m       *membership
	blocked []map[key]bool
}

// root is a seed's tree: its synset, domain and weight.
type root struct {
	k key
	d domain.Domain
	w float64
}

// readSeeds resolves the seeds' trees and the subtrees they keep out (into
// blocked); a seed not in WordNet is an error.
func (a *assignment) readSeeds(seeds []seed) ([]root, error) {
	var roots []root
	var missing []string
	for _, s := range seeds {
		for _, name := range s.not {
			if ss, err := a.wn.resolve(name); err != nil {
				missing = append(missing, name)
			} else {
				a.blocked[s.domain][ss.key] = true
			}
		}
		for _, name := range s.trees {
			if ss, err := a.wn.resolve(name); err != nil {
				missing = append(missing, name)
			} else {
				roots = append(roots, root{ss.key, s.domain, s.weight})
			}
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("seeds not in WordNet: %s", strings.Join(missing, " "))
	}
	return roots, nil
}

// down spreads weight w of domain d over k's tree of hyponyms (instances
// included), stopping at blocked subtrees.
func (a *assignment) down(k key, d domain.Domain, w float64) {
	if a.blocked[d][k] || !a.m.raise(k, d, w) {
		return
	}
	for _, p := range a.wn.synsets[k].ptrs {
		if p.sym == "~" || p.sym == "~i" {
			a.down(p.target, d, w)
		}
	}
}

// topics: a synset whose WordNet topic (";c") is one of a domain's joins
// it, with its tree; a topic not in WordNet is an error.
func (a *assignment) topics() error {
	wn := a.wn
	topicOf := map[key][]topic{}
	var missing []string
	for _, t := range topics {
		if ss, err := wn.resolve(t.name); err != nil {
			missing = append(missing, t.name)
		} else {
			topicOf[ss.key] = append(topicOf[ss.key], t)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("topics not in WordNet: %s", strings.Join(missing, " "))
	}
	for _, k := range sortedKeys(wn.synsets) {
		for _, p := range wn.synsets[k].ptrs {
			if p.sym != ";c" {
				continue
			}
			for _, t := range topicOf[p.target] {
				a.m.reason = "topic " + t.name
				a.down(k, t.domain, t.weight)
			}
		}
	}
	return nil
}

// seedsAlone weighs the synsets seeded alone, after the topics: a
// discipline's own word is in a domain, not every term of the discipline
// (chemistry, oil). A name not in WordNet is passed over.
func (a *assignment) seedsAlone(seeds []seed) {
	for _, s := range seeds {
		for _, name := range s.only {
			if ss, err := a.wn.resolve(name); err == nil {
				a.m.reason = "seed " + name
				a.m.raise(ss.key, s.domain, s.weight)
			}
		}
	}
}

// ediblePlants: a word that names a food names it in its plant senses too,
// as people speak of it (peanut, the plant's pod, is eaten).
func (a *assignment) ediblePlants() {
	wn := a.wn
	for _, f := range posFiles[:1] {
		for _, w := range sortedLemmas(wn.index[f.pos]) {
			l := wn.index[f.pos][w]
			food := false
			for _, k := range l.senses {
				food = food || lexnames[wn.synsets[k].lexfile] == "noun.food"
			}
			if !food {
				continue
			}
			for _, k := range l.senses {
				if lexnames[wn.synsets[k].lexfile] == "noun.plant" && !a.blocked[domain.Food][k] {
					a.m.reason = "edible " + w
					a.m.raise(k, domain.Food, plantFoodWeight)
				}
			}
		}
	}
}

// lexfiles weighs by their lexicographer files the synsets that no domain
// reached otherwise.
func (a *assignment) lexfiles() {
	for _, k := range sortedKeys(a.wn.synsets) {
		s := a.wn.synsets[k]
		if !a.m.of(k).zero() {
			continue
		}
		for _, sig := range lexSignals {
			if lexnames[s.lexfile] == sig.lexfile && !a.blocked[sig.domain][k] {
				a.m.reason = "lexfile " + sig.lexfile
				a.m.raise(k, sig.domain, sig.weight)
			}
		}
	}
}

// eatenNotNature: what is eaten is spoken of as food rather than as nature,
// so the nature weight of a synset in food is lowered; likewise an animal
// kept as a pet is spoken of as a pet.
func (a *assignment) eatenNotNature() {
	for k, v := range a.m.m {
		if (v[domain.Food] >= plantFoodWeight || v[domain.Pets] >= petNatureFrom) && v[domain.Nature] > edibleNatureWeight {
			v[domain.Nature] = edibleNatureWeight
			a.m.m[k] = v
		}
	}
}

// oneStep goes one step along derivation and pertainyms from nouns, and
// adjective similarity, into verbs and adjectives; not from people (a
// trade's worker would bring work to every verb of its trade: baker, bake).
func (a *assignment) oneStep() {
	wn := a.wn
	reached := a.m.snapshot()
	for _, k := range sortedKeys(wn.synsets) {
		s := wn.synsets[k]
		if k.pos != 'v' && k.pos != 'a' {
			continue
		}
		for _, p := range s.ptrs {
			t := wn.synsets[p.target]
			if lexnames[t.lexfile] == "noun.person" || p.sym != "&" && t.key.pos != 'n' {
				// Not from people, and derived only from nouns.
				continue
			}
			scale := 0.0
			switch p.sym {
			case "+", "\\", "<":
				scale = derivScale
				if k.pos == 'v' {
					scale = verbDerivScale
				}
			case "&":
				scale = similarScale
			default:
				continue
			}
			for d, w := range reached[p.target] {
				if w > 0 && !a.blocked[d][k] {
					a.m.reason = p.sym + " " + wn.name(wn.synsets[p.target])
					a.m.raise(k, domain.Domain(d), w*scale)
				}
			}
		}
	}
}

func (m *membership) snapshot() map[key]vector {
	out := make(map[key]vector, len(m.m))
	for k, v := range m.m {
		out[k] = v
	}
	return out
}

func sortedKeys(m map[key]*synset) []key {
	keys := make([]key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.pos != b.pos {
			return int(a.pos) - int(b.pos)
		}
		return int(a.off) - int(b.off)
	})
	return keys
}

// senseDecay is how much less each further sense of a word counts when
// its senses were not tagged: the prior of the ith sense (from 0) is
// 1/(i+1)^senseDecay, added to its tag count.
const senseDecay = 1.5

// wordVector is a lemma's weight per domain: each part of speech's senses
// weighted by how often they were tagged (a sense never tagged still counts a
// little, less the further down WordNet lists it), the parts of speech
// weighted alike by their tag counts. Only the parts of speech in poses
// count (all when empty).
func wordVector(wn *wordnet, m *membership, word string, poses ...pos) vector {
	var out vector
	type part struct {
		v vector
		w float64
	}
	var parts []part
	total := 0.0
	for _, f := range posFiles {
		l := wn.index[f.pos][word]
		if l == nil || len(poses) > 0 && !slices.Contains(poses, f.pos) {
			continue
		}
		var v vector
		sum, tagged := 0.0, 0.0
		for i, k := range l.senses {
			w := float64(l.counts[i]) + 1/math.Pow(float64(i+1), senseDecay)
			sum += w
			tagged += float64(l.counts[i])
			mv := m.of(k)
			for d := range v {
				v[d] += w * mv[d]
			}
		}
		for d := range v {
			v[d] /= sum
		}
		pw := tagged + 1
		parts = append(parts, part{v, pw})
		total += pw
	}
	for _, p := range parts {
		for d := range out {
			out[d] += p.v[d] * p.w / total
		}
	}
	return out
}

func sortedLemmas(m map[string]*lemma) []string {
	out := make([]string, 0, len(m))
	for w := range m {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}
