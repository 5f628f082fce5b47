package gateway

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/listsel"
)

// exchange is one request and the upstream's answer, as the turns they
// hold: who and which conversation, the messages sent, the reply.
type exchange struct {
	tenant, user, session, agent string
	msgs                         []message
	// reply is the upstream's answer (its first choice); nil before it.
	reply *message
	// items are the items the caller said the reply presents (recall.items).
	items []events.Item
	// selected is the item the request's last message picks from the list
	// just shown, at position n (remember): its turn records the pick.
	selected *events.Item
	n        int
	// at is when the request arrived; done when the answer was complete.
	at, done time.Time
	model    string
	// refused: the session belongs to another user; nothing of the
	// exchange is stored.
	refused bool
}

// turns are the conversation's turns in order, each with an id derived
// from its place in the conversation, so that the same conversation sent
// again (clients resend the whole history with every request; a retried
// request is the same request) gives the same ids and adds nothing:
//
//   - a user message is a user turn;
//   - an assistant message with text is an assistant turn, carrying the
//     tool calls made since the previous turn, each joined with its result
//     (the tool message that answers it), and, when its text presents a
//     numbered list of what those results hold (listsel.Match), or when
//     the caller passed items for the reply, those items;
//   - tool calls that no text has followed yet (the model asked for tools
//     and the caller has not sent their results) wait: they are stored with
//     the reply that follows them; calls that a user message follows
//     instead are stored as an assistant turn of their own;
//   - system and developer messages are instructions, not conversation, and
//     are not stored.
//
// History turns get event times just before at, in order; the reply gets
// done. When the reply is itself a tool call, its turns wait for the next
// request, which carries them in its history.
func (x *exchange) turns(lim events.Limits) []events.Turn {
	conv := x.msgs
	if x.reply != nil {
		conv = append(conv[:len(conv):len(conv)], *x.reply)
	}
	var (
		out []events.Turn
		// pending are tool calls no text has followed yet; said is the
		// text of the messages that made them ("Let me look that up").
		pending []events.ToolCall
		said    []string
		seen    = map[string]int{}
	)
	add := func(t events.Turn, key string) {
		n := seen[key]
		seen[key] = n + 1
		t.ID = turnID(x.user, x.session, key, n)
		t.TenantID, t.UserID, t.SessionID, t.AgentID = x.tenant, x.user, x.session, x.agent
		fit(&t, lim)
		out = append(out, t)
	}
	flush := func(items []events.Item) {
		text := strings.Join(said, "\n\n")
		t := events.Turn{Role: events.RoleAssistant, Content: text, ToolCalls: pending, Items: items}
		if items == nil && text != "" && len(pending) > 0 {
			results := make([]json.RawMessage, 0, len(pending))
			for _, c := range pending {
				results = append(results, c.Result)
			}
			t.Items = listsel.Match(text, listsel.Candidates(results...))
		}
		add(t, assistantKey(text, pending))
		pending, said = nil, nil
	}
	replyAt := -1
	if x.reply != nil {
		replyAt = len(conv) - 1
	}
	for i, m := range conv {
		switch m.Role {
		case roleUser:
			if len(pending) > 0 || len(said) > 0 {
				flush(nil)
			}
			text := strings.TrimSpace(m.Text)
			if text == "" {
				continue
			}
			t := events.Turn{Role: events.RoleUser, Content: text}
			if i == len(x.msgs)-1 && x.selected != nil {
				// What "3" meant, kept with it: the list may change later.
				t.Metadata, _ = json.Marshal(map[string]any{"selection": map[string]any{"n": x.n, "ref": x.selected.Ref}})
			}
			add(t, "user\x00"+text)
		case roleAssistant:
			if text := strings.TrimSpace(m.Text); text != "" {
				said = append(said, text)
			}
			if len(m.Calls) > 0 {
				// The calls' results come next; the text that follows them
				// completes this turn.
				for _, c := range m.Calls {
					pending = append(pending, events.ToolCall{ID: c.ID, Name: c.Name, Arguments: jsonValue(c.Arguments)})
				}
				continue
			}
			if len(said) == 0 {
				continue
			}
			var items []events.Item
			if i == replyAt && len(x.items) > 0 {
				items = x.items
			}
			flush(items)
		case roleTool, roleFunction:
			for j := range pending {
				c := &pending[j]
				if c.Result == nil && ((m.Role == roleTool && c.ID != "" && c.ID == m.CallID) || (m.Role == roleFunction && c.Name == m.Name)) {
					c.Result = jsonValue(m.Text)
					break
				}
			}
		}
	}
	x.stamp(out)
	return out
}

// stamp gives the turns their event times: the history in order just
// before the request, the reply at its completion (after every history
// turn, whatever the clocks say), with the model that wrote it.
func (x *exchange) stamp(out []events.Turn) {
	history := len(out)
	replied := x.reply != nil && len(x.reply.Calls) == 0 && strings.TrimSpace(x.reply.Text) != ""
	if replied {
		history--
	}
	for i := range out {
		if i < history {
			out[i].OccurredAt = x.at.Add(time.Duration(i-history) * time.Millisecond).UTC()
			continue
		}
		out[i].OccurredAt = x.done.UTC()
		if !x.done.After(x.at) {
			out[i].OccurredAt = x.at.Add(time.Millisecond).UTC()
		}
		if x.model != "" {
			meta := map[string]any{}
			if len(out[i].Metadata) > 0 {
				_ = json.Unmarshal(out[i].Metadata, &meta)
			}
			meta["model"] = x.model
			out[i].Metadata, _ = json.Marshal(meta)
		}
	}
}

// assistantKey is what identifies an assistant turn within its
// conversation: its text; for a turn of tool calls only, the calls (by id,
// or by name and arguments for calls without one). The calls are left out
// of a turn with text, so that a client that trims its history down to
// the reply (dropping the message that made the calls) resends the reply
// under the same id.
func assistantKey(text string, calls []events.ToolCall) string {
	var b strings.Builder
	b.WriteString("assistant\x00")
	b.WriteString(text)
	if text != "" {
		return b.String()
	}
	for _, c := range calls {
		b.WriteByte(0)
		if c.ID != "" {
			b.WriteString(c.ID)
			continue
		}
		b.WriteString(c.Name)
		b.WriteByte(0)
		b.Write(c.Arguments)
	}
	return b.String()
}

// turnID is a turn's event id: a hash of the user, the session, what the
// turn says (key) and how many turns before it in the conversation said
// the same (n), so that "yes" said twice is two turns. It does not depend
// on the turn's position: a client that sends only the latest part of a
// long history (a sliding window) gives the same ids for what it resends.
func turnID(user, session, key string, n int) string {
	h := sha256.New()
	for _, s := range []string{user, session, key, strconv.Itoa(n)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "gw-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h.Sum(nil))[:26])
}

// jsonValue is a tool's arguments or result as JSON: the text itself when
// it is JSON, otherwise the text as a JSON string; nil for none.
func jsonValue(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// fit makes a turn fit the event limits where it can without losing its
// meaning: content over the limit is cut at a character boundary (the
// model's text is the caller's to keep; Recall keeps what fits and says
// so in the turn's metadata). What still does not fit is reported when
// the turn is published.
func fit(t *events.Turn, lim events.Limits) {
	if lim.MaxContentBytes <= 0 || len(t.Content) <= lim.MaxContentBytes {
		return
	}
	full := len(t.Content)
	t.Content = events.ClipUTF8(t.Content, lim.MaxContentBytes, "")
	t.Metadata, _ = json.Marshal(map[string]int{"truncated_from_bytes": full})
}
