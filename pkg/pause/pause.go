// Package pause waits for a while unless a context ends first: the retry
// pauses, polls and holds of the workers, the API and the tools.
package pause

import (
	"context"
	"time"
)

// For waits d, or less when ctx ends first; it reports whether it waited
// all of d (a d of zero or less waits nothing, and reports whether ctx is
// still live).
func For(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Until waits until at, as For.
func Until(ctx context.Context, at time.Time) bool { return For(ctx, time.Until(at)) }
