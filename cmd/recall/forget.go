package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/forget"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

// forgetConfig names its parts as fields: the env library skips an embedded
// unexported struct, which once left NATS_URL and STREAM_* unread here.
type forgetConfig struct {
	NATS queue.NATSConfig
	DB   store.Config
}

// forgetCmd removes a user completely, as DELETE /v1/users/{user_id} does.
func forgetCmd(ctx context.Context, log *slog.Logger, args []string) error {
	fs := newFlags("forget")
	tenant := fs.String("tenant", "", "the user's tenant (required)")
	user := fs.String("user", "", "the user to forget (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tenant == "" || *user == "" {
		return errors.New("forget: -tenant and -user are required")
	}
	cfg, err := envconfig.Load[forgetConfig]()
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	nc, js, err := queue.Attach(ctx, cfg.NATS, "recall-forget", log)
	if err != nil {
		return err
	}
	defer queue.Close(nc, 5*time.Second)
	fmt.Fprintf(os.Stderr, "recall: forgetting user %q of tenant %q: every row of theirs in PostgreSQL at %s and their messages in the streams on NATS at %s\n",
		*user, *tenant, service.MaskURL(cfg.DB.URL), nc.ConnectedUrlRedacted())
	rep, err := forget.User(ctx, st, js, *tenant, *user)
	if err != nil {
		return err
	}
	log.Info("user forgotten", "tenant_id", rep.TenantID, "user_id", rep.UserID, "rows", rep.Rows, "stream_messages", rep.StreamMessages)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	// The same shape as DELETE /v1/users/{user_id} answers.
	return enc.Encode(contract.UserData{TenantID: rep.TenantID, UserID: rep.UserID, Rows: rep.Rows, StreamMessages: rep.StreamMessages})
}
