package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/extract"
)

// route is how a turn is published.
type route int

const (
	routeDirect route = iota // JetStream publish with Nats-Msg-Id
	routeAPI                 // POST /v1/turns
)

func (r route) String() string {
	if r == routeAPI {
		return "api"
	}
	return "direct"
}

// plannedTurn is one distinct turn of the workload.
type plannedTurn struct {
	Turn  events.Turn
	Route route
	// Refs is how many distinct refs its list presents (0: no list).
	Refs int
}

// Key is the turn's identity: ids are unique per tenant.
func (p *plannedTurn) Key() turnKey { return turnKey{p.Turn.TenantID, p.Turn.ID} }

type turnKey struct{ Tenant, ID string }

// workload is every distinct turn, in publish order, and what it adds up to.
type workload struct {
	Turns    []plannedTurn
	Tenants  []string
	Sessions int
	Users    int
}

// Tenants cover the subject encoding: plain tokens, and ids that become
// "~"+base64url tokens (a dot, Chinese) in subjects and Nats-Msg-Id.
var tenants = []string{"acme", "beta_books", "shop.cn", "租户七"}

// What users and assistants say. User turns name titles, people and genres
// the rules extractor finds (or nothing, for the thank-you turns), so that
// facts, mentions and summaries' key topics all have work.
var (
	titles  = []string{"三体", "球状闪电", "白夜行", "活着", "挪威的森林", "流浪地球", "解忧杂货店", "围城", "百年孤独", "平凡的世界"}
	people  = []string{"刘慈欣", "东野圭吾", "余华", "村上春树", "钱锺书"}
	genres  = []string{"科幻", "推理", "历史", "悬疑"}
	enBooks = []string{"Dune", "Foundation", "Neuromancer", "Hyperion", "Solaris"}
	enAuth  = []string{"Isaac Asimov", "Ursula K. Le Guin", "Frank Herbert", "Stanislaw Lem"}
)

func userContent(r *rand.Rand) string {
	switch r.IntN(7) {
	case 0:
		return fmt.Sprintf("最近在读《%s》，有没有类似的书？", pick(r, titles))
	case 1:
		return fmt.Sprintf("我很喜欢%s的作品，能推荐几本吗？", pick(r, people))
	case 2:
		return fmt.Sprintf("想找一些%s小说看看", pick(r, genres))
	case 3:
		return fmt.Sprintf("I just finished %q and loved it.", pick(r, enBooks))
	case 4:
		return fmt.Sprintf("Any books by %s?", pick(r, enAuth))
	case 5:
		return fmt.Sprintf("我喜欢%s小说，比如《%s》", pick(r, genres), pick(r, titles))
	default:
		return "谢谢，我先看看。"
	}
}

func assistantContent(r *rand.Rand) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("推荐你看看《%s》和《%s》。", pick(r, titles), pick(r, titles))
	case 1:
		return fmt.Sprintf("You might like %s next.", pick(r, enBooks))
	default:
		return "这里有几本书你可能会喜欢："
	}
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// refsPerUser is the pool of refs a user's lists draw from; well below
// ITEMS_SEEN_CAP (100), so no seen item is evicted and times_shown adds up.
const refsPerUser = 20

// newWorkload plans n distinct turns across tenants, users and sessions.
// Sessions hold 10–40 turns, 45 s apart in event time, all of it hours in the
// past, so every session is idle for the summarizer's sweep from the start.
// A third of the sessions open with a system prompt (stored, never counted
// for summaries). Assistant turns present a three-item list now and then.
// About apiShare of the turns go through the API, in runs of a chunk.
func newWorkload(n, chunk int, apiShare float64, seed uint64, now time.Time) *workload {
	r := rand.New(rand.NewPCG(seed, 0x636861_6f73))
	w := &workload{Tenants: tenants}
	type session struct{ turns []plannedTurn }
	var sessions []*session
	base := now.Add(-50 * time.Hour).Truncate(time.Second)
	left := n
	for u := 0; left > 0; u++ {
		tenant := tenants[u%len(tenants)]
		userID := fmt.Sprintf("u-%d", u/len(tenants))
		if u%3 == 1 {
			userID = fmt.Sprintf("user.%d", u/len(tenants)) // an encoded token
		}
		w.Users++
		for s := 0; s < 5 && left > 0; s++ {
			sessionID := fmt.Sprintf("s-%d-%d", u/len(tenants), s)
			k := min(10+r.IntN(31), left)
			left -= k
			start := base.Add(time.Duration(r.IntN(40*3600)) * time.Second)
			ss := &session{}
			for i := 0; i < k; i++ {
				t := events.Turn{
					V: 1, ID: fmt.Sprintf("%s-t%03d", sessionID, i), TenantID: tenant, UserID: userID, SessionID: sessionID,
					SiteID: "books", OccurredAt: start.Add(time.Duration(i) * 45 * time.Second),
				}
				pt := plannedTurn{}
				switch {
				case i == 0 && r.IntN(3) == 0:
					t.Role, t.Content = events.RoleSystem, "你是一个图书推荐助手。"
				case i%2 == 0:
					t.Role, t.Content = events.RoleUser, userContent(r)
				default:
					t.Role, t.Content = events.RoleAssistant, assistantContent(r)
					if r.IntN(4) == 0 {
						for _, j := range r.Perm(refsPerUser)[:3] {
							t.Items = append(t.Items, events.Item{Ref: fmt.Sprintf("/book/%d", j), Title: pick(r, titles)})
						}
						pt.Refs = 3
					}
				}
				pt.Turn = t
				ss.turns = append(ss.turns, pt)
			}
			sessions = append(sessions, ss)
			w.Sessions++
		}
	}
	// Interleave the sessions: take one to three turns of a random open
	// session at a time, keeping each session's own order.
	open := append([]*session(nil), sessions...)
	for len(open) > 0 {
		i := r.IntN(len(open))
		s := open[i]
		take := min(1+r.IntN(3), len(s.turns))
		w.Turns = append(w.Turns, s.turns[:take]...)
		s.turns = s.turns[take:]
		if len(s.turns) == 0 {
			open[i] = open[len(open)-1]
			open = open[:len(open)-1]
		}
	}
	// Routes by chunk: a paced step publishes one route.
	for c := 0; c*chunk < len(w.Turns); c++ {
		rt := routeDirect
		if r.Float64() < apiShare {
			rt = routeAPI
		}
		for i := c * chunk; i < min((c+1)*chunk, len(w.Turns)); i++ {
			w.Turns[i].Route = rt
		}
	}
	return w
}

// mentionCounter says how many fact mentions the extractor records for a
// turn: the rules' distinct (type, value) pairs over a user turn's text, as
// the extractor runs them (default EXTRACT_ROLES=user, no model, no
// catalog). Texts repeat, so answers are memoized.
type mentionCounter struct {
	rules *extract.Rules
	memo  map[string]int
}

func newMentionCounter() (*mentionCounter, error) {
	r, err := extract.NewRules(extract.RulesOptions{})
	if err != nil {
		return nil, err
	}
	return &mentionCounter{rules: r, memo: map[string]int{}}, nil
}

func (m *mentionCounter) Count(ctx context.Context, t *events.Turn) (int, error) {
	if t.Role != events.RoleUser {
		return 0, nil
	}
	if n, ok := m.memo[t.Content]; ok {
		return n, nil
	}
	facts, err := m.rules.Extract(ctx, extract.Input{Text: t.Content})
	if err != nil {
		return 0, err
	}
	keys := map[[2]string]bool{}
	for _, f := range facts {
		if f.Value != "" {
			keys[[2]string{string(f.Kind), f.Value}] = true
		}
	}
	m.memo[t.Content] = len(keys)
	return len(keys), nil
}
