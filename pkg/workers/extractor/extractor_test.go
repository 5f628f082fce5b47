package extractor_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/workers/extractor"
)

var t0 = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

type bundle struct {
	db   *testenv.DB
	nats *testenv.NATS
	cfg  extractor.Config
}

func setup(t *testing.T) *bundle {
	t.Helper()
	cfg := extractor.Def.Defaults()
	cfg.Queue.Runner.BatchSize = 50
	cfg.Queue.Runner.RetryInitial, cfg.Queue.Runner.RetryMax = 10*time.Millisecond, 50*time.Millisecond
	return &bundle{db: testenv.NewDB(t), nats: testenv.NewNATS(t), cfg: cfg}
}

// start runs the extractor on the bundle's config until the test ends.
func (b *bundle) start(t *testing.T) {
	t.Helper()
	testenv.StartWorker(t, b.nats, b.db, extractor.Def, func(c *extractor.Config) { *c = b.cfg })
}

func (b *bundle) publish(t *testing.T, turns ...events.Turn) {
	t.Helper()
	_, err := queue.NewPublisher(b.nats.JS).PublishTurns(context.Background(), turns)
	require.NoError(t, err)
}

// waitIdle waits until the extractor has settled every turn in the stream.
func (b *bundle) waitIdle(t *testing.T) {
	t.Helper()
	b.nats.WaitSettled(t, queue.TurnsStream, extractor.Def.Binding.Durable)
}

func (b *bundle) facts(t *testing.T, tenant, user string) map[string]record.Fact {
	t.Helper()
	fs, err := b.db.Store.Tenant(tenant).Facts(context.Background(), user, []string{record.FactActive}, 100)
	require.NoError(t, err)
	out := map[string]record.Fact{}
	for _, f := range fs {
		out[f.Type+":"+f.Value] = f
	}
	return out
}

func turn(id, tenant, user, role, content string, at time.Time) events.Turn {
	return events.Turn{ID: id, TenantID: tenant, UserID: user, SessionID: "s1", OccurredAt: at, Role: role, Content: content}
}

func TestExtractorRecordsFactsOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t)
	turns := []events.Turn{
		turn("1", "t", "u", events.RoleUser, "我最近在读刘慈欣的《三体》，很喜欢科幻小说", t0),
		turn("2", "t", "u", events.RoleAssistant, "《球状闪电》也是刘慈欣写的，推荐给你", t0.Add(time.Second)),
		turn("3", "t", "u", events.RoleUser, "I also loved Dune by Frank Herbert, great science fiction", t0.Add(time.Minute)),
		turn("4", "t", "u", events.RoleUser, "我在读「 三体 」第二部", t0.Add(2*time.Minute)),
	}
	b.publish(t, turns...)
	b.waitIdle(t)
	facts := b.facts(t, "t", "u")

	book, ok := facts["book_title:三体"]
	require.True(t, ok, "facts: %v", facts)
	require.EqualValues(t, 2, book.MentionCount, "《三体》 and 三体 are one fact")
	require.Equal(t, t0.Add(2*time.Minute), book.LastMentionedAt, "event time")
	require.Equal(t, t0.Add(2*time.Minute+90*24*time.Hour), book.ExpiresAt)
	require.Contains(t, facts, "author:刘慈欣")
	require.Contains(t, facts, "genre:科幻")
	require.NotContains(t, facts, "book_title:球状闪电", "assistant turns are not the user's interests by default")
	var english bool
	for k := range facts {
		english = english || k == "book_title:dune" || k == "author:frank herbert" || k == "name:frank herbert"
	}
	require.True(t, english, "English facts too: %v", facts)

	// The same turns again, as after the dedupe window (no Nats-Msg-Id): nothing changes.
	for _, tn := range turns {
		m, err := eventmsg.Turn(&tn)
		require.NoError(t, err)
		m.Header.Del("Nats-Msg-Id")
		_, err = b.nats.JS.PublishMsg(context.Background(), m)
		require.NoError(t, err)
	}
	b.waitIdle(t)
	require.Equal(t, facts, b.facts(t, "t", "u"))
}

func TestExtractorReplayRebuildsTheSameFacts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t)
	b.publish(t,
		turn("1", "t", "u", events.RoleUser, "想看诺兰导演的《星际穿越》", t0),
		turn("2", "t", "u", events.RoleUser, "推荐点悬疑推理小说吧，东野圭吾的就行", t0.Add(time.Hour)),
	)
	b.waitIdle(t)
	before := b.facts(t, "t", "u")
	require.NotEmpty(t, before)

	ctx := context.Background()
	_, err := b.db.Store.Pool().Exec(ctx, `DELETE FROM facts; DELETE FROM fact_mentions`)
	require.NoError(t, err)
	// Replay: a fresh consumer from the start of the stream.
	cons, err := b.nats.JS.OrderedConsumer(ctx, queue.TurnsStream, jetstreamOrdered())
	require.NoError(t, err)
	w, _, err := extractor.Def.Build(ctx, b.cfg, testenv.Deps(t, b.nats, b.db))
	require.NoError(t, err)
	for range 2 {
		m, err := cons.Next()
		require.NoError(t, err)
		md, _ := m.Metadata()
		errs := w.Handle(ctx, []queue.Message{{Subject: m.Subject(), Data: m.Data(), Header: m.Headers(), Seq: md.Sequence.Stream}})
		require.NoError(t, errs[0])
	}
	after := b.facts(t, "t", "u")
	for k, f := range before {
		g, ok := after[k]
		require.True(t, ok, k)
		f.Source, g.Source = "", ""
		require.Equal(t, f, g, k)
	}
	require.Len(t, after, len(before))
}

func TestExtractorTenantIsolationAndBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t)
	b.publish(t,
		turn("1", "A", "u", events.RoleUser, "我喜欢爵士乐", t0),
		turn("1", "B", "u", events.RoleUser, "我喜欢摇滚", t0),
	)
	bad := turn("2", "A", "u", events.RoleUser, "x", t0)
	data, err := json.Marshal(bad)
	require.NoError(t, err)
	_, err = b.nats.JS.PublishMsg(context.Background(), &nats.Msg{Subject: events.TurnSubject("B", "u", "s1"), Data: data})
	require.NoError(t, err)
	b.waitIdle(t)
	a, bb := b.facts(t, "A", "u"), b.facts(t, "B", "u")
	require.Contains(t, a, "genre:爵士")
	require.NotContains(t, a, "genre:摇滚")
	require.Contains(t, bb, "genre:摇滚")
	require.Len(t, b.nats.DeadLetters(t), 1, "a body claiming another tenant than its subject is dead-lettered")
}

func TestExtractorWithLLMAndFallback(t *testing.T) {
	t.Parallel()
	b := setup(t)
	llm := openaitest.New(t)
	llm.Enqueue(openaitest.Reply{Content: `{"books":["白夜行"],"authors":["东野圭吾"],"topics":["日本推理"]}`})
	// Then the model fails for good: the rules answer instead.
	llm.SetDefault(openaitest.Reply{Status: 500})
	b.cfg.LLM = envconfig.Defaults[extractor.Config]().LLM
	b.cfg.LLM.BaseURL, b.cfg.LLM.APIKey, b.cfg.LLM.Model = llm.URL()+"/v1", "k", "test-model"
	b.cfg.LLM.Timeout, b.cfg.LLM.MaxRetries, b.cfg.LLM.RetryInitial, b.cfg.LLM.RetryMax = time.Second, 1, time.Millisecond, 5*time.Millisecond
	_, source, err := extractor.NewExtractor(b.cfg, nil, testenv.Logger(t))
	require.NoError(t, err)
	require.Equal(t, "llm", source)
	b.start(t)

	b.publish(t, turn("1", "t", "u", events.RoleUser, "最近在看一本小说", t0))
	b.waitIdle(t)
	facts := b.facts(t, "t", "u")
	require.Contains(t, facts, "book_title:白夜行")
	require.Contains(t, facts, "author:东野圭吾")
	require.Equal(t, "llm", facts["book_title:白夜行"].Source)

	b.publish(t, turn("2", "t", "u", events.RoleUser, "我更喜欢《挪威的森林》", t0.Add(time.Minute)))
	b.waitIdle(t)
	facts = b.facts(t, "t", "u")
	require.Contains(t, facts, "book_title:挪威的森林", "the rules answered when the model failed")
	require.Equal(t, "rules", facts["book_title:挪威的森林"].Source, "recorded as the fallback's, not the model's")
	require.Empty(t, b.nats.DeadLetters(t), "LLM trouble never dead-letters a turn")
	require.Equal(t, "test-model", llm.ChatRequests()[0].Model)
}

func TestExtractorRequestsProfileRefresh(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.cfg.Refresh.Bucket = time.Hour
	b.start(t)

	b.publish(t,
		turn("1", "t", "u1", events.RoleUser, "我喜欢科幻小说", t0),
		turn("2", "t", "u1", events.RoleUser, "还有推理小说", t0.Add(time.Minute)),
		turn("3", "t", "u2", events.RoleUser, "今天天气不错", t0), // nothing to extract: no task
	)
	b.waitIdle(t)
	s, err := b.nats.JS.Stream(context.Background(), queue.TasksStream)
	require.NoError(t, err)
	info, err := s.Info(context.Background(), jetstream.WithSubjectFilter(events.ProfileTaskSubjects))
	require.NoError(t, err)
	require.Len(t, info.State.Subjects, 1, "one debounced task, for u1 only: %v", info.State.Subjects)
	raw, err := s.GetLastMsgForSubject(context.Background(), events.ProfileTaskSubjects)
	require.NoError(t, err)
	var task events.ProfileTask
	require.NoError(t, json.Unmarshal(raw.Data, &task))
	require.Equal(t, "u1", task.UserID)
	// The event time of the newest mention of the batch that published it (the
	// turns may arrive in one batch or two; the second folds into the first task).
	require.Contains(t, []time.Time{t0, t0.Add(time.Minute)}, task.RequestedAt.UTC())
}

func TestExtractorMatchesTheTenantCatalog(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.db.Store.Pool().Exec(ctx, `
		INSERT INTO catalog_items (tenant_id, ref, type, title, attrs, source_event_id, source_event_at) VALUES
		('A', '/mv/1', 'film', '流浪地球', '{"actors": ["吴京", "屈楚萧"], "director": "郭帆"}', 'c1', now()),
		('A', '/b/1', 'book', '白鹿原', '{"author": "陈忠实"}', 'c2', now()),
		('B', '/mv/9', 'film', '看了', '{}', 'c3', now())`)
	require.NoError(t, err)
	b.start(t)
	b.publish(t,
		turn("1", "A", "u", events.RoleUser, "昨天看了流浪地球，郭帆拍得真好", t0),
		turn("2", "A", "u", events.RoleUser, "白鹿原这本书值得读吗", t0.Add(time.Minute)),
		turn("1", "B", "u", events.RoleUser, "昨天看了流浪地球", t0),
	)
	b.waitIdle(t)
	a := b.facts(t, "A", "u")
	require.Contains(t, a, "film:流浪地球", "known titles need no brackets: %v", a)
	require.Contains(t, a, "person:郭帆")
	require.Contains(t, a, "book_title:白鹿原")
	bb := b.facts(t, "B", "u")
	require.NotContains(t, bb, "film:流浪地球", "another tenant's catalog is never used: %v", bb)
	require.Contains(t, bb, "film:看了", "B's own catalog is used for B")
}

// What the user says of themselves becomes their attributes, with the turn
// as evidence, once whatever the redeliveries; the assistant's words do not,
// and a later move supersedes the old city.
func TestExtractorReadsStatedAttributes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t)
	b.publish(t,
		turn("1", "t", "u", events.RoleUser, "My daughter is allergic to peanuts, so please never suggest recipes with peanuts. Also I'm planning a trip to Kyoto in April.", t0),
		turn("2", "t", "u", events.RoleAssistant, "Noted! Call me Ann if you like.", t0.Add(time.Second)),
		turn("3", "t", "u", events.RoleUser, "我住在巴黎。", t0.Add(time.Minute)),
		turn("4", "t", "u", events.RoleUser, "I moved to Berlin last week.", t0.Add(time.Hour)),
	)
	b.waitIdle(t)
	as, err := b.db.Store.Tenant("t").Assertions(context.Background(), "u")
	require.NoError(t, err)
	r := attribute.Resolve(attribute.Default(), as)
	var current, said []string
	for _, v := range r.Current {
		require.Equal(t, attribute.Stated, v.Source)
		require.Equal(t, []string{v.EventID}, v.Evidence)
		require.Equal(t, "s1", v.SessionID)
		if v.Key == attribute.KeyStatements {
			said = append(said, v.Item+"="+v.Value)
			continue
		}
		current = append(current, v.Key+"="+v.Value)
	}
	require.Equal(t, []string{"location=Berlin", "allergies=peanuts (daughter)", "requests=please never suggest recipes with peanuts"}, current)
	// Each sentence in the user's words, one item per matter: the move to
	// Berlin supersedes the statement of living in Paris.
	require.Equal(t, []string{
		"request please never suggest recipes with peanuts=My daughter is allergic to peanuts, so please never suggest recipes with peanuts.",
		"trip kyoto april=Also I'm planning a trip to Kyoto in April.",
		"location=I moved to Berlin last week.",
	}, said)
	require.Len(t, as, 8, "the assistant's turn taught nothing")

	// A redelivered or replayed turn stores nothing twice.
	b.publish(t, turn("1b", "t", "u", events.RoleUser, "I'm allergic to shellfish.", t0.Add(2*time.Hour)))
	b.waitIdle(t)
	again, err := b.db.Store.RecordAssertions(context.Background(), []store.AssertionRow{{TenantID: "t", UserID: "u", Assertion: as[0]}})
	require.NoError(t, err)
	require.Zero(t, again)
	as, err = b.db.Store.Tenant("t").Assertions(context.Background(), "u")
	require.NoError(t, err)
	require.Len(t, as, 10)
}

// A pick among the options the assistant's reply offered is kept as a
// statement marked as a choice: what was chosen, and what was turned down;
// the user's reason, in their words, beside it. A pick of nothing listed,
// or a number that is no pick, keeps no choice.
func TestExtractorReadsChoices(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t)
	options := "Here are some ideas:\n1. A guided bus tour of the old town.\n2. **A quiet cooking class** with a local chef.\n3. A night at the busiest rooftop bar."
	b.publish(t,
		turn("1", "t", "u", events.RoleUser, "What could we do on Saturday?", t0),
		turn("2", "t", "u", events.RoleAssistant, options, t0.Add(time.Second)),
		turn("3", "t", "u", events.RoleUser, "I think option 2 suits me best. I find crowded bars exhausting.", t0.Add(time.Minute)),
		turn("4", "t", "u", events.RoleAssistant, "Lovely choice!", t0.Add(2*time.Minute)),
		turn("5", "t", "u", events.RoleUser, "I have 3 kids and they like buses.", t0.Add(3*time.Minute)),
	)
	// A pick whose reply this worker never read (another replica did, or a
	// replay starts after it) is read against the stored reply.
	elsewhere := events.Turn{ID: "r9", TenantID: "t", UserID: "u", SessionID: "s2", OccurredAt: t0.Add(time.Hour), Role: events.RoleAssistant,
		Content: "Two ideas:\n1. A pottery workshop.\n2. A stand-up comedy night."}
	require.NoError(t, events.ValidateTurn(&elsewhere, events.ValidateOptions{Limits: events.DefaultLimits}))
	_, err := b.db.Store.InsertTurns(context.Background(), []store.StoredTurn{{Turn: elsewhere, Seq: 1}})
	require.NoError(t, err)
	pick := turn("10", "t", "u", events.RoleUser, "The pottery workshop sounds perfect.", t0.Add(time.Hour+time.Minute))
	pick.SessionID = "s2"
	b.publish(t, pick)
	b.waitIdle(t)
	as, err := b.db.Store.Tenant("t").Assertions(context.Background(), "u")
	require.NoError(t, err)
	var said []string
	for _, v := range attribute.Resolve(attribute.Default(), as).Current {
		if v.Key == attribute.KeyStatements {
			said = append(said, v.Value)
			if strings.HasPrefix(v.Value, "Chose") && v.SessionID == "s1" {
				require.Equal(t, []string{"2", "3"}, v.Evidence, "the reply and the pick")
				require.Equal(t, "choice a quiet cooking class with a", v.Item)
			}
		}
	}
	require.Equal(t, []string{
		"Chose from the options offered: A quiet cooking class with a local chef. (not: A guided bus tour …; A night at the …)",
		"I find crowded bars exhausting.",
		"I have 3 kids and they like buses.",
		"Chose from the options offered: A pottery workshop. (not: A stand-up comedy night.)",
	}, said)
}

// The names of the conversation's own people are no interests, in either
// language, whichever extractor found them: the user's own name and the
// assistant's, said in the turn (the rules read where they stand, without a
// database read) or known from the user's attributes as of the turn (a later
// turn that names them plainly); whom the user greets or asks by name; the
// people of the user's life. What the user talks about stays, the same
// words as an interest included.
func TestExtractorLeavesOutOwnNames(t *testing.T) {
	t.Parallel()
	b := setup(t)
	llm := openaitest.New(t)
	// The model answers as a model may: every name it sees.
	answers := map[string]string{
		"我叫王芳。我最近在读《三体》。": `{"books":["三体"],"people":["王芳"]}`,
		"你就叫小美吧。":         `{"people":["小美"]}`,
		"小美你好，推荐几部科幻电影":   `{"people":["小美"],"genres":["科幻"]}`,
		"我朋友小王推荐了《球状闪电》":  `{"people":["小王"],"books":["球状闪电"]}`,
		"王芳又来了，小美在吗":      `{"people":["王芳","小美"]}`,

		"My name is Anna Smith and I love Taylor Swift's new album.": `{"people":["Anna Smith","Taylor Swift"]}`,
		"I'll call you Max.": `{"people":["Max"]}`,
		"Hi Bob, can you find me The Left Hand of Darkness?": `{"people":["Bob"],"books":["The Left Hand of Darkness"]}`,
		"My friend Carol recommended Dune.":                  `{"people":["Carol"],"books":["Dune"]}`,
		"Anna Smith again. Max, you were right about Dune.":  `{"people":["Anna Smith","Max"],"books":["Dune"]}`,
	}
	llm.Respond(func(r openaitest.Request) openaitest.Reply {
		if a, ok := answers[r.Messages[len(r.Messages)-1].Content]; ok {
			return openaitest.Reply{Content: a}
		}
		return openaitest.Reply{Content: `{}`}
	})
	b.cfg.LLM = envconfig.Defaults[extractor.Config]().LLM
	b.cfg.LLM.BaseURL, b.cfg.LLM.APIKey, b.cfg.LLM.Model = llm.URL()+"/v1", "k", "test-model"
	b.cfg.LLM.Timeout, b.cfg.LLM.MaxRetries, b.cfg.LLM.RetryInitial, b.cfg.LLM.RetryMax = time.Second, 1, time.Millisecond, 5*time.Millisecond
	b.start(t)
	// A session of each user's own.
	own := func(tn events.Turn) events.Turn {
		tn.SessionID = "s-" + tn.UserID
		return tn
	}

	b.publish(t,
		own(turn("z1", "t", "zh", events.RoleUser, "我叫王芳。我最近在读《三体》。", t0)),
		own(turn("z2", "t", "zh", events.RoleUser, "你就叫小美吧。", t0.Add(time.Minute))),
		own(turn("z3", "t", "zh", events.RoleUser, "小美你好，推荐几部科幻电影", t0.Add(2*time.Minute))),
		own(turn("z4", "t", "zh", events.RoleUser, "我朋友小王推荐了《球状闪电》", t0.Add(3*time.Minute))),
		own(turn("e1", "t", "en", events.RoleUser, "My name is Anna Smith and I love Taylor Swift's new album.", t0)),
		own(turn("e2", "t", "en", events.RoleUser, "I'll call you Max.", t0.Add(time.Minute))),
		own(turn("e3", "t", "en", events.RoleUser, "Hi Bob, can you find me The Left Hand of Darkness?", t0.Add(2*time.Minute))),
		own(turn("e4", "t", "en", events.RoleUser, "My friend Carol recommended Dune.", t0.Add(3*time.Minute))),
		// Said before this user named anyone: an interest as any other.
		own(turn("o1", "t", "other", events.RoleUser, "王芳又来了，小美在吗", t0)),
	)
	b.waitIdle(t)
	// Once the names are stored, later turns that say them plainly.
	b.publish(t,
		own(turn("z5", "t", "zh", events.RoleUser, "王芳又来了，小美在吗", t0.Add(time.Hour))),
		own(turn("e5", "t", "en", events.RoleUser, "Anna Smith again. Max, you were right about Dune.", t0.Add(time.Hour))),
	)
	b.waitIdle(t)

	zh, en := b.facts(t, "t", "zh"), b.facts(t, "t", "en")
	for _, fs := range []map[string]record.Fact{zh, en} {
		for k, f := range fs {
			require.NotContains(t, []string{"王芳", "小美", "小王", "anna smith", "max", "bob", "carol"}, f.Value, "%s is no interest: %v", k, fs)
		}
	}
	for _, k := range []string{"book_title:三体", "genre:科幻", "book_title:球状闪电"} {
		require.Contains(t, zh, k, "what the user talks about stays: %v", zh)
	}
	for _, k := range []string{"person:taylor swift", "book_title:the left hand of darkness", "book_title:dune"} {
		require.Contains(t, en, k, "what the user talks about stays: %v", en)
	}
	require.EqualValues(t, 2, en["book_title:dune"].MentionCount)
	other := b.facts(t, "t", "other")
	require.Contains(t, other, "person:王芳", "another user's names are not this one's: %v", other)
	require.Contains(t, other, "person:小美")
	require.Empty(t, b.nats.DeadLetters(t))
}

// The rules alone, as the extractor runs without a model: a user who names
// themselves leaves no fact of their name ("我叫王芳。", "My name is Anna
// Smith."), and a later turn that says the name in passing leaves none
// either, once the attributes know it.
func TestExtractorRulesLeaveOutOwnNames(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t)
	own := func(tn events.Turn) events.Turn {
		tn.SessionID = "s-" + tn.UserID
		return tn
	}
	b.publish(t,
		own(turn("z1", "t", "zh", events.RoleUser, "我叫王芳。", t0)),
		own(turn("e1", "t", "en", events.RoleUser, "My name is Anna Smith.", t0)),
	)
	b.waitIdle(t)
	require.Empty(t, b.facts(t, "t", "zh"))
	require.Empty(t, b.facts(t, "t", "en"))

	b.publish(t,
		own(turn("e2", "t", "en", events.RoleUser, "Please tell Anna Smith that the book Dune arrived.", t0.Add(time.Hour))),
		own(turn("o1", "t", "other", events.RoleUser, "Please tell Anna Smith that the book Dune arrived.", t0.Add(time.Hour))),
	)
	b.waitIdle(t)
	en := b.facts(t, "t", "en")
	require.Contains(t, en, "book_title:dune")
	for k, f := range en {
		require.NotEqual(t, "anna smith", f.Value, "%s: the user's own name: %v", k, en)
	}
	var named bool
	for _, f := range b.facts(t, "t", "other") {
		named = named || f.Value == "anna smith"
	}
	require.True(t, named, "another user's Anna Smith is someone else")
	require.Empty(t, b.nats.DeadLetters(t))
}
