package memory

import (
	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/when"
)

// The mappings from the store's rows and the assembler's parts to the /v1
// contract: the one place a stored field becomes a wire field.

func toMessage(m record.Message) contract.Message {
	return contract.Message{EventID: m.EventID, SessionID: m.SessionID, UserID: m.UserID, SiteID: m.SiteID, AgentID: m.AgentID,
		Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, Items: m.Items, Metadata: m.Metadata,
		OccurredAt: m.OccurredAt, StoredAt: m.StoredAt}
}

// mapSlice maps each element of in, keeping nil nil (JSON null) and empty
// empty ([]): the wire says what the part said.
func mapSlice[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}

func toMessages(ms []record.Message) []contract.Message { return mapSlice(ms, toMessage) }

func toSummary(s record.Summary) contract.Summary { return changefeed.SummaryValue(s) }

func toSummaryPtr(s *record.Summary) *contract.Summary {
	if s == nil {
		return nil
	}
	out := toSummary(*s)
	return &out
}

func toSessionInfo(s store.Session) contract.SessionInfo {
	return contract.SessionInfo{SessionID: s.SessionID, UserID: s.UserID, SiteID: s.SiteID, AgentID: s.AgentID,
		MessageCount: s.MessageCount, SystemCount: s.SystemCount, FirstMessageAt: s.FirstMessageAt,
		LastMessageAt: s.LastMessageAt, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

func toCut(c assemble.Cut) contract.Cut { return contract.Cut{Reason: c.Reason, Count: c.Count} }

func toCuts(cs []assemble.Cut) []contract.Cut { return mapSlice(cs, toCut) }

func toNeighbor(n search.Neighbor) contract.Neighbor {
	return contract.Neighbor{EventID: n.EventID, Role: n.Role, OccurredAt: n.OccurredAt, Content: n.Content}
}

func toNeighbors(ns []search.Neighbor) []contract.Neighbor { return mapSlice(ns, toNeighbor) }

func toSearchHit(h search.Hit) contract.SearchHit {
	out := contract.SearchHit{Kind: h.Kind, SourceID: h.SourceID, SessionID: h.SessionID, AgentID: h.AgentID, Role: h.Role,
		OccurredAt: h.OccurredAt, Text: h.Text, Score: h.Score, LexicalRank: h.LexicalRank, LexicalScore: h.LexicalScore,
		VectorRank: h.VectorRank, Similarity: h.Similarity, TimeRank: h.TimeRank, AskedRank: h.AskedRank, Earlier: toNeighbors(h.Earlier), Later: toNeighbors(h.Later)}
	if h.Previous != nil {
		n := toNeighbor(*h.Previous)
		out.Previous = &n
	}
	if h.Next != nil {
		n := toNeighbor(*h.Next)
		out.Next = &n
	}
	return out
}

// toSpans are the times a query names, as the contract writes them.
func toSpans(during []when.Span) []contract.Span {
	return mapSlice(during, func(x when.Span) contract.Span { return contract.Span{From: x.From, To: x.To} })
}

// toContext maps the assembled parts.
func toContext(p *assemble.Parts) (list *contract.List, w contract.Window, f contract.Facts, s contract.Summaries, r *contract.Recalled) {
	if p.List != nil {
		list = &contract.List{EventID: p.List.EventID, OccurredAt: p.List.OccurredAt, Count: p.List.Count, Cuts: toCuts(p.List.Cuts),
			Items: mapSlice(p.List.Items, func(e assemble.ListEntry) contract.ListEntry {
				return contract.ListEntry{N: e.N, Ref: e.Ref, Title: e.Title, Attrs: e.Attrs}
			})}
	}
	w = contract.Window{Messages: toMessages(p.Window.Messages), Chars: p.Window.Chars, Truncated: p.Window.Truncated, Cuts: toCuts(p.Window.Cuts)}
	f = contract.Facts{Facts: toWeightedFacts(p.Facts.Facts), Cuts: toCuts(p.Facts.Cuts)}
	s = contract.Summaries{Previous: mapSlice(p.Summaries.Previous, toSessionSummary), Cuts: toCuts(p.Summaries.Cuts)}
	if p.Summaries.Current != nil {
		c := toSessionSummary(*p.Summaries.Current)
		s.Current = &c
	}
	if p.Recalled != nil {
		r = &contract.Recalled{Query: p.Recalled.Query, Search: p.Recalled.Search, Cuts: toCuts(p.Recalled.Cuts),
			Hits: mapSlice(p.Recalled.Hits, func(h assemble.RecalledHit) contract.RecalledHit {
				return contract.RecalledHit{Kind: h.Kind, EventID: h.EventID, SessionID: h.SessionID, Role: h.Role,
					OccurredAt: h.OccurredAt, Text: h.Text, Truncated: h.Truncated, Score: h.Score}
			}),
			Notes:  mapSlice(p.Recalled.Notes, func(n assemble.RecalledNote) contract.Note { return contract.Note{Reason: n.Reason, Detail: n.Detail} }),
			During: toSpans(p.Recalled.During)}
	}
	return list, w, f, s, r
}

func toSessionSummary(x assemble.SessionSummary) contract.SessionSummary {
	return contract.SessionSummary{SessionID: x.SessionID, Summary: x.Summary, KeyTopics: x.KeyTopics, Version: x.Version,
		MessageCount: x.MessageCount, CoversFrom: x.CoversFrom, CoversTo: x.CoversTo, LastMessageAt: x.LastMessageAt, Model: x.Model}
}

func toWeightedFacts(fs []assemble.WeightedFact) []contract.WeightedFact {
	return mapSlice(fs, func(x assemble.WeightedFact) contract.WeightedFact {
		return contract.WeightedFact{Type: x.Type, Value: x.Value, Display: x.Display, Weight: x.Weight,
			MentionCount: x.MentionCount, LastMentionedAt: x.LastMentionedAt}
	})
}

// toContextAttributes maps the attributes part, its labels in the prompt's
// language.
func toContextAttributes(p *assemble.Attributes, lang string) *contract.ContextAttributes {
	if p == nil || p.Empty() && len(p.Cuts) == 0 {
		return nil
	}
	entry := func(e assemble.AttributeEntry) contract.AttributeEntry {
		label := e.Label[lang]
		if label == "" {
			label = e.Label[assemble.LangEN]
		}
		return contract.AttributeEntry{Key: e.Key, Label: label, Values: e.Values}
	}
	said := mapSlice(p.Statements, func(st assemble.Statement) contract.AttributeStatement {
		return contract.AttributeStatement{Text: st.Text, At: st.At, SessionID: st.SessionID, Matched: st.Matched}
	})
	return &contract.ContextAttributes{About: nonNil(mapSlice(p.About, entry)), Requests: nonNil(mapSlice(p.Requests, entry)), Statements: said,
		Cuts: toCuts(p.Cuts)}
}

// toPartSpend maps what each part spent; the attributes' count goes out
// under its old name (profile) too, for one release.
func toPartSpend(s assemble.PartSpend) contract.PartSpend {
	return contract.PartSpend{Framing: s.Framing, Attributes: s.Attributes, Profile: s.Attributes, List: s.List, Window: s.Window,
		Recalled: s.Recalled, Summaries: s.Summaries, Facts: s.Facts}
}
