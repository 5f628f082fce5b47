// Package extractor is the worker that turns chat turns into interest facts: it
// consumes the turn stream on its own durable consumer, runs an extractor (rules by
// default, an LLM with the rules as fallback when configured) over the turns it is
// configured to read, and records the mentions idempotently. Whatever found
// them, the names of the conversation's own people are left out: those the
// turn gives them (extract.Screen: the user's name, the assistant's, whom the
// user greets, the people of the user's life) and the names the user's
// attributes know as of the turn (withoutOwnNames). The extraction itself
// (rules, gazetteer, the model's prompt) is package extract.
package extractor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/worker"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/attribute/stated"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/llm"
	"github.com/recallhq/recall/pkg/store"
)

// Def is the extractor as the registry lists it.
var Def = worker.Def[Config, *Worker]{
	Name:    "extractor",
	Doc:     "turns chat turns into interest facts (rules, or a language model with the rules as fallback)",
	Binding: queue.Binding{Durable: "extractor", Stream: queue.TurnsStream, Filters: []string{events.TurnsSubjects}},
	// The profile refresh of a user whose facts it recorded, and the
	// changes to the attributes, statements and facts it recorded.
	Publishes: []string{events.ProfileTaskSubjects, events.ChangeSubjects},
	// Extraction is CPU work per turn and one transaction per batch, like ingest.
	BatchSize: 200, Concurrency: 2,
	Queue: func(c *Config) *worker.Queue { return &c.Queue },
	New:   New,
}

// Config is the extractor's part of the config.
type Config struct {
	Queue worker.Queue `envPrefix:"EXTRACTOR_"`
	// Roles are the turn roles facts are taken from. What the user says is the
	// signal; what the assistant says about an item is not the user's interest,
	// so assistant and tool turns are opt-in ("user,assistant"). A session's
	// summary takes its key topics, which it records as interest facts too,
	// from the turns of the same roles (summarize.Options.TopicRoles).
	Roles []string `env:"EXTRACT_ROLES" envDefault:"user" envSeparator:","`
	// ToolResults also reads the string values of tool call results.
	ToolResults bool `env:"EXTRACT_TOOL_RESULTS" envDefault:"false"`
	// Decay is the facts' lifecycle policy; the extractor sets each fact's
	// expiry from its type's TTL (FACT_TTL, FACT_TTL_BY_TYPE).
	Decay decay.Config
	// LLM, when LLM_MODEL is set, extracts with a language model; the rules still
	// answer whenever it fails for good, so extraction never blocks the stream.
	LLM llm.Config
	// Refresh debounces the profile-refresh tasks published for users whose
	// facts were mentioned.
	Refresh queue.RefreshConfig
	// Catalog matches the tenant's catalog titles and people in the text.
	Catalog CatalogConfig
	// Embed is the embedder facts are indexed for search with (EMBED_*):
	// the indexer's.
	Embed embed.Config
	// Attributes are the schemas what users say of themselves is checked
	// against (ATTRIBUTE_SCHEMA_FILE).
	Attributes attribute.Config
	// Stated reads what users say of themselves and ask of the assistant
	// from their turns ("call me Xiao Li", "answer in English", "我对花生过敏")
	// into their attributes, as values of source stated.
	Stated bool `env:"EXTRACT_ATTRIBUTES" envDefault:"true"`
}

// NewExtractor builds the configured extractor: the rules, or the LLM with the
// rules as its fallback. It returns the source name facts are recorded with.
func NewExtractor(cfg Config, reg prometheus.Registerer, log *slog.Logger) (extract.Extractor, string, error) {
	// The extractor only reads the TTLs, but a policy the other binaries would
	// refuse should stop it at start too.
	if _, err := cfg.Decay.WithDefaults().Policy(); err != nil {
		return nil, "", err
	}
	rules, err := extract.NewRules(extract.RulesOptions{})
	if err != nil {
		return nil, "", fmt.Errorf("rules extractor: %w", err)
	}
	if !cfg.LLM.Enabled() {
		return rules, "rules", nil
	}
	llm, err := extract.NewLLM(cfg.LLM, reg, log)
	if err != nil {
		return nil, "", fmt.Errorf("llm extractor: %w", err)
	}
	return llm.WithFallback(rules), "llm", nil
}

// TTLFor is the lifetime of a fact of the given type after its last mention.
func (c Config) TTLFor(typ string) time.Duration { return c.Decay.TTLFor(typ) }

// Worker extracts and records facts.
type Worker struct {
	cfg       Config
	store     *store.Store
	ex        extract.Extractor
	source    string
	limits    events.Limits
	log       *slog.Logger
	roles     map[string]bool
	metrics   *metrics
	catalog   *catalogs
	refresher *queue.Refresher
	changes   *changefeed.Publisher
	index     *search.Indexer
	// emb embeds self-statements (EMBED_*), nil without an embedder.
	emb     embed.Embedder
	schemas *attribute.Schemas
	// replies are the newest assistant reply of each session this worker
	// has read: what a user's next turn may pick from (choice).
	replies *lru.Cache[string, record.Message]
}

type metrics struct {
	turns  *prometheus.CounterVec
	facts  *prometheus.CounterVec
	stated *prometheus.CounterVec
}

// New builds the configured extractor (NewExtractor) and returns the worker,
// which also makes the facts it records searchable.
func New(_ context.Context, cfg Config, d *worker.Deps) (*Worker, error) {
	ex, source, err := NewExtractor(cfg, d.Registry, d.Log)
	if err != nil {
		return nil, err
	}
	w := NewWith(cfg, d, ex, source)
	if w.schemas, err = cfg.Attributes.Schemas(); err != nil {
		return nil, err
	}
	an := search.SharedAnalyzer()
	emb, err := d.Embedder(cfg.Embed)
	if err != nil {
		return nil, err
	}
	w.index, w.emb = search.NewIndexer(d.Store, an, emb), emb
	return w, nil
}

// NewWith returns a Worker using ex, whose facts are recorded with the given
// source name (rules, llm, ...). After each batch it asks for the profiles of
// the users it recorded facts for on d.JS (none when d.JS is nil).
func NewWith(cfg Config, d *worker.Deps, ex extract.Extractor, source string) *Worker {
	roles := map[string]bool{}
	for _, r := range cfg.Roles {
		roles[strings.TrimSpace(r)] = true
	}
	m := &metrics{
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "extractor", Name: "turns_total",
			Help: "Turns seen by the extractor, by outcome (extracted, skipped_role, empty).",
		}, []string{"outcome"}),
		facts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "extractor", Name: "facts_total",
			Help: "Facts extracted, by type (before deduplication against stored facts).",
		}, []string{"type"}),
		stated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "extractor", Name: "stated_attributes_total",
			Help: "Values users stated of themselves, by key and outcome (read; refused by the tenant's schema; unembedded: a statement stored without its embedding, the embedder failing).",
		}, []string{"key", "outcome"}),
	}
	if d.Registry != nil {
		d.Registry.MustRegister(m.turns, m.facts, m.stated)
	}
	replies, _ := lru.New[string, record.Message](maxReplies)
	w := &Worker{cfg: cfg, store: d.Store, ex: ex, source: source, limits: d.Limits, log: d.Log, roles: roles, metrics: m, replies: replies,
		catalog: &catalogs{cfg: cfg.Catalog, store: d.Store, byID: map[string]*tenantGazetteer{}}}
	// The default schema: New loads the configured one.
	w.schemas, _ = attribute.LoadSchemas("")
	if d.JS != nil {
		w.refresher = queue.NewRefresher(d.JS, cfg.Refresh.Bucket)
	}
	w.changes = changefeed.NewPublisher(d.JS)
	return w
}

// Handle is the batch handler. Invalid turns fail permanently; the mentions of
// the whole batch are recorded in one transaction (queue.Batch: one bad turn
// cannot hold back the others), then the users' profiles are asked for.
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	return queue.Batch[learned]{
		Prepare: func(ctx context.Context, m queue.Message) (learned, bool, error) {
			t, err := queue.TurnEnvelope.Read(m, w.limits)
			if err != nil {
				return learned{}, false, err
			}
			ms, err := w.mentions(ctx, &t)
			if err != nil {
				return learned{}, false, err
			}
			l := learned{claim: store.ClaimOf(&t), mentions: ms, stated: w.statements(&t), again: m.Deliveries > 1}
			picked, err := w.choice(ctx, &t)
			l.stated = append(l.stated, picked...)
			return l, len(l.mentions)+len(l.stated) > 0, err
		},
		Admit: worker.OwnSessions(w.store, func(l *learned) store.SessionClaim { return l.claim }),
		Store: func(ctx context.Context, all []learned) error {
			var batch []store.Mention
			var stated []store.AssertionRow
			for _, l := range all {
				batch, stated = append(batch, l.mentions...), append(stated, l.stated...)
			}
			w.embedStatements(ctx, stated)
			// Both writes are idempotent: a batch retried after the first
			// succeeded changes nothing twice.
			if err := w.recordStatements(ctx, all, stated); err != nil {
				return err
			}
			if len(batch) == 0 {
				return nil
			}
			// After the batch's own statements are stored, so that a name
			// stated in one of its turns counts for the turns after it.
			batch, err := w.withoutOwnNames(ctx, batch)
			if err != nil {
				return err
			}
			if len(batch) == 0 {
				return nil
			}
			entries, err := w.factEntries(ctx, batch)
			if err != nil {
				return err
			}
			rec, err := w.store.RecordMentionsIndexed(ctx, batch, entries)
			if err != nil {
				return err
			}
			if err := w.tellFacts(ctx, all, rec.Created); err != nil {
				return err
			}
			return w.refresh(ctx, batch)
		},
		Log: w.log,
	}.Handle(ctx, msgs)
}

// recordStatements stores what the users said of themselves (stated, the
// rows of all) and publishes the changes that made to their attributes: of
// the rows stored now, and of every row of a redelivered turn, whose first
// handling may have stored them and then failed before its changes were
// published (the stream drops those it has already). When that publish
// fails, the statements are stored and every turn of the batch is retried
// (ValueErrors: the batch is not stored again one turn at a time in this
// delivery, which would find nothing new and publish nothing).
func (w *Worker) recordStatements(ctx context.Context, all []learned, stated []store.AssertionRow) error {
	changed, err := w.store.RecordAssertionsNew(ctx, stated)
	if err != nil {
		return err
	}
	for _, l := range all {
		if l.again {
			changed = append(changed, l.stated...)
		}
	}
	cs, err := changefeed.Attributes(ctx, w.store, w.schemas, changed)
	if err == nil {
		err = w.changes.Publish(ctx, cs)
	}
	if err != nil {
		errs := make(queue.ValueErrors, len(all))
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	return nil
}

// tellFacts publishes the facts first mentioned: those the batch created,
// and those that a redelivered turn's mentions created (its first handling
// may have stored them and failed before it told; the stream drops what it
// has). When that fails, every turn of the batch is retried (ValueErrors,
// as recordStatements).
func (w *Worker) tellFacts(ctx context.Context, all []learned, created []store.FactRow) error {
	var again []store.Mention
	for _, l := range all {
		if l.again {
			again = append(again, l.mentions...)
		}
	}
	err := func() error {
		byTenant := map[string][]store.Mention{}
		for _, m := range again {
			byTenant[m.TenantID] = append(byTenant[m.TenantID], m)
		}
		for tenant, ms := range byTenant {
			fs, err := w.store.Tenant(tenant).FirstMentioned(ctx, ms)
			if err != nil {
				return err
			}
			created = append(created, fs...)
		}
		return w.changes.Publish(ctx, changefeed.FactsNew(created))
	}()
	if err != nil {
		errs := make(queue.ValueErrors, len(all))
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	return nil
}

// factEntries are the search entries of the mentioned facts, one per fact
// of the batch by its newest mention (stored with the mentions, so an older
// one replayed late changes nothing). An embedder that fails leaves them
// findable by their terms.
func (w *Worker) factEntries(ctx context.Context, ms []store.Mention) ([]store.SearchEntry, error) {
	if w.index == nil {
		return nil, nil
	}
	newest := map[[4]string]int{}
	var entries []store.SearchEntry
	for _, m := range ms {
		e := search.MentionEntry(m)
		k := [4]string{e.TenantID, e.UserID, e.Kind, e.SourceID}
		if i, ok := newest[k]; ok {
			if e.Revision > entries[i].Revision {
				entries[i] = e
			}
			continue
		}
		newest[k] = len(entries)
		entries = append(entries, e)
	}
	if err := w.index.Prepare(ctx, entries); err != nil && !errors.Is(err, search.ErrEmbed) {
		return nil, fmt.Errorf("index facts: %w", err)
	}
	return entries, nil
}

// refresh asks for the profiles of the mentioned users to be recomputed. It is
// published for every mentioned user, not only for facts that changed: after a
// failed publish the redelivered turns change nothing in the database, and the
// task must still go out. The debounce keeps this to one task per user per bucket.
func (w *Worker) refresh(ctx context.Context, ms []store.Mention) error {
	if w.refresher == nil {
		return nil
	}
	newest := map[store.UserRef]time.Time{}
	var order []store.UserRef
	for _, m := range ms {
		u := store.UserRef{TenantID: m.TenantID, UserID: m.UserID}
		at, seen := newest[u]
		if !seen {
			order = append(order, u)
		}
		if m.OccurredAt.After(at) {
			newest[u] = m.OccurredAt
		}
	}
	tasks := make([]events.ProfileTask, len(order))
	for i, u := range order {
		tasks[i] = events.ProfileTask{TenantID: u.TenantID, UserID: u.UserID, RequestedAt: newest[u]}
	}
	if _, err := w.refresher.Publish(ctx, tasks); err != nil {
		return fmt.Errorf("publish profile refresh: %w", err)
	}
	return nil
}

// learned is what one turn taught: interest facts, and what the user said of
// themselves.
type learned struct {
	// claim is the turn's claim on its session (worker.OwnSessions).
	claim    store.SessionClaim
	mentions []store.Mention
	stated   []store.AssertionRow
	// again: the turn was delivered before (its changes are published
	// again, for the stream to drop those it has).
	again bool
}

// statements reads what a user's turn says of the user and asks of the
// assistant (stated.Extract), as assertions of source stated with the turn
// as evidence. A value the tenant's schema has no key for, or refuses, is
// left out and counted.
func (w *Worker) statements(t *events.Turn) []store.AssertionRow {
	if !w.cfg.Stated || t.Role != events.RoleUser || strings.TrimSpace(t.Content) == "" {
		return nil
	}
	var out []store.AssertionRow
	schema := w.schemas.For(t.TenantID)
	for _, st := range stated.Extract(t.Content) {
		a := attribute.Assertion{Key: st.Key, Value: st.Value, Op: attribute.Put, Source: attribute.Stated, EventID: t.ID,
			Evidence: []string{t.ID}, SessionID: t.SessionID, Confidence: st.Confidence, At: t.OccurredAt}
		if err := attribute.Normalize(schema, &a); err != nil {
			w.metrics.stated.WithLabelValues(st.Key, "refused").Inc()
			continue
		}
		w.metrics.stated.WithLabelValues(st.Key, "read").Inc()
		out = append(out, store.AssertionRow{TenantID: t.TenantID, UserID: t.UserID, Assertion: a})
	}
	// Every self-statement, in the user's words, one item per matter: a
	// newer statement on the same matter supersedes the older.
	for _, st := range stated.Self(t.Content) {
		a := attribute.Assertion{Key: attribute.KeyStatements, Item: attribute.ItemKey(st.Matter), Value: st.Text, Op: attribute.Put,
			Source: attribute.Stated, EventID: t.ID, Evidence: []string{t.ID}, SessionID: t.SessionID, Confidence: st.Strength, At: t.OccurredAt}
		if err := attribute.Normalize(schema, &a); err != nil {
			w.metrics.stated.WithLabelValues(attribute.KeyStatements, "refused").Inc()
			continue
		}
		w.metrics.stated.WithLabelValues(attribute.KeyStatements, "read").Inc()
		out = append(out, store.AssertionRow{TenantID: t.TenantID, UserID: t.UserID, Assertion: a})
	}
	return out
}

// embedStatements gives the self-statements among rows their embedding,
// with an embedder: a context whose message the search embedded measures
// them against it. An embedder that fails leaves them without (counted and
// logged): they are still matched by their domains and terms, and a replay
// with a working embedder adds the vectors.
func (w *Worker) embedStatements(ctx context.Context, rows []store.AssertionRow) {
	if w.emb == nil {
		return
	}
	var at []int
	var texts []string
	for i := range rows {
		if rows[i].Key == attribute.KeyStatements && rows[i].Op == attribute.Put {
			at, texts = append(at, i), append(texts, rows[i].Value)
		}
	}
	if len(texts) == 0 {
		return
	}
	vecs, err := w.emb.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
	}
	if err != nil {
		w.metrics.stated.WithLabelValues(attribute.KeyStatements, "unembedded").Add(float64(len(texts)))
		w.log.Warn("statements stored without embeddings", "statements", len(texts), "err", err)
		return
	}
	model := w.emb.Model()
	for k, i := range at {
		rows[i].Embedding, rows[i].Model = vecs[k], model
	}
}

// mentions runs the extractor over what the turn contributes.
func (w *Worker) mentions(ctx context.Context, t *events.Turn) ([]store.Mention, error) {
	if !w.roles[t.Role] {
		w.metrics.turns.WithLabelValues("skipped_role").Inc()
		return nil, nil
	}
	text := t.Content
	if w.cfg.ToolResults {
		for _, tc := range t.ToolCalls {
			text += "\n" + strings.Join(tc.ResultStrings(), "\n")
		}
	}
	if strings.TrimSpace(text) == "" {
		w.metrics.turns.WithLabelValues("empty").Inc()
		return nil, nil
	}
	ex := w.ex
	gaz, err := w.catalog.get(ctx, t.TenantID)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if gaz != nil {
		// The catalog first: a known item's own kind wins over a guess.
		ex = extract.Combine(gaz, w.ex)
	}
	facts, err := ex.Extract(ctx, extract.Input{Text: text})
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	// Whatever found them (the model, the catalog, the rules), the names
	// the turn gives its own people are no interests (extract.Screen).
	if facts, err = extract.Screen(text, facts); err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	w.metrics.turns.WithLabelValues("extracted").Inc()
	out := make([]store.Mention, 0, len(facts))
	for _, f := range facts {
		if f.Value == "" {
			continue
		}
		w.metrics.facts.WithLabelValues(string(f.Kind)).Inc()
		source := w.source
		if f.Source != "" { // answered by a fallback
			source = f.Source
		}
		out = append(out, store.Mention{
			TenantID: t.TenantID, EventID: t.ID, UserID: t.UserID, SessionID: t.SessionID,
			Type: string(f.Kind), Value: f.Value, Display: f.Display,
			OccurredAt: t.OccurredAt, ExpiresAt: t.OccurredAt.Add(w.cfg.TTLFor(string(f.Kind))),
			Source: source,
		})
	}
	return out, nil
}

// ownNameKeys are the attribute keys whose values name the conversation's own
// people: the name the user goes by, the name they gave the assistant.
var ownNameKeys = []string{"name", "assistant_name"}

// withoutOwnNames leaves out the mentions whose value is a name their user
// goes by or gave the assistant, as their attributes stood when the turn was
// said (its assertions of ownNameKeys up to the turn's time, resolved by the
// tenant's schema): "Anna" is no interest of a user called Anna, nor "Max"
// of one whose assistant is Max, in whatever words a later turn says it.
// One read per tenant of the batch; the time rule makes a replay leave out
// the same mentions.
func (w *Worker) withoutOwnNames(ctx context.Context, ms []store.Mention) ([]store.Mention, error) {
	users := map[string][]string{} // tenant -> users
	seen := map[store.UserRef]bool{}
	for _, m := range ms {
		u := store.UserRef{TenantID: m.TenantID, UserID: m.UserID}
		if !seen[u] {
			seen[u] = true
			users[m.TenantID] = append(users[m.TenantID], m.UserID)
		}
	}
	asserted := map[store.UserRef][]attribute.Assertion{}
	for tenant, ids := range users {
		byUser, err := w.store.Tenant(tenant).AssertionsOfKeys(ctx, ids, ownNameKeys)
		if err != nil {
			return nil, fmt.Errorf("own names: %w", err)
		}
		for id, as := range byUser {
			asserted[store.UserRef{TenantID: tenant, UserID: id}] = as
		}
	}
	if len(asserted) == 0 {
		return ms, nil
	}
	type userAt struct {
		store.UserRef
		at time.Time
	}
	names := map[userAt]map[string]bool{}
	kept := ms[:0]
	for _, m := range ms {
		u := store.UserRef{TenantID: m.TenantID, UserID: m.UserID}
		as := asserted[u]
		if len(as) == 0 {
			kept = append(kept, m)
			continue
		}
		k := userAt{u, m.OccurredAt}
		own, ok := names[k]
		if !ok {
			own = namesAt(w.schemas.For(m.TenantID), as, m.OccurredAt)
			names[k] = own
		}
		if !own[m.Value] {
			kept = append(kept, m)
		}
	}
	return kept, nil
}

// namesAt are the current values, as of at, of the assertions as (of
// ownNameKeys), normalized as facts' values are.
func namesAt(schema *attribute.Schema, as []attribute.Assertion, at time.Time) map[string]bool {
	var before []attribute.Assertion
	for _, a := range as {
		if !a.At.After(at) {
			before = append(before, a)
		}
	}
	out := map[string]bool{}
	for _, v := range attribute.Resolve(schema, before).Current {
		if n := extract.Normalize(v.Value); n != "" {
			out[n] = true
		}
	}
	return out
}
