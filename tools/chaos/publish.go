package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/pause"
)

// publishStats count what was sent.
type publishStats struct {
	First       map[route]int // distinct turns, by route
	InWindow    int           // repeats right after the first publish
	InWindowDup int           // of those, dropped by JetStream as duplicates
	AfterWindow int           // repeats of ids first stored > the window ago
	AfterDup    int           // of those, dropped by JetStream (expected none)
	Retries     int           // attempts that failed and were sent again
	HTTPStatus  map[int]int   // API answers other than 202
	Poison      int
}

// ledger records every turn the stream acknowledged: its first ack time and
// every stream sequence it was stored at.
type ledger struct {
	mu    sync.Mutex
	first map[turnKey]time.Time
	seqs  map[turnKey][]uint64
	order []turnKey // in first-ack order
	stats publishStats
}

func newLedger() *ledger {
	return &ledger{first: map[turnKey]time.Time{}, seqs: map[turnKey][]uint64{},
		stats: publishStats{First: map[route]int{}, HTTPStatus: map[int]int{}}}
}

// acknowledged is every turn the server acknowledged at least once.
func (l *ledger) acknowledged() map[turnKey]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	acked := make(map[turnKey]bool, len(l.first))
	for k := range l.first {
		acked[k] = true
	}
	return acked
}

func (l *ledger) acked(k turnKey, seq uint64, dup bool, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.first[k]; !ok {
		l.first[k] = at
		l.order = append(l.order, k)
	}
	if !dup && seq > 0 {
		l.seqs[k] = append(l.seqs[k], seq)
	}
}

// oldKeys returns up to n random ids first acknowledged before cutoff.
func (l *ledger) oldKeys(r *rand.Rand, cutoff time.Time, n int) []turnKey {
	l.mu.Lock()
	defer l.mu.Unlock()
	// order is by first ack, so the old ones are a prefix.
	end := 0
	for end < len(l.order) && l.first[l.order[end]].Before(cutoff) {
		end++
	}
	if end == 0 {
		return nil
	}
	out := make([]turnKey, 0, n)
	for range n {
		out = append(out, l.order[r.IntN(end)])
	}
	return dedupeKeys(out)
}

func dedupeKeys(ks []turnKey) []turnKey {
	seen := map[turnKey]bool{}
	out := ks[:0]
	for _, k := range ks {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// publisher sends turns straight to JetStream and through the API, each
// until it is acknowledged: a failed attempt (NATS down, the API killed, a
// 503) is sent again, which is always safe because ids dedupe.
type publisher struct {
	js     jetstream.JetStream
	apiURL string
	http   *http.Client
	ledger *ledger
}

const retryPause = 200 * time.Millisecond

// direct publishes turns concurrently and returns how many JetStream
// reported as duplicates.
func (p *publisher) direct(ctx context.Context, turns []*events.Turn) (int, error) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		dups int
		ferr error
	)
	sem := make(chan struct{}, 8)
	for _, t := range turns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			dup, err := p.directOne(ctx, t)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && ferr == nil {
				ferr = err
			}
			if dup {
				dups++
			}
		}()
	}
	wg.Wait()
	return dups, ferr
}

func (p *publisher) directOne(ctx context.Context, t *events.Turn) (bool, error) {
	m, err := eventmsg.Turn(t)
	if err != nil {
		return false, err
	}
	for {
		actx, cancel := context.WithTimeout(ctx, 3*time.Second)
		ack, err := p.js.PublishMsg(actx, m)
		cancel()
		if err == nil {
			p.ledger.acked(turnKey{t.TenantID, t.ID}, ack.Sequence, ack.Duplicate, time.Now())
			return ack.Duplicate, nil
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		p.ledger.mu.Lock()
		p.ledger.stats.Retries++
		p.ledger.mu.Unlock()
		if !pause.For(ctx, retryPause) {
			return false, ctx.Err()
		}
	}
}

// viaAPI posts turns (one tenant per request, as X-Tenant-ID says) and
// returns how many the API reported as duplicates.
func (p *publisher) viaAPI(ctx context.Context, turns []*events.Turn) (int, error) {
	byTenant := map[string][]*events.Turn{}
	var order []string
	for _, t := range turns {
		if _, ok := byTenant[t.TenantID]; !ok {
			order = append(order, t.TenantID)
		}
		byTenant[t.TenantID] = append(byTenant[t.TenantID], t)
	}
	dups := 0
	for _, tenant := range order {
		n, err := p.postOne(ctx, tenant, byTenant[tenant])
		if err != nil {
			return dups, err
		}
		dups += n
	}
	return dups, nil
}

type acceptedResponse struct {
	Accepted []struct {
		ID        string `json:"id"`
		Sequence  uint64 `json:"sequence"`
		Duplicate bool   `json:"duplicate"`
	} `json:"accepted"`
}

func (p *publisher) postOne(ctx context.Context, tenant string, turns []*events.Turn) (int, error) {
	body, err := json.Marshal(turns)
	if err != nil {
		return 0, err
	}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.apiURL+"/v1/turns", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Tenant-ID", tenant)
		resp, err := p.http.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusAccepted {
				var ar acceptedResponse
				if err := json.Unmarshal(b, &ar); err != nil {
					return 0, fmt.Errorf("POST /v1/turns: 202 with %q: %w", b, err)
				}
				now, dups := time.Now(), 0
				for _, a := range ar.Accepted {
					p.ledger.acked(turnKey{tenant, a.ID}, a.Sequence, a.Duplicate, now)
					if a.Duplicate {
						dups++
					}
				}
				if len(ar.Accepted) != len(turns) {
					return dups, fmt.Errorf("POST /v1/turns: 202 accepted %d of %d turns: %s", len(ar.Accepted), len(turns), b)
				}
				return dups, nil
			}
			p.ledger.mu.Lock()
			p.ledger.stats.HTTPStatus[resp.StatusCode]++
			p.ledger.mu.Unlock()
			if resp.StatusCode < 500 {
				// The workload is valid: a 4xx is the harness's bug or the API's.
				return 0, fmt.Errorf("POST /v1/turns (tenant %s, %d turns): %d %s", tenant, len(turns), resp.StatusCode, b)
			}
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		p.ledger.mu.Lock()
		p.ledger.stats.Retries++
		p.ledger.mu.Unlock()
		if !pause.For(ctx, retryPause) {
			return 0, ctx.Err()
		}
	}
}

// send publishes turns by route.
func (p *publisher) send(ctx context.Context, rt route, turns []*events.Turn) (int, error) {
	if len(turns) == 0 {
		return 0, nil
	}
	if rt == routeAPI {
		return p.viaAPI(ctx, turns)
	}
	return p.direct(ctx, turns)
}

// poison publishes a turn whose body is not JSON: no retry can store it, so
// the workers that decode turns dead-letter it at once.
func (p *publisher) poison(ctx context.Context, tenant, id string) error {
	m := nats.NewMsg(events.TurnSubject(tenant, "poison-user", "poison-session"))
	m.Data = []byte(`{"id":"` + id + `","tenant_id":"` + tenant + `", this is not JSON`)
	m.Header.Set(jetstream.MsgIDHeader, events.MsgID(tenant, id))
	for {
		actx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, err := p.js.PublishMsg(actx, m)
		cancel()
		if err == nil {
			p.ledger.mu.Lock()
			p.ledger.stats.Poison++
			p.ledger.mu.Unlock()
			return nil
		}
		if !pause.For(ctx, retryPause) {
			return ctx.Err()
		}
	}
}

// publishPlan paces the workload over o.Publish: chunk i starts no earlier
// than i/chunks of the way through. After each chunk a few of its turns are
// sent again at once (inside the duplicate window: JetStream drops them),
// and now and then a few turns first stored more than the window ago are
// sent again (the stream keeps them; the database must drop them). Halfway,
// the poison goes out. At the end, after waiting out the window, a last
// sample of old turns is sent again.
func publishPlan(ctx context.Context, p *publisher, w *workload, o Options, seed uint64, log *slog.Logger) error {
	r := rand.New(rand.NewPCG(seed, 0x7075_626c))
	byKey := make(map[turnKey]*events.Turn, len(w.Turns))
	for i := range w.Turns {
		byKey[w.Turns[i].Key()] = &w.Turns[i].Turn
	}
	chunks := (len(w.Turns) + o.ChunkSize - 1) / o.ChunkSize
	start := time.Now()
	lastReport := start
	for c := 0; c < chunks; c++ {
		if !pause.Until(ctx, start.Add(time.Duration(int64(o.Publish)*int64(c)/int64(chunks)))) {
			return ctx.Err()
		}
		lo, hi := c*o.ChunkSize, min((c+1)*o.ChunkSize, len(w.Turns))
		rt := w.Turns[lo].Route
		batch := make([]*events.Turn, 0, hi-lo)
		for i := lo; i < hi; i++ {
			batch = append(batch, &w.Turns[i].Turn)
		}
		if _, err := p.send(ctx, rt, batch); err != nil {
			return err
		}
		p.ledger.mu.Lock()
		p.ledger.stats.First[rt] += len(batch)
		p.ledger.mu.Unlock()

		// In-window repeats: ~5% of the chunk, by either route.
		var again []*events.Turn
		for _, t := range batch {
			if r.IntN(20) == 0 {
				again = append(again, t)
			}
		}
		if len(again) > 0 {
			dups, err := p.send(ctx, route(r.IntN(2)), again)
			if err != nil {
				return err
			}
			p.ledger.mu.Lock()
			p.ledger.stats.InWindow += len(again)
			p.ledger.stats.InWindowDup += dups
			p.ledger.mu.Unlock()
		}

		// After-window repeats, now and then.
		if r.IntN(4) == 0 {
			if err := repeatOld(ctx, p, r, byKey, time.Now().Add(-o.DuplicateWindow-time.Second), max(1, o.ChunkSize/10)); err != nil {
				return err
			}
		}
		if o.Poison && c == chunks/2 {
			if err := p.poison(ctx, "acme", "poison-1"); err != nil {
				return err
			}
			log.Info("poison published", "tenant", "acme", "id", "poison-1")
		}
		if time.Since(lastReport) >= 5*time.Second {
			lastReport = time.Now()
			log.Info("publishing", "chunks", fmt.Sprintf("%d/%d", c+1, chunks), "elapsed", time.Since(start).Round(time.Second).String())
		}
	}
	// The last turns' window passes, then a final sample comes again.
	if !pause.For(ctx, o.DuplicateWindow+time.Second) {
		return ctx.Err()
	}
	return repeatOld(ctx, p, r, byKey, time.Now().Add(-o.DuplicateWindow-time.Second), max(10, len(w.Turns)/50))
}

func repeatOld(ctx context.Context, p *publisher, r *rand.Rand, byKey map[turnKey]*events.Turn, cutoff time.Time, n int) error {
	keys := p.ledger.oldKeys(r, cutoff, n)
	if len(keys) == 0 {
		return nil
	}
	// The API takes a request's ids once each: repeat through it only
	// distinct ids (oldKeys dedupes), and split the routes at random.
	var direct, api []*events.Turn
	for _, k := range keys {
		if r.IntN(3) == 0 {
			api = append(api, byKey[k])
		} else {
			direct = append(direct, byKey[k])
		}
	}
	d1, err := p.send(ctx, routeDirect, direct)
	if err != nil {
		return err
	}
	d2, err := p.send(ctx, routeAPI, api)
	if err != nil {
		return err
	}
	p.ledger.mu.Lock()
	p.ledger.stats.AfterWindow += len(keys)
	p.ledger.stats.AfterDup += d1 + d2
	p.ledger.mu.Unlock()
	return nil
}
