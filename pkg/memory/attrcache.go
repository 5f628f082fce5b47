package memory

import (
	"container/list"
	"sync"

	"github.com/recallhq/recall/pkg/attribute"
)

// attributesCache keeps, for the users whose contexts were read lately,
// their assertions as a context reads them (store.ContextData.Assertions),
// the revision they were read at, and what attribute.Resolve made of them
// (the current values), within a budget of bytes, the least recently used
// out first. A context passes the revision it holds to the store, which
// then reads the assertions only if they moved (store.ContextRead.
// KnownAttributes): a user's self-statements are up to a thousand
// assertions that every context of theirs reads and resolves, and they
// change only when the user says something new about themselves.
//
// An entry is never changed once kept: contexts read it concurrently.
type attributesCache struct {
	mu     sync.Mutex
	budget int
	used   int
	order  *list.List // of *attributesEntry, the most recently used first
	byUser map[attributesKey]*list.Element
}

type attributesKey struct{ tenant, user string }

type attributesEntry struct {
	key        attributesKey
	revision   int64
	assertions []attribute.Assertion
	// current is Resolve(schema, assertions).Current.
	schema  *attribute.Schema
	current []attribute.Value
	size    int
}

// newAttributesCache is a cache of at most budget bytes; nil (keeping
// nothing) for a budget of 0 or less.
func newAttributesCache(budget int) *attributesCache {
	if budget <= 0 {
		return nil
	}
	return &attributesCache{budget: budget, order: list.New(), byUser: map[attributesKey]*list.Element{}}
}

// get is what is kept of a user, nil for nothing.
func (c *attributesCache) get(tenant, user string) *attributesEntry {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byUser[attributesKey{tenant, user}]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*attributesEntry)
}

// put keeps a user's assertions read at revision with their current
// values by schema, in place of what was kept of the user; an entry larger
// than the whole budget is not kept.
func (c *attributesCache) put(tenant, user string, revision int64, as []attribute.Assertion, schema *attribute.Schema, current []attribute.Value) {
	if c == nil {
		return
	}
	e := &attributesEntry{key: attributesKey{tenant, user}, revision: revision, assertions: as, schema: schema, current: current}
	e.size = entrySize(e)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byUser[e.key]; ok {
		c.remove(el)
	}
	if e.size > c.budget {
		return
	}
	c.byUser[e.key] = c.order.PushFront(e)
	c.used += e.size
	for c.used > c.budget {
		c.remove(c.order.Back())
	}
}

// drop forgets what is kept of a user.
func (c *attributesCache) drop(tenant, user string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byUser[attributesKey{tenant, user}]; ok {
		c.remove(el)
	}
}

// remove takes an entry out, with c.mu held.
func (c *attributesCache) remove(el *list.Element) {
	e := c.order.Remove(el).(*attributesEntry)
	delete(c.byUser, e.key)
	c.used -= e.size
}

// entrySize is about what an entry holds: its strings, and the structs of
// its assertions and values (their strings shared).
func entrySize(e *attributesEntry) int {
	const assertionStruct, valueStruct, entryStruct = 200, 240, 160
	n := entryStruct + len(e.key.tenant) + len(e.key.user)
	for _, a := range e.assertions {
		n += assertionStruct + len(a.EventID) + len(a.Key) + len(a.Item) + len(a.Op) + len(a.Value) + len(a.Source) + len(a.SessionID)
		for _, ev := range a.Evidence {
			n += 16 + len(ev)
		}
	}
	return n + len(e.current)*valueStruct
}
