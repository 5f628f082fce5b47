package contexteval

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/eval/recallrun"
)

// Posted is what Post sent: what the pipeline must store before a question
// is asked (each session's accepted turns, and their sum), and the turns
// the API refused, by user in the conversations' order.
type Posted struct {
	Want    map[string]int64
	Total   int64
	Refused []Refused
}

// Refused is a turn the API refused (a 400 naming it), and whose it was.
type Refused struct {
	User string
	recallrun.Refusal
}

// Error is the refusal as the reason a run that needs every turn stops.
func (r Refused) Error() string {
	return fmt.Sprintf("the API refused turn %s of %s: %s", r.Turn.ID, r.User, strings.Join(r.Reasons, "; "))
}

// Post posts every conversation's turns, each under its own user,
// concurrency users at a time. A turn the API refuses is set aside and
// returned, so that the evaluation decides whether it can go on without it;
// the first other failure stops the posting.
func Post(ctx context.Context, c *recallrun.Client, convs []datasets.Conversation, concurrency int, log *slog.Logger) (Posted, error) {
	postCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	refused := make([][]recallrun.Refusal, len(convs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(concurrency, 1) {
		wg.Go(func() {
			for i := range work {
				cv := convs[i]
				log.Info("posting turns", "user", cv.SampleID, "turns", len(cv.Turns), "sessions", len(cv.Sessions))
				var err error
				if refused[i], err = c.PostTurns(postCtx, cv.SampleID, cv.Postable()); err != nil {
					stop(err) // the first failure stays the cause
				}
			}
		})
	}
	for i := range convs {
		if postCtx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Posted{}, err
	}
	if postCtx.Err() != nil {
		return Posted{}, context.Cause(postCtx)
	}
	p := Posted{Want: map[string]int64{}}
	for i, cv := range convs {
		for _, s := range cv.Sessions {
			p.Want[s.ID] = int64(s.Turns)
			p.Total += int64(s.Turns)
		}
		for _, r := range refused[i] {
			p.Want[r.Turn.SessionID]--
			p.Total--
			p.Refused = append(p.Refused, Refused{User: cv.SampleID, Refusal: r})
		}
	}
	return p, nil
}

// Ask gets Recall's prompt for every request, concurrency requests in
// flight; out[i] answers reqs[i]. Every request is sent even when one
// fails; the first failure in reqs' order is returned, named by label(i).
func Ask(ctx context.Context, c *recallrun.Client, reqs []recallrun.ContextRequest, concurrency int, label func(i int) string) ([]string, error) {
	out, _, err := AskTimed(ctx, c, reqs, concurrency, label)
	return out, err
}

// AskTimed is Ask with how long each context took, request to answer, as
// the client saw it.
func AskTimed(ctx context.Context, c *recallrun.Client, reqs []recallrun.ContextRequest, concurrency int, label func(i int) string) ([]string, []time.Duration, error) {
	out := make([]string, len(reqs))
	took := make([]time.Duration, len(reqs))
	errs := make([]error, len(reqs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(concurrency, 1) {
		wg.Go(func() {
			for i := range work {
				t := time.Now()
				out[i], errs[i] = c.ContextPrompt(ctx, reqs[i])
				took[i] = time.Since(t)
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
		return nil, nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, nil, fmt.Errorf("context for %s: %w", label(i), err)
		}
	}
	return out, took, nil
}
