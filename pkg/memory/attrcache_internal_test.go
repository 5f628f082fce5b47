package memory

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/attribute"
)

// The cache keeps within its budget, the least recently used out first; a
// user's newer reading takes the place of the older; an entry larger than
// the whole budget is not kept; no budget keeps nothing.
func TestAttributesCacheBudget(t *testing.T) {
	as := func(n int) []attribute.Assertion {
		out := make([]attribute.Assertion, n)
		for i := range out {
			out[i] = attribute.Assertion{Key: attribute.KeyStatements, Value: strings.Repeat("x", 100)}
		}
		return out
	}
	one := entrySize(&attributesEntry{key: attributesKey{"t", "u1"}, assertions: as(10)})
	c := newAttributesCache(3 * one)
	c.put("t", "u1", 1, as(10), nil, nil)
	c.put("t", "u2", 1, as(10), nil, nil)
	c.put("t", "u3", 1, as(10), nil, nil)
	require.NotNil(t, c.get("t", "u1"), "u1 used: u2 is now the least recent")
	c.put("t", "u4", 1, as(10), nil, nil)
	require.Nil(t, c.get("t", "u2"))
	require.NotNil(t, c.get("t", "u1"))
	require.NotNil(t, c.get("t", "u3"))
	require.NotNil(t, c.get("t", "u4"))
	require.LessOrEqual(t, c.used, c.budget)

	c.put("t", "u1", 2, as(10), nil, nil)
	require.Equal(t, int64(2), c.get("t", "u1").revision)
	require.Len(t, c.byUser, 3)
	require.Equal(t, c.order.Len(), len(c.byUser))

	c.put("t", "u5", 1, as(40), nil, nil)
	require.Nil(t, c.get("t", "u5"), "larger than the whole budget")
	require.NotNil(t, c.get("t", "u1"), "and nothing made room for it")
	require.Nil(t, c.get("other", "u1"), "tenants apart")

	before := c.used
	c.drop("t", "u1")
	require.Nil(t, c.get("t", "u1"), "dropped")
	require.Less(t, c.used, before)
	require.Equal(t, c.order.Len(), len(c.byUser))
	c.drop("t", "nobody")

	var none *attributesCache = newAttributesCache(0)
	none.put("t", "u1", 1, as(1), nil, nil)
	require.Nil(t, none.get("t", "u1"))
	none.drop("t", "u1")
}
