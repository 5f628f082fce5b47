package search

import (
	"strings"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
)

// TurnEntry is the search entry of a turn, without terms or embedding
// (Indexer.Prepare adds them). Its text is the turn's content and, when it
// presented a list, the titles of the list's items on a line of their own, so
// that "the book you recommended" finds the turn that listed it. ok is false
// for a turn with nothing to find: system turns (prompts, never part of what
// was said), tool turns (a tool's raw output; the assistant turn that follows
// says what it meant) and turns without text.
func TurnEntry(t events.Turn) (store.SearchEntry, bool) {
	if t.Role != events.RoleUser && t.Role != events.RoleAssistant {
		return store.SearchEntry{}, false
	}
	titles := make([]string, 0, len(t.Items))
	for _, it := range t.Items {
		titles = append(titles, it.Title)
	}
	text := strings.TrimSpace(t.Content)
	if list := joinNonEmpty(titles, "; "); list != "" {
		if text != "" {
			text += "\n"
		}
		text += list
	}
	if text == "" {
		return store.SearchEntry{}, false
	}
	return store.SearchEntry{
		TenantID: t.TenantID, UserID: t.UserID, Kind: store.SearchMessage, SourceID: t.ID,
		SessionID: t.SessionID, AgentID: t.AgentID, Role: t.Role, OccurredAt: t.OccurredAt.UTC(), Text: text,
	}, true
}

// SummaryEntry is the search entry of a session's summary version: one entry
// per session, which a newer version replaces (its revision is the
// version). Its text is the summary with its key topics on a line of their
// own; its time is the event time of the newest message it covers (CoversTo). agentID
// is the session's agent, if it has one.
func SummaryEntry(tenantID, agentID string, s record.Summary) store.SearchEntry {
	text := strings.TrimSpace(s.Text)
	if topics := joinNonEmpty(s.KeyTopics, ", "); topics != "" {
		text += "\n" + topics
	}
	return store.SearchEntry{
		TenantID: tenantID, UserID: s.UserID, Kind: store.SearchSummary, SourceID: s.SessionID,
		Revision: int64(s.Version), SessionID: s.SessionID, AgentID: agentID, OccurredAt: s.CoversTo.UTC(), Text: text,
	}
}

// MentionEntry is the search entry of the fact a mention names. Its revision
// is the mention's event time, so the newest mention's display wins however
// mentions are replayed, as it does in the facts table.
func MentionEntry(m store.Mention) store.SearchEntry {
	return store.SearchEntry{
		TenantID: m.TenantID, UserID: m.UserID, Kind: store.SearchFact, SourceID: store.FactSourceID(m.Type, m.Value),
		Revision: m.OccurredAt.UnixMicro(), SessionID: m.SessionID, OccurredAt: m.OccurredAt.UTC(), Text: m.Display,
	}
}

func joinNonEmpty(parts []string, sep string) string {
	var b strings.Builder
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p)
	}
	return b.String()
}
