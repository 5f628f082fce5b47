package extractor

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/attribute/stated"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/listsel"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// maxReplies bounds the sessions whose newest reply the worker keeps.
const maxReplies = 20000

// choice reads a pick: a user turn that names one entry of the numbered
// list the assistant's reply just before it offered ("option 2 suits me
// best", "I'll take the third one", "第二个"). What was chosen, and what was
// turned down, is kept as a statement marked as a choice, on the matter of
// what was chosen; a pick among options the reply offered in prose ("you
// could take trail mix, fresh fruit or cheese sticks") is kept in the
// user's words. The reply is the session's newest assistant turn before the
// pick: the one this worker read last (turns of a session come in order on
// the stream), else the one stored; with neither, no choice is read, and
// nothing waits.
func (w *Worker) choice(ctx context.Context, t *events.Turn) ([]store.AssertionRow, error) {
	if !w.cfg.Stated {
		return nil, nil
	}
	key := t.TenantID + "\x00" + t.SessionID
	if t.Role == events.RoleAssistant {
		if r, ok := w.replies.Get(key); !ok || r.OccurredAt.Before(t.OccurredAt) {
			w.replies.Add(key, record.Message{EventID: t.ID, Role: t.Role, Content: t.Content, OccurredAt: t.OccurredAt})
		}
		return nil, nil
	}
	if t.Role != events.RoleUser {
		return nil, nil
	}
	first, ok := pickSentence(t.Content)
	if !ok {
		return nil, nil
	}
	// The reply this worker read last in the session, when it came before
	// the pick; else the one stored (another replica read it; a replay
	// started after it).
	reply, found := w.replies.Get(key)
	if !found || !reply.OccurredAt.Before(t.OccurredAt) {
		var err error
		if reply, found, err = w.store.Tenant(t.TenantID).ReplyBefore(ctx, t.SessionID, t.OccurredAt); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, nil
	}
	entries := listsel.Entries(reply.Content)
	decides := decisionCue.MatchString(strings.ToLower(first))
	var text, matter string
	if n, ok := pickOf(t.Content, first, entries, decides); ok && n != 0 {
		if n == lastEntry {
			n = len(entries)
		}
		if n < 1 || n > len(entries) {
			return nil, nil
		}
		text, matter = choiceText(entries, n)
	} else if !decides {
		return nil, nil
	} else if text, matter, ok = choiceWords(first, reply.Content); !ok {
		return nil, nil
	}
	// Why, in the user's words: the sentence after the pick when it turns
	// the others down ("the others are too noisy for me", pickReason), the
	// stronger sign of a preference; a bare pick weighs less.
	strength := 0.45
	if why := pickReason(t.Content, first); why != "" {
		text = clipRunes(text+" Why: "+why, stated.MaxSaidChars)
		strength = 0.7
	}
	a := attribute.Assertion{Key: attribute.KeyStatements, Item: attribute.ItemKey(matter), Value: text, Op: attribute.Put,
		Source: attribute.Stated, EventID: t.ID, Evidence: []string{reply.EventID, t.ID}, SessionID: t.SessionID, Confidence: strength, At: t.OccurredAt}
	if err := attribute.Normalize(w.schemas.For(t.TenantID), &a); err != nil {
		w.metrics.stated.WithLabelValues("choice", "refused").Inc()
		return nil, nil
	}
	w.metrics.stated.WithLabelValues("choice", "read").Inc()
	return []store.AssertionRow{{TenantID: t.TenantID, UserID: t.UserID, Assertion: a}}, nil
}

// aside opens a sentence that changes the subject.
var aside = regexp.MustCompile(`^(?:by the way|btw|also|anyway|speaking of|oh|and|顺便|另外)\b`)

// turnsDown says that a reason turns the other options down: a negation or
// an excess ("not for me", "too noisy", "不适合").
var turnsDown = regexp.MustCompile(`\b(?:not|no|never|too|rather than|instead of|over)\b|n't\b|不|没`)

// pickReason is the sentence of the turn right after its pick sentence,
// when it turns the other options down (turnsDown: "the others are too
// noisy for me"): not a question, not the user's statement of themselves
// (stated.Self keeps that on its own), not a change of subject ("By the
// way, …"), at most 200 characters.
func pickReason(text, first string) string {
	i := strings.Index(text, first)
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(text[i+len(first):], ".!。！ \t")
	if rest == "" || strings.HasPrefix(rest, "\n") {
		return ""
	}
	end := strings.IndexAny(rest, ".!?。！？\n")
	if end < 0 {
		end = len(rest)
	} else if rest[end] == '?' || strings.HasPrefix(rest[end:], "？") {
		return ""
	} else if rest[end] != '\n' {
		end += len(string([]rune(rest[end:])[0]))
	}
	why := strings.TrimSpace(rest[:end])
	lower := strings.ToLower(why)
	if why == "" || utf8.RuneCountInString(why) > 200 || !turnsDown.MatchString(lower) || aside.MatchString(lower) || len(stated.Self(why)) > 0 {
		return ""
	}
	return why
}

// clipRunes cuts s to limit characters, the last an ellipsis.
func clipRunes(s string, limit int) string {
	if r := []rune(s); len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return s
}

// lastEntry stands for "the last one".
const lastEntry = -1

// pickSentence is the first sentence of a user's turn when it may pick
// among options: it says so ("I'll go with", "I think … would be best",
// "sounds good", "option 2", "第二个"), and it does not ask ("can you tell me
// more about the second option?") nor tell the assistant what to do.
func pickSentence(text string) (string, bool) {
	if notAPick.MatchString(strings.ToLower(strings.TrimSpace(text))) {
		return "", false
	}
	if _, ok := listsel.Select(text); ok {
		return text, true
	}
	first := strings.TrimSpace(text)
	if i := strings.IndexAny(first, ".!?。！？\n"); i > 0 {
		if first[i] == '?' {
			return "", false
		}
		first = first[:i]
	}
	if first == "" || utf8.RuneCountInString(first) > 200 || strings.HasSuffix(first, "?") || strings.HasSuffix(first, "？") {
		return "", false
	}
	lower := strings.ToLower(first)
	if notAPick.MatchString(lower) || !pickCue.MatchString(lower) {
		return "", false
	}
	return first, true
}

var (
	pickCue  = regexp.MustCompile(`\b(?:go(?:ing)? with|choos(?:e|ing)|chose|pick(?:ing)?|tak(?:e|ing)|prefer|sounds?|seems?|appeals?|would be|works?|fits?|suits?|is the (?:best|most|one)|i'?ll|i will|let'?s|i'?d like|i want|option|number|the (?:first|second|third|fourth|fifth|last) one)\b|选|要|就|第.个`)
	notAPick = regexp.MustCompile(`^(?:please |can you |could you |would you |tell |explain |elaborate |describe |give |show |expand |what |how |why |where |when |which |do |does |is |are |write |make |create |generate |list |add |help |provide |compare )`)
)

// pickOf is the entry a user's turn picks: a bare pick ("2", "the second
// one", listsel.Select); the one position its first sentence names ("I
// think option 2 is best for me"); or, when the sentence decides (decides:
// decisionCue), the one entry it names by words no other entry has, well
// ahead of any other ("I'll go with Monument Valley", "the mango and
// pineapple smoothie" among three with spinach, one with mango), some of
// them in the entry's head when entries are "Head: description".
func pickOf(text, first string, entries []listsel.Entry, decides bool) (int, bool) {
	if c, ok := listsel.Select(text); ok {
		if c.Last {
			return lastEntry, true
		}
		return c.N, true
	}
	if ps := listsel.Positions(first); len(ps) == 1 {
		return ps[0], true
	} else if len(ps) > 1 || !decides {
		return 0, false
	}
	texts := make([]string, len(entries))
	for i, e := range entries {
		texts[i] = e.Text
	}
	return namedOption(first, texts, true)
}

// namedOption is the option (1-based) a pick sentence names among
// options: the one with words that no other option has, at least three
// times as many as any other (the words of two options pick neither), and
// the one with the most of its words in all; one
// such word only when it is long ("Codenames") or the options are short
// phrases. With heads, the words must meet the option's head where it has
// one ("Pettah Market: a bustling market …"): a pick of a tip's
// description is no pick of an option.
func namedOption(first string, options []string, heads bool) (int, bool) {
	if len(options) < 2 {
		return 0, false
	}
	an := search.SharedAnalyzer()
	said := map[string]bool{}
	for _, w := range an.Terms(first, nil) {
		said[w] = true
	}
	// The words that decide are not what is decided on: "would be the
	// best", "sounds great".
	for _, cue := range decisionCue.FindAllString(strings.ToLower(first), -1) {
		for _, w := range an.Terms(cue, nil) {
			delete(said, w)
		}
	}
	terms := make([][]string, len(options))
	in := map[string]int{} // options holding each word
	for i, o := range options {
		for _, w := range an.Terms(o, nil) {
			if !slices.Contains(terms[i], w) {
				terms[i] = append(terms[i], w)
				in[w]++
			}
		}
	}
	best, at, second := 0, -1, 0
	var bestOwn []string
	shared := make([]int, len(options))
	for i := range options {
		var own []string
		for _, w := range terms[i] {
			if said[w] {
				shared[i]++
				if in[w] == 1 {
					own = append(own, w)
				}
			}
		}
		switch {
		case len(own) > best:
			best, second, at, bestOwn = len(own), best, i, own
		case len(own) > second:
			second = len(own)
		}
	}
	// Words of two options ("Blue Apron or HelloFresh") pick neither,
	// unless one is named far more than the other.
	if at < 0 || second > 0 && best < 3*second {
		return 0, false
	}
	for i := range options {
		if i != at && shared[i] >= shared[at] {
			return 0, false
		}
	}
	short := utf8.RuneCountInString(options[at]) <= 80
	if best == 1 && !short && !slices.ContainsFunc(bestOwn, func(w string) bool { return utf8.RuneCountInString(w) >= 6 }) {
		return 0, false
	}
	if head, _, ok := strings.Cut(options[at], ":"); heads && ok && utf8.RuneCountInString(head) <= 60 {
		hs := an.Terms(head, nil)
		if !slices.ContainsFunc(bestOwn, func(w string) bool { return slices.Contains(hs, w) }) {
			return 0, false
		}
	}
	return at + 1, true
}

// choiceText is the choice of the nth entry (1-based) of a numbered list.
func choiceText(entries []listsel.Entry, n int) (text, matter string) {
	opts := make([]string, len(entries))
	for i, e := range entries {
		opts[i] = e.Text
	}
	return optionsText(opts, n-1)
}

// optionsText is a choice as the context shows it: what was picked, then
// what was turned down, each cut short (an option "Head: description" by
// its head, another by its first words); and its matter.
func optionsText(opts []string, chosen int) (text, matter string) {
	plain := func(s string, limit int) string {
		s = strings.Join(strings.Fields(strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)), " ")
		if r := []rune(s); len(r) > limit {
			s = strings.TrimRight(string(r[:limit-1]), " ,;:") + "…"
		}
		return s
	}
	picked := plain(opts[chosen], 140)
	var b strings.Builder
	b.WriteString("Chose from the options offered: ")
	b.WriteString(picked)
	var others []string
	for i, o := range opts {
		if i == chosen {
			continue
		}
		o = plain(o, 80)
		if head, _, ok := strings.Cut(o, ":"); ok && utf8.RuneCountInString(head) <= 40 {
			others = append(others, strings.TrimSpace(head))
			continue
		}
		// What was turned down, by its first words: enough to tell it.
		w := strings.Fields(o)
		if len(w) > 4 {
			w = append(w[:4], "…")
		}
		others = append(others, strings.Join(w, " "))
	}
	if len(others) > 0 {
		b.WriteString(" (not: ")
		b.WriteString(strings.Join(others, "; "))
		b.WriteString(")")
	}
	words := strings.Fields(strings.ToLower(picked))
	return clipRunes(b.String(), stated.MaxSaidChars), "choice " + strings.Join(words[:min(len(words), 6)], " ")
}

// decisionCue says that a sentence decides, not only likes: "I'll go with",
// "I think X would work best", "X sounds like a good option", "I like the
// sound of X". Adding a plan ("I think I'll also …"), trying to do
// something ("I'll try to …") and weighing ("when choosing") are no
// decisions.
var decisionCue = regexp.MustCompile(`\b(?:(?:i(?:'ll| will|'d| would)?|i think i(?:'ll| will)|let's) (?:definitely |probably |just |rather )?(?:go with|go for|choose|pick|opt for|take|try (?:the|out|that|this)|get the|order|book|have the|stick with|start with|check out)|i(?:'m| am) (?:going|leaning) (?:with|for|towards?)|i like the sound of|i prefer the|(?:would|will|should|might|could)? ?(?:be|work|works|sound|sounds|seem|seems)(?: like)? (?:a |an |the )?(?:really |much |more |most |very |the )?(?:best|better|perfect|ideal|great|good|right|appealing|safe|nice|suitable)|would be (?:the|a) (?:most|more|much|better|best)|(?:best|better|good|great|right|perfect|ideal|safe) (?:option|choice|fit|bet)|is the (?:best|one) for me|suits? me|appeals? to me)\b|我选|就选|选择`)

// choiceWords is a pick among options a reply offered in prose: the
// reply's sentence the decision names (namedOption over its sentences:
// "Alternatively, you might check out Kjaer Weis, …"), narrowed to the
// item of a series it names ("you could take beef jerky, trail mix, or
// fresh fruit"), shown as the reply put it with what was turned down. Only
// a short reply (at most maxProseSentences sentences) offers options in
// prose; a long answer's sentences are no options.
func choiceWords(first, reply string) (text, matter string, ok bool) {
	lower := strings.ToLower(first)
	if !decisionCue.MatchString(lower) || looksInto.MatchString(lower) || stated.Quoting(first) {
		return "", "", false
	}
	sents := splitSentences(reply)
	if len(sents) > maxProseSentences {
		return "", "", false
	}
	chosen := 0
	if len(sents) > 1 {
		n, ok := namedOption(first, sents, false)
		if !ok {
			return "", "", false
		}
		chosen = n - 1
	}
	if items := series(sents[chosen]); len(items) >= 2 {
		if n, ok := namedOption(first, items, false); ok {
			text, matter = optionsText(items, n-1)
			return text, matter, true
		}
	}
	if len(sents) < 2 {
		return "", "", false
	}
	text, matter = optionsText(sents, chosen)
	return text, matter, true
}

// looksInto is a decision to look into something ("I'll check out some
// reviews", "I'll try the search"): of a numbered list it picks the entry
// it names, but a prose reply's sentences are as often advice as options.
var looksInto = regexp.MustCompile(`\b(?:check out|try|look (?:at|into))\b`)

// maxProseSentences bounds the sentences of a reply that offers options in
// prose.
const maxProseSentences = 8

var (
	// seriesSep splits a series: "a, b, or c", "a; b; c".
	seriesSep = regexp.MustCompile(`\s*(?:,\s*(?:or|and)\s+|;\s*(?:or|and)?\s*|,\s*|、|，)\s*`)
	// orSep splits two options: "a or b", "a或者b".
	orSep = regexp.MustCompile(`\s+or\s+|或者|还是`)
	// leadIn is what comes before a series' first item: "you could read",
	// "consider", "such as", "options include:".
	leadIn = regexp.MustCompile(`(?i)^.*\b(?:could|can|might|may|consider|such as|like|include|including|try|either|are)\b\s*:?\s*|^.*:\s*|^.*(?:可以|比如|例如|包括)`)
)

// series is the items of a sentence's series of options: three or more
// split by commas and closed by "or" or "and" ("You could read a textbook, take a course, or listen to
// a podcast" gives "read a textbook", "take a course", "listen to a
// podcast"), or two joined by "or". Nil when it holds none.
func series(sent string) []string {
	sent = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(sent), ".!。！"))
	parts := seriesSep.Split(sent, -1)
	// A series closes with "or" or "and" ("a, b, or c"), or is one of
	// enumeration commas or semicolons: a sentence's other commas ("Kjaer
	// Weis, a small brand") make none.
	if seps := seriesSep.FindAllString(sent, -1); len(seps) > 0 {
		last := strings.TrimSpace(seps[len(seps)-1])
		if !strings.HasSuffix(last, "or") && !strings.HasSuffix(last, "and") && last != "、" && !strings.HasPrefix(last, ";") {
			parts = nil
		}
	}
	if len(parts) < 3 {
		parts = orSep.Split(sent, -1)
		if len(parts) != 2 {
			return nil
		}
	}
	// The lead-in ends in the first part, or in the second after a phrase
	// of its own ("For a small flat, you could consider …").
	if len(parts) > 3 && !leadIn.MatchString(parts[0]) && leadIn.MatchString(parts[1]) {
		parts = parts[1:]
	}
	parts[0] = leadIn.ReplaceAllString(parts[0], "")
	var items []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			items = append(items, p)
		}
	}
	if len(items) < 2 {
		return nil
	}
	return items
}

// splitSentences splits a reply at its sentence ends and line breaks.
func splitSentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		start := 0
		for i, r := range line {
			if strings.ContainsRune(".!?。！？", r) && (i+1 >= len(line) || line[i+1] == ' ' || r >= 0x80) {
				if s := strings.TrimSpace(line[start : i+utf8.RuneLen(r)]); s != "" {
					out = append(out, s)
				}
				start = i + utf8.RuneLen(r)
			}
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}
