package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/listsel"
	"github.com/recallhq/recall/pkg/memory"
)

// recalled is the memory a request's prompt gets: the text of the message
// the gateway adds, and the item the user's message selects, if any.
type recalled struct {
	text string
	// selected is the item the last user message picks from the current
	// list, with its position.
	selected *events.Item
	n        int
}

// remember reads the memory for a request: the context for its user and
// session, with the last user message as the query and the request's own
// messages standing in for the session's window, and, when that message
// picks an item of the list just shown ("3", "the third one", "第三个"),
// the item with its ref. The list is the one the conversation itself
// presents (its last reply that listed what its tools returned), else the
// session's current list as stored.
func (g *Gateway) remember(ctx context.Context, x *exchange) (*recalled, error) {
	p := contract.ContextParams{UserID: x.user, SessionID: x.session}
	texts := make([]string, 0, len(x.msgs))
	for _, m := range x.msgs {
		if m.Role == roleUser || m.Role == roleAssistant {
			texts = append(texts, m.Text)
		}
	}
	if i := lastUser(x.msgs); i >= 0 {
		p.Query = events.ClipUTF8(strings.TrimSpace(x.msgs[i].Text), memory.MaxQueryBytes, "")
	}
	if budget := g.cfg.ContextBudget; budget > 0 {
		p.Budget = &budget
	}
	c, err := g.mem.ContextWith(ctx, x.tenant, p, memory.ContextOptions{Conversation: texts})
	if err != nil {
		return nil, err
	}
	out := &recalled{text: c.Prompt}
	if i := len(x.msgs) - 1; i >= 0 && x.msgs[i].Role == roleUser {
		if choice, ok := listsel.Select(x.msgs[i].Text); ok {
			items := currentList(x, g.limits)
			if items == nil && c.List != nil {
				for _, e := range c.List.Items {
					items = append(items, events.Item{Ref: e.Ref, Title: e.Title, Attrs: e.Attrs})
				}
			}
			n := choice.N
			if choice.Last {
				n = len(items)
			}
			if n >= 1 && n <= len(items) {
				out.selected, out.n = &items[n-1], n
				line := selectionLine(c.Lang, n, items[n-1])
				if out.text == "" {
					out.text = line
				} else {
					out.text += "\n\n" + line
				}
			}
		}
	}
	return out, nil
}

// currentList is the list the conversation presents: the items of its
// last turn that carries some, nil when none does.
func currentList(x *exchange, lim events.Limits) []events.Item {
	hist := *x
	hist.reply = nil
	turns := hist.turns(lim)
	for i := len(turns) - 1; i >= 0; i-- {
		if len(turns[i].Items) > 0 {
			return turns[i].Items
		}
	}
	return nil
}

// selectionLine states the item the user's message picks, in the
// context's language, so that the model answers with the real ref.
func selectionLine(lang string, n int, it events.Item) string {
	title := it.Title
	if title == "" {
		title = itemLabel(it.Attrs)
	}
	if lang == assemble.LangZH {
		if title != "" {
			return fmt.Sprintf("用户这条消息选的是刚才列表中的第 %d 项：%s（ref：%s）。回答时请用这个 ref，不要编造别的链接或编号。", n, title, it.Ref)
		}
		return fmt.Sprintf("用户这条消息选的是刚才列表中的第 %d 项（ref：%s）。回答时请用这个 ref，不要编造别的链接或编号。", n, it.Ref)
	}
	if title != "" {
		return fmt.Sprintf("The user's message picks item %d of the list just shown: %q (ref: %s). Use this ref when answering; do not make up another link or id.", n, title, it.Ref)
	}
	return fmt.Sprintf("The user's message picks item %d of the list just shown (ref: %s). Use this ref when answering; do not make up another link or id.", n, it.Ref)
}

// itemLabel is a name for an item from its attrs, when it has no title.
func itemLabel(attrs json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(attrs, &m) != nil {
		return ""
	}
	for _, k := range []string{"title", "name", "label"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// upstreamBody is the request's body for the upstream: its fields as
// received, without the "recall" object, and its messages with the memory
// text added as placement says (GATEWAY_CONTEXT_MESSAGE); the messages as
// received when the text is empty.
func upstreamBody(req *chatRequest, memory, placement string) ([]byte, error) {
	messages := req.raw
	if memory != "" {
		var err error
		if messages, err = withMemory(req.raw, req.msgs, memory, placement); err != nil {
			return nil, err
		}
	}
	req.fields["messages"] = rawArray(messages)
	return rawObject(req.fields), nil
}

// rawObject writes a JSON object of values that are JSON already (read
// from the request body the gateway parsed, or written by json.Marshal),
// its keys in order and its values byte for byte. json.Marshal would check
// and compact every value again, a character at a time: the memory's
// several kilobytes, three times a request (its message, the messages, the
// body). A nil value is null.
func rawObject(fields map[string]json.RawMessage) []byte {
	keys := slices.Sorted(maps.Keys(fields))
	n := 2
	for k, v := range fields {
		n += len(k) + len(v) + 8
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		key, _ := json.Marshal(k) // a string always encodes
		b = append(b, key...)
		b = append(b, ':')
		b = appendRaw(b, fields[k])
	}
	return append(b, '}')
}

// rawArray writes a JSON array of values that are JSON already, as they
// are (see rawObject).
func rawArray(items []json.RawMessage) []byte {
	n := 2
	for _, v := range items {
		n += len(v) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, v := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendRaw(b, v)
	}
	return append(b, ']')
}

// appendRaw appends a JSON value as it is, null when it is empty.
func appendRaw(b []byte, v json.RawMessage) []byte {
	if len(v) == 0 {
		return append(b, "null"...)
	}
	return append(b, v...)
}

// withMemory is the request's messages with the memory text added as the
// configuration says (GATEWAY_CONTEXT_MESSAGE): merged into the caller's
// leading system or developer message, or as a system message of its own.
func withMemory(raw []json.RawMessage, msgs []message, text, placement string) ([]json.RawMessage, error) {
	lead := 0
	for lead < len(msgs) && (msgs[lead].Role == roleSystem || msgs[lead].Role == roleDeveloper) {
		lead++
	}
	if placement == "merge" && lead > 0 {
		merged, err := appendText(raw[0], text)
		if err != nil {
			return nil, err
		}
		out := append([]json.RawMessage(nil), raw...)
		out[0] = merged
		return out, nil
	}
	own, err := json.Marshal(map[string]string{"role": roleSystem, "content": text})
	if err != nil {
		return nil, err
	}
	at := 0
	if placement == "separate" {
		at = lead
	}
	out := make([]json.RawMessage, 0, len(raw)+1)
	out = append(out, raw[:at]...)
	out = append(out, own)
	return append(out, raw[at:]...), nil
}

// appendText adds text at the end of a message's content: after a blank
// line for a string content, as a text part for an array of parts.
func appendText(raw json.RawMessage, text string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	var s string
	switch c := m["content"]; {
	case len(c) == 0 || isNull(c):
		s = text
	case json.Unmarshal(c, &s) == nil:
		s = strings.TrimRight(s, "\n") + "\n\n" + text
	default:
		var parts []json.RawMessage
		if err := json.Unmarshal(c, &parts); err != nil {
			return nil, err
		}
		part, _ := json.Marshal(map[string]string{"type": "text", "text": text})
		m["content"] = rawArray(append(parts, part))
		return rawObject(m), nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	m["content"] = b
	return rawObject(m), nil
}
