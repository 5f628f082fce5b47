package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

type sessionsConfig struct {
	DB store.Config
}

// sessionsCmd reports the sessions that hold turns of more than one user:
// stored before a session had one owner (session_guests), and what the
// operator can do about each.
func sessionsCmd(ctx context.Context, log *slog.Logger, args []string) error {
	fs := newFlags("sessions")
	tenant := fs.String("tenant", "", "only this tenant's sessions (default: every tenant)")
	scan := fs.Bool("scan", false, "read every message again first, for turns stored in other users' sessions since the migration (by workers of an earlier version during a rollout); reads the whole messages table once")
	asJSON := fs.Bool("json", false, "one JSON object per guest, instead of a table")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: recall sessions [-tenant T] [-scan] [-json]

Reports the sessions that hold turns of users other than the session's own:
turns stored before a session belonged to one user. Each such user is a guest
of the session. Their turns are never shown in the owner's window or list;
the owner's summaries may quote them until one of these is done:

  forget the guest   recall forget -tenant T -user GUEST (DELETE /v1/users/{GUEST}):
                     the guest's turns go from every session; the owner's keep
                     their turns and get a new summary of them
  delete the session DELETE /v1/sessions/{SESSION}: the session goes with every
                     user's turns in it

flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := envconfig.Load[sessionsConfig]()
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	if *scan {
		start := time.Now()
		fmt.Fprintf(os.Stderr, "recall: reading every message of PostgreSQL at %s for turns in other users' sessions...\n", service.MaskURL(cfg.DB.URL))
		n, err := st.ScanSessionGuests(ctx, *tenant)
		if err != nil {
			return err
		}
		log.Info("session guests scanned", "rows", n, "seconds", time.Since(start).Seconds())
	}
	guests, err := st.SessionGuests(ctx, *tenant)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeGuestsJSON(os.Stdout, guests)
	}
	return writeGuests(os.Stdout, guests)
}

// guestJSON is one guest as -json writes it.
type guestJSON struct {
	TenantID  string    `json:"tenant_id"`
	SessionID string    `json:"session_id"`
	OwnerID   string    `json:"owner_id"`
	UserID    string    `json:"user_id"`
	Messages  int64     `json:"messages"`
	FirstAt   time.Time `json:"first_at"`
	LastAt    time.Time `json:"last_at"`
}

func writeGuestsJSON(w io.Writer, guests []store.SessionGuest) error {
	enc := json.NewEncoder(w)
	for _, g := range guests {
		if err := enc.Encode(guestJSON(g)); err != nil {
			return err
		}
	}
	return nil
}

func writeGuests(w io.Writer, guests []store.SessionGuest) error {
	if len(guests) == 0 {
		_, err := fmt.Fprintln(w, "No session holds another user's turns: every session is its owner's alone.")
		return err
	}
	sessions := map[[2]string]bool{}
	for _, g := range guests {
		sessions[[2]string{g.TenantID, g.SessionID}] = true
	}
	fmt.Fprintf(w, "%d session(s) hold turns of %d guest user row(s):\n\n", len(sessions), len(guests))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TENANT\tSESSION\tOWNER\tGUEST\tTURNS\tFIRST\tLAST")
	for _, g := range guests {
		owner := g.OwnerID
		if owner == "" {
			owner = "(none: session deleted or owner forgotten)"
		}
		fmt.Fprintf(tw, "%q\t%q\t%q\t%q\t%d\t%s\t%s\n", g.TenantID, g.SessionID, owner, g.UserID, g.Messages,
			g.FirstAt.Format(time.RFC3339), g.LastAt.Format(time.RFC3339))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, `
The owner's window and list never show a guest's turns. To remove them (and
any summary that quotes them), for each row either:
  recall forget -tenant TENANT -user GUEST     the guest's turns, from every session
  DELETE /v1/sessions/SESSION                  the session, with every user's turns in it
`)
	return err
}
