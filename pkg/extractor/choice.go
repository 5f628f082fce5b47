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
	var text, matter string
	if n, ok := pickOf(t.Content, first, entries); ok && n != 0 {
		if n == lastEntry {
			n = len(entries)
		}
		if n < 1 || n > len(entries) {
			return nil, nil
		}
		text, matter = choiceText(entries, n)
	} else if text, matter, ok = choiceWords(first, reply.Content); !ok {
		return nil, nil
	}
	a := attribute.Assertion{Key: attribute.KeyStatements, Item: attribute.ItemKey(matter), Value: text, Op: attribute.Put,
		Source: attribute.Stated, EventID: t.ID, Evidence: []string{reply.EventID, t.ID}, SessionID: t.SessionID, Confidence: 0.6, At: t.OccurredAt}
	if err := attribute.Normalize(w.schemas.For(t.TenantID), &a); err != nil {
		w.metrics.stated.WithLabelValues("choice", "refused").Inc()
		return nil, nil
	}
	w.metrics.stated.WithLabelValues("choice", "read").Inc()
	return []store.AssertionRow{{TenantID: t.TenantID, UserID: t.UserID, Assertion: a}}, nil
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
// think option 2 is best for me"); or the one entry whose words its first
// sentence shares, well ahead of any other ("I'll go with Monument
// Valley", "the documentary series would be the most engaging").
func pickOf(text, first string, entries []listsel.Entry) (int, bool) {
	if c, ok := listsel.Select(text); ok {
		if c.Last {
			return lastEntry, true
		}
		return c.N, true
	}
	if ps := listsel.Positions(first); len(ps) == 1 {
		return ps[0], true
	} else if len(ps) > 1 {
		return 0, false
	}
	an := search.SharedAnalyzer()
	said := map[string]bool{}
	for _, w := range an.Terms(first, nil) {
		said[w] = true
	}
	var bestTerms []string
	second, at := 0, 0
	for i, e := range entries {
		var shared []string
		for _, w := range an.Terms(e.Text, nil) {
			if said[w] && !slices.Contains(shared, w) {
				shared = append(shared, w)
			}
		}
		switch {
		case len(shared) > len(bestTerms):
			bestTerms, second, at = shared, len(bestTerms), i+1
		case len(shared) > second:
			second = len(shared)
		}
	}
	best := len(bestTerms)
	// One word in common picks only when it is a name or a long word
	// ("Codenames"), not a common one.
	long := slices.ContainsFunc(bestTerms, func(w string) bool { return utf8.RuneCountInString(w) >= 6 })
	if best >= 2 && best >= 2*second || best == 1 && second == 0 && len(entries) > 1 && long {
		return at, true
	}
	return 0, false
}

// choiceText is a choice as the context shows it: what was picked, then
// what was turned down, each cut short; and its matter.
func choiceText(entries []listsel.Entry, n int) (text, matter string) {
	plain := func(s string, limit int) string {
		s = strings.Join(strings.Fields(strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)), " ")
		if r := []rune(s); len(r) > limit {
			s = strings.TrimRight(string(r[:limit-1]), " ,;:") + "…"
		}
		return s
	}
	chosen := plain(entries[n-1].Text, 160)
	var b strings.Builder
	b.WriteString("Chose from the options offered: ")
	b.WriteString(chosen)
	var others []string
	for i, e := range entries {
		if i != n-1 {
			// What was turned down, by its first words: enough to tell it.
			w := strings.Fields(plain(e.Text, 80))
			if len(w) > 4 {
				w = append(w[:4], "…")
			}
			others = append(others, strings.Join(w, " "))
		}
	}
	if len(others) > 0 {
		b.WriteString(" (not: ")
		b.WriteString(strings.Join(others, "; "))
		b.WriteString(")")
	}
	text = b.String()
	if r := []rune(text); len(r) > 300 {
		text = string(r[:299]) + "…"
	}
	words := strings.Fields(strings.ToLower(chosen))
	return text, "choice " + strings.Join(words[:min(len(words), 6)], " ")
}

// decisionCue says that a sentence decides, not only likes: "I'll go with",
// "I think X would be best", "X sounds perfect".
var decisionCue = regexp.MustCompile(`\b(?:go(?:ing)? with|go for|choos(?:e|ing)|chose|pick(?:ing)?|i'?ll (?:take|try|get|order|book|have|stick with|start with)|opt(?:ing)? for|prefer|would be (?:the )?(?:best|perfect|ideal|great|most)|sounds? (?:perfect|great|best|good|like the best|most)|is the (?:best|one) for me|suits? me)\b|我选|就选|选择`)

// choiceWords is a pick among options a reply offered in prose, in the
// user's words: its decision sentence, when it decides and shares at least
// two terms with the reply (it picks something the reply said).
func choiceWords(first, reply string) (text, matter string, ok bool) {
	cue := decisionCue.FindString(strings.ToLower(first))
	if cue == "" || stated.Quoting(first) {
		return "", "", false
	}
	an := search.SharedAnalyzer()
	offered := map[string]bool{}
	for _, w := range an.Terms(reply, nil) {
		offered[w] = true
	}
	// The words that decide are not what is decided on: "sounds great".
	for _, w := range an.Terms(cue, nil) {
		delete(offered, w)
	}
	var shared []string
	for _, w := range an.Terms(first, nil) {
		if offered[w] && !slices.Contains(shared, w) {
			shared = append(shared, w)
		}
	}
	if len(shared) < 2 {
		return "", "", false
	}
	text = "Chose from the options offered: " + strings.Join(strings.Fields(first), " ")
	if r := []rune(text); len(r) > 300 {
		text = string(r[:299]) + "…"
	}
	return text, "choice " + strings.Join(shared[:min(len(shared), 6)], " "), true
}
