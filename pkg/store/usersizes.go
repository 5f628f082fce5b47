package store

import (
	"sync"
	"time"
)

// smallUsers remembers, for a while, the users a search found below the
// switch to indexes (LargeSearch.From): their next searches send the scan
// alone, without SearchCandidates beside it. That statement, though it
// reads nothing for a small user, is planned and run on every context
// (about a millisecond: a quarter of a small user's context under load).
// A user remembered as small is scanned whatever it has grown to since,
// which is exact, only slower, until the entry is SmallUserTTL old. Two
// generations bound the memory: when the newer holds maxSmallUsers, the
// older is dropped and the newer takes its place.
type smallUsers struct {
	mu         sync.Mutex
	cur, older map[userKey]time.Time
	now        func() time.Time
}

type userKey struct{ tenant, user string }

// SmallUserTTL is how long a search trusts that a user is below the switch
// to indexes (smallUsers).
const SmallUserTTL = time.Minute

// maxSmallUsers bounds a generation of smallUsers (about 100 bytes each).
const maxSmallUsers = 50_000

// small reports whether the user was found small less than SmallUserTTL ago.
func (c *smallUsers) small(tenant, user string) bool {
	k := userKey{tenant, user}
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.cur[k]
	if !ok {
		at, ok = c.older[k]
	}
	return ok && c.clock().Sub(at) < SmallUserTTL
}

// set records what a search found of the user: small, or not (forgotten).
func (c *smallUsers) set(tenant, user string, small bool) {
	k := userKey{tenant, user}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !small {
		delete(c.cur, k)
		delete(c.older, k)
		return
	}
	if c.cur == nil || len(c.cur) >= maxSmallUsers {
		c.older, c.cur = c.cur, make(map[userKey]time.Time)
	}
	c.cur[k] = c.clock()
}

func (c *smallUsers) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}
