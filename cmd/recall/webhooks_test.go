package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/contract"
)

// `recall webhooks` registers, lists, reads and removes a tenant's
// endpoints on the database, refusing an address on this machine unless
// WEBHOOK_ALLOW_PRIVATE says otherwise.
func TestWebhooksCommand(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	bin := testenv.RecallBin(t)
	run := func(env []string, args ...string) (string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"webhooks"}, args...)...)
		cmd.Env = append(append(os.Environ(), "DATABASE_URL="+db.URL), env...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	out, err := run(nil, "add", "-tenant", "acme", "-url", "http://127.0.0.1:9000/in", "-types", "*")
	require.Error(t, err)
	require.Contains(t, out, "127.0.0.1 is a loopback address: refused (WEBHOOK_ALLOW_PRIVATE)")

	out, err = run([]string{"WEBHOOK_ALLOW_PRIVATE=true"}, "add", "-tenant", "acme", "-url", "http://127.0.0.1:9000/in", "-types", "attribute.*, user.forgotten")
	require.NoError(t, err, out)
	m := regexp.MustCompile(`webhook (wh_[0-9a-f]+) registered .*\nsecret: (whsec_[0-9a-f]{48})\n`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	id, secret := m[1], m[2]

	out, err = run(nil, "list", "-tenant", "acme")
	require.NoError(t, err, out)
	require.Contains(t, out, id)
	require.Contains(t, out, "attribute.*,user.forgotten")
	require.NotContains(t, out, secret)
	out, err = run(nil, "list", "-tenant", "other", "-json")
	require.NoError(t, err, out)
	var none contract.Webhooks
	require.NoError(t, json.Unmarshal([]byte(out), &none))
	require.Empty(t, none.Webhooks)

	out, err = run(nil, "deliveries", "-tenant", "acme", id)
	require.NoError(t, err, out)
	require.Contains(t, out, "0 pending, 0 delivered, 0 failed")
	out, err = run(nil, "redrive", "-tenant", "acme", id, "chg-none")
	require.Error(t, err)
	require.Contains(t, out, "has no delivery of change chg-none")

	out, err = run(nil, "remove", "-tenant", "other", id)
	require.Error(t, err, out)
	out, err = run(nil, "remove", "-tenant", "acme", id)
	require.NoError(t, err, out)
	out, err = run(nil, "list", "-tenant", "acme", "-json")
	require.NoError(t, err, out)
	require.JSONEq(t, `{"webhooks":[]}`, out)

	out, err = run(nil, "list")
	require.Error(t, err)
	require.Contains(t, out, "-tenant is required")
}
