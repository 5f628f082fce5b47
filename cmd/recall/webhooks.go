package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/webhooks"
)

// webhooksConfig is what `recall webhooks` reads: the database, and which
// addresses an endpoint may have (WEBHOOK_ALLOW_PRIVATE), as the API does.
type webhooksConfig struct {
	DB      store.Config
	Network webhooks.Network
}

const webhooksUsage = `usage: recall webhooks <list|add|remove|deliveries|redrive> -tenant T [flags]

  list       -tenant T [-json]                          the tenant's endpoints (no secrets)
  add        -tenant T -url URL -types T1,T2 [-secret S] register an endpoint; prints its secret once
  remove     -tenant T ID                               remove an endpoint and its deliveries
  deliveries -tenant T [-status S] [-limit N] [-json] ID an endpoint's newest deliveries and counts
  redrive    -tenant T ID CHANGE_ID                     make a failed delivery pending again

Types are change types (attribute.asserted), prefixes (attribute.*) or *.
The same use cases as /v1/webhooks, on the database DATABASE_URL names
(docs/webhooks.md).
`

// webhooksArgs is what `recall webhooks` was asked to do.
type webhooksArgs struct {
	sub, tenant, url, types, secret, status string
	limit                                   int
	asJSON                                  bool
	rest                                    []string
}

// parseWebhooks reads the subcommand and its flags before the database is
// opened, so that -h and mistakes answer at once.
func parseWebhooks(args []string) (webhooksArgs, error) {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, webhooksUsage)
		return webhooksArgs{}, errors.New("webhooks: missing subcommand")
	}
	a := webhooksArgs{sub: args[0]}
	want := map[string]int{"list": 0, "add": 0, "remove": 1, "deliveries": 1, "redrive": 2}
	if _, ok := want[a.sub]; !ok {
		if askedForHelp(args[:1]) {
			fmt.Fprint(os.Stderr, webhooksUsage)
			return a, flag.ErrHelp
		}
		return a, fmt.Errorf("webhooks: unknown subcommand %q\n\n%s", a.sub, webhooksUsage)
	}
	fs := newFlags("webhooks " + a.sub)
	fs.StringVar(&a.tenant, "tenant", "", "the tenant (required)")
	switch a.sub {
	case "list":
		fs.BoolVar(&a.asJSON, "json", false, "JSON instead of a table")
	case "add":
		fs.StringVar(&a.url, "url", "", "where the changes are POSTed (required)")
		fs.StringVar(&a.types, "types", "", "comma-separated change types, prefixes (attribute.*) or * (required)")
		fs.StringVar(&a.secret, "secret", "", "the signing secret, 16 to 256 bytes (default: one made here)")
	case "deliveries":
		fs.StringVar(&a.status, "status", "", "only pending, delivered or failed ones")
		fs.IntVar(&a.limit, "limit", 50, "at most this many, newest first (1-200)")
		fs.BoolVar(&a.asJSON, "json", false, "JSON instead of a table")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return a, err
	}
	a.rest = fs.Args()
	switch {
	case a.tenant == "":
		return a, errors.New("webhooks: -tenant is required")
	case len(a.rest) != want[a.sub]:
		return a, fmt.Errorf("webhooks %s: want %d argument(s), got %d\n\n%s", a.sub, want[a.sub], len(a.rest), webhooksUsage)
	case a.sub == "add" && (a.url == "" || a.types == ""):
		return a, errors.New("webhooks add: -url and -types are required")
	case a.sub == "deliveries" && (a.limit < 1 || a.limit > webhooks.MaxDeliveries):
		return a, fmt.Errorf("webhooks deliveries: -limit from 1 to %d", webhooks.MaxDeliveries)
	}
	return a, nil
}

// webhooksCmd manages a tenant's webhook endpoints and their deliveries.
func webhooksCmd(ctx context.Context, _ *slog.Logger, args []string) error {
	a, err := parseWebhooks(args)
	if err != nil {
		return err
	}
	cfg, err := envconfig.Load[webhooksConfig]()
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	return runWebhooks(ctx, webhooks.NewService(st, cfg.Network), a, os.Stdout)
}

func runWebhooks(ctx context.Context, svc *webhooks.Service, a webhooksArgs, out io.Writer) error {
	switch a.sub {
	case "list":
		ws, err := svc.List(ctx, a.tenant)
		if err != nil {
			return err
		}
		if a.asJSON {
			return writeJSONLine(out, ws)
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tURL\tTYPES\tCREATED")
		for _, w := range ws.Webhooks {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", w.ID, w.URL, strings.Join(w.Types, ","), w.CreatedAt.Format(time.RFC3339))
		}
		return tw.Flush()
	case "add":
		var types []string
		for _, t := range strings.Split(a.types, ",") {
			if t = strings.TrimSpace(t); t != "" {
				types = append(types, t)
			}
		}
		w, err := svc.Create(ctx, a.tenant, contract.WebhookCreate{URL: a.url, Types: types, Secret: a.secret})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "webhook %s registered for %s (%s)\nsecret: %s\n(keep it: it is not shown again)\n", w.ID, w.URL, strings.Join(w.Types, ","), w.Secret)
		return nil
	case "remove":
		if err := svc.Delete(ctx, a.tenant, a.rest[0]); err != nil {
			return err
		}
		fmt.Fprintf(out, "webhook %s removed, with its deliveries\n", a.rest[0])
		return nil
	case "deliveries":
		d, err := svc.Deliveries(ctx, a.tenant, a.rest[0], a.status, a.limit)
		if err != nil {
			return err
		}
		if a.asJSON {
			return writeJSONLine(out, d)
		}
		fmt.Fprintf(out, "%d pending, %d delivered, %d failed\n", d.Counts.Pending, d.Counts.Delivered, d.Counts.Failed)
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CHANGE\tTYPE\tUSER\tSTATUS\tATTEMPTS\tCODE\tLAST ERROR")
		for _, x := range d.Deliveries {
			fmt.Fprintf(tw, "%s\t%s\t%q\t%s\t%d\t%d\t%s\n", x.ChangeID, x.Type, x.UserID, x.Status, x.Attempts, x.LastStatusCode, x.LastError)
		}
		return tw.Flush()
	case "redrive":
		d, err := svc.Redrive(ctx, a.tenant, a.rest[0], a.rest[1])
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "delivery of %s to %s is %s again (re-drive %d)\n", d.ChangeID, a.rest[0], d.Status, d.Redrives)
		return nil
	}
	return fmt.Errorf("webhooks: unknown subcommand %q", a.sub)
}

func writeJSONLine(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
