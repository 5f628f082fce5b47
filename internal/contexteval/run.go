package contexteval

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/recallhq/recall/internal/datasets"
	"github.com/recallhq/recall/internal/recallrun"
)

// Post posts every conversation's turns, each under its own user,
// concurrency users at a time, and returns what the pipeline must store
// before a question is asked: each session's number of turns, and their
// sum. A turn the API refuses fails the run, since the scores would then
// look for evidence that was never posted.
func Post(ctx context.Context, c *recallrun.Client, convs []datasets.Conversation, concurrency int, log *slog.Logger) (map[string]int64, int64, error) {
	postCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	work := make(chan datasets.Conversation)
	var wg sync.WaitGroup
	for range max(concurrency, 1) {
		wg.Go(func() {
			for cv := range work {
				log.Info("posting turns", "user", cv.SampleID, "turns", len(cv.Turns), "sessions", len(cv.Sessions))
				refused, err := c.PostTurns(postCtx, cv.SampleID, cv.Postable())
				if err == nil && len(refused) > 0 {
					err = fmt.Errorf("the API refused turn %s of %s: %s", refused[0].Turn.ID, cv.SampleID, strings.Join(refused[0].Reasons, "; "))
				}
				if err != nil {
					stop(err) // the first failure stays the cause
				}
			}
		})
	}
	for _, cv := range convs {
		if postCtx.Err() != nil {
			break
		}
		work <- cv
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if postCtx.Err() != nil {
		return nil, 0, context.Cause(postCtx)
	}
	want := map[string]int64{}
	var total int64
	for _, cv := range convs {
		for _, s := range cv.Sessions {
			want[s.ID] = int64(s.Turns)
			total += int64(s.Turns)
		}
	}
	return want, total, nil
}

// Ask gets Recall's prompt for every request, concurrency requests in
// flight; out[i] answers reqs[i]. Every request is sent even when one
// fails; the first failure in reqs' order is returned, named by label(i).
func Ask(ctx context.Context, c *recallrun.Client, reqs []recallrun.ContextRequest, concurrency int, label func(i int) string) ([]string, error) {
	out := make([]string, len(reqs))
	errs := make([]error, len(reqs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(concurrency, 1) {
		wg.Go(func() {
			for i := range work {
				out[i], errs[i] = c.ContextPrompt(ctx, reqs[i])
			}
		})
	}
	for i := range reqs {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("context for %s: %w", label(i), err)
		}
	}
	return out, nil
}
