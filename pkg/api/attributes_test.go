package api_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/workers/signals"
)

// Explicit edits of a user's attributes go through the signal stream to
// the catalog worker, and the attributes route shows the current values with
// their history: a later value supersedes, a removal retracts, another
// tenant sees nothing.
func TestAttributesSetExplicitly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	testenv.StartWorker(t, b.nats, b.db, signals.Def, nil)
	path := "/v1/users/u1/attributes"
	edit := func(body string) contract.AttributesAccepted {
		t.Helper()
		res := b.do(t, http.MethodPatch, path, "t1", []byte(body))
		require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
		return decode[contract.AttributesAccepted](t, res)
	}
	acc := edit(`{"id": "e1", "occurred_at": "2026-11-01T10:00:00Z", "edits": [
		{"key": "location", "op": "put", "value": "Paris"},
		{"key": "allergies", "op": "put", "value": "Peanuts"},
		{"key": "allergies", "op": "put", "value": "shellfish"}]}`)
	require.Len(t, acc.Accepted, 3)
	again := edit(`{"id": "e1", "occurred_at": "2026-11-01T10:00:00Z", "edits": [
		{"key": "location", "op": "put", "value": "Paris"},
		{"key": "allergies", "op": "put", "value": "Peanuts"},
		{"key": "allergies", "op": "put", "value": "shellfish"}]}`)
	require.True(t, again.Accepted[0].Duplicate, "a retry with the same id is stored once")

	res := b.do(t, http.MethodPut, path+"/location", "t1", []byte(`{"value": "Berlin", "id": "e2", "occurred_at": "2026-11-05T10:00:00Z"}`))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	res = b.do(t, http.MethodDelete, path+"/allergies?value=SHELLFISH&id=e3", "t1", nil)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))

	current := func(tenant string) []string {
		res, err := b.send(t.Context(), http.MethodGet, path+"?history=true", tenant, nil)
		if err != nil || res.Status != http.StatusOK {
			return nil
		}
		var out []string
		for _, v := range decode[contract.Attributes](t, res).Current {
			out = append(out, v.Key+"="+v.Value)
		}
		return out
	}
	want := []string{"location=Berlin", "allergies=Peanuts"}
	// Wait until every edit is stored, not until the current values
	// settle: they settle without e1's location (e2 supersedes it), and the
	// catalog worker's two handlers may take e1-0 into one batch and the
	// later edits into another that commits first.
	stored := func() bool {
		res, err := b.send(t.Context(), http.MethodGet, path+"?history=true", "t1", nil)
		if err != nil || res.Status != http.StatusOK {
			return false
		}
		var seen []string
		for _, v := range decode[contract.Attributes](t, res).History {
			seen = append(seen, v.EventID)
		}
		slices.Sort(seen)
		return slices.Equal(seen, []string{"e1-0", "e1-1", "e1-2", "e2", "e3"})
	}
	require.Eventually(t, stored, 10*time.Second, 20*time.Millisecond, "got %v", current("t1"))
	require.Equal(t, want, current("t1"))
	got := decode[contract.Attributes](t, b.get(t, "t1", path+"?history=true"))
	require.Equal(t, "explicit", got.Current[0].Source)
	require.Equal(t, "about", got.Current[0].Group)
	require.Nil(t, decode[contract.Attributes](t, b.get(t, "t1", path)).History, "history only when asked for")
	byEvent := map[string]contract.AttributeValue{}
	for _, v := range got.History {
		byEvent[v.EventID] = v
	}
	require.Equal(t, "superseded", byEvent["e1-0"].Status)
	require.Equal(t, "e2", byEvent["e1-0"].EndedBy)
	require.Equal(t, time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC), *byEvent["e1-0"].ValidTo)
	require.Equal(t, "retracted", byEvent["e1-2"].Status)
	require.Equal(t, "removal", byEvent["e3"].Status)
	require.Empty(t, current("t2"), "another tenant's user of the same id has nothing")

	// Every context carries them, whatever its query: a new session's
	// first message shares no word with them.
	edit(`{"id": "e4", "occurred_at": "2026-11-06T10:00:00Z", "edits": [
		{"key": "requests", "op": "put", "value": "never suggest recipes with peanuts"},
		{"key": "reply_language", "op": "put", "value": "English"}]}`)
	var c contract.Context
	require.Eventually(t, func() bool {
		res, err := b.send(t.Context(), http.MethodGet, "/v1/context?user_id=u1&session_id=fresh&query=any+dessert+ideas+for+the+weekend%3F", "t1", nil)
		if err != nil || res.Status != http.StatusOK {
			return false
		}
		c = decode[contract.Context](t, res)
		return c.Attributes != nil && len(c.Attributes.Requests) == 2
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, []contract.AttributeEntry{{Key: "location", Label: "lives in", Values: []string{"Berlin"}},
		{Key: "allergies", Label: "allergic to", Values: []string{"Peanuts"}}}, c.Attributes.About)
	require.Equal(t, "reply_language", c.Attributes.Requests[0].Key)
	require.Contains(t, c.Prompt, "About the user: lives in: Berlin; allergic to: Peanuts")
	require.Contains(t, c.Prompt, "The user has asked (follow this unless the current message says otherwise): reply in: English; standing requests: never suggest recipes with peanuts")
	require.NotContains(t, c.Prompt, "Paris", "only current values")
	require.Positive(t, c.Budget.Parts.Attributes)
	// The part's old name carries the same, for one release.
	require.Equal(t, c.Attributes, c.Profile)
	require.Equal(t, c.Budget.Parts.Attributes, c.Budget.Parts.Profile)

	// Forgetting the user takes the edits out of the stream and the store.
	rep := decode[contract.UserData](t, b.do(t, http.MethodDelete, "/v1/users/u1", "t1", nil))
	require.EqualValues(t, 7, rep.StreamMessages[queue.SignalsStream])
	require.EqualValues(t, 7, rep.Rows["attribute_assertions"])
	require.Empty(t, current("t1"))
}

// An edit the schema refuses names its field, and nothing of the request is
// published.
func TestAttributesRefuseBadEdits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	signals := func() uint64 {
		st, err := b.js.Stream(t.Context(), queue.SignalsStream)
		require.NoError(t, err)
		info, err := st.Info(t.Context())
		require.NoError(t, err)
		return info.State.Msgs
	}
	before := signals()
	path := "/v1/users/u1/attributes"
	for _, tc := range []struct {
		method, path, body, field string
	}{
		{http.MethodPatch, path, `{"edits": [{"key": "name", "op": "put", "value": "Ann"}, {"key": "shoe_size", "op": "put", "value": "42"}]}`, "edits[1].key"},
		{http.MethodPatch, path, `{"edits": [{"key": "name", "op": "append", "value": "Ann"}]}`, "edits[0].op"},
		{http.MethodPatch, path, `{"edits": [{"key": "name", "op": "put", "value": ""}]}`, "edits[0].value"},
		{http.MethodPatch, path, `{"edits": []}`, "edits"},
		{http.MethodPatch, path, `{"edits": [{"key": "name", "op": "put", "value": "Ann", "extra": 1}]}`, "extra"},
		{http.MethodPut, path + "/pets", `{"value": 3}`, "value"},
		{http.MethodPut, path + "/name", `{"value": "A\u0001"}`, "value"},
		{http.MethodPut, path + "/shoe_size", `{"value": "42"}`, "key"},
		{http.MethodDelete, path + "/name?id=%00", ``, "id"},
		{http.MethodPatch, path, `{"edits": [{"key": "name", "op": "put", "value": "Ann"}, {"key": "timezone", "op": "put", "value": "Asia/Atlantis"}]}`, "edits[1].value"},
		{http.MethodPut, path + "/timezone", `{"value": "UTC+8"}`, "value"},
		{http.MethodPut, path + "/timezone", `{"value": "Local"}`, "value"},
	} {
		var body []byte
		if tc.body != "" {
			body = []byte(tc.body)
		}
		res := b.do(t, tc.method, tc.path, "t1", body)
		require.Contains(t, requireFields(t, res, http.StatusBadRequest), tc.field, "%s %s %s", tc.method, tc.path, tc.body)
	}
	res := b.do(t, http.MethodPatch, path, "t1", []byte(`{"edits": [{"key": "name", "op": "put", "value": "Ann"}]}`), "Content-Type", "text/plain")
	require.Equal(t, http.StatusUnsupportedMediaType, res.Status)
	require.Equal(t, before, signals(), "nothing was published")
}
