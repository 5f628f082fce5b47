package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/service"
)

type replayFlags struct {
	worker, since, tenant, user string
	fromSeq                     uint64
}

// replayCmd runs one worker's handler over the stream again, through an
// ephemeral consumer, while the live workers keep running.
func replayCmd(ctx context.Context, log *slog.Logger, args []string) error {
	var f replayFlags
	fs := newFlags("replay")
	fs.StringVar(&f.worker, "worker", "", "the worker to replay: "+strings.Join(workers.Replayable(), ", "))
	fs.StringVar(&f.since, "since", "", "start at messages stored from this time (2026-01-01 or RFC 3339); default: the whole stream")
	fs.Uint64Var(&f.fromSeq, "from-seq", 0, "start at this stream sequence instead")
	fs.StringVar(&f.tenant, "tenant", "", "only this tenant's events")
	fs.StringVar(&f.user, "user", "", "only this user's events (needs -tenant)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	w, err := workers.Get(f.worker)
	if err != nil {
		return err
	}
	base, err := envconfig.Load[deps.Config]()
	if err != nil {
		return err
	}
	wc, err := w.Load(nil)
	if err != nil {
		return err
	}
	service.LogConfig(log, base, wc.Value())
	d, closeDeps, err := deps.Attach(ctx, base, "replay-"+f.worker, log)
	if err != nil {
		return err
	}
	defer closeDeps()
	fmt.Fprintf(os.Stderr, "recall: replaying %s over its stream on NATS at %s, writing to PostgreSQL at %s (its writes are idempotent: what is stored already stays as it is)\n",
		f.worker, d.NC.ConnectedUrlRedacted(), service.MaskURL(base.DB.URL))
	_, err = replay(ctx, worker.NewDeps(d, base, log), d.RunnerMetrics, wc, opts, os.Stderr)
	return err
}

func (f replayFlags) options() (queue.ReplayOptions, error) {
	var o queue.ReplayOptions
	if f.worker == "" {
		return o, fmt.Errorf("-worker is required (one of: %s)", strings.Join(workers.Replayable(), ", "))
	}
	if f.since != "" && f.fromSeq > 0 {
		return o, errors.New("give -since or -from-seq, not both")
	}
	if f.since != "" {
		t, err := time.Parse(time.RFC3339, f.since)
		if err != nil {
			t, err = time.Parse(time.DateOnly, f.since)
		}
		if err != nil {
			return o, fmt.Errorf("-since %q: want a date (2026-01-01) or an RFC 3339 time (2026-01-01T08:00:00Z)", f.since)
		}
		o.Since = t
	}
	if f.user != "" && f.tenant == "" {
		return o, errors.New("-user needs -tenant")
	}
	o.FromSeq, o.Tenant, o.User = f.fromSeq, f.tenant, f.user
	return o, nil
}

// replay runs the named worker over its stream. Progress goes to w: a bar with
// rate and ETA on a terminal, a log line every few seconds otherwise.
func replay(ctx context.Context, d *worker.Deps, metrics *queue.RunnerMetrics, wc worker.Config, o queue.ReplayOptions, w io.Writer) (queue.ReplayProgress, error) {
	spec, err := wc.Build(ctx, d)
	if err != nil {
		return queue.ReplayProgress{}, err
	}
	name := spec.Name
	if spec.Handler == nil {
		return queue.ReplayProgress{}, fmt.Errorf("%s reads no stream; nothing to replay (one of: %s)", name, strings.Join(workers.Replayable(), ", "))
	}
	o.Consumer, o.Runner = spec.Queue.Consumer, spec.Queue.Runner
	if file, ok := w.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		var bar *progressbar.ProgressBar
		o.ProgressEvery = 200 * time.Millisecond
		o.Progress = func(p queue.ReplayProgress) {
			if bar == nil {
				bar = progressbar.NewOptions64(int64(p.Total), progressbar.OptionSetWriter(w),
					progressbar.OptionSetDescription("replay "+name), progressbar.OptionShowCount(),
					progressbar.OptionShowIts(), progressbar.OptionSetItsString("msg"),
					progressbar.OptionSetPredictTime(true), progressbar.OptionFullWidth(),
					progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
			}
			bar.ChangeMax64(int64(p.Total))
			_ = bar.Set64(int64(p.Done))
		}
	} else {
		o.ProgressEvery = 5 * time.Second
		o.Progress = func(p queue.ReplayProgress) {
			pct := 100.0
			if p.Total > 0 {
				pct = 100 * float64(p.Done) / float64(p.Total)
			}
			d.Log.Info("replay progress", "worker", name, "done", p.Done, "total", p.Total,
				"percent", fmt.Sprintf("%.1f", pct), "rate_per_s", int(p.Rate), "eta", p.ETA.Round(time.Second).String())
		}
	}
	p, err := spec.Binding.Replay(ctx, d.JS, o, spec.Handler, d.Log.With("worker", name), metrics)
	if err != nil {
		return p, err
	}
	fmt.Fprintf(w, "replayed %d message(s) through %s in %s\n", p.Done, name, p.Elapsed.Round(time.Millisecond))
	return p, nil
}
