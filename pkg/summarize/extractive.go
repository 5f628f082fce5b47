package summarize

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/attribute/stated"
	"github.com/recallhq/recall/pkg/extract"
)

// Extractive summarizes without any service: it picks the most salient
// sentences of the conversation (at most two, within the length bound) and
// takes the key topics from the facts the extractor's rules and lexicon find
// in the user's turns (Options.TopicRoles).
// What the user says about themselves, asks for and decides weighs most.
// Small talk (greetings, thanks, acknowledgements: sentences with little
// content for their length, by the conversation's own measure; and
// reactions to the other, such as praise of their choice and wishes) is
// picked only when there is nothing else. The same input always gives the same
// summary. It is safe for concurrent use.
type Extractive struct {
	rules *extract.Rules
	opts  Options
}

// NewExtractive returns an extractive summarizer using the extractor's rules.
func NewExtractive(rules *extract.Rules, opts Options) *Extractive {
	return &Extractive{rules: rules, opts: opts.withDefaults()}
}

// maxSentences is how many sentences an extractive summary takes at most.
const maxSentences = 2

// Weights of the salience score.
const (
	// userWeight favours what the user said: the summary is memory about the
	// user.
	userWeight = 1.3
	// previousWeight lets the previous summary's sentences compete, a little
	// below the new ones, so a rolling summary keeps the session's thread.
	previousWeight = 0.8
	// factWeight counts a fact (title, person, genre, topic) as this many
	// keyword occurrences.
	factWeight = 2.0
	// questionWeight discounts a sentence that only asks (not the user's
	// requests, which say what the user wants).
	questionWeight = 0.6
	// selfWeight favours the user's sentences about themselves (first
	// person), intentWeight their requests and decisions: who the user is
	// and what they asked for is what the memory is for.
	selfWeight   = 1.5
	intentWeight = 1.3
	// fillerWeight discounts a reaction to the other (praise, wishes,
	// compliments), whoever speaks: it says how the conversation felt, not
	// what it was about.
	fillerWeight = 0.4
)

// sentence is one candidate sentence.
type sentence struct {
	text string
	role string // "" for the previous summary's sentences
	// speaker is who said it: the role, or for the previous summary's
	// sentences the role their label names ("" when unlabelled).
	speaker  string
	voice    voice
	order    int // position in the conversation, for output order and ties
	keywords []string
	// size is the sentence's length in words (a Han character counts as
	// half a word), for its content density.
	size float64
	// facts are the values of the rules' facts the sentence holds; they
	// count among its keywords.
	facts []string
	// stated reports a user's sentence that says something lasting about
	// them (stated.Self): who they are, what they like, avoid or asked for.
	stated bool
	// content scales the score by the content the sentence carries for its
	// length (contentFactor); below 1 it is small talk, more or less.
	content float64
	score   float64
}

// candTopic is a key topic candidate.
type candTopic struct {
	Topic
	score float64
	first int
}

// Summarize writes the next summary of a session from in, offline: the
// worker's summary when no model is configured, and its fallback when the
// model fails or the tenant's model rate is spent.
func (e *Extractive) Summarize(ctx context.Context, in Input) (Summary, error) {
	turns := Usable(in.Turns)
	texts := make([]string, 0, len(turns)+1)
	for _, t := range turns {
		texts = append(texts, t.Text)
	}
	if in.Previous != nil {
		texts = append(texts, in.Previous.Text)
	}
	zh := mostlyHan(texts...)

	// About a sentence in eighty bytes, and a few keywords each: sized
	// once rather than grown.
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	r := reading{e: e, weights: make(map[string]float64, size/20), topics: map[string]*candTopic{},
		sents: make([]sentence, 0, size/80+4)}
	if in.Previous != nil {
		r.previous(ctx, in.Previous)
	}
	for ti, t := range turns {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		if err := r.turn(ctx, ti, t); err != nil {
			return Summary{}, err
		}
	}
	sents, weights := r.sents, r.weights
	// The people addressed by name are the conversation's participants, not
	// its subject: their names leave the keywords (not the facts).
	names := addressees(sents)
	for i := range sents {
		s := &sents[i]
		if len(names) > 0 {
			s.keywords = slices.DeleteFunc(s.keywords, func(k string) bool { return names[k] })
		}
		s.keywords = append(s.keywords, s.facts...)
	}
	for _, s := range sents {
		for _, k := range s.keywords {
			weights[k]++
		}
	}

	return Summary{
		Text:   e.text(sents, weights, zh),
		Topics: e.topics(r.topics),
		Model:  ModelExtractive,
	}, nil
}

// reading is what Summarize gathers as it reads the previous summary and
// the turns: the candidate sentences in conversation order, the keywords'
// and facts' weights, and the key topic candidates.
type reading struct {
	e       *Extractive
	weights map[string]float64
	topics  map[string]*candTopic
	sents   []sentence
	order   int
}

// previous reads the previous summary: its sentences are candidates again,
// and its key topics are carried over, ranked below anything the new turns
// mention.
func (r *reading) previous(ctx context.Context, prev *Previous) {
	for _, s := range splitSentences(prev.Text) {
		r.sents = append(r.sents, sentence{text: s, order: r.order, keywords: r.e.rules.Keywords(unlabelled(s)),
			speaker: labelRole(s), voice: voiceOf(unlabelled(s))})
		r.order++
	}
	for i, name := range prev.KeyTopics {
		value := extract.Normalize(name)
		if value == "" || r.topics[value] != nil {
			continue
		}
		r.topics[value] = &candTopic{Topic: Topic{Kind: topicKind(ctx, r.e.rules, name), Value: value, Display: name}, score: 0.5, first: -1000 + i}
	}
}

// turn reads the ti-th turn: the facts the rules find in it weigh as
// keywords and make topic candidates (a user's count double), and each of
// its sentences is a candidate with the facts it holds.
func (r *reading) turn(ctx context.Context, ti int, t Turn) error {
	// The facts of the turns topics come from (Options.TopicRoles):
	// the assistant's suggestions are not the user's topics, and its
	// long answers were most of the rules' time in a summary.
	var facts []extract.Fact
	if r.e.opts.topicRole(t.Role) {
		var err error
		if facts, err = r.e.rules.Extract(ctx, extract.Input{Text: t.Text}); err != nil {
			return fmt.Errorf("summarize: extract: %w", err)
		}
	}
	w := 1.0
	if t.Role == "user" {
		w = 2.0
	}
	for _, f := range facts {
		r.weights[f.Value] += factWeight
		ct := r.topics[f.Value]
		if ct == nil {
			ct = &candTopic{Topic: Topic{Kind: f.Kind, Value: f.Value, Display: f.Display}, first: ti}
			r.topics[f.Value] = ct
		}
		if !ct.Mentioned {
			ct.Kind, ct.first = f.Kind, ti
		}
		ct.Mentioned = true
		ct.Display = f.Display
		ct.score += w
	}
	for _, s := range splitSentences(t.Text) {
		var fv []string
		if len(facts) > 0 {
			norm := extract.Normalize(s)
			for _, f := range facts {
				if strings.Contains(norm, f.Value) {
					fv = append(fv, f.Value)
				}
			}
		}
		r.sents = append(r.sents, sentence{text: s, role: t.Role, speaker: t.Role, voice: voiceOf(s), order: r.order,
			keywords: r.e.rules.Keywords(s), facts: fv, size: wordCount(s), stated: t.Role == "user" && len(stated.Self(s)) > 0})
		r.order++
	}
	return nil
}

// text scores the sentences, picks the best non-redundant ones and writes
// them in conversation order, each after its speaker's label.
func (e *Extractive) text(sents []sentence, weights map[string]float64, zh bool) string {
	typical := typicalDensity(sents)
	for i := range sents {
		s := &sents[i]
		s.content = contentFactor(s, typical)
		s.score = salience(s, weights, zh) * s.content
	}
	ranked := make([]int, len(sents))
	for i := range ranked {
		ranked[i] = i
	}
	sort.SliceStable(ranked, func(a, b int) bool {
		sa, sb := sents[ranked[a]], sents[ranked[b]]
		if sa.score != sb.score {
			return sa.score > sb.score
		}
		return sa.order < sb.order
	})
	covered := map[string]bool{}
	var picked []int
	budget := e.opts.MaxRunes
	hasPrevious := false
	for _, s := range sents {
		hasPrevious = hasPrevious || s.role == ""
	}
	// The best new sentence that carries content first (new turns of small
	// talk do not displace what the previous summary says); then, in a
	// rolling summary, the best sentence of the previous one, so the
	// session's thread is kept; then the next best of any.
	for pass := 0; pass < 3 && len(picked) < maxSentences; pass++ {
		for _, i := range ranked {
			s := sents[i]
			if len(picked) == maxSentences || s.score <= 0 {
				break
			}
			if pass == 0 && s.role == "" || pass == 1 && (s.role != "" || !hasPrevious) || slices.Contains(picked, i) {
				continue
			}
			if (pass == 0 || len(picked) > 0) && s.smallTalk(zh) {
				// Small talk only ever stands alone, when nothing else
				// scored.
				continue
			}
			if redundant(s.keywords, covered) {
				continue
			}
			n := utf8.RuneCountInString(labelled(s, zh))
			if len(picked) > 0 && n > budget {
				continue
			}
			picked = append(picked, i)
			budget -= n + 1
			for _, k := range s.keywords {
				covered[k] = true
			}
			if pass < 2 {
				break
			}
		}
	}
	// What the user said about themselves, when none of it was picked: the
	// best of it, if it fits, as one more sentence. The summary is memory
	// about the user; their words weigh more than the assistant's filler.
	if !slices.ContainsFunc(picked, func(i int) bool { return sents[i].stated }) {
		for _, i := range ranked {
			s := sents[i]
			if !s.stated || s.score <= 0 || slices.Contains(picked, i) || redundant(s.keywords, covered) {
				continue
			}
			if n := utf8.RuneCountInString(labelled(s, zh)); len(picked) == 0 || n <= budget {
				picked = append(picked, i)
				break
			}
		}
	}
	if len(picked) == 0 && len(sents) > 0 {
		// Nothing scored (greetings only): the longest sentence says most.
		longest := 0
		for i, s := range sents {
			if utf8.RuneCountInString(s.text) > utf8.RuneCountInString(sents[longest].text) {
				longest = i
			}
		}
		picked = []int{longest}
	}
	sort.Ints(picked)
	parts := make([]string, len(picked))
	for i, p := range picked {
		parts[i] = labelled(sents[p], zh)
	}
	sep := " "
	if zh {
		sep = ""
	}
	return clip(strings.Join(parts, sep), e.opts.MaxRunes)
}

// salience is the sentence's score: the weight of its distinct keywords over
// the square root of its length in keywords (so a sentence is rewarded for
// saying much about the conversation's subjects, not for being long), more
// for the user's words and the previous summary's, and more again for what
// the user says about themselves, asks for and decides (its voice); less
// for reactions to the other, for questions and for fragments too short to
// stand alone.
func salience(s *sentence, weights map[string]float64, zh bool) float64 {
	if len(s.keywords) == 0 {
		return 0
	}
	var sum float64
	for i, k := range s.keywords {
		if !slices.Contains(s.keywords[:i], k) { // a sentence has a few dozen at most
			sum += weights[k]
		}
	}
	score := sum / math.Sqrt(float64(len(s.keywords)))
	if s.role == "" {
		score *= previousWeight
	}
	request := false
	if s.speaker == "user" {
		score *= userWeight
		if s.voice.self {
			score *= selfWeight
		}
		if s.voice.intent {
			score *= intentWeight
			request = true
		}
	}
	if s.voice.filler {
		score *= fillerWeight
	}
	if !request && (strings.HasSuffix(s.text, "?") || strings.HasSuffix(s.text, "？")) {
		score *= questionWeight
	}
	if short(s.text, zh) {
		score *= 0.3
	}
	return score
}

// short reports a fragment: under 6 Chinese characters or under 5 words.
func short(s string, zh bool) bool {
	if zh {
		return utf8.RuneCountInString(s) < 6
	}
	return fewerFields(s, 5)
}

// fewerFields reports whether strings.Fields would split s into fewer than
// n fields, counting no further than n.
func fewerFields(s string, n int) bool {
	count, in := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			in = false
			continue
		}
		if !in {
			in = true
			if count++; count >= n {
				return false
			}
		}
	}
	return true
}

// edgeFields are the first two and the last two of the fields
// strings.Fields would split s into, and how many there are, up to three:
// what addressees reads of a sentence, without the fields between.
func edgeFields(s string) (first, last [2]string, n int) {
	start := -1
	field := func(f string) {
		if n < 2 {
			first[n] = f
		}
		last[0], last[1] = last[1], f
		n = min(n+1, 3)
	}
	for i, r := range s {
		switch space := unicode.IsSpace(r); {
		case space && start >= 0:
			field(s[start:i])
			start = -1
		case !space && start < 0:
			start = i
		}
	}
	if start >= 0 {
		field(s[start:])
	}
	return first, last, n
}

// redundant reports whether most of a sentence's keywords are covered already.
func redundant(kw []string, covered map[string]bool) bool {
	if len(covered) == 0 || len(kw) == 0 {
		return false
	}
	n := 0
	for _, k := range kw {
		if covered[k] {
			n++
		}
	}
	return float64(n) >= 0.6*float64(len(kw))
}

// unlabelled is a sentence of a previous summary without its speaker's
// label, whose words say nothing about the conversation.
func unlabelled(s string) string {
	for _, l := range []string{"用户：", "User: ", "助手：", "Assistant: "} {
		if rest, ok := strings.CutPrefix(s, l); ok {
			return rest
		}
	}
	return s
}

// labelRole is the role a previous summary's sentence is labelled with, ""
// when it has no label.
func labelRole(s string) string {
	switch {
	case strings.HasPrefix(s, "用户："), strings.HasPrefix(s, "User: "):
		return "user"
	case strings.HasPrefix(s, "助手："), strings.HasPrefix(s, "Assistant: "):
		return "assistant"
	}
	return ""
}

// labelled writes a sentence after its speaker's label; the previous
// summary's sentences stand as they are.
func labelled(s sentence, zh bool) string {
	label := ""
	switch {
	case s.role == "user" && zh:
		label = "用户："
	case s.role == "user":
		label = "User: "
	case s.role == "assistant" && zh:
		label = "助手："
	case s.role == "assistant":
		label = "Assistant: "
	}
	text := s.text
	if r, _ := utf8.DecodeLastRuneInString(strings.TrimRightFunc(text, isCloser)); !isSentenceEnd(r) {
		if zh {
			text += "。"
		} else {
			text += "."
		}
	}
	return label + text
}

// topics ranks the candidates: mentioned by the new turns first, by how
// often and by whom (a user's mention counts double), then carried-over ones;
// ties go to the earlier mention.
func (e *Extractive) topics(cands map[string]*candTopic) []Topic {
	list := make([]*candTopic, 0, len(cands))
	for _, c := range cands {
		list = append(list, c)
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Mentioned != b.Mentioned {
			return a.Mentioned
		}
		if a.score != b.score {
			return a.score > b.score
		}
		if a.first != b.first {
			return a.first < b.first
		}
		return a.Value < b.Value
	})
	out := make([]Topic, 0, min(len(list), e.opts.MaxTopics))
	for _, c := range list {
		if len(out) == e.opts.MaxTopics {
			break
		}
		out = append(out, c.Topic)
	}
	return out
}

// splitSentences splits text at sentence ends (. ! ? and their full-width
// forms, … and line breaks), keeping the punctuation; a full stop inside a
// number or before a letter (3.5, e.g.) does not end a sentence.
func splitSentences(text string) []string {
	if !utf8.ValidString(text) {
		text = string([]rune(text)) // each invalid byte a U+FFFD, as ever
	}
	var out []string
	start := 0
	flush := func(end int) {
		if s := collapse(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		next := i + size
		switch {
		case r == '\n':
			flush(next)
		case r == '.' && next < len(text) && !isSpaceOrQuote(runeAt(text, next)):
			// 3.5, e.g., a.m.: not a sentence end
		case isSentenceEnd(r):
			for next < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[next:])
				if !isSentenceEnd(r2) && !isCloser(r2) {
					break
				}
				next += s2
			}
			flush(next)
		}
		i = next
	}
	flush(len(text))
	return out
}

// runeAt is the rune that begins at text[i].
func runeAt(text string, i int) rune {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return r
}

func isSpaceOrQuote(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || isCloser(r)
}

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', '”', '’', ')', '）', '」', '』', '》':
		return true
	}
	return false
}

// wordCount is a sentence's length in words: the runs of letters or digits,
// with a Han character counted as half a word (Chinese words are one to
// three characters).
func wordCount(s string) float64 {
	var n float64
	inWord := false
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			// ASCII, most of what is read: letters and digits begin a
			// word, an apostrophe or a hyphen goes on with it.
			i++
			switch {
			case c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9':
				if !inWord {
					n++
					inWord = true
				}
			case c == '\'' || c == '-':
			default:
				inWord = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case unicode.Is(unicode.Han, r):
			n += 0.5
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || r == '-':
			if !inWord && r != '\'' && r != '’' && r != '-' {
				n++
				inWord = true
			}
		default:
			inWord = false
		}
	}
	return n
}

// density is the share of a sentence's words that are distinct content
// words (keywords, the rules' facts).
func density(s *sentence) float64 {
	if s.size <= 0 {
		return 0
	}
	return min(1, float64(distinct(s.keywords))/s.size)
}

// distinct is how many different keywords kw holds: a sentence has a few
// dozen at most, and a map for each cost more than comparing them.
func distinct(kw []string) int {
	n := 0
	for i, k := range kw {
		if !slices.Contains(kw[:i], k) {
			n++
		}
	}
	return n
}

// typicalDensity is the content density of a sentence that says something
// in this conversation: the upper quartile of its sentences' densities (the
// new turns' and the previous summary's). The conversation's own statistics
// make it hold whatever the language and style; not the median, because
// chat is often half small talk.
func typicalDensity(sents []sentence) float64 {
	if len(sents) == 0 {
		return 0
	}
	ds := make([]float64, len(sents))
	for i := range sents {
		ds[i] = density(&sents[i])
	}
	slices.Sort(ds)
	return ds[len(ds)*3/4]
}

// smallTalkContent is the content factor at or below which a sentence is small
// talk: half the typical density, or a single content word.
const smallTalkContent = 0.5

// smallTalk reports a sentence of small talk: a reaction to the other
// (praise, wishes: its voice's filler), a fragment, or little content for
// its length (contentFactor at most smallTalkContent). The previous
// summary's sentences are small talk only when they are reactions.
func (s *sentence) smallTalk(zh bool) bool {
	return s.voice.filler || s.role != "" && (s.content <= smallTalkContent || short(s.text, zh))
}

// contentFactor scales a sentence's salience by how much content it carries
// for its length, against the conversation's typical sentence: greetings,
// thanks and acknowledgements are mostly words that carry no topic ("Thanks
// so much, that means a lot!"), so they score below the sentences that say
// what the conversation is about. A sentence with a fact, or as dense as
// the typical one, keeps its score; one with a single content word keeps at
// most half of it.
func contentFactor(s *sentence, typical float64) float64 {
	if s.role == "" || len(s.facts) > 0 {
		return 1
	}
	f := 1.0
	if typical > 0 {
		f = min(1, density(s)/typical)
	}
	if distinct(s.keywords) < 2 {
		f = min(f, smallTalkContent)
	}
	return f
}

// addressees are the names the speakers address each other by: a
// capitalised word set off by a comma at the start of a sentence ("Maria,
// ..."), after a first word that carries no content ("Hey Jon, ..."), or at
// its end (", Gina!"), lower-cased as keywords are. A word the conversation
// also writes in lower case is no name ("Hiking, swimming and ...").
func addressees(sents []sentence) map[string]bool {
	var names map[string]bool
	add := func(w string) {
		w = strings.TrimRight(w, ",.!?;:")
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) || strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) {
			return
		}
		if names == nil {
			names = map[string]bool{}
		}
		names[strings.ToLower(w)] = true
	}
	for _, s := range sents {
		if s.role == "" {
			continue
		}
		f, l, n := edgeFields(s.text)
		switch {
		case n >= 2 && strings.HasSuffix(f[0], ","):
			add(f[0])
		case n >= 3 && strings.HasSuffix(f[1], ",") && !strings.ContainsAny(f[0], ",.!?") && !slices.Contains(s.keywords, strings.ToLower(f[0])):
			add(f[1])
		}
		if n >= 2 && strings.HasSuffix(l[0], ",") {
			if last := strings.TrimRight(l[1], ".!?"); last != l[1] {
				add(last)
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	for _, s := range sents {
		if s.role == "" {
			continue
		}
		eachLetterRun(s.text, func(w string) {
			if names[w] {
				delete(names, w)
			}
		})
	}
	return names
}

// eachLetterRun calls f with each run of letters of s, in order: the fields
// of s split at every rune that is not a letter, without making a list.
func eachLetterRun(s string, f func(string)) {
	start := -1
	for i := 0; i < len(s); {
		letter, size := false, 1
		if c := s[i]; c < utf8.RuneSelf {
			letter = c|0x20 >= 'a' && c|0x20 <= 'z'
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			letter = unicode.IsLetter(r)
		}
		switch {
		case letter && start < 0:
			start = i
		case !letter && start >= 0:
			f(s[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		f(s[start:])
	}
}
