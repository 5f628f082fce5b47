package contexteval

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/eval/recallrun"
	"github.com/recallhq/recall/pkg/queue"
)

// Options are what every context evaluation takes beside its own choice of
// questions: the budget, the tenant, the requests in flight, where each
// question's scores go, and the Recall it asks (an already running one, or
// one it starts and awaits).
type Options struct {
	DataDir     string
	Budget      int
	Tenant      string
	Concurrency int // context requests in flight
	// QuestionsOut, when set, receives one JSON line per question: its
	// answer, evidence and every row's scores, with Recall's prompt.
	QuestionsOut io.Writer
	// An already running Recall; empty starts one.
	APIURL, APIKey string
	// NATS is, with -api, that Recall's NATS server and how to log in.
	NATS   queue.NATSConfig
	System recallrun.Options
	Settle recallrun.SettleOptions
}

// AddFlags declares the options' flags on fs, each evaluation's own beside
// them.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.IntVar(&o.Budget, "budget", 8000, "context budget in characters, for Recall and the budgeted baselines")
	fs.StringVar(&o.Tenant, "tenant", "eval", "tenant the turns are posted under (X-Tenant-ID)")
	fs.IntVar(&o.Concurrency, "concurrency", 4, "context requests in flight")
	fs.StringVar(&o.APIURL, "api", "", "use this running Recall (e.g. http://127.0.0.1:8080) instead of starting one")
	fs.StringVar(&o.NATS.URL, "nats", "", "with -api: its NATS server, to wait for every worker's consumer (without it only message counts are awaited)")
	fs.StringVar(&o.NATS.NKeyFile, "nats-nkey", "", "with -nats: the NKey seed to log in with (DATA_DIR/nats.nk of `make run`)")
	fs.StringVar(&o.APIKey, "api-key", os.Getenv("RECALL_API_KEY"), "with -api: bearer key of the tenant, when the server has API_KEYS")
	o.System.AddFlags(fs)
	o.Settle.AddFlags(fs)
}

// Main runs a command over the data set in data (a directory, relative ones
// from the repository root) until it ends or SIGINT or SIGTERM arrives:
// dataDir and sys.Root are set before run is called, and run's error (said to
// be an interruption when it was one) ends the process with status 2 after
// name. run returns rather than exits, so that its deferred clean-up stops
// the child and drops the database on every path.
func Main(name, data string, dataDir *string, sys *recallrun.Options, run func(ctx context.Context) error) {
	if err := runMain(data, dataDir, sys, run); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	}
}

func runMain(data string, dataDir *string, sys *recallrun.Options, run func(ctx context.Context) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := datasets.Dir(data)
	if err != nil {
		return err
	}
	*dataDir = dir
	if sys.Root, err = recallrun.RepoRoot(); err != nil {
		return err
	}
	if err := run(ctx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted (%w)", err)
		}
		return err
	}
	return nil
}
