package memory_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/store"
)

// A service that keeps what it resolved of a user's assertions gives the
// same context as one that reads and resolves them every time: while
// nothing moved, after a new statement, after a changed attribute, and
// after the user is forgotten.
func TestContextKeepsAttributesByRevision(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	newService := func(cacheMB int) *memory.Service {
		s, err := memory.New(memory.Options{Store: db.Store, Decay: decay.DefaultPolicy, Log: testenv.Logger(t),
			Config: memory.Config{ContextAttributesCacheMB: cacheMB}})
		require.NoError(t, err)
		return s
	}
	keeping, reading := newService(0), newService(-1)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	record := func(rows ...attribute.Assertion) {
		t.Helper()
		var rs []store.AssertionRow
		for _, a := range rows {
			require.NoError(t, attribute.Normalize(attribute.Default(), &a))
			rs = append(rs, store.AssertionRow{TenantID: "t1", UserID: "u1", Assertion: a})
		}
		_, err := db.Store.RecordAssertions(t.Context(), rs)
		require.NoError(t, err)
	}
	put := func(key, value, id string, minute int) attribute.Assertion {
		a := attribute.Assertion{Key: key, Value: value, Op: attribute.Put, Source: attribute.Stated, EventID: id, Confidence: 0.9,
			At: at.Add(time.Duration(minute) * time.Minute)}
		if key == attribute.KeyStatements {
			a.Item = attribute.ItemKey(value)
		}
		return a
	}
	same := func(what string) *contract.Context {
		t.Helper()
		p := contract.ContextParams{UserID: "u1", SessionID: "s1"}
		want, err := reading.Context(t.Context(), "t1", p)
		require.NoError(t, err)
		for range 2 {
			got, err := keeping.Context(t.Context(), "t1", p)
			require.NoError(t, err)
			require.Equal(t, want.Prompt, got.Prompt, what)
			require.Equal(t, want.Profile, got.Profile, what)
		}
		return want
	}

	record(put("location", "Berlin", "e1", 0))
	for i := range 30 {
		record(put(attribute.KeyStatements, fmt.Sprintf("I have been learning the piano for %d weeks.", i+1), fmt.Sprintf("s%d", i), i+1))
	}
	c := same("as recorded")
	require.Contains(t, c.Prompt, "Berlin")

	record(put("location", "Oslo", "e2", 40))
	c = same("after the user moved")
	require.Contains(t, c.Prompt, "Oslo")
	require.NotContains(t, c.Prompt, "Berlin")

	record(put(attribute.KeyStatements, "I am allergic to peanuts.", "s99", 50))
	c = same("after a new statement")
	require.Contains(t, c.Prompt, "allergic to peanuts")

	_, err := db.Store.Tenant("t1").ForgetUser(t.Context(), "u1")
	require.NoError(t, err)
	c = same("after the user was forgotten")
	require.NotContains(t, c.Prompt, "Oslo")
	require.NotContains(t, c.Prompt, "peanuts")
}
