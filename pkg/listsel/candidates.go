package listsel

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strings"

	"github.com/recallhq/recall/pkg/events"
)

// Bounds on the work Candidates does for one reply, whatever the tools return.
const (
	// MaxCandidates is the most candidates Candidates returns (before
	// duplicates are dropped); objects after it are not looked at. A reply
	// presents a few dozen items at most.
	MaxCandidates = 1000
	// MaxDepth is the deepest nesting (objects and arrays, counting the ones
	// inside JSON strings) at which an object still counts as a candidate.
	MaxDepth = 32
)

// idKeys and labelKeys are the fields that make an object a list entry, in
// order of preference: the first one present with a usable value wins. Keys
// are compared case-insensitively ("Title" and "URL" are common).
var (
	idKeys    = []string{"ref", "url", "link", "href", "uri", "id"}
	labelKeys = []string{"title", "name", "label", "headline"}
)

// Candidates collects, from tool results, the objects that look like entries
// of a list a reply could present: an object with an identifier ("ref",
// "url", "link", "href", "uri" or "id", in that order of preference; a
// non-empty string, or a number written as in the JSON) and a label ("title",
// "name", "label" or "headline"; a non-empty string). Objects count wherever
// they are nested ({"results": [...]}, {"data": {"items": [...]}}, a single
// top-level object), and so do objects inside a string that itself holds JSON
// (tool protocols often wrap a result as {"content": [{"text": "{...}"}]}).
//
// Each Item has the identifier as Ref, the label as Title and the whole object,
// as received, as Attrs. Items are in document order (an object before the
// objects inside it); a later object with the same Ref is dropped. A result
// that is not valid JSON gives nothing: a half-read document is not evidence.
func Candidates(results ...json.RawMessage) []events.Item {
	c := collector{}
	for _, r := range results {
		if len(c.found) >= MaxCandidates {
			break
		}
		c.walk(r, 0)
	}
	// An object is found when it closes, after the objects inside it: put
	// them back in the order they opened.
	sort.SliceStable(c.found, func(i, j int) bool { return c.found[i].seq < c.found[j].seq })
	seen := make(map[string]bool, len(c.found))
	var out []events.Item
	for _, f := range c.found {
		if seen[f.item.Ref] {
			continue
		}
		seen[f.item.Ref] = true
		out = append(out, f.item)
	}
	return out
}

// collector walks JSON documents, numbering objects as they open (across
// documents and the JSON inside strings) so that what it finds can be put in
// document order.
type collector struct {
	seq   int
	found []found
}

// found is a candidate and the number of the object it came from.
type found struct {
	seq  int
	item events.Item
}

// frame is an open object or array while walking a document.
type frame struct {
	object  bool
	start   int64 // offset of the opening brace
	seq     int   // this object's number; -1 when too deep to count
	wantKey bool  // in an object: the next string is a key
	key     string
	// id and label are the best values seen so far, with the rank of their key
	// in idKeys / labelKeys (len of the list when none).
	id, label         string
	idRank, labelRank int
}

// walk collects the candidates of one document; depth is the nesting of the
// string the document came from (0 for a tool result).
func (c *collector) walk(data []byte, depth int) {
	if len(data) == 0 || !json.Valid(data) {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	for len(c.found) < MaxCandidates {
		tok, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			return // json.Valid said otherwise; nothing more to learn
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				f := &frame{object: t == '{', start: dec.InputOffset() - 1, seq: -1, wantKey: t == '{',
					idRank: len(idKeys), labelRank: len(labelKeys)}
				if f.object && depth+len(stack) < MaxDepth {
					f.seq = c.seq
					c.seq++
				}
				stack = append(stack, f)
				continue // the parent's value is complete only when this closes
			default: // '}' or ']'
				stack = stack[:len(stack)-1]
				if top.seq >= 0 && top.idRank < len(idKeys) && top.labelRank < len(labelKeys) {
					raw := append(json.RawMessage(nil), data[top.start:dec.InputOffset()]...)
					c.found = append(c.found, found{seq: top.seq, item: events.Item{Ref: top.id, Title: top.label, Attrs: raw}})
				}
				if len(stack) > 0 {
					top = stack[len(stack)-1]
				} else {
					top = nil
				}
			}
		case string:
			if top != nil && top.object && top.wantKey {
				top.key, top.wantKey = t, false
				continue
			}
			if top != nil && top.object {
				top.offer(t, false)
			}
			if s := strings.TrimSpace(t); len(s) > 1 && (s[0] == '{' || s[0] == '[') && depth+len(stack) < MaxDepth {
				c.walk([]byte(s), depth+len(stack))
			}
		case json.Number:
			if top != nil && top.object {
				top.offer(string(t), true)
			}
		}
		if top != nil && top.object {
			top.wantKey = true
		}
	}
}

// offer considers a scalar value for the frame's current key as its
// identifier or label.
func (f *frame) offer(v string, number bool) {
	key := strings.ToLower(f.key)
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	if r := rank(idKeys, key); r < f.idRank {
		f.id, f.idRank = v, r
	}
	if number {
		return
	}
	if r := rank(labelKeys, key); r < f.labelRank {
		f.label, f.labelRank = v, r
	}
}

// rank is the position of key in keys, or len(keys) when absent.
func rank(keys []string, key string) int {
	for i, k := range keys {
		if k == key {
			return i
		}
	}
	return len(keys)
}
