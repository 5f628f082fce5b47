// Package retention is how long the seen-item registry (pkg/workers/seen)
// keeps what it records: the age rule the decayer's clean-up applies. It
// knows nothing of how the registry is stored, so the decayer and the docs
// read the rule without the storage; the per-user cap is applied at write
// time by the seen worker (ITEMS_SEEN_CAP).
package retention

import (
	"time"

	"github.com/recallhq/recall/pkg/envconfig"
)

// Policy is the age part of the seen-item registry, for the job that cleans
// it (the decayer's seen step, store.PruneSeenItems with Cutoff). The cap is
// applied at write time (store.RecordSeen, seen.Config.Cap).
type Policy struct {
	// MaxAge: seen items last shown longer ago than this (event time), and
	// notifications older than this, are deleted.
	MaxAge time.Duration `env:"ITEMS_SEEN_MAX_AGE" envDefault:"2160h"`
}

// DefaultPolicy is Policy with its env defaults: 90 days.
var DefaultPolicy = envconfig.Defaults[Policy]()

// Cutoff is the event time before which seen items and notifications are
// deleted as of now: now − MaxAge. ok is false when MaxAge is not positive,
// which keeps everything.
func (p Policy) Cutoff(now time.Time) (cutoff time.Time, ok bool) {
	if p.MaxAge <= 0 {
		return time.Time{}, false
	}
	return now.Add(-p.MaxAge), true
}
