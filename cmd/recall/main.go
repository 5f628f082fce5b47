// Command recall is the operator's tool and the all-in-one process for local use:
//
//	recall migrate [-create-db] [-down N]   apply (or roll back) database migrations
//	recall run                              the API and every worker in one process
//	recall probe URL                        health check for images without curl
//
// `recall run` starts an embedded JetStream server when NATS_URL is unset.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
)

const usage = `usage: recall <command> [flags]

commands:
  migrate   apply database migrations (a separate step; never raced by replicas)
  run       run the API and every worker in one process (local use)
  probe     GET a URL, exit non-zero unless 2xx (container health checks)
`

func main() {
	log := slogJSON(slog.LevelInfo)
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "migrate":
		err = migrateCmd(log, args)
	case "run":
		err = runCmd(log, args)
	case "probe":
		err = probeCmd(args)
	case "-h", "--help", "help":
		fmt.Fprint(os.Stdout, usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "recall: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		log.Error("exit", "error", err.Error())
		os.Exit(1)
	}
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("recall "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}
