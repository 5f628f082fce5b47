package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/catalog"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/extractor"
	"github.com/recallhq/recall/pkg/ingest"
	"github.com/recallhq/recall/pkg/profile"
	"github.com/recallhq/recall/pkg/seen"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/summarizer"
)

// workerNames are the stream workers, in start order.
var workerNames = []string{"ingest", "extractor", "seen", "catalog", "profiler", "summarizer"}

// workerSpec is one worker ready to run: where it reads and what handles it.
type workerSpec struct {
	binding  queue.Binding
	consumer queue.ConsumerConfig
	handler  queue.BatchHandler
	runner   queue.RunnerConfig
	// background runs next to the live runner (not in a replay).
	background []service.Task
}

// workerSet builds workers from one config, for `recall run` (all of them, live)
// and `recall replay` (one of them, over history), so both run the same code.
type workerSet struct {
	cfg runConfig
	d   *deps.Deps
	log *slog.Logger
	emb embed.Embedder
}

func (s *workerSet) embedder() (embed.Embedder, error) {
	if s.emb == nil {
		emb, err := embed.New(s.cfg.Embed, s.cfg.Embed.Dimensions)
		if err != nil {
			return nil, err
		}
		s.emb = emb
	}
	return s.emb, nil
}

func (s *workerSet) build(ctx context.Context, name string) (workerSpec, error) {
	log := s.log.With("worker", name)
	limits := s.cfg.Limits.Limits()
	switch name {
	case "ingest":
		w := ingest.New(s.d.Store, limits, log).WithSummaries(s.cfg.Ingest.Summary, queue.NewPublisher(s.d.JS))
		return workerSpec{binding: ingest.Binding, consumer: s.cfg.Ingest.Consumer, handler: w.Handle, runner: s.cfg.Ingest.Runner.Or(ingest.DefaultRunnerConfig)}, nil
	case "extractor":
		ex, source, err := extractor.NewExtractor(s.cfg.Extractor, s.d.Registry, log)
		if err != nil {
			return workerSpec{}, err
		}
		w := extractor.New(s.cfg.Extractor, s.d.Store, ex, source, limits, log, s.d.Registry)
		w.Refresher = queue.NewRefresher(s.d.JS, s.cfg.Extractor.Refresh.Bucket)
		return workerSpec{binding: extractor.Binding, consumer: s.cfg.Extractor.Consumer, handler: w.Handle, runner: w.RunnerConfig()}, nil
	case "seen":
		w := seen.New(s.cfg.Seen, s.d.Store, limits, log, s.d.Registry)
		return workerSpec{binding: seen.Binding, consumer: s.cfg.Seen.Consumer, handler: w.Handle, runner: s.cfg.Seen.Runner.Or(seen.DefaultRunnerConfig)}, nil
	case "catalog":
		emb, err := s.embedder()
		if err != nil {
			return workerSpec{}, err
		}
		w, err := catalog.New(ctx, s.cfg.Catalog, s.d.Store, emb, s.d.JS, limits, log, s.d.Registry)
		if err != nil {
			return workerSpec{}, err
		}
		return workerSpec{binding: catalog.Binding, consumer: s.cfg.Catalog.Consumer, handler: w.Handle, runner: w.RunnerConfig()}, nil
	case "profiler":
		emb, err := s.embedder()
		if err != nil {
			return workerSpec{}, err
		}
		w, err := profile.New(ctx, s.cfg.Profiler, s.d.Store, emb, limits, log, s.d.Registry)
		if err != nil {
			return workerSpec{}, err
		}
		return workerSpec{binding: profile.Binding, consumer: s.cfg.Profiler.Consumer, handler: w.Handle, runner: w.RunnerConfig()}, nil
	case "summarizer":
		w, err := summarizer.NewFromConfig(s.cfg.Summarizer, s.d.Store, s.d.JS, limits, log, s.d.Registry)
		if err != nil {
			return workerSpec{}, err
		}
		w.Refresher = queue.NewRefresher(s.d.JS, s.cfg.Summarizer.Refresh.Bucket)
		return workerSpec{binding: summarizer.Binding, consumer: s.cfg.Summarizer.Consumer, handler: w.Handle, runner: w.RunnerConfig(),
			background: []service.Task{w.RunSweeper}}, nil
	}
	return workerSpec{}, fmt.Errorf("unknown worker %q (one of: %s)", name, strings.Join(workerNames, ", "))
}

// tasks are the worker's live runner on its durable consumer and what runs
// beside it.
func (s *workerSet) tasks(ctx context.Context, name string) ([]service.Task, error) {
	spec, err := s.build(ctx, name)
	if err != nil {
		return nil, err
	}
	r, err := spec.binding.NewRunner(ctx, s.d.JS, spec.consumer, spec.handler, spec.runner, s.log.With("worker", name), s.d.RunnerMetrics)
	if err != nil {
		return nil, err
	}
	return append([]service.Task{r.Run}, spec.background...), nil
}
