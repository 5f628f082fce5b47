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
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/envconfig"
)

// natsToolConfig is what the tools that only talk to NATS read (the log
// level is read by service.Main).
type natsToolConfig struct {
	NATS queue.NATSConfig
}

const dlqUsage = `usage: recall dlq <list|show|redrive|delete> [flags] [seq...]

  list    [-consumer C] [-json]          the dead letters, oldest first, with their reasons
  show    SEQ                            one dead letter with its original headers and payload
  redrive [-consumer C] (-all | SEQ...)  publish back to the original subject, then remove
  delete  SEQ...                         remove for good
`

// dlqCmd inspects and re-drives the dead-letter stream. Its arguments are
// read before NATS is dialled, so that -h and mistakes answer at once.
func dlqCmd(ctx context.Context, log *slog.Logger, args []string) error {
	a, err := parseDLQ(args)
	if err != nil {
		return err
	}
	cfg, err := envconfig.Load[natsToolConfig]()
	if err != nil {
		return err
	}
	nc, js, err := queue.Attach(ctx, cfg.NATS, "recall-dlq", log)
	if err != nil {
		return err
	}
	defer queue.Close(nc, 5*time.Second)
	return runDLQ(ctx, js, a, os.Stdout)
}

// dlqArgs is what `recall dlq` was asked to do.
type dlqArgs struct {
	sub, consumer string
	asJSON, all   bool
	seqs          []uint64
}

// parseDLQ reads `recall dlq`'s subcommand, flags and sequences; -h (or
// `recall dlq help`) prints the usage and answers flag.ErrHelp.
func parseDLQ(args []string) (dlqArgs, error) {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, dlqUsage)
		return dlqArgs{}, errors.New("dlq: missing subcommand")
	}
	a := dlqArgs{sub: args[0]}
	switch a.sub {
	case "list", "show", "redrive", "delete":
	case "-h", "-help", "--help", "help":
		fmt.Fprint(os.Stderr, dlqUsage)
		return a, flag.ErrHelp
	default:
		return a, fmt.Errorf("dlq: unknown subcommand %q\n\n%s", a.sub, dlqUsage)
	}
	fs := newFlags("dlq " + a.sub)
	fs.StringVar(&a.consumer, "consumer", "", "only this consumer's dead letters (ingest, extractor, ...)")
	fs.BoolVar(&a.asJSON, "json", false, "one JSON object per line")
	fs.BoolVar(&a.all, "all", false, "every dead letter (of -consumer, when given)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), dlqUsage+"\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		return a, err
	}
	var err error
	a.seqs, err = parseSeqs(fs.Args())
	return a, err
}

// runDLQ does what a asks on the dead-letter stream of js, writing to out.
func runDLQ(ctx context.Context, js jetstream.JetStream, a dlqArgs, out io.Writer) error {
	var err error
	switch a.sub {
	case "list":
		return dlqList(ctx, js, a.consumer, a.asJSON, out)
	case "show":
		if len(a.seqs) != 1 {
			return errors.New("dlq show: give exactly one sequence")
		}
		e, err := queue.GetDeadLetter(ctx, js, a.seqs[0])
		if err != nil {
			return err
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(e.Wire())
	case "redrive":
		if a.all == (len(a.seqs) > 0) {
			return errors.New("dlq redrive: give sequences or -all (not both)")
		}
		var entries []queue.DeadLetterEntry
		if a.all {
			err = queue.ListDeadLetters(ctx, js, a.consumer, func(e queue.DeadLetterEntry) error {
				entries = append(entries, e)
				return nil
			})
		} else {
			for _, s := range a.seqs {
				e, gerr := queue.GetDeadLetter(ctx, js, s)
				if gerr != nil {
					err = errors.Join(err, gerr)
					continue
				}
				entries = append(entries, e)
			}
		}
		fmt.Fprintf(out, "re-driving %d dead letter(s) on NATS at %s: each message is published again to its original subject, once for all the consumers that gave up on it, then removed from %s\n",
			len(entries), js.Conn().ConnectedUrlRedacted(), queue.DLQStream)
		var done, kept int
		gone := map[uint64]bool{} // removed with another dead letter of the same message
		for _, e := range entries {
			if gone[e.Seq] {
				continue
			}
			others, rerr := queue.RedriveMessage(ctx, js, e)
			for _, o := range others {
				gone[o] = true
			}
			done += len(others)
			if rerr != nil {
				kept++
				err = errors.Join(err, rerr)
				continue
			}
			done++
			fmt.Fprintf(out, "re-drove %d (%s, %s) to %s", e.Seq, e.Consumer, e.EventID, e.Subject)
			if len(others) > 0 {
				fmt.Fprintf(out, ", removing %v, the other consumers' dead letters of it", others)
			}
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "re-driven: %d, kept: %d\n", done, kept)
		return err
	case "delete":
		if len(a.seqs) == 0 {
			return errors.New("dlq delete: give the sequences to delete")
		}
		fmt.Fprintf(out, "deleting %d dead letter(s) from %s on NATS at %s, for good\n", len(a.seqs), queue.DLQStream, js.Conn().ConnectedUrlRedacted())
		for _, s := range a.seqs {
			if derr := queue.DeleteDeadLetter(ctx, js, s); derr != nil {
				err = errors.Join(err, derr)
				continue
			}
			fmt.Fprintf(out, "deleted %d\n", s)
		}
		return err
	default:
		return fmt.Errorf("dlq: unknown subcommand %q\n\n%s", a.sub, dlqUsage)
	}
}

func dlqList(ctx context.Context, js jetstream.JetStream, consumer string, asJSON bool, out io.Writer) error {
	if asJSON {
		enc := json.NewEncoder(out)
		return queue.ListDeadLetters(ctx, js, consumer, func(e queue.DeadLetterEntry) error {
			return enc.Encode(e.Wire())
		})
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SEQ\tFAILED AT\tCONSUMER\tDELIVERIES\tSUBJECT\tEVENT ID\tREASON")
	n := 0
	err := queue.ListDeadLetters(ctx, js, consumer, func(e queue.DeadLetterEntry) error {
		n++
		reason := strings.ReplaceAll(e.Reason, "\n", " ")
		if len(reason) > 120 {
			reason = reason[:120] + "…"
		}
		_, err := fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t%s\n", e.Seq, e.FailedAt.Format(time.RFC3339), e.Consumer, e.Deliveries, e.Subject, e.EventID, reason)
		return err
	})
	if err != nil {
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d dead letter(s)\n", n)
	return nil
}

func parseSeqs(args []string) ([]uint64, error) {
	out := make([]uint64, 0, len(args))
	for _, a := range args {
		s, err := strconv.ParseUint(a, 10, 64)
		if err != nil || s == 0 {
			return nil, fmt.Errorf("%q is not a dead-letter sequence (a positive number, see `recall dlq list`)", a)
		}
		out = append(out, s)
	}
	return out, nil
}
