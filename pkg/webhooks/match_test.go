package webhooks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/webhooks"
)

func TestTypePatterns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		patterns []string
		typ      string
		want     bool
	}{
		{[]string{"*"}, "user.forgotten", true},
		{[]string{"attribute.*"}, "attribute.asserted", true},
		{[]string{"attribute.*"}, "attributes.asserted", false},
		{[]string{"attribute.*"}, "attribute", false},
		{[]string{"attribute.asserted"}, "attribute.asserted", true},
		{[]string{"attribute.asserted"}, "attribute.removed", false},
		{[]string{"user.forgotten", "fact.*"}, "fact.added", true},
		{nil, "user.forgotten", false},
	} {
		require.Equal(t, tc.want, webhooks.Matches(tc.patterns, tc.typ), "%v %s", tc.patterns, tc.typ)
	}
	for _, p := range []string{"*", "attribute.*", "user.forgotten", "a_b.c1"} {
		require.NoError(t, webhooks.CheckPattern(p), p)
	}
	for _, p := range []string{"", "*.x", "attribute.*.x", "Attribute.x", "a..b", "attribute*", ".x", strings.Repeat("a", 101)} {
		require.Error(t, webhooks.CheckPattern(p), p)
	}
}
