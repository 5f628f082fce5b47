package api_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/queue"
)

func TestDeleteUser(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-time.Hour)
	const doomed = "用户 1" // needs encoding in the path and in subjects
	b.postOK(t, "t1",
		newTurn("a1", doomed, "s1", "one", at),
		newTurn("a2", doomed, "s2", "two", at.Add(time.Second)),
		newTurn("b1", "u2", "s3", "keep", at),
	)
	b.postOK(t, "t2", newTurn("c1", doomed, "s1", "other tenant", at))
	b.waitIngested(t)

	path := "/v1/users/" + url.PathEscape(doomed)
	res := b.do(t, http.MethodDelete, path, "t1", nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	rep := decode[contract.UserData](t, res)
	require.Equal(t, doomed, rep.UserID)
	require.Equal(t, int64(2), rep.Rows["messages"])
	require.Equal(t, int64(2), rep.Rows["sessions"])
	require.Equal(t, uint64(2), rep.StreamMessages[queue.TurnsStream])

	require.Zero(t, b.subjectMsgs(t, "t1", doomed, "s1"))
	require.Zero(t, b.subjectMsgs(t, "t1", doomed, "s2"))
	requireCode(t, b.get(t, "t1", sessionPath("s1")), http.StatusNotFound, "not_found")
	require.Equal(t, uint64(1), b.subjectMsgs(t, "t1", "u2", "s3"), "other users keep their turns")
	require.Equal(t, http.StatusOK, b.get(t, "t1", sessionPath("s3")).Status)
	require.Equal(t, uint64(1), b.subjectMsgs(t, "t2", doomed, "s1"), "the same id in another tenant is someone else")
	require.Equal(t, http.StatusOK, b.get(t, "t2", sessionPath("s1")).Status)

	res = b.do(t, http.MethodDelete, path, "t1", nil)
	require.Equal(t, http.StatusOK, res.Status, "forgetting twice is fine")
	requireCode(t, b.do(t, http.MethodDelete, "/v1/users/"+url.PathEscape("bad\x01id"), "t1", nil), http.StatusBadRequest, "invalid_request")
	requireCode(t, b.do(t, http.MethodDelete, path, "", nil), http.StatusBadRequest, "invalid_request")
}
