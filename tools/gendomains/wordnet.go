package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// pos is a WordNet part of speech: 'n', 'v', 'a' (adjectives, satellites
// included) or 'r'.
type pos byte

// key names a synset: its part of speech and its byte offset in its data
// file.
type key struct {
	pos pos
	off uint32
}

// pointer is one relation of a synset: WordNet's pointer symbol ("@", "~",
// "+", ";c" ...), the target synset, and for a lexical pointer the source
// word's number in the synset (0 for a relation between whole synsets).
type pointer struct {
	sym    string
	target key
	src    int
}

// synset is one synonym set of data.{noun,verb,adj,adv}.
type synset struct {
	key     key
	lexfile int
	words   []string // lemmas, lower-cased, with underscores
	lexIDs  []int
	ptrs    []pointer
	gloss   string
}

// lemma is one line of an index file: a word's synsets in sense order,
// and each sense's tag count from cntlist.rev.
type lemma struct {
	senses []key
	counts []int
}

// wordnet is the database as the generator reads it.
type wordnet struct {
	synsets map[key]*synset
	index   map[pos]map[string]*lemma
	// exc maps an inflected form to its base forms, per part of speech
	// (noun.exc, verb.exc, adj.exc).
	exc map[pos]map[string][]string
}

var posFiles = []struct {
	pos  pos
	name string
}{{'n', "noun"}, {'v', "verb"}, {'a', "adj"}, {'r', "adv"}}

// lexnames are WordNet's lexicographer files (lexnames(5WN)), by number.
var lexnames = []string{
	"adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal",
	"noun.artifact", "noun.attribute", "noun.body", "noun.cognition",
	"noun.communication", "noun.event", "noun.feeling", "noun.food",
	"noun.group", "noun.location", "noun.motive", "noun.object", "noun.person",
	"noun.phenomenon", "noun.plant", "noun.possession", "noun.process",
	"noun.quantity", "noun.relation", "noun.shape", "noun.state",
	"noun.substance", "noun.time", "verb.body", "verb.change",
	"verb.cognition", "verb.communication", "verb.competition",
	"verb.consumption", "verb.contact", "verb.creation", "verb.emotion",
	"verb.motion", "verb.perception", "verb.possession", "verb.social",
	"verb.stative", "verb.weather", "adj.ppl",
}

// sourceFiles are the files of the database the generator reads; their
// checksums pin the version (sources.go).
var sourceFiles = []string{
	"data.noun", "data.verb", "data.adj", "data.adv",
	"index.noun", "index.verb", "index.adj", "index.adv",
	"noun.exc", "verb.exc", "adj.exc", "cntlist.rev",
}

func readWordNet(dir string) (*wordnet, error) {
	wn := &wordnet{
		synsets: map[key]*synset{},
		index:   map[pos]map[string]*lemma{},
		exc:     map[pos]map[string][]string{},
	}
	for _, f := range posFiles {
		if err := wn.readData(filepath.Join(dir, "data."+f.name), f.pos); err != nil {
			return nil, err
		}
		if err := wn.readIndex(filepath.Join(dir, "index."+f.name), f.pos); err != nil {
			return nil, err
		}
		if f.pos == 'r' {
			continue
		}
		if err := wn.readExc(filepath.Join(dir, f.name+".exc"), f.pos); err != nil {
			return nil, err
		}
	}
	if err := wn.readCounts(filepath.Join(dir, "cntlist.rev")); err != nil {
		return nil, err
	}
	return wn, nil
}

// eachLine calls fn with every line of a file that is not part of its
// licence header (lines that start with two spaces).
func eachLine(path string, fn func(line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "  ") || line == "" {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}

func (wn *wordnet) readData(path string, p pos) error {
	return eachLine(path, func(line string) error {
		body, gloss, _ := strings.Cut(line, " | ")
		f := strings.Fields(body)
		if len(f) < 4 {
			return fmt.Errorf("short synset line")
		}
		off, err := strconv.ParseUint(f[0], 10, 32)
		if err != nil {
			return err
		}
		lexfile, err := strconv.Atoi(f[1])
		if err != nil {
			return err
		}
		s := &synset{key: key{p, uint32(off)}, lexfile: lexfile, gloss: strings.TrimSpace(gloss)}
		nw, err := strconv.ParseUint(f[3], 16, 8)
		if err != nil {
			return err
		}
		i := 4
		for range nw {
			w := strings.ToLower(f[i])
			// Adjectives may carry a syntactic marker: "(a)", "(p)", "(ip)".
			if j := strings.IndexByte(w, '('); j > 0 {
				w = w[:j]
			}
			id, err := strconv.ParseUint(f[i+1], 16, 8)
			if err != nil {
				return err
			}
			s.words = append(s.words, w)
			s.lexIDs = append(s.lexIDs, int(id))
			i += 2
		}
		np, err := strconv.Atoi(f[i])
		if err != nil {
			return err
		}
		i++
		for range np {
			t, err := strconv.ParseUint(f[i+1], 10, 32)
			if err != nil {
				return err
			}
			tp := pos(f[i+2][0])
			if tp == 's' {
				tp = 'a'
			}
			st, err := strconv.ParseUint(f[i+3], 16, 16)
			if err != nil {
				return err
			}
			s.ptrs = append(s.ptrs, pointer{sym: f[i], target: key{tp, uint32(t)}, src: int(st >> 8)})
			i += 4
		}
		wn.synsets[s.key] = s
		return nil
	})
}

func (wn *wordnet) readIndex(path string, p pos) error {
	idx := map[string]*lemma{}
	wn.index[p] = idx
	return eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) < 6 {
			return fmt.Errorf("short index line")
		}
		nsyn, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		nptr, err := strconv.Atoi(f[3])
		if err != nil {
			return err
		}
		rest := f[4+nptr+2:]
		if len(rest) != nsyn {
			return fmt.Errorf("index line of %q: %d synsets, %d offsets", f[0], nsyn, len(rest))
		}
		l := &lemma{counts: make([]int, nsyn)}
		for _, o := range rest {
			off, err := strconv.ParseUint(o, 10, 32)
			if err != nil {
				return err
			}
			l.senses = append(l.senses, key{p, uint32(off)})
		}
		idx[f[0]] = l
		return nil
	})
}

func (wn *wordnet) readExc(path string, p pos) error {
	m := map[string][]string{}
	wn.exc[p] = m
	return eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) < 2 {
			return fmt.Errorf("short exception line")
		}
		m[f[0]] = append(m[f[0]], f[1:]...)
		return nil
	})
}

// readCounts reads cntlist.rev ("sense_key sense_number tag_cnt"): how often
// each sense was tagged in WordNet's semantic concordance.
func (wn *wordnet) readCounts(path string) error {
	return eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) != 3 {
			return fmt.Errorf("bad count line")
		}
		word, rest, ok := strings.Cut(f[0], "%")
		if !ok || rest == "" {
			return fmt.Errorf("bad sense key %q", f[0])
		}
		var p pos
		switch rest[0] {
		case '1':
			p = 'n'
		case '2':
			p = 'v'
		case '3', '5':
			p = 'a'
		case '4':
			p = 'r'
		default:
			return fmt.Errorf("bad sense key %q", f[0])
		}
		num, err := strconv.Atoi(f[1])
		if err != nil {
			return err
		}
		cnt, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		l := wn.index[p][word]
		if l == nil || num < 1 || num > len(l.counts) {
			return nil
		}
		l.counts[num-1] += cnt
		return nil
	})
}

// resolve finds a synset by its name "lemma.p.NN" (the lemma's NNth sense
// as a part of speech p, in WordNet's order).
func (wn *wordnet) resolve(name string) (*synset, error) {
	parts := strings.Split(name, ".")
	if len(parts) != 3 || len(parts[1]) != 1 {
		return nil, fmt.Errorf("synset name %q: want lemma.p.NN", name)
	}
	p := pos(parts[1][0])
	n, err := strconv.Atoi(parts[2])
	if err != nil {
		return nil, fmt.Errorf("synset name %q: %w", name, err)
	}
	l := wn.index[p][parts[0]]
	if l == nil || n < 1 || n > len(l.senses) {
		return nil, fmt.Errorf("synset %q is not in WordNet", name)
	}
	return wn.synsets[l.senses[n-1]], nil
}

// name is a synset's name as resolve reads it, from its first word.
func (wn *wordnet) name(s *synset) string {
	w := s.words[0]
	if l := wn.index[s.key.pos][w]; l != nil {
		for i, k := range l.senses {
			if k == s.key {
				return fmt.Sprintf("%s.%c.%02d", w, s.key.pos, i+1)
			}
		}
	}
	return fmt.Sprintf("%s.%c.?", w, s.key.pos)
}

// tagged is how often a lemma's senses were tagged, all parts of speech.
func (wn *wordnet) tagged(w string) int {
	n := 0
	for _, f := range posFiles {
		if l := wn.index[f.pos][w]; l != nil {
			for _, c := range l.counts {
				n += c
			}
		}
	}
	return n
}

// base is a base form morphy finds for a word, and the part of speech it
// was found as.
type base struct {
	word string
	pos  pos
}

// morphy are the base forms other than w itself that WordNet's morphy finds
// for w: its exception lists, then its detachment rules, each part of speech
// checked against its own index.
func (wn *wordnet) morphy(w string) []base {
	var out []base
	add := func(b string, p pos) {
		if b != w && !slices.Contains(out, base{b, p}) {
			out = append(out, base{b, p})
		}
	}
	for _, f := range posFiles {
		if f.pos == 'r' {
			continue
		}
		for _, b := range wn.exc[f.pos][w] {
			if wn.index[f.pos][b] != nil {
				add(b, f.pos)
			}
		}
		for _, r := range detach[f.pos] {
			if b, ok := strings.CutSuffix(w, r[0]); ok && b != "" {
				b += r[1]
				if wn.index[f.pos][b] != nil {
					add(b, f.pos)
				}
			}
		}
	}
	return out
}

// taggedAs is how often a lemma's senses as one part of speech were tagged.
func (wn *wordnet) taggedAs(w string, p pos) int {
	n := 0
	if l := wn.index[p][w]; l != nil {
		for _, c := range l.counts {
			n += c
		}
	}
	return n
}

// detach are morphy's suffix rules per part of speech (morphy(7WN)).
var detach = map[pos][][2]string{
	'n': {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	'v': {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	'a': {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
}

// poses are the parts of speech a lemma has, as letters ("nv").
func (wn *wordnet) poses(w string) string {
	var out []byte
	for _, f := range posFiles {
		if wn.index[f.pos][w] != nil {
			out = append(out, byte(f.pos))
		}
	}
	return string(out)
}
