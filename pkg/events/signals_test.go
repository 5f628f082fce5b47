package events_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
)

const (
	validItem  = `{"v":1,"id":"c1","tenant_id":"t1","occurred_at":"2026-11-22T08:00:00Z","ref":"/book/1","type":"book","title":"三体","attrs":{"author":"刘慈欣","genres":["科幻"]}}`
	validShelf = `{"v":1,"id":"s1","tenant_id":"t1","user_id":"u1","occurred_at":"2026-11-22T08:00:00Z","ref":"/book/1","status":"read"}`
	validTask  = `{"v":1,"tenant_id":"t1","user_id":"u1","requested_at":"2026-11-22T08:00:00Z"}`
)

func TestDecodeCatalogItem(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	long := strings.Repeat("x", 129)
	cases := []struct {
		name   string
		raw    string
		fields []string // nil: valid
	}{
		{"valid", validItem, nil},
		{"version omitted", strings.Replace(validItem, `"v":1,`, ``, 1), nil},
		{"with embedding and model", strings.Replace(validItem, `"title"`, `"embedding":[0.1,-0.2,3],"embedding_model":"m","title"`, 1), nil},
		{"deletion needs only the ref", `{"id":"c2","tenant_id":"t1","occurred_at":"2026-11-22T08:00:00Z","ref":"/book/1","deleted":true}`, nil},
		{"missing everything", `{}`, []string{"id", "tenant_id", "occurred_at", "ref", "type", "title"}},
		{"malformed", `{"id":`, []string{"(event)"}},
		{"wrong type", strings.Replace(validItem, `"c1"`, `1`, 1), []string{"id"}},
		{"embedding not numbers", strings.Replace(validItem, `"title"`, `"embedding":["a"],"title"`, 1), []string{"embedding"}},
		{"embedding out of float32 range", strings.Replace(validItem, `"title"`, `"embedding":[1e39],"title"`, 1), []string{"embedding"}},
		{"model without embedding", strings.Replace(validItem, `"title"`, `"embedding_model":"m","title"`, 1), []string{"embedding_model"}},
		{"version", strings.Replace(validItem, `"v":1`, `"v":2`, 1), []string{"v"}},
		{"long tenant", strings.Replace(validItem, `"t1"`, `"`+long+`"`, 1), []string{"tenant_id"}},
		{"control char in id", strings.Replace(validItem, `"c1"`, `"c\u00071"`, 1), []string{"id"}},
		{"long ref", strings.Replace(validItem, `"/book/1"`, `"`+strings.Repeat("r", 513)+`"`, 1), []string{"ref"}},
		{"nul in ref", strings.Replace(validItem, `"/book/1"`, `"/a\u0000"`, 1), []string{"ref"}},
		{"long type", strings.Replace(validItem, `"book"`, `"`+strings.Repeat("t", 65)+`"`, 1), []string{"type"}},
		{"blank title", strings.Replace(validItem, `"三体"`, `"  "`, 1), []string{"title"}},
		{"attrs not an object", strings.Replace(validItem, `{"author":"刘慈欣","genres":["科幻"]}`, `["x"]`, 1), []string{"attrs"}},
		{"nul in attrs", strings.Replace(validItem, `"刘慈欣"`, `"\u0000"`, 1), []string{"attrs"}},
		{"bad time", strings.Replace(validItem, `"2026-11-22T08:00:00Z"`, `"today"`, 1), []string{"occurred_at"}},
		{"future time at the edge", strings.Replace(validItem, `"2026-11-22T08:00:00Z"`, `"2026-11-24T08:00:00Z"`, 1), []string{"occurred_at"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			it, err := events.DecodeCatalogItem([]byte(tc.raw), events.ValidateOptions{Limits: events.DefaultLimits, Now: func() time.Time { return now }})
			if tc.fields == nil {
				require.NoError(t, err)
				require.Equal(t, events.Version, it.V)
				return
			}
			require.Error(t, err)
			require.True(t, queue.IsPermanent(err))
			require.Equal(t, tc.fields, fields(err), err.Error())
		})
	}

	it, err := events.DecodeCatalogItem([]byte(strings.Replace(validItem, `"title"`, `"embedding":[0.5,0.25],"title"`, 1)), events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err)
	require.Equal(t, []float32{0.5, 0.25}, it.Embedding)
	require.JSONEq(t, `{"author":"刘慈欣","genres":["科幻"]}`, string(it.Attrs))

	big := make([]float32, events.MaxEmbeddingDims+1)
	raw, err := json.Marshal(map[string]any{"id": "c", "tenant_id": "t", "occurred_at": "2026-11-22T08:00:00Z", "ref": "r", "type": "book", "title": "x", "embedding": big})
	require.NoError(t, err)
	_, err = events.DecodeCatalogItem(raw, events.ValidateOptions{Limits: events.Limits{MaxIDBytes: 128}})
	require.Equal(t, []string{"embedding"}, fields(err))

	_, err = events.DecodeCatalogItem([]byte("{\"id\":\"\xff\"}"), events.ValidateOptions{Limits: events.DefaultLimits})
	require.Equal(t, []string{"(event)"}, fields(err))
}

func TestDecodeShelfEntry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		raw    string
		fields []string
	}{
		{"valid", validShelf, nil},
		{"every status", strings.Replace(validShelf, `"read"`, `"abandoned"`, 1), nil},
		{"removed", strings.Replace(validShelf, `"read"`, `"removed"`, 1), nil},
		{"chinese ids", strings.Replace(validShelf, `"u1"`, `"用户.1"`, 1), nil},
		{"missing everything", `{}`, []string{"id", "tenant_id", "user_id", "occurred_at", "ref", "status"}},
		{"unknown status", strings.Replace(validShelf, `"read"`, `"finished"`, 1), []string{"status"}},
		{"ancient time", strings.Replace(validShelf, `"2026-11-22T08:00:00Z"`, `"1999-12-31T23:59:59Z"`, 1), []string{"occurred_at"}},
		{"numeric time", strings.Replace(validShelf, `"2026-11-22T08:00:00Z"`, `1`, 1), []string{"occurred_at"}},
		{"long user", strings.Replace(validShelf, `"u1"`, `"`+strings.Repeat("u", 129)+`"`, 1), []string{"user_id"}},
		{"status and ref together", strings.Replace(strings.Replace(validShelf, `"read"`, `""`, 1), `"/book/1"`, `""`, 1), []string{"ref", "status"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := events.DecodeShelfEntry([]byte(tc.raw), events.ValidateOptions{Limits: events.DefaultLimits})
			if tc.fields == nil {
				require.NoError(t, err)
				require.Equal(t, events.Version, e.V)
				return
			}
			require.Equal(t, tc.fields, fields(err), err)
		})
	}
}

func TestDecodeProfileTask(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		raw    string
		fields []string
	}{
		{"valid", validTask, nil},
		{"missing everything", `{}`, []string{"tenant_id", "user_id", "requested_at"}},
		{"bad time", strings.Replace(validTask, `"2026-11-22T08:00:00Z"`, `"soon"`, 1), []string{"requested_at"}},
		{"version", strings.Replace(validTask, `"v":1`, `"v":3`, 1), []string{"v"}},
		{"not an object", `"x"`, []string{"(event)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			task, err := events.DecodeProfileTask([]byte(tc.raw), events.ValidateOptions{Limits: events.DefaultLimits})
			if tc.fields == nil {
				require.NoError(t, err)
				require.Equal(t, "u1", task.UserID)
				require.Equal(t, time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC), task.RequestedAt.UTC())
				return
			}
			require.Equal(t, tc.fields, fields(err), err)
		})
	}
}

func TestSignalSubjects(t *testing.T) {
	t.Parallel()
	require.Equal(t, "recall.catalog.acme", events.CatalogSubject("acme"))
	require.Equal(t, "recall.shelf.acme.u-42", events.ShelfSubject("acme", "u-42"))
	require.Equal(t, "recall.tasks.profile.acme.u-42", events.ProfileTaskSubject("acme", "u-42"))

	for _, tc := range []struct {
		subject string
		want    events.SubjectIDs
	}{
		{events.CatalogSubject("t.1"), events.SubjectIDs{Kind: events.KindCatalog, TenantID: "t.1"}},
		{events.ShelfSubject("租户", "user 1"), events.SubjectIDs{Kind: events.KindShelf, TenantID: "租户", UserID: "user 1"}},
		{events.ProfileTaskSubject("t", "u>*"), events.SubjectIDs{Kind: events.KindProfileTask, TenantID: "t", UserID: "u>*"}},
	} {
		ids, err := events.ParseSignalSubject(tc.subject)
		require.NoError(t, err, tc.subject)
		require.Equal(t, tc.want, ids)
	}
	for _, bad := range []string{
		"recall.catalog", "recall.catalog.a.b", "recall.shelf.a", "recall.shelf.a.b.c", "recall.tasks.profile.a",
		"recall.tasks.other.a.b", "recall.turns.a.b.c", "other.catalog.a", "recall.catalog.~%%",
	} {
		_, err := events.ParseSignalSubject(bad)
		require.Error(t, err, bad)
	}
	// Every signal subject falls under its stream's filters.
	for _, subj := range []string{events.CatalogSubject("a"), events.ShelfSubject("a", "b")} {
		require.True(t, matchesAny(subj, queue.SignalsStreamConfig(queue.DefaultStreamConfig).Subjects), subj)
	}
	require.True(t, matchesAny(events.ProfileTaskSubject("a", "b"), queue.TasksStreamConfig(queue.DefaultStreamConfig).Subjects))
}

func matchesAny(subject string, filters []string) bool {
	for _, f := range filters {
		if strings.HasPrefix(subject, strings.TrimSuffix(f, ">")) {
			return true
		}
	}
	return false
}

func TestCheckSignalSubjects(t *testing.T) {
	t.Parallel()
	it := events.CatalogItem{TenantID: "A"}
	require.NoError(t, events.CheckCatalogSubject(events.CatalogSubject("A"), &it))
	require.Equal(t, []string{"tenant_id"}, fields(events.CheckCatalogSubject(events.CatalogSubject("B"), &it)))
	require.Equal(t, []string{"(subject)"}, fields(events.CheckCatalogSubject(events.ShelfSubject("A", "u"), &it)), "a catalog item on a shelf subject")

	e := events.ShelfEntry{TenantID: "A", UserID: "u"}
	require.NoError(t, events.CheckShelfSubject(events.ShelfSubject("A", "u"), &e))
	require.Equal(t, []string{"tenant_id", "user_id"}, fields(events.CheckShelfSubject(events.ShelfSubject("B", "v"), &e)))
	require.Equal(t, []string{"(subject)"}, fields(events.CheckShelfSubject(events.ProfileTaskSubject("A", "u"), &e)))

	task := events.ProfileTask{TenantID: "A", UserID: "u"}
	require.NoError(t, events.CheckProfileTaskSubject(events.ProfileTaskSubject("A", "u"), &task))
	require.Equal(t, []string{"user_id"}, fields(events.CheckProfileTaskSubject(events.ProfileTaskSubject("A", "v"), &task)))
}

func TestProfileTaskMsg(t *testing.T) {
	t.Parallel()
	task := events.ProfileTask{TenantID: "acme", UserID: "u-42", RequestedAt: time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)}
	at := time.Date(2026, 11, 22, 9, 0, 3, 0, time.UTC)
	m, err := eventmsg.ProfileTask(&task, at, 5*time.Second)
	require.NoError(t, err)
	require.Equal(t, "recall.tasks.profile.acme.u-42", m.Subject)
	require.Equal(t, "acme:u-42:"+itoa(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC).UnixMilli()), m.Header.Get(jetstream.MsgIDHeader))
	until, ok := eventmsg.DebounceUntil(m.Header)
	require.True(t, ok)
	require.Equal(t, time.Date(2026, 11, 22, 9, 0, 5, 0, time.UTC), until)
	require.JSONEq(t, `{"v":1,"tenant_id":"acme","user_id":"u-42","requested_at":"2026-11-22T08:00:00Z"}`, string(m.Data))

	same := func(a, b time.Time, req time.Time) bool {
		t1, t2 := task, task
		t2.RequestedAt = req
		m1, err := eventmsg.ProfileTask(&t1, a, 5*time.Second)
		require.NoError(t, err)
		m2, err := eventmsg.ProfileTask(&t2, b, 5*time.Second)
		require.NoError(t, err)
		return m1.Header.Get(jetstream.MsgIDHeader) == m2.Header.Get(jetstream.MsgIDHeader)
	}
	require.True(t, same(at, at.Add(1900*time.Millisecond), task.RequestedAt.Add(time.Hour)), "one task per user and bucket of publish time")
	require.False(t, same(at, at.Add(2*time.Second), task.RequestedAt), "the next bucket is a new task")

	// Ids with ':' cannot make two users' keys meet.
	a, err := eventmsg.ProfileTask(&events.ProfileTask{TenantID: "a:b", UserID: "c", RequestedAt: at}, at, time.Second)
	require.NoError(t, err)
	b, err := eventmsg.ProfileTask(&events.ProfileTask{TenantID: "a", UserID: "b:c", RequestedAt: at}, at, time.Second)
	require.NoError(t, err)
	require.NotEqual(t, a.Header.Get(jetstream.MsgIDHeader), b.Header.Get(jetstream.MsgIDHeader))

	// Without a bucket, only the very same task dedupes, and nothing is held.
	m, err = eventmsg.ProfileTask(&task, at, 0)
	require.NoError(t, err)
	_, ok = eventmsg.DebounceUntil(m.Header)
	require.False(t, ok)
	m2, err := eventmsg.ProfileTask(&task, at.Add(time.Hour), 0)
	require.NoError(t, err)
	require.Equal(t, m.Header.Get(jetstream.MsgIDHeader), m2.Header.Get(jetstream.MsgIDHeader))
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
