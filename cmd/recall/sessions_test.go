package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/internal/testkit/testenv/legacy"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// `recall sessions` reports the sessions that hold another user's turns,
// stored before a session had one owner, with what the operator can do;
// -scan finds those stored since the migration, -json writes one object a
// guest.
func TestSessionsReport(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	bin := testenv.RecallBin(t)
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"sessions"}, args...)...)
		cmd.Env = append(os.Environ(), "DATABASE_URL="+db.URL)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		require.NoError(t, cmd.Run(), errOut.String())
		return out.String()
	}
	require.Contains(t, run(), "No session holds another user's turns")

	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	turn := func(id, user, session string, at time.Time) events.Turn {
		return events.Turn{V: events.Version, ID: id, TenantID: "acme", UserID: user, SessionID: session, OccurredAt: at, Role: events.RoleUser, Content: "hi"}
	}
	_, err := db.Store.InsertTurns(t.Context(), []store.StoredTurn{{Turn: turn("v1", "vic", "s3", t0)}})
	require.NoError(t, err)
	legacy.Turns(t, db, turn("a1", "att", "s3", t0.Add(time.Minute)), turn("a2", "att", "s3", t0.Add(2*time.Minute)))
	out := run("-tenant", "acme")
	require.Contains(t, out, "1 session(s) hold turns of 1 guest user row(s)")
	require.Regexp(t, `"acme"\s+"s3"\s+"vic"\s+"att"\s+2\s+2026-05-01T09:01:00Z\s+2026-05-01T09:02:00Z`, out)
	require.Contains(t, out, "recall forget -tenant TENANT -user GUEST")
	require.Contains(t, run("-tenant", "other"), "No session holds another user's turns")

	// A turn stored after the migration by a worker of an earlier version:
	// only a scan finds it.
	_, err = db.Store.Pool().Exec(t.Context(), `INSERT INTO messages (tenant_id, event_id, session_id, user_id, role, content, occurred_at)
		VALUES ('acme', 'late', 's3', 'late-user', 'user', 'late', $1)`, t0.Add(time.Hour))
	require.NoError(t, err)
	require.NotContains(t, run("-json"), "late-user")
	var guests []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(run("-scan", "-json")), "\n") {
		var g map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &g), line)
		guests = append(guests, g)
	}
	require.Len(t, guests, 2)
	require.Equal(t, "late-user", guests[1]["user_id"])
	require.Equal(t, "vic", guests[1]["owner_id"])
}
