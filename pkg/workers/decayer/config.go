package decayer

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/habits"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/seen/retention"
)

// Config is the decayer's part of the config.
type Config struct {
	// Interval is the time between runs in the scheduled mode (a run starts
	// at once, then every Interval). `decayer --once` ignores it.
	Interval time.Duration `env:"DECAYER_INTERVAL" envDefault:"24h"`
	// RetryAfter is the wait after a failed run, when shorter than Interval.
	RetryAfter time.Duration `env:"DECAYER_RETRY" envDefault:"5m"`
	// BatchSize bounds the work of one statement: facts looked at per batch,
	// messages deleted per transaction. Each batch commits on its own, so no
	// row stays locked for longer than one batch.
	BatchSize int `env:"DECAYER_BATCH_SIZE" envDefault:"10000"`
	// BatchPause is slept between batches, to leave the database room for the
	// traffic on a busy system.
	BatchPause time.Duration `env:"DECAYER_BATCH_PAUSE" envDefault:"0s"`
	// RetentionDefault is how long a tenant's messages are kept after they
	// occurred (event time); 0 keeps them. RetentionByTenant overrides it per
	// tenant: "acme=90d,beta=30d" (days, or Go durations such as 720h; 0 keeps).
	RetentionDefault  Retention       `env:"RETENTION_DEFAULT" envDefault:"0"`
	RetentionByTenant TenantRetention `env:"RETENTION_BY_TENANT"`
	Decay             decay.Config    // the facts' decay policy (DECAY_*, FACT_TTL*)
	// PurgeAfter is how long an expired fact is kept (past its expiry, event
	// time) before it is deleted with its mentions; 0 keeps expired facts.
	PurgeAfter time.Duration `env:"FACT_PURGE_AFTER" envDefault:"720h"`
	// Seen is the age of the seen-item registry (ITEMS_SEEN_MAX_AGE).
	Seen    retention.Policy
	Refresh queue.RefreshConfig
	// Habits is how users' usage habits are derived from their messages
	// (HABITS_*), into the keys their tenant's schema has (Attributes,
	// ATTRIBUTE_SCHEMA_FILE).
	Habits     habits.Config
	Attributes attribute.Config
}

// withDefaults fills the fields where zero cannot work with the env tags'
// defaults, so that a Config built in code (tests) behaves like one read from
// an empty environment.
func (c Config) withDefaults() Config {
	d := envconfig.Defaults[Config]()
	if c.Interval <= 0 {
		c.Interval = d.Interval
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = d.RetryAfter
	}
	if c.BatchSize <= 0 {
		c.BatchSize = d.BatchSize
	}
	c.Decay = c.Decay.WithDefaults()
	c.Habits = c.Habits.WithDefaults()
	return c
}

// RetentionFor is how long the tenant's messages are kept; 0 keeps them.
func (c Config) RetentionFor(tenantID string) time.Duration {
	if d, ok := c.RetentionByTenant[tenantID]; ok {
		return d
	}
	return time.Duration(c.RetentionDefault)
}

// Retention is a retention period: "90d", a Go duration ("720h"), or 0 (keep).
type Retention time.Duration

// UnmarshalText reads a retention period.
func (r *Retention) UnmarshalText(b []byte) error {
	d, err := parseRetention(string(b))
	*r = Retention(d)
	return err
}

// String writes a retention period as it is read.
func (r Retention) String() string { return formatRetention(time.Duration(r)) }

func parseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return 0, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 {
			return 0, fmt.Errorf("%q: want days such as 90d, or a duration such as 720h", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want days such as 90d, or a duration such as 720h", s)
	}
	return d, nil
}

func formatRetention(d time.Duration) string {
	switch {
	case d <= 0:
		return "keep"
	case d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	default:
		return d.String()
	}
}

// TenantRetention is the retention per tenant: "acme=90d,beta=30d".
type TenantRetention map[string]time.Duration

// UnmarshalText reads "tenant=period" pairs separated by commas.
func (t *TenantRetention) UnmarshalText(b []byte) error {
	out := TenantRetention{}
	for _, part := range strings.Split(string(b), ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		tenant, period, ok := strings.Cut(part, "=")
		tenant = strings.TrimSpace(tenant)
		if !ok || tenant == "" {
			return fmt.Errorf("%q: want tenant=period pairs such as acme=90d,beta=30d", part)
		}
		d, err := parseRetention(period)
		if err != nil {
			return fmt.Errorf("tenant %s: %w", tenant, err)
		}
		if _, dup := out[tenant]; dup {
			return fmt.Errorf("tenant %s is given twice", tenant)
		}
		out[tenant] = d
	}
	*t = out
	return nil
}

// String lists the pairs in tenant order, for the config log.
func (t TenantRetention) String() string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + formatRetention(t[k])
	}
	return strings.Join(parts, ",")
}
