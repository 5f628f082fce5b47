package extract

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// enWord is one Latin-script word of the input.
type enWord struct {
	start, end int
	lower      string
	cap        bool // starts with an upper-case letter or is an initial
	sentStart  bool // first word of a sentence
	joined     bool // separated from the previous word by spaces only
}

// appendLatinWords appends to dst the Latin-script words of text, keeping
// apostrophes, hyphens, ampersands and the dots of initials inside a word.
func appendLatinWords(dst []enWord, text string, abbrev map[string]bool) []enWord {
	// About one word in six bytes of English: grown once or not at all.
	dst = slices.Grow(dst, len(text)/6+1)
	eachLatinWord(text, abbrev, func(w enWord) { dst = append(dst, w) })
	return dst
}

// enScratch holds the arrays the English rules work in, pooled: made for
// every turn, they were the rules' largest allocation (the words of a
// backfill's turns, 1.4 of the 18.9 GB its drain allocated). Nothing made
// of them keeps them: candidates keep offsets into the text.
type enScratch struct {
	words []enWord
	used  []bool
}

var enScratchPool = sync.Pool{New: func() any { return new(enScratch) }}

// maxPooledWords keeps one huge text from pinning its arrays in the pool.
const maxPooledWords = 1 << 14

func (sc *enScratch) release() {
	if cap(sc.words) > maxPooledWords {
		return
	}
	clear(sc.words) // the words' lower-cased strings
	sc.words, sc.used = sc.words[:0], sc.used[:0]
	enScratchPool.Put(sc)
}

// eachLatinWord hands each of appendLatinWords' words to yield in turn, for a
// caller that keeps none of them whole (Keywords).
func eachLatinWord(text string, abbrev map[string]bool, yield func(enWord)) {
	n := 0
	sentStart := true
	joined := false
	for i := 0; i < len(text); {
		r, size := runeAt(text, i)
		if !isLatinWordRune(r) {
			switch {
			case r == '.' || r == '!' || r == '?' || r == '\n' || r == '。' || r == '！' || r == '？' || r == '…':
				sentStart, joined = true, false
			case r == ' ' || r == '\t':
			default:
				joined = false
			}
			i += size
			continue
		}
		j := i
		curly := false // holds ’, written ' in lower
		for j < len(text) {
			r2, s2 := runeAt(text, j)
			if isLatinWordRune(r2) {
				j += s2
				continue
			}
			if (r2 == '\'' || r2 == '’' || r2 == '-' || r2 == '&' || r2 == '.') && j+s2 < len(text) {
				if next, _ := runeAt(text, j+s2); isLatinWordRune(next) {
					curly = curly || r2 == '’'
					j += s2
					continue
				}
			}
			break
		}
		// An initial or a title keeps its full stop (Ursula K. Le Guin,
		// Dr. Who) instead of ending the sentence.
		if j < len(text) && text[j] == '.' && (j-i == 1 && text[i] >= 'A' && text[i] <= 'Z' || abbrev[text[i:j]]) {
			j++
		}
		w := text[i:j]
		if curly {
			w = strings.ReplaceAll(w, "’", "'")
		}
		yield(enWord{
			start: i, end: j,
			lower:     strings.ToLower(w),
			cap:       unicode.IsUpper(r),
			sentStart: sentStart,
			joined:    joined && n > 0,
		})
		n++
		sentStart, joined = false, true
		i = j
	}
}

// runeAt is the rune at text[i] and its size, an ASCII byte without a
// call.
func runeAt(text string, i int) (rune, int) {
	if c := text[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(text[i:])
}

// english runs the English rules: trigger phrases, possessives and
// capitalised phrases.
func (st *state) english() {
	sc := enScratchPool.Get().(*enScratch)
	defer sc.release()
	sc.words = appendLatinWords(sc.words, st.text, st.en.abbreviations)
	words := sc.words
	if len(words) == 0 {
		return
	}
	st.aimedEnglish(words)
	lx := st.r.lex
	sc.used = slices.Grow(sc.used, len(words))[:len(words)]
	used := sc.used
	clear(used)

	// Trigger phrases: "books by X", "I love X".
	for i := range words {
		for _, ti := range st.en.byFirst[words[i].lower] {
			tr := st.en.triggers[ti]
			n := len(tr.words)
			if i+n >= len(words) || !matchWords(words[i:i+n], tr.words) {
				continue
			}
			s, e := st.capPhrase(words, i+n)
			if e <= s || strings.HasSuffix(words[e-1].lower, "'s") {
				continue // possessives are typed by the noun after them
			}
			kind := tr.kind
			switch {
			case kind != "":
			case st.place(words[s:e]):
				// "I love Central Park": a place, not reported.
			case tr.maker:
				kind = st.makerKind(words, s, e)
			default:
				kind = st.titleKindOrName(words, s, e)
			}
			if kind != "" {
				st.rule = "en-trigger"
				st.addEnglish(words, s, e, kind, scoreEnglish)
			}
			for k := s; k < e; k++ {
				used[k] = true
			}
		}
	}

	// Possessives: "Tolkien's novels", "Taylor Swift's new album".
	for i := 0; i+1 < len(words); i++ {
		w := words[i]
		base, ok := strings.CutSuffix(w.lower, "'s")
		if !ok || base == "" || !w.cap {
			continue
		}
		kind, ok := st.possessiveKind(words, i+1)
		if !ok {
			continue
		}
		s := i
		for s > 0 && words[s-1].cap && words[s].joined && !lx.enStop[words[s-1].lower] {
			s--
		}
		st.rule = "en-possessive"
		st.add(words[s].start, possessiveBase(st.text, w), kind, scoreEnglish)
		for k := s; k <= i; k++ {
			used[k] = true
		}
	}

	// Capitalised phrases of two or more words not at sentence start.
	for i := 0; i < len(words); {
		if used[i] || !words[i].cap {
			i++
			continue
		}
		s, e := st.capPhrase(words, i)
		if e <= s {
			i++
			continue
		}
		next := e
		if next <= i {
			next = i + 1
		}
		if s > 0 && words[s-1].lower == "the" && words[s-1].cap && !words[s-1].sentStart && words[s].joined && !anyUsed(used, s, e) {
			// "The Dark Knight" in mid-sentence is a title or a band.
			st.rule = "en-phrase"
			st.add(words[s-1].start, st.wordsEnd(words[e-1]), st.titleKindOrName(words, s-1, e), scoreEnglish-10)
		} else if e-s >= 2 && !words[s].sentStart && !anyUsed(used, s, e) {
			kind := st.phraseKind(words, s, e)
			if kind != "" {
				st.rule = "en-phrase"
				st.add(words[s].start, st.wordsEnd(words[e-1]), kind, scoreEnglish-10)
			}
		}
		i = next
	}
}

// possessiveKind is the kind a possessive's noun gives the name before it:
// the word at i ("Tolkien's novels"), or the one after it when the word at i
// is a lower-case word before the noun ("Taylor Swift's new album").
func (st *state) possessiveKind(words []enWord, i int) (Kind, bool) {
	if kind, ok := st.en.possessive[words[i].lower]; ok {
		return kind, true
	}
	if i+1 < len(words) && !words[i].cap && words[i+1].joined && !words[i+1].sentStart {
		kind, ok := st.en.possessive[words[i+1].lower]
		return kind, ok
	}
	return "", false
}

// wordsEnd is where a name whose last word is w ends: before the "'s" of a
// possessive ("Taylor Swift's biggest fan" names Taylor Swift).
func (st *state) wordsEnd(w enWord) int {
	if strings.HasSuffix(w.lower, "'s") && w.end-w.start > 2 {
		return possessiveBase(st.text, w)
	}
	return w.end
}

// possessiveBase returns where the name of a possessive word ends in text:
// before its apostrophe. The word's lower-case form always spells the
// ending "'s", but the text may write the apostrophe as ’, three bytes
// where ' is one, so the ending's length is read from the text itself.
func possessiveBase(text string, w enWord) int {
	return w.start + strings.LastIndexAny(text[w.start:w.end], "'’")
}

// matchWords reports whether ws spell phrase, word by word.
func matchWords(ws []enWord, phrase []string) bool {
	for k, p := range phrase {
		if ws[k].lower != p || (k > 0 && !ws[k].joined) {
			return false
		}
	}
	return true
}

// capPhrase returns the capitalised phrase starting at word i: capitalised
// words joined by spaces, with lower-case connectors allowed inside, stop
// words trimmed from both ends, at most six words.
func (st *state) capPhrase(words []enWord, i int) (int, int) {
	lx := st.r.lex
	if i >= len(words) {
		return i, i
	}
	s := i
	for s < len(words) && words[s].cap && lx.enStop[words[s].lower] {
		s++
	}
	if s >= len(words) || !words[s].cap || (s > i && !words[s].joined) {
		return i, i
	}
	e := s + 1
	for e < len(words) && words[e].joined && e-s < 6 && !strings.HasSuffix(words[e-1].lower, "'s") {
		if words[e].cap && !lx.enStop[words[e].lower] {
			e++
			continue
		}
		// A connector counts only if a capitalised word follows it.
		if st.en.connectors[words[e].lower] && words[e].lower != "by" && e+1 < len(words) && words[e+1].joined && words[e+1].cap {
			e += 2
			continue
		}
		break
	}
	for e > s && (lx.enStop[words[e-1].lower] || st.en.connectors[words[e-1].lower]) {
		e--
	}
	return s, e
}

func anyUsed(used []bool, s, e int) bool {
	for k := s; k < e; k++ {
		if used[k] {
			return true
		}
	}
	return false
}

// phraseKind types a bare capitalised phrase, words[s:e]: organisations are
// topics, places are dropped, a person's name when something says so
// (personEvidence), anything but two or three plain words a title when a cue
// word says which; what nothing types stays a name. A phrase all in
// capitals ("SYSTEM OVERRIDE", "READ THIS NOW") is dropped too: names and
// titles are written in title case, capitals shout a label or a command.
func (st *state) phraseKind(words []enWord, s, e int) Kind {
	ws := words[s:e]
	if shouted(st.text, ws) {
		return ""
	}
	last := strings.TrimSuffix(ws[len(ws)-1].lower, "'s")
	if st.en.orgWords[last] {
		return KindTopic
	}
	if st.place(ws) {
		return ""
	}
	if st.personEvidence(words, s, e) {
		return st.personKind(ws[0].start, ws[len(ws)-1].end)
	}
	plain := len(ws) <= 3
	for _, w := range ws {
		if !w.cap {
			plain = false
		}
	}
	if plain {
		return KindName
	}
	return st.workOrName(ws[0].start, ws[len(ws)-1].end)
}

// place reports whether ws, a capitalised phrase, names a place: one of its
// words is a place word (Panama Canal, Lake Tahoe, New York).
func (st *state) place(ws []enWord) bool {
	for _, w := range ws {
		if st.en.placeWords[strings.TrimSuffix(w.lower, "'s")] {
			return true
		}
	}
	return false
}

// shouted reports whether every word of ws is written in capitals, two
// letters or more each (an initial, "J.", is no shouting).
func shouted(text string, ws []enWord) bool {
	for _, w := range ws {
		letters := 0
		for _, r := range text[w.start:w.end] {
			if unicode.IsLower(r) {
				return false
			}
			if unicode.IsUpper(r) {
				letters++
			}
		}
		if letters < 2 {
			return false
		}
	}
	return true
}

// addEnglish records words[s:e] with kind, typing people as authors when
// books are mentioned next to them.
func (st *state) addEnglish(words []enWord, s, e int, kind Kind, score int) {
	start, end := words[s].start, words[e-1].end
	if kind == KindPerson {
		kind = st.personKind(start, end)
	}
	st.add(start, end, kind, score)
}

// titleKindOrName types words[s:e], a name that may be a person's or a
// work's: next to a cue word it is a work of that kind, and a person's when
// something says so (personOrName); otherwise nothing types it.
func (st *state) titleKindOrName(words []enWord, s, e int) Kind {
	if k := st.nearCue(words[s].start, words[e-1].end, 6); k != "" {
		return k
	}
	return st.personOrName(words, s, e)
}

// personOrName types words[s:e], plain capitalised words: a person (an
// author next to books, personKind) when personEvidence says so, otherwise
// a name. Two capitalised words are as often a title, a band or a place as
// a person ("Anna Karenina", "Enchanted Garden").
func (st *state) personOrName(words []enWord, s, e int) Kind {
	if st.personEvidence(words, s, e) {
		return st.personKind(words[s].start, words[e-1].end)
	}
	return KindName
}

// personEvidence reports whether words[s:e] say of themselves, or the word
// before them says, that they name a person: a title opening them or just
// before them (Dr. Anna Lee, Mr. Smith), an initial among them (Ursula K. Le
// Guin, J.R.R. Tolkien), or a noun for someone of a person's life just
// before them (her friend Anna Lee).
func (st *state) personEvidence(words []enWord, s, e int) bool {
	en := st.en
	if en.personTitles[words[s].lower] {
		return true
	}
	if s > 0 && words[s].joined && (en.personTitles[words[s-1].lower] || en.personBefore[words[s-1].lower]) {
		return true
	}
	for k := s; k < e-1; k++ {
		if isInitials(st.text[words[k].start:words[k].end]) {
			return true
		}
	}
	return false
}

// isInitials reports whether w is one initial or several (K., J.R.R, J.K.):
// capital letters each followed by a full stop, but for the last.
func isInitials(w string) bool {
	letters, dots := 0, 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= 'A' && c <= 'Z':
			if i > 0 && w[i-1] != '.' {
				return false
			}
			letters++
		case c == '.':
			if i == 0 || w[i-1] == '.' {
				return false
			}
			dots++
		default:
			return false
		}
	}
	return letters > 0 && dots > 0 && dots >= letters-1
}

// workOrName types a phrase that is no plain name (connectors inside, more
// than three words): the work a cue word says (titleKind's cues, near it or
// in the whole text), otherwise a name.
func (st *state) workOrName(s, e int) Kind {
	if k := st.nearCue(s, e, 12); k != "" {
		return k
	}
	if k := st.textCue(); k != "" {
		return k
	}
	return KindName
}

// makerKind types the name after "by" (words[s:e]): whoever made the thing
// before it, an author when books are mentioned near, otherwise a name (a
// director, a band, a studio).
func (st *state) makerKind(words []enWord, s, e int) Kind {
	if st.personEvidence(words, s, e) || st.nearCue(words[s].start, words[e-1].end, 30) == KindBookTitle {
		return st.personKind(words[s].start, words[e-1].end)
	}
	return KindName
}
