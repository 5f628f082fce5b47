package listsel_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/listsel"
)

// FuzzSelect: whatever a user writes, Select does not panic, a pick is a
// position ≥ 1 or the last entry, and the same message with a negation in
// front is never a pick.
func FuzzSelect(f *testing.F) {
	for _, s := range []string{"3", "the third one", "第三个", "最后一个", "give me 3 more", "No. 3", "选3", "3号晚上"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		c, ok := listsel.Select(msg)
		if !ok {
			require.Equal(t, listsel.Choice{}, c)
			return
		}
		require.True(t, c.Last && c.N == 0 || !c.Last && c.N >= 1, "%q gave %+v", msg, c)
		for _, neg := range []string{"not ", "不要"} {
			_, ok := listsel.Select(neg + msg)
			require.False(t, ok, "%q", neg+msg)
		}
	})
}

// FuzzMatch: whatever the reply and the tool result, nothing panics, Entries
// are numbered 1, 2, … with clean text, and Match gives either nothing or one
// distinct candidate per entry.
func FuzzMatch(f *testing.F) {
	f.Add("1. Dune\n2. Arrival", `[{"ref":"/mv/1","title":"Dune"},{"ref":"/mv/2","title":"Arrival"}]`)
	f.Add("1、《三体》\n2、沙丘", `{"data":{"items":[{"id":1,"title":"三体"},{"id":2,"name":"沙丘"}]}}`)
	f.Add("Try 1) Heat; 2) Up.", `{"text":"[{\"url\":\"https://x.test/h\",\"title\":\"Heat\"},{\"id\":2,\"title\":\"Up\"}]"}`)
	f.Add("**1.** [Dune](https://x.test/d) — epic", `{"link":"https://x.test/d","headline":"Dune"}`)
	f.Fuzz(func(t *testing.T, reply, result string) {
		entries := listsel.Entries(reply)
		for i, e := range entries {
			require.Equal(t, i+1, e.N)
			require.NotEmpty(t, e.Text)
			require.Equal(t, strings.TrimSpace(e.Text), e.Text)
		}
		cands := listsel.Candidates(json.RawMessage(result))
		require.LessOrEqual(t, len(cands), listsel.MaxCandidates)
		refs := map[string]bool{}
		for _, c := range cands {
			require.NotEmpty(t, c.Ref)
			require.NotEmpty(t, c.Title)
			require.True(t, json.Valid(c.Attrs), "%s", c.Attrs)
			require.False(t, refs[c.Ref], "duplicate ref %q", c.Ref)
			refs[c.Ref] = true
		}
		got := listsel.Match(reply, cands)
		if got == nil {
			return
		}
		require.Len(t, got, len(entries))
		named := map[string]bool{}
		for _, it := range got {
			require.True(t, refs[it.Ref], "%q is a candidate", it.Ref)
			require.False(t, named[it.Ref], "%q named once", it.Ref)
			named[it.Ref] = true
		}
	})
}
