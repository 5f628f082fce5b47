package memory_test

import (
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/contract"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/store"
)

// The profile part keeps within CONTEXT_ATTRIBUTES_CHARS whatever the user's
// habits add: what the user asked first, then who they are in the schema's
// order, the values derived from usage (last in it) the first to go.
func TestProfileCapWithHabits(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	svc, err := memory.New(memory.Options{Store: db.Store, Decay: decay.DefaultPolicy, Log: testenv.Logger(t),
		Config: memory.Config{ContextAttributesChars: 220, ContextAttributesDerived: true}})
	require.NoError(t, err)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var rows []store.AssertionRow
	for i, kv := range [][3]string{
		{"location", "Berlin", attribute.Explicit},
		{"reply_language", "English", attribute.Explicit},
		{"requests", "never suggest recipes with peanuts", attribute.Explicit},
		{"active_hours", "20:00–23:00 (Asia/Shanghai)", attribute.Derived},
		{"message_length", "short (median 25 characters)", attribute.Derived},
		{"channels", "shop/librarian", attribute.Derived},
	} {
		a := attribute.Assertion{Key: kv[0], Value: kv[1], Op: attribute.Put, Source: kv[2], EventID: "e" + kv[0], Confidence: 1,
			At: at.Add(time.Duration(i) * time.Minute)}
		require.NoError(t, attribute.Normalize(attribute.Default(), &a))
		rows = append(rows, store.AssertionRow{TenantID: "t1", UserID: "u1", Assertion: a})
	}
	_, err = db.Store.RecordAssertions(t.Context(), rows)
	require.NoError(t, err)

	// By default the values derived from usage stay out of the context.
	plain, err := memory.New(memory.Options{Store: db.Store, Decay: decay.DefaultPolicy, Log: testenv.Logger(t),
		Config: memory.Config{ContextAttributesChars: 220}})
	require.NoError(t, err)
	c, err := plain.Context(t.Context(), "t1", contract.ContextParams{UserID: "u1", SessionID: "s1"})
	require.NoError(t, err)
	require.Len(t, c.Profile.About, 1)
	require.Equal(t, "location", c.Profile.About[0].Key)
	require.NotContains(t, c.Prompt, "Asia/Shanghai")
	require.Empty(t, c.Profile.Cuts)

	for _, lang := range []string{"en", "zh"} {
		c, err := svc.Context(t.Context(), "t1", contract.ContextParams{UserID: "u1", SessionID: "s1", Lang: lang})
		require.NoError(t, err)
		require.LessOrEqual(t, c.Budget.Parts.Profile, 220, lang)
		require.Len(t, c.Profile.Requests, 2, "what the user asked is kept first")
		var about []string
		for _, e := range c.Profile.About {
			about = append(about, e.Key)
		}
		require.Equal(t, "location", about[0], lang)
		if lang == "en" {
			require.Equal(t, []string{"location"}, about, "the values derived from usage, last in the schema, go first")
			require.NotEmpty(t, c.Profile.Cuts)
			continue
		}
		// The Chinese labels are shorter: everything fits.
		require.Equal(t, []string{"location", "active_hours", "message_length", "channels"}, about)
		require.Contains(t, c.Prompt, "关于用户：住在：Berlin；常在线时段：20:00–23:00 (Asia/Shanghai)；消息长度：short (median 25 characters)；常用渠道：shop/librarian")
	}
}
