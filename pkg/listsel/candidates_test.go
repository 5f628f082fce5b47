package listsel_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/listsel"
)

// refsTitles is what matters of candidates in most tests: "ref=title" each.
func refsTitles(items []events.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Ref + "=" + it.Title
	}
	return out
}

// List-like objects are found wherever a tool nests them, with the preferred
// identifier and label, in document order.
func TestCandidatesFindsListEntries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		results []string
		want    []string
	}{
		{"array", []string{`[{"ref":"/mv/1","title":"Dune"},{"ref":"/mv/2","title":"Arrival"}]`},
			[]string{"/mv/1=Dune", "/mv/2=Arrival"}},
		{"results", []string{`{"total":2,"results":[{"url":"https://x.test/a","name":"A"},{"url":"https://x.test/b","name":"B"}]}`},
			[]string{"https://x.test/a=A", "https://x.test/b=B"}},
		{"data items", []string{`{"data":{"items":[{"id":42,"label":"Life"},{"id":"b7","headline":"News"}]}}`},
			[]string{"42=Life", "b7=News"}},
		{"number as written", []string{`[{"id":1.50,"title":"a"},{"id":12345678901234567890,"title":"b"},{"id":-3e2,"title":"c"}]`},
			[]string{"1.50=a", "12345678901234567890=b", "-3e2=c"}},
		{"single object", []string{`{"link":"https://x.test/d","title":"Dune"}`}, []string{"https://x.test/d=Dune"}},
		{"identifier preference", []string{`{"id":7,"uri":"u:1","href":"/h","link":"/l","url":"/u","ref":"/r","title":"T"}`},
			[]string{"/r=T"}},
		{"identifier preference without ref", []string{`{"id":7,"href":"/h","url":"/u","title":"T"}`}, []string{"/u=T"}},
		{"label preference", []string{`{"id":1,"headline":"H","label":"L","name":"N","title":"T"}`}, []string{"1=T"}},
		{"label preference without title", []string{`{"id":1,"headline":"H","name":"N"}`}, []string{"1=N"}},
		{"keys any case", []string{`{"URL":"/u","Title":"T"}`}, []string{"/u=T"}},
		{"unusable values skipped", []string{`{"ref":"","url":"/u","title":"  ","name":"N"}`}, []string{"/u=N"}},
		{"trimmed", []string{`{"ref":" /r ","title":" T "}`}, []string{"/r=T"}},
		{"parent before child", []string{`{"id":"p1","title":"Playlist","tracks":[{"id":"t1","title":"One"},{"id":"t2","title":"Two"}]}`},
			[]string{"p1=Playlist", "t1=One", "t2=Two"}},
		{"duplicates dropped", []string{`[{"ref":"/a","title":"A"},{"ref":"/b","title":"B"},{"ref":"/a","title":"A again"}]`},
			[]string{"/a=A", "/b=B"}},
		{"several results in order", []string{`[{"ref":"/a","title":"A"}]`, `not json`, `{"hits":[{"ref":"/b","title":"B"},{"ref":"/a","title":"A2"}]}`},
			[]string{"/a=A", "/b=B"}},
		{"JSON inside a string", []string{`{"content":[{"type":"text","text":"{\"results\":[{\"id\":1,\"title\":\"Dune\"},{\"id\":2,\"title\":\"Arrival\"}]}"}]}`},
			[]string{"1=Dune", "2=Arrival"}},
		{"a JSON string result", []string{`"[{\"ref\":\"/a\",\"title\":\"A\"}]"`}, []string{"/a=A"}},
		{"chinese", []string{`{"结果":[{"id":"b1","title":"三体"},{"id":"b2","title":"沙丘"}]}`}, []string{"b1=三体", "b2=沙丘"}},
		{"keys as values are not fields", []string{`{"a":"title","b":"ref","list":["id","name"]}`}, nil},
		{"no label", []string{`[{"ref":"/a"},{"ref":"/b","title":7},{"ref":"/c","title":null},{"ref":"/d","title":{"en":"D"}}]`}, nil},
		{"no identifier", []string{`[{"title":"A"},{"ref":true,"title":"B"},{"ref":null,"title":"C"},{"ref":["/d"],"title":"D"}]`}, nil},
		{"not JSON", []string{`Dune, Arrival`}, nil},
		{"truncated JSON", []string{`[{"ref":"/a","title":"A"},{"ref":"/b","title":"B"`}, nil},
		{"empty", []string{``, `null`, `[]`, `{}`, `"text"`, `3`}, nil},
		{"none", nil, nil},
	} {
		var results []json.RawMessage
		for _, r := range c.results {
			results = append(results, json.RawMessage(r))
		}
		got := listsel.Candidates(results...)
		if c.want == nil {
			require.Empty(t, got, c.name)
			continue
		}
		require.Equal(t, c.want, refsTitles(got), c.name)
	}
}

// An item's Attrs is the whole object as the tool sent it, byte for byte:
// spacing, key order, unknown fields and nested objects.
func TestCandidatesKeepsAttrsAsReceived(t *testing.T) {
	t.Parallel()
	obj := `{ "ref" : "/mv/1",  "title":"Dune", "year":2021, "rating":8.50, "cast":[{"name":"Zendaya"}], "x":null }`
	got := listsel.Candidates(json.RawMessage(`{"results":[` + obj + `]}`))
	require.Len(t, got, 1)
	require.Equal(t, obj, string(got[0].Attrs))

	inner := `{"id":1,"title":"沙丘"}`
	quoted, err := json.Marshal(inner)
	require.NoError(t, err)
	got = listsel.Candidates(json.RawMessage(`{"text":` + string(quoted) + `}`))
	require.Len(t, got, 1)
	require.Equal(t, inner, string(got[0].Attrs), "an object inside a string is kept as the string held it")

	// The items do not share memory with the result.
	raw := []byte(`[{"ref":"/a","title":"A"}]`)
	got = listsel.Candidates(raw)
	copy(raw, strings.Repeat("x", len(raw)))
	require.Equal(t, `{"ref":"/a","title":"A"}`, string(got[0].Attrs))
}

// The work is bounded: at most MaxCandidates items, and objects nested deeper
// than MaxDepth do not count.
func TestCandidatesBounds(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("[")
	for i := range listsel.MaxCandidates + 500 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"title":"t%d"}`, i, i)
	}
	b.WriteString("]")
	got := listsel.Candidates(json.RawMessage(b.String()))
	require.Len(t, got, listsel.MaxCandidates)
	require.Equal(t, "0", got[0].Ref)
	require.Equal(t, fmt.Sprint(listsel.MaxCandidates-1), got[len(got)-1].Ref)

	nested := func(depth int) json.RawMessage {
		// depth containers around the object: the object sits at that depth.
		return json.RawMessage(strings.Repeat(`{"a":`, depth) + `{"id":"deep","title":"Deep"}` + strings.Repeat(`}`, depth))
	}
	require.Len(t, listsel.Candidates(nested(listsel.MaxDepth-1)), 1)
	require.Empty(t, listsel.Candidates(nested(listsel.MaxDepth)))
	require.Empty(t, listsel.Candidates(nested(10000)), "a very deep document is no problem")
}
