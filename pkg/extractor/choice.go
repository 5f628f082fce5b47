package extractor

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/listsel"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/store"
)

// choiceWait is how many deliveries a pick waits for the reply it answers
// to be stored (ingest, another consumer of the same stream, may be behind
// by a moment); after that it is read without the choice.
const choiceWait = 4

// choice reads a pick: a user turn that names one entry of the numbered
// list the assistant's reply just before it offered ("option 2 suits me
// best", "I'll take the third one", "第二个"). What was chosen, and what was
// turned down, is kept as a statement marked as a choice, on the matter of
// what was chosen. The reply is read from the store; until it is there the
// turn is retried, choiceWait deliveries at most.
func (w *Worker) choice(ctx context.Context, m queue.Message, t *events.Turn) ([]store.AssertionRow, error) {
	if !w.cfg.Stated || t.Role != events.RoleUser {
		return nil, nil
	}
	n, ok := pickOf(t.Content)
	if !ok {
		return nil, nil
	}
	reply, found, err := w.store.Tenant(t.TenantID).ReplyBefore(ctx, t.SessionID, t.OccurredAt)
	if err != nil {
		return nil, err
	}
	if !found {
		if m.Deliveries < choiceWait {
			return nil, fmt.Errorf("choice: the reply turn %s picks from is not stored yet", t.ID)
		}
		return nil, nil
	}
	entries := listsel.Entries(reply.Content)
	if n == lastEntry {
		n = len(entries)
	}
	if n < 1 || n > len(entries) {
		return nil, nil
	}
	text, matter := choiceText(entries, n)
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

// pickOf is the entry a user's turn picks: a bare pick ("2", "the second
// one", listsel.Select), or the one position its first sentence names
// ("I think option 2 is best for me").
func pickOf(text string) (int, bool) {
	if c, ok := listsel.Select(text); ok {
		if c.Last {
			return lastEntry, true
		}
		return c.N, true
	}
	first := text
	if i := strings.IndexAny(first, ".!?。！？\n"); i > 0 {
		first = first[:i]
	}
	if utf8.RuneCountInString(first) > 200 {
		return 0, false
	}
	ps := listsel.Positions(first)
	if len(ps) != 1 {
		return 0, false
	}
	return ps[0], true
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
