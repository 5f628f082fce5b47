// Command recall is the operator's tool and the all-in-one process for local use:
//
//	recall migrate [-create-db] [-down N]   apply (or roll back) database migrations
//	recall run                              the API and every worker in one process
//	recall worker [-once] NAME              one worker, as its own binary runs it
//	recall replay -worker W [-since T] [-tenant T [-user U]]   re-run a worker over history
//	recall forget -tenant T -user U         remove a user completely
//	recall sessions [-tenant T] [-scan]     report sessions holding another user's turns
//	recall dlq list|show|redrive|delete     inspect and re-drive dead letters
//	recall webhooks list|add|remove|deliveries|redrive -tenant T   a tenant's webhook endpoints
//	recall probe URL                        health check for images without curl
//	recall mcp                              the MCP tools over stdio, for agent hosts (RECALL_URL, RECALL_TENANT, ...)
//
// `recall run` starts an embedded JetStream server when NATS_URL is unset and
// records it under DATA_DIR; the other commands then use that server (they
// say which server they use, and never fall back to a default address). The
// tools that work on a running system (replay, forget, dlq) declare no
// stream: on a server without Recall's streams they stop with an error.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/workers"
)

const usage = `usage: recall <command> [flags]

commands:
  migrate   apply database migrations (a separate step; never raced by replicas)
  run       run the API and every worker in one process (local use)
  worker    run one worker: %s
  replay    run one worker over the stream again (backfill after a model or prompt change)
  forget    remove a user completely: rows and stream messages (-tenant T -user U)
  sessions  report sessions that hold turns of another user than their own, and what to do
  dlq       list, show, re-drive and delete dead letters
  webhooks  list, add and remove a tenant's webhook endpoints; their deliveries, re-drives
  probe     GET a URL, exit non-zero unless 2xx (container health checks)
  mcp       serve the MCP tools over stdio for an agent host (RECALL_URL, RECALL_TENANT, RECALL_API_KEY, RECALL_USER_ID)
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintf(os.Stderr, usage, strings.Join(workers.Names(), ", "))
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	var run func(ctx context.Context, log *slog.Logger, args []string) error
	switch cmd {
	case "migrate":
		run = migrateCmd
	case "run":
		run = runCmd
	case "worker":
		run = workerCmd
	case "replay":
		run = replayCmd
	case "forget":
		run = forgetCmd
	case "sessions":
		run = sessionsCmd
	case "dlq":
		run = dlqCmd
	case "webhooks":
		run = webhooksCmd
	case "mcp":
		run = mcpCmd
	case "probe":
		run = func(_ context.Context, _ *slog.Logger, args []string) error { return probeCmd(args) }
	case "-h", "--help", "help":
		fmt.Fprintf(os.Stdout, usage, strings.Join(workers.Names(), ", "))
		return
	default:
		fmt.Fprintf(os.Stderr, "recall: unknown command %q\n\n"+usage, cmd, strings.Join(workers.Names(), ", "))
		os.Exit(2)
	}
	switch cmd {
	case "worker", "replay", "forget", "dlq":
		// The tools work on the NATS server NATS_URL names or, without it,
		// on the one `recall run` started here; never on a default address.
		inner := run
		run = func(ctx context.Context, log *slog.Logger, args []string) error {
			if !askedForHelp(args) {
				if err := useNATS(os.Stderr); err != nil {
					return err
				}
			}
			return inner(ctx, log, args)
		}
	}
	service.Main("recall", func(ctx context.Context, log *slog.Logger) error { return run(ctx, log, args) })
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("recall "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}

// askedForHelp reports whether a command's arguments ask for its usage, which
// it answers without finding a NATS server.
func askedForHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help", "help":
			return true
		}
	}
	return false
}
