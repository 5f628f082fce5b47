package extract

import (
	"bufio"
	"embed"
	"fmt"
	"strings"
	"sync"
)

// lexiconFS holds the word lists the rules ship with. They are data rather
// than Go literals so that linguists can edit them without touching code.
//
//go:embed lexicon/*.tsv lexicon/*.txt
var lexiconFS embed.FS

// lexEntry is one genre or topic: the kind and the name reported for every
// surface form of the row.
type lexEntry struct {
	kind    Kind
	display string
}

// lexicon is the parsed, read-only form of the embedded word lists.
type lexicon struct {
	entries   []lexEntry
	patterns  []string // normalised surface forms
	patEntry  []int    // patterns[i] belongs to entries[patEntry[i]]
	matcher   *automaton
	surnames  map[rune]bool
	common    map[rune]bool   // the most common family names
	surnames2 map[string]bool // two-character Chinese family names
	jpNames   map[string]bool
	translit  map[rune]bool
	enStop    map[string]bool
	zh        *zhWords
	en        *enWords
	cues      []cue
}

var (
	lexOnce sync.Once
	lexVal  *lexicon
	lexErr  error
)

// loadLexicon parses the embedded word lists once. They never change after
// loading, so every Rules value shares them without locking.
func loadLexicon() (*lexicon, error) {
	lexOnce.Do(func() {
		lexVal, lexErr = parseLexicon()
	})
	return lexVal, lexErr
}

func parseLexicon() (*lexicon, error) {
	lx := &lexicon{
		surnames:  make(map[rune]bool),
		common:    make(map[rune]bool),
		surnames2: make(map[string]bool),
		jpNames:   make(map[string]bool),
		translit:  make(map[rune]bool),
		enStop:    make(map[string]bool),
	}
	for _, name := range []string{"lexicon/genres.tsv", "lexicon/topics.tsv"} {
		if err := lx.readTable(name); err != nil {
			return nil, err
		}
	}
	lx.matcher = newAutomaton(lx.patterns)

	first := true
	err := readWords("lexicon/surnames.txt", func(w string) {
		if runeCount(w) == 2 {
			lx.surnames2[w] = true
			return
		}
		for _, r := range w {
			lx.surnames[r] = true
			if first {
				lx.common[r] = true
			}
		}
		first = false
	})
	if err != nil {
		return nil, err
	}
	if err := readWords("lexicon/jp_surnames.txt", func(w string) { lx.jpNames[w] = true }); err != nil {
		return nil, err
	}
	err = readWords("lexicon/translit.txt", func(w string) {
		for _, r := range w {
			lx.translit[r] = true
		}
	})
	if err != nil {
		return nil, err
	}
	if err := readWords("lexicon/stopwords_en.txt", func(w string) { lx.enStop[w] = true }); err != nil {
		return nil, err
	}
	data, err := lexiconFS.ReadFile("lexicon/zh_rules.txt")
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	if lx.zh, err = parseZhWords("zh_rules.txt", string(data)); err != nil {
		return nil, err
	}
	if data, err = lexiconFS.ReadFile("lexicon/en_rules.txt"); err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	if lx.en, err = parseEnWords("en_rules.txt", string(data)); err != nil {
		return nil, err
	}
	if data, err = lexiconFS.ReadFile("lexicon/title_cues.txt"); err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	if lx.cues, err = parseCues("title_cues.txt", string(data)); err != nil {
		return nil, err
	}
	return lx, nil
}

// readTable reads a kind/display/surfaces table into lx.
func (lx *lexicon) readTable(name string) error {
	f, err := lexiconFS.Open(name)
	if err != nil {
		return fmt.Errorf("extract: open %s: %w", name, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != 3 {
			return fmt.Errorf("extract: %s:%d: want 3 tab-separated columns, got %d", name, line, len(cols))
		}
		kind := Kind(cols[0])
		if kind != KindGenre && kind != KindTopic {
			return fmt.Errorf("extract: %s:%d: kind %q is not genre or topic", name, line, kind)
		}
		lx.entries = append(lx.entries, lexEntry{kind: kind, display: strings.TrimSpace(cols[1])})
		for _, s := range strings.Split(cols[2], "|") {
			if s = Normalize(s); s != "" {
				lx.patterns = append(lx.patterns, s)
				lx.patEntry = append(lx.patEntry, len(lx.entries)-1)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("extract: read %s: %w", name, err)
	}
	return nil
}

// readWords calls fn for every whitespace-separated word of an embedded
// list, skipping comment lines.
func readWords(name string, fn func(string)) error {
	data, err := lexiconFS.ReadFile(name)
	if err != nil {
		return fmt.Errorf("extract: read %s: %w", name, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, w := range strings.Fields(line) {
			fn(w)
		}
	}
	return nil
}

// isSurnameStart reports whether name begins with a Chinese or Japanese
// family name, which is what makes a short unknown word a plausible name.
// With commonOnly, only the most common single-character family names
// count, which is what a name without a context word needs.
func (lx *lexicon) isSurnameStart(name string, commonOnly bool) bool {
	rs := []rune(name)
	if len(rs) == 0 {
		return false
	}
	if commonOnly && lx.common[rs[0]] || !commonOnly && lx.surnames[rs[0]] {
		return true
	}
	if len(rs) >= 3 && (lx.surnames2[string(rs[:2])] || lx.jpNames[string(rs[:2])]) {
		return true
	}
	return len(rs) >= 4 && lx.jpNames[string(rs[:3])]
}
