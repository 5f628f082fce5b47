package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/events"

	"github.com/nats-io/nats.go/jetstream"
)

// idTokens is how many id tokens follow each subject kind: the depth at which a
// filter can be narrowed to one tenant, then one user.
var idTokens = map[string]int{
	"turns":                  3, // tenant, user, session
	events.KindShelf:         2, // tenant, user
	events.KindAttributes:    2, // tenant, user
	events.KindCatalog:       1, // tenant
	events.KindProfileTask:   2, // tenant, user
	events.KindSummarizeTask: 3, // tenant, user, session
	events.KindChanges:       2, // tenant, user
}

// ScopeFilter narrows a worker's subject filter (such as "recall.turns.>") to
// one tenant and, when user is not empty, one user. ok is false when the
// subjects under filter cannot belong to a user (catalog items belong to the
// tenant), so a replay for one user leaves them out.
func ScopeFilter(filter, tenant, user string) (scoped string, ok bool, err error) {
	if tenant == "" {
		if user != "" {
			return "", false, fmt.Errorf("a user scope needs a tenant")
		}
		return filter, true, nil
	}
	prefix, found := strings.CutSuffix(filter, ".>")
	if !found {
		return "", false, fmt.Errorf("filter %q does not end in .>", filter)
	}
	kind, found := strings.CutPrefix(prefix, events.SubjectRoot+".")
	if !found {
		return "", false, fmt.Errorf("filter %q is not under %q", filter, events.SubjectRoot)
	}
	n, known := idTokens[kind]
	if !known {
		return "", false, fmt.Errorf("filter %q: no tenant/user layout known for %q", filter, kind)
	}
	toks := []string{prefix, events.EncodeToken(tenant)}
	if user != "" {
		if n < 2 {
			return "", false, nil
		}
		toks = append(toks, events.EncodeToken(user))
	}
	if len(toks)-1 < n {
		toks = append(toks, ">")
	}
	return strings.Join(toks, "."), true, nil
}

// ReplayOptions choose what a replay reads.
type ReplayOptions struct {
	// Since starts at the first message stored at or after this time; FromSeq at
	// this stream sequence. Neither: the whole stream.
	Since   time.Time
	FromSeq uint64
	// Tenant and User narrow the subjects (User needs Tenant).
	Tenant, User string
	Consumer     ConsumerConfig
	Runner       RunnerConfig
	// Progress is called about every ProgressEvery (default 1s) and once at the end.
	Progress      func(ReplayProgress)
	ProgressEvery time.Duration
}

// ReplayProgress is how far a replay has come.
type ReplayProgress struct {
	Done, Total uint64
	Elapsed     time.Duration
	// Rate is messages per second so far; ETA the time left at that rate.
	Rate float64
	ETA  time.Duration
}

// Replay runs a worker's handler over its stream again, from a time or a
// sequence, through an ephemeral consumer of its own: the live durable consumer
// is not touched, so a replay can run next to the live workers (their writes
// are idempotent). It runs the one Runner, so retries and dead letters work as
// live (dead letters name the replay consumer). It returns once every message
// that was in the stream when it started, and any since, has been handled.
func (b Binding) Replay(ctx context.Context, js jetstream.JetStream, o ReplayOptions, h BatchHandler, log *slog.Logger, m *RunnerMetrics) (ReplayProgress, error) {
	cc, filters, err := b.replayConsumer(o)
	if err != nil {
		return ReplayProgress{}, err
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = time.Second
	}
	cons, err := js.CreateConsumer(ctx, b.Stream, cc)
	if err != nil {
		return ReplayProgress{}, fmt.Errorf("replay %s: create consumer: %w", b.Durable, err)
	}
	defer func() {
		_ = js.DeleteConsumer(context.WithoutCancel(ctx), b.Stream, cc.Name)
	}()
	info, err := cons.Info(ctx)
	if err != nil {
		return ReplayProgress{}, err
	}
	start := time.Now()
	p := ReplayProgress{Total: info.NumPending}
	log = log.With("replay", b.Durable, "consumer", cc.Name)
	log.Info("replay started", "stream", b.Stream, "filters", filters, "messages", p.Total)

	rctx, stop := context.WithCancel(ctx)
	defer stop()
	runner, err := NewRunnerFor(js, cons, o.Consumer.MaxDeliver, h, o.Runner, log, m)
	if err != nil {
		return ReplayProgress{}, fmt.Errorf("replay %s: %w", b.Durable, err)
	}
	runErr := make(chan error, 1)
	go func() { runErr <- runner.Run(rctx) }()

	tick := time.NewTicker(min(o.ProgressEvery, 200*time.Millisecond))
	defer tick.Stop()
	lastReport := start
	for {
		select {
		case <-ctx.Done():
			stop()
			<-runErr
			return p, ctx.Err()
		case err := <-runErr:
			return p, fmt.Errorf("replay %s: runner stopped: %w", b.Durable, err)
		case <-tick.C:
		}
		info, err := cons.Info(ctx)
		if err != nil {
			log.Warn("replay progress", "error", err.Error())
			continue
		}
		left := info.NumPending + uint64(info.NumAckPending)
		p.Total = max(p.Total, p.Done+left)
		p.Done = p.Total - left
		p.Elapsed = time.Since(start)
		if secs := p.Elapsed.Seconds(); secs > 0 {
			p.Rate = float64(p.Done) / secs
		}
		if p.Rate > 0 {
			p.ETA = time.Duration(float64(left) / p.Rate * float64(time.Second))
		}
		finished := left == 0
		if o.Progress != nil && (finished || time.Since(lastReport) >= o.ProgressEvery) {
			o.Progress(p)
			lastReport = time.Now()
		}
		if finished {
			stop()
			if err := <-runErr; err != nil {
				return p, err
			}
			log.Info("replay finished", "messages", p.Done, "seconds", p.Elapsed.Seconds())
			return p, nil
		}
	}
}

// replayConsumer is the ephemeral consumer a replay reads through: the
// binding's consumer unlimited, without its durable name, filtered to the
// subjects of o's tenant or user (the filters), starting where o says.
func (b Binding) replayConsumer(o ReplayOptions) (jetstream.ConsumerConfig, []string, error) {
	var filters []string
	for _, f := range b.Filters {
		s, ok, err := ScopeFilter(f, o.Tenant, o.User)
		if err != nil {
			return jetstream.ConsumerConfig{}, nil, err
		}
		if ok {
			filters = append(filters, s)
		}
	}
	if len(filters) == 0 {
		return jetstream.ConsumerConfig{}, nil, fmt.Errorf("replay %s: nothing of its subjects belongs to a single user", b.Durable)
	}
	cc := Unlimited(b.Consumer(o.Consumer))
	cc.Durable = ""
	cc.Name = fmt.Sprintf("replay-%s-%d", b.Durable, time.Now().UnixNano())
	cc.Description = "Recall replay of " + b.Durable
	// Left behind by a crashed replay, the server removes it by itself.
	cc.InactiveThreshold = 5 * time.Minute
	cc.FilterSubject, cc.FilterSubjects = "", nil
	if len(filters) == 1 {
		cc.FilterSubject = filters[0]
	} else {
		cc.FilterSubjects = filters
	}
	switch {
	case o.FromSeq > 0:
		cc.DeliverPolicy, cc.OptStartSeq = jetstream.DeliverByStartSequencePolicy, o.FromSeq
	case !o.Since.IsZero():
		since := o.Since
		cc.DeliverPolicy, cc.OptStartTime = jetstream.DeliverByStartTimePolicy, &since
	}
	return cc, filters, nil
}

// userSubjects are, per stream, the subject families that carry a user's
// events. Catalog items belong to the tenant, not to a user.
var userSubjects = map[string][]string{
	TurnsStream:   {events.TurnsSubjects},
	SignalsStream: {events.ShelfSubjects, events.AttributeSubjects},
	TasksStream:   {events.ProfileTaskSubjects, events.SummarizeTaskSubjects},
	ChangesStream: {events.ChangeSubjects},
}

// UserFilters are the subject filters, per stream, that hold one user's
// messages, the dead-letter stream included.
func UserFilters(tenant, user string) (map[string][]string, error) {
	out := map[string][]string{}
	for stream, families := range userSubjects {
		for _, f := range families {
			s, ok, err := ScopeFilter(f, tenant, user)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			out[stream] = append(out[stream], s)
			out[DLQStream] = append(out[DLQStream], dlqScope("", s))
		}
	}
	return out, nil
}

// PurgeUser erases every message of one user from the streams (turns, shelf
// entries, attribute edits, tasks, the change feed and their dead letters), so that no replay brings the
// user's data back and no byte of it stays in the stream's files (see
// EraseSubject). It returns the messages removed per stream.
func PurgeUser(ctx context.Context, js jetstream.JetStream, tenant, user string) (map[string]uint64, error) {
	return userMessages(ctx, js, tenant, user, true)
}

// CountUser counts, per stream, the messages of one user that PurgeUser would
// remove now.
func CountUser(ctx context.Context, js jetstream.JetStream, tenant, user string) (map[string]uint64, error) {
	return userMessages(ctx, js, tenant, user, false)
}

// userMessages counts one user's messages per stream, erasing them when purge.
func userMessages(ctx context.Context, js jetstream.JetStream, tenant, user string, purge bool) (map[string]uint64, error) {
	if tenant == "" || user == "" {
		return nil, fmt.Errorf("user messages: tenant and user are required")
	}
	filters, err := UserFilters(tenant, user)
	if err != nil {
		return nil, err
	}
	return subjectMessages(ctx, js, filters, purge)
}

// PurgeSession erases the messages of one session from the streams: its
// turns (any user's: turns another user published for it too), its summary
// requests (its user's) and their dead letters. It returns the messages
// removed per stream.
func PurgeSession(ctx context.Context, js jetstream.JetStream, tenant, user, session string) (map[string]uint64, error) {
	if tenant == "" || user == "" || session == "" {
		return nil, fmt.Errorf("session messages: tenant, user and session are required")
	}
	filters := map[string][]string{}
	for stream, subject := range map[string]string{
		TurnsStream: events.SessionTurnsFilter(tenant, session),
		TasksStream: events.SummarizeTaskSubject(tenant, user, session),
	} {
		filters[stream] = append(filters[stream], subject)
		filters[DLQStream] = append(filters[DLQStream], dlqScope("", subject))
	}
	return subjectMessages(ctx, js, filters, true)
}

// subjectMessages counts the messages under each stream's filters, erasing
// them when erase.
func subjectMessages(ctx context.Context, js jetstream.JetStream, filters map[string][]string, erase bool) (map[string]uint64, error) {
	out := map[string]uint64{}
	for stream, fs := range filters {
		s, err := js.Stream(ctx, stream)
		if err != nil {
			return out, fmt.Errorf("stream %s: %w", stream, err)
		}
		for _, f := range fs {
			var n uint64
			if erase {
				n, err = EraseSubject(ctx, s, f)
			} else {
				n, err = countSubject(ctx, s, f)
			}
			if err != nil {
				return out, fmt.Errorf("%s %s: %w", stream, f, err)
			}
			if n > 0 {
				out[stream] += n
			}
		}
	}
	return out, nil
}

func countSubject(ctx context.Context, s jetstream.Stream, filter string) (uint64, error) {
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return 0, err
	}
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n, nil
}

// EraseSubject securely deletes every message of the stream under filter,
// one by one: the server overwrites each message's bytes in its store with
// random data before it removes it (a purge, or a plain delete, only drops
// the index entry, and the bytes stay readable in the block files until the
// block is compacted). Messages stored while it runs are erased too: it
// walks the subject from the first sequence to the last. It returns how
// many it erased.
func EraseSubject(ctx context.Context, s jetstream.Stream, filter string) (uint64, error) {
	var n uint64
	for seq := uint64(1); ; {
		m, err := s.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(filter))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("erase: find the next message after %d: %w", seq, err)
		}
		err = s.SecureDeleteMsg(ctx, m.Sequence)
		if err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
			return n, fmt.Errorf("erase message %d: %w", m.Sequence, err)
		}
		if err == nil {
			n++
		}
		seq = m.Sequence + 1
	}
}
