package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/eval/recallrun"
	"github.com/recallhq/recall/pkg/queue"
)

// The data check (`make check-data`): every conversation of
// ../shared/data (KdConv, LoCoMo, LongMemEval, PrefEval: about 130k turns) through the
// whole pipeline of a fresh `recall run`, expecting every turn the API
// accepted to be stored and no worker to dead-letter any. Text nobody on the
// project wrote is where a worker meets what its rules did not foresee; a
// turn the API accepted and a worker then lost is a bug of the worker.

// dataSetCount is what one data set brought to the check.
type dataSetCount struct {
	Name                   string
	Users, Sessions, Turns int
	Refused                int
}

// dataCheck is the check's result.
type dataCheck struct {
	Sets []dataSetCount
	// Posted turns, Refused by the API (400, naming the field), Stored by
	// ingest.
	Posted, Refused, Stored int64
	// Refusals counts the API's reasons (the first of each refused turn).
	Refusals    map[string]int
	DeadLetters []queue.DeadLetterEntry
	Consumers   []string
	Drains      []recallrun.Drain
	Seconds     map[string]float64
}

// checkData runs the check: start the system, post every set's turns with
// o.Concurrency users in flight, wait for every worker, then read the
// dead-letter stream.
func checkData(ctx context.Context, o options, log *slog.Logger) (*dataCheck, error) {
	began := time.Now()
	sets, names, err := datasets.All(o.DataDir, o.LimitConversations)
	if err != nil {
		return nil, err
	}
	rep := &dataCheck{Refusals: map[string]int{}, Seconds: map[string]float64{}}
	rep.Seconds["load"] = time.Since(began).Seconds()

	t := time.Now()
	sys, stop, err := recallrun.Start(ctx, o.System, log)
	if err != nil {
		return nil, err
	}
	defer stop()
	rep.Seconds["start"] = time.Since(t).Seconds()

	postStart := time.Now()
	if err := rep.post(ctx, recallrun.NewClient(sys.APIURL, o.Tenant, ""), sets, names, o.Concurrency); err != nil {
		return nil, err
	}
	rep.Seconds["post"] = time.Since(postStart).Seconds()
	log.Info("posted", "turns", rep.Posted, "refused", rep.Refused, "seconds", rep.Seconds["post"])

	t = time.Now()
	js, db, disconnect, err := connect(ctx, sys)
	if err != nil {
		return nil, err
	}
	defer disconnect()
	so := o.Settle
	so.NATS = sys.NATS
	so.Since = postStart
	settled, err := rep.waitStored(ctx, js, db, o.Tenant, so, log)
	if err != nil {
		return nil, err
	}
	rep.Consumers, rep.Drains = settled.Consumers, settled.Drains
	// The drain ends when every worker was seen caught up for good, not
	// when the quiet period that proves it ends.
	rep.Seconds["drain"] = time.Since(t).Seconds()
	rep.Seconds["caught_up"] = settled.Took.Seconds()
	err = queue.ListDeadLetters(ctx, js, "", func(e queue.DeadLetterEntry) error {
		e.Data = nil
		rep.DeadLetters = append(rep.DeadLetters, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Seconds["total"] = time.Since(began).Seconds()
	return rep, nil
}

// post posts every set's turns, each conversation as one user's, with
// concurrency users in flight, and counts what each set brought and what the
// API refused.
func (rep *dataCheck) post(ctx context.Context, c *recallrun.Client, sets map[string][]datasets.Conversation, names []string, concurrency int) error {
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	type job struct {
		set  *dataSetCount
		conv datasets.Conversation
	}
	jobs := make(chan job)
	for range max(concurrency, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				turns := j.conv.Postable()
				refused, err := c.PostTurns(ctx, j.conv.SampleID, turns)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				j.set.Refused += len(refused)
				for _, r := range refused {
					rep.Refusals[reasonKind(r.Reasons[0])]++
				}
				mu.Unlock()
			}
		}()
	}
	rep.Sets = make([]dataSetCount, len(names))
	for i, name := range names {
		set := &rep.Sets[i]
		set.Name = name
		for _, cv := range sets[name] {
			set.Users++
			set.Sessions += len(cv.Sessions)
			set.Turns += len(cv.Turns)
			select {
			case jobs <- job{set: set, conv: cv}:
			case <-ctx.Done():
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, s := range rep.Sets {
		rep.Posted += int64(s.Turns)
		rep.Refused += int64(s.Refused)
	}
	return nil
}

// connect opens the check's own connections to the system: JetStream, for
// the dead letters, and the database, for the stored turns. disconnect
// closes both.
func connect(ctx context.Context, sys *recallrun.System) (js jetstream.JetStream, db *pgx.Conn, disconnect func(), err error) {
	login, err := sys.NATS.Options()
	if err != nil {
		return nil, nil, nil, err
	}
	nc, err := nats.Connect(sys.NATS.URL, append(login, nats.Name("recall-datacheck"))...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("connect to NATS %s with %s: %w", sys.NATS.URL, sys.NATS.Login(), err)
	}
	js, err = jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, nil, err
	}
	db, err = pgx.Connect(ctx, sys.DBURL)
	if err != nil {
		nc.Close()
		return nil, nil, nil, fmt.Errorf("connect to %s: %w", sys.DBName, err)
	}
	return js, db, func() { db.Close(context.WithoutCancel(ctx)); nc.Close() }, nil
}

// waitStored waits until every turn the API accepted is stored under tenant
// or dead-lettered by ingest, and every worker has caught up
// (recallrun.Settle).
func (rep *dataCheck) waitStored(ctx context.Context, js jetstream.JetStream, db *pgx.Conn, tenant string, so recallrun.SettleOptions, log *slog.Logger) (recallrun.Settled, error) {
	// A turn ingest dead-lettered is never stored: it counts as settled, so
	// that the wait ends and the check reports it.
	// Once every accepted turn is accounted for the count cannot change
	// (nothing here deletes), so it is not asked again: a count over every
	// message each poll would compete with the workers being waited for.
	want := rep.Posted - rep.Refused
	var settledCount int64 = -1
	counter := func(ctx context.Context) (int64, error) {
		if settledCount == want {
			return settledCount, nil
		}
		var stored int64
		if err := db.QueryRow(ctx, `SELECT count(*) FROM messages WHERE tenant_id = $1`, tenant).Scan(&stored); err != nil {
			return 0, fmt.Errorf("count messages: %w", err)
		}
		rep.Stored = stored
		lost := 0
		err := queue.ListDeadLetters(ctx, js, "ingest", func(queue.DeadLetterEntry) error { lost++; return nil })
		settledCount = stored + int64(lost)
		return settledCount, err
	}
	return recallrun.Settle(ctx, counter, want, so, log)
}

// reasonKind is a refusal's reason without its numbers, so that reasons of
// one kind are counted together ("content: 70312 bytes, limit is 65536").
func reasonKind(reason string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return 'N'
		}
		return r
	}, reason)
}

// ok reports whether the check passed: nothing dead-lettered, every accepted
// turn stored.
func (r *dataCheck) ok() bool {
	return len(r.DeadLetters) == 0 && r.Stored == r.Posted-r.Refused
}

// print writes the check's report; its last line is the verdict.
func (r *dataCheck) print(w io.Writer) {
	fmt.Fprintln(w, "data check: every conversation of ../shared/data through `recall run`")
	for _, s := range r.Sets {
		fmt.Fprintf(w, "  %-12s %6d users %7d sessions %8d turns  (%d refused by the API)\n", s.Name, s.Users, s.Sessions, s.Turns, s.Refused)
	}
	kinds := make([]string, 0, len(r.Refusals))
	for k := range r.Refusals {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "  refused %d: %s\n", r.Refusals[k], k)
	}
	for i, e := range r.DeadLetters {
		if i == 20 {
			fmt.Fprintf(w, "  ... and %d more dead letters\n", len(r.DeadLetters)-i)
			break
		}
		fmt.Fprintf(w, "  dead letter %d: %s %s (%s): %s\n", e.Seq, e.Consumer, e.EventID, e.Subject, e.Reason)
	}
	fmt.Fprintf(w, "  timings: load %.1fs, start %.1fs, post %.1fs, drain %.1fs (every worker caught up after the post; %.1fs with the quiet period that shows it), total %.1fs\n",
		r.Seconds["load"], r.Seconds["start"], r.Seconds["post"], r.Seconds["caught_up"], r.Seconds["drain"], r.Seconds["total"])
	for _, d := range r.Drains {
		if d.Busy <= 0 {
			fmt.Fprintf(w, "  worker %-28s %8d handled, done before the post ended\n", d.Consumer, d.Acked)
			continue
		}
		fmt.Fprintf(w, "  worker %-28s %8d handled, busy %5.1fs from the first post, %7.0f a second\n", d.Consumer, d.Acked, d.Busy.Seconds(), d.Rate())
	}
	verdict := "PASS"
	if !r.ok() {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s: %d turns posted, %d refused by the API, %d stored, %d dead letters\n", verdict, r.Posted, r.Refused, r.Stored, len(r.DeadLetters))
}
