package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-ego/gse"

	"github.com/recallhq/recall/pkg/domain"
)

// cedictEntry is one line of CC-CEDICT: a word in traditional and
// simplified characters, its pinyin and its English glosses.
type cedictEntry struct {
	traditional, simplified, pinyin string
	glosses                         []string
}

func readCEDICT(path string) ([]cedictEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []cedictEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		trad, rest, ok1 := strings.Cut(line, " ")
		simp, rest, ok2 := strings.Cut(rest, " [")
		pinyin, rest, ok3 := strings.Cut(rest, "] /")
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("%s:%d: bad entry", path, n)
		}
		glosses := strings.Split(strings.TrimSuffix(rest, "/"), "/")
		out = append(out, cedictEntry{trad, simp, pinyin, glosses})
	}
	return out, sc.Err()
}

var (
	// A reference to another headword: 個|个[ge4], 北京[Bei3 jing1].
	cedictRef = regexp.MustCompile(`[^\s,;()]*\[[^\]]*\]`)
	// A parenthesis.
	cedictParen = regexp.MustCompile(`\(([^()]*)\)`)
)

// registerLabels are CC-CEDICT's labels of register, region and use, not of
// meaning; a parenthesis holding only one of them is dropped from a gloss.
var registerLabels = map[string]bool{
	"literary": true, "lit.": true, "fig.": true, "figurative": true, "tw": true,
	"prc": true, "hk": true, "taiwan": true, "slang": true, "internet slang": true,
	"coll.": true, "colloquial": true, "dialect": true, "old": true, "archaic": true,
	"loanword": true, "abbr.": true, "onom.": true, "bound form": true,
	"cantonese": true, "polite": true, "honorific": true, "humble": true,
	"derog.": true, "derogatory": true, "pejorative": true, "euphemism": true,
	"formal": true, "written": true, "classical": true, "idiom": true,
	"neologism": true, "informal": true, "vulgar": true, "humorous": true,
	"old usage": true, "obsolete": true, "modern": true, "dated": true,
	"in former times": true, "respectful": true, "literally": true,
	// Fields of scholarship label technical terms; the term is not about
	// studying the field.
	"chemistry": true, "physics": true, "math.": true, "mathematics": true,
	"biology": true, "botany": true, "zoology": true, "geology": true,
	"linguistics": true, "grammar": true, "astronomy": true, "statistics": true,
	"geometry": true, "logic": true, "philosophy": true, "law": true,
	"military": true, "buddhism": true, "taoism": true, "religion": true,
}

// skippedGlosses start glosses that refer to other entries or are not
// meanings.
var skippedGlosses = []string{
	"cl:", "variant of", "old variant of", "japanese variant of", "erhua variant of",
	"see ", "see:", "also written", "also pr.", "abbr. for", "abbr. of", "surname ",
	"used in ", "(used in", "used as ", "(used as", "lit.", "(lit.", "unofficial variant",
	"taiwan pr.", "pr.", "(onom.", "radical in chinese",
}

// rareGlosses start glosses of a sense out of everyday use: old, literary
// or dialect words are rare in a chat, and the longest-match cut would take
// them in place of common words (家的, wife in old usage, in 我家的空调).
var rareGlosses = []string{
	"(old)", "(archaic)", "(dialect)", "(literary)", "(classical)", "(old usage)",
	"(obsolete)", "(in former times)",
}

// cleanGloss makes a gloss into English text for the English lexicon, or
// "" for a gloss that is no meaning or out of everyday use.
func cleanGloss(g string) string {
	g = strings.TrimSpace(g)
	lower := strings.ToLower(g)
	for _, p := range skippedGlosses {
		if strings.HasPrefix(lower, p) {
			return ""
		}
	}
	for _, p := range rareGlosses {
		if strings.HasPrefix(lower, p) {
			return ""
		}
	}
	g = cedictRef.ReplaceAllString(g, " ")
	g = cedictParen.ReplaceAllStringFunc(g, func(p string) string {
		inner := strings.ToLower(strings.TrimSpace(p[1 : len(p)-1]))
		if registerLabels[inner] || strings.HasPrefix(inner, "taiwan pr") || strings.HasPrefix(inner, "used ") {
			return " "
		}
		return " " + p[1:len(p)-1] + " "
	})
	g = strings.TrimSpace(g)
	for _, p := range []string{"fig. ", "fig.", "to "} {
		g = strings.TrimSpace(strings.TrimPrefix(g, p))
	}
	return g
}

// Weights of a headword's glosses.
const (
	// noDomainShare is how much a gloss that has no domain counts against
	// those that have: less than one, since CC-CEDICT lists synonyms and
	// near-synonyms as glosses, many of them words the English lexicon
	// does not place ("oversensitive/allergic/allergy").
	noDomainShare = 0.5
	// firstGlossShare is the share of its weights the first gloss, the
	// headword's main meaning in CC-CEDICT's order, gives the headword
	// whatever follows (书: book/letter/document/to write).
	firstGlossShare = 0.7
	// zhMinWeight is minWeight for Chinese: a headword's weights come
	// through English glosses, twice removed from WordNet, and a weak one
	// is more often noise.
	zhMinWeight = 0.2
	// zhCharMinWeight is zhMinWeight for a word of one character, which
	// has the most glosses and is the most frequent (请: please, and to treat
	// someone to a meal).
	zhCharMinWeight = 0.3
)

// chinese makes the Chinese lexicon: each headword (simplified and
// traditional) takes its glosses' weights, each gloss scored as English text
// by the English lexicon as pkg/domain reads it (capped at 1 per domain):
// their mean, glosses with no domain counting noDomainShare, or
// firstGlossShare of its first gloss's where that is more. A headword of
// several characters with no weight is kept when it contains a word that
// has one, so that the longest-match cut takes it whole ("飞快", very fast,
// is not about flying).
func chinese(entries []cedictEntry, lex *domain.Lexicon) map[string]vector {
	sums, order := glossSums(entries, lex)
	raw := map[string]vector{}
	for _, hw := range order {
		a := sums[hw]
		if a.glosses == 0 {
			continue
		}
		if utf8.RuneCountInString(hw) == 1 && functionChars[hw] {
			continue
		}
		var v vector
		for d := range v {
			v[d] = max(a.sum[d]/a.n, a.first[d]*firstGlossShare)
		}
		raw[hw] = v
	}
	out := map[string]vector{}
	for _, hw := range order {
		v, ok := raw[hw]
		if !ok {
			continue
		}
		if !sums[hw].proper {
			v = supported(v, hw, raw)
		}
		least := zhMinWeight
		if utf8.RuneCountInString(hw) == 1 {
			least = zhCharMinWeight
		}
		for d, x := range v {
			if x < least {
				v[d] = 0
			}
		}
		if v = settle(v); !v.zero() {
			out[hw] = v
		}
	}
	countedClassifiers(entries, sums, out)
	// Blockers: words without a domain that contain one with a domain.
	for _, hw := range order {
		if _, ok := out[hw]; ok || utf8.RuneCountInString(hw) < 2 {
			continue
		}
		if containsWord(hw, out) {
			out[hw] = vector{}
		}
	}
	return out
}

// glossSum is what a headword's glosses weigh together.
type glossSum struct {
	// sum is the weights of the glosses that have some, n how many glosses
	// count (one with no domain noDomainShare).
	sum vector
	n   float64
	// first is the first gloss's weights.
	first   vector
	glosses int
	// proper: the headword is a name in one of its entries.
	proper bool
}

// glossSums adds up the glosses' weights of each headword (simplified and
// traditional, Han characters only), and returns the headwords in the
// order CC-CEDICT first lists them. A particle's entries are passed over.
func glossSums(entries []cedictEntry, lex *domain.Lexicon) (map[string]*glossSum, []string) {
	sums := map[string]*glossSum{}
	var order []string
	particles := map[string]bool{}
	for _, e := range entries {
		if isParticle(e) {
			particles[e.simplified] = true
			particles[e.traditional] = true
		}
	}
	for _, e := range entries {
		if particles[e.simplified] || particles[e.traditional] {
			continue
		}
		proper := isProperNoun(e)
		for _, hw := range []string{e.simplified, e.traditional} {
			if !hanOnly(hw) {
				continue
			}
			a := sums[hw]
			if a == nil {
				a = &glossSum{}
				sums[hw] = a
				order = append(order, hw)
			}
			a.proper = a.proper || proper
			for _, g := range e.glosses {
				text := cleanGloss(g)
				if text == "" {
					continue
				}
				v := glossVector(lex, text)
				if proper {
					// A name: the place it names, and what its
					// common words say (川菜: Sichuan cuisine).
					v = placeOnly(v)
					v.maxWith(glossVector(lex, commonWords(text)), 1)
				}
				if a.glosses == 0 {
					a.first = v
				}
				a.glosses++
				if v.zero() {
					a.n += noDomainShare
					continue
				}
				for d, x := range v {
					a.sum[d] += x
				}
				a.n++
			}
			if e.simplified == e.traditional {
				break
			}
		}
	}
	return sums, order
}

// countedClassifiers adds to out the pairs of a numeral or a demonstrative
// and a classifier that CC-CEDICT does not list, each a word without a
// domain: a classifier after them is counted, not named (几道菜: 道, road,
// is the dishes' classifier).
func countedClassifiers(entries []cedictEntry, listed map[string]*glossSum, out map[string]vector) {
	for _, e := range entries {
		if !isClassifier(e) {
			continue
		}
		for _, hw := range []string{e.simplified, e.traditional} {
			if utf8.RuneCountInString(hw) != 1 {
				continue
			}
			for _, n := range countWords {
				if _, ok := listed[string(n)+hw]; !ok {
					out[string(n)+hw] = vector{}
				}
			}
		}
	}
}

func containsWord(hw string, words map[string]vector) bool {
	for i := range hw {
		for j := len(hw); j > i; j-- {
			if w := hw[i:j]; w != hw {
				if v, ok := words[w]; ok && !v.zero() {
					return true
				}
			}
		}
	}
	return false
}

func hanOnly(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}

// countWords are the numerals and demonstratives a classifier follows.
const countWords = "一二两三四五六七八九十几半这那每哪某"

// isClassifier reports whether an entry is used as a classifier.
func isClassifier(e cedictEntry) bool {
	for _, g := range e.glosses {
		if strings.HasPrefix(g, "classifier for") || strings.HasPrefix(g, "(classifier") {
			return true
		}
	}
	return false
}

// isParticle reports whether an entry of one character is a grammatical
// particle in one of its uses (吧, 了, 呢): such a character is too
// frequent as a particle for its other glosses (吧: bar) to give it a
// domain; the words it is part of (酒吧, bar) have entries of their own.
func isParticle(e cedictEntry) bool {
	if utf8.RuneCountInString(e.simplified) != 1 {
		return false
	}
	for _, g := range e.glosses {
		if strings.Contains(g, "particle") {
			return true
		}
	}
	return false
}

// isProperNoun reports whether an entry is a name: CC-CEDICT writes a proper
// noun's pinyin capitalised (Ma3 ke4 si1, Marx).
func isProperNoun(e cedictEntry) bool {
	r, _ := utf8.DecodeRuneInString(e.pinyin)
	return unicode.IsUpper(r)
}

// placeOnly keeps a name's travel and nature weights: a place's name is
// about going there, but the names in a person's or an institution's glosses
// are words of other senses (马克思, Karl Marx: no comedian).
func placeOnly(v vector) vector {
	var out vector
	out[domain.Travel], out[domain.Nature] = v[domain.Travel], v[domain.Nature]
	return out
}

// commonWords is a gloss without its capitalised words, the names in it.
func commonWords(text string) string {
	var b strings.Builder
	for w := range strings.FieldsSeq(text) {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			continue
		}
		b.WriteString(w)
		b.WriteByte(' ')
	}
	return b.String()
}

// glossVector is a gloss's weights as English text, each at most 1.
func glossVector(lex *domain.Lexicon, text string) vector {
	var v vector
	for d, x := range lex.Scores(text) {
		v[d] = min(float64(x), 1)
	}
	return v
}

// charShare is the share of a word's weights that its characters' support
// decides (supported).
const charShare = 0.5

// supported shifts a word's weights toward the domains its characters have
// on their own, keeping their sum: an English gloss may have senses the
// Chinese word has not (银行, bank: 银, silver, money, says which bank).
// Weights in domains no character has keep their relative sizes.
func supported(v vector, hw string, raw map[string]vector) vector {
	if utf8.RuneCountInString(hw) < 2 {
		return v
	}
	var s vector
	for _, r := range hw {
		s.maxWith(raw[string(r)], 1)
	}
	top := s.max()
	if top == 0 {
		return v
	}
	before, after := 0.0, 0.0
	var out vector
	for d, x := range v {
		out[d] = x * (1 - charShare + charShare*s[d]/top)
		before += x
		after += out[d]
	}
	if after == 0 {
		return v
	}
	for d := range out {
		out[d] = min(out[d]*before/after, 1)
	}
	return out
}

// functionChars are the Chinese characters of gse's list of stop tokens (the
// module's version pinned by go.mod): characters used as function words (和,
// 把, 到) get no domain from their rarer glosses.
var functionChars = func() map[string]bool {
	var seg gse.Segmenter
	if err := seg.LoadStopEmbed(); err != nil {
		panic(err)
	}
	m := map[string]bool{}
	for w := range seg.StopWordMap {
		if utf8.RuneCountInString(w) == 1 {
			m[w] = true
		}
	}
	return m
}()
