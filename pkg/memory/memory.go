// Package memory is Recall's memory service: what a front door asks of
// Recall's memory (add turns, the context for the next prompt, a search of a
// user's history, sessions, lists and items, profiles, forgetting) over the
// store, the search and the streams. The HTTP API, the MCP tools and any
// further front door call it in-process; each keeps only its own transport,
// authentication and mapping of errors.
//
// Every call is scoped to one tenant, and speaks pkg/contract: parameters
// arrive as values (contract.ContextParams and contract.SearchParams,
// parsed turns, counts, pages and flags: params.go), are checked here once
// for every front door, and answers are contract types. Reading a
// request's text into those values is the front door's part (the HTTP API's
// queries and bodies: pkg/api). A request the caller got wrong is a
// *contract.Error naming each field; any other error is the service's own
// failure, which the front door reports without details.
package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// Config is the memory service's part of the API's config: what a context
// holds where a request leaves it open (its window, facts, summaries and
// budget), and how long a publish of turns may wait. api.Config embeds it.
type Config struct {
	// ContextMaxMessages, ContextMaxChars and ContextTTL are the session
	// window's defaults, which a request may override: the last messages,
	// their characters, and how old a message may be; ContextLang is the
	// language the prompt block is written in (zh, en, or auto: the
	// conversation's).
	ContextMaxMessages int           `env:"CONTEXT_MAX_MESSAGES" envDefault:"10"`
	ContextMaxChars    int           `env:"CONTEXT_MAX_CHARS" envDefault:"4000"`
	ContextTTL         time.Duration `env:"CONTEXT_TTL" envDefault:"24h"`
	ContextLang        string        `env:"CONTEXT_LANG" envDefault:"auto"`
	// ContextMaxFacts is how many of the user's strongest interest facts the
	// context carries; -1 for none.
	ContextMaxFacts int `env:"CONTEXT_MAX_FACTS" envDefault:"10"`
	// ContextMaxSummaries is how many summaries of the user's previous
	// sessions the context carries; -1 for none. A request may ask for 0–20
	// (max_summaries).
	ContextMaxSummaries int `env:"CONTEXT_MAX_SUMMARIES" envDefault:"3"`
	// ContextBudget is the context's total character budget, spent on the
	// current list, the window, the summaries and the facts in that order;
	// -1 for none.
	ContextBudget int `env:"CONTEXT_BUDGET_CHARS" envDefault:"8000"`

	// PublishTimeout bounds waiting for JetStream to store a POST's turns:
	// while NATS is away the answer is 503 with what was and was not stored
	// (accepted and failed), not a request that hangs.
	PublishTimeout time.Duration `env:"API_PUBLISH_TIMEOUT" envDefault:"5s"`
	// TurnWait is how long a POST of turns that asks to wait (?wait=stored
	// or searchable) without a timeout= waits for it; TurnWaitMax is the
	// most a timeout= may ask for (more is a 400). Keep it well under
	// API_WRITE_TIMEOUT, which bounds the whole answer.
	TurnWait    time.Duration `env:"API_TURN_WAIT" envDefault:"2s"`
	TurnWaitMax time.Duration `env:"API_TURN_WAIT_MAX" envDefault:"10s"`

	// Attributes are the schemas attributes are judged and shown by
	// (ATTRIBUTE_SCHEMA_FILE).
	Attributes attribute.Config
	// ContextAttributesChars caps the characters who the user is and what
	// they asked for may take of the context's budget; it comes first, so
	// this bounds what it can take from the other parts; -1: no cap of its
	// own. Formerly CONTEXT_PROFILE_CHARS, still read while this is unset
	// (deprecated: it goes in the next minor release).
	ContextAttributesChars int `env:"CONTEXT_ATTRIBUTES_CHARS" envOld:"CONTEXT_PROFILE_CHARS" envDefault:"800"`
	// ContextStatementChars caps the characters the user's own standing
	// statements (the attributes' statements: "I avoid hotels downtown",
	// "my son can't have nuts") may take, after the attributes' keys: those
	// that bear on the current message first, then the strongest whatever
	// the message. A message that does not ask for advice or the
	// assistant's judgment (a recommendation, a suggestion, a plan, "what
	// do you think?") but about what happened ("how many days ago did
	// I…") gives them a third of it, out of what the history its answer is
	// in and the other parts leave. -1: none are shown.
	ContextStatementChars int `env:"CONTEXT_STATEMENT_CHARS" envDefault:"1200"`
	// ContextRecalledShare is the most the recalled part may take of what
	// the attributes, the current list and the window leave of the budget
	// when the sessions' summaries and the interest facts would use the
	// rest (they are held the rest, at most what they need); 1: the
	// recalled part may take it all, which a query with many matches
	// always does. At 0.95 of 8000 characters the newest earlier session's
	// summary keeps its place. Measured (docs/benchmarks.md, History):
	// every share held lowers the evals' evidence a little, since their
	// evidence is turns: 0.95 cost LongMemEval 0.005 and LoCoMo 0.009.
	ContextRecalledShare float64 `env:"CONTEXT_RECALLED_SHARE" envDefault:"0.95"`
	// ContextAttributesDerived puts the values derived from usage (active
	// hours, message length, languages used, channels) in the context's
	// attributes part too. Off, they are in the attributes route and the
	// inspector only: on LongMemEval they took some 90 characters of every
	// prompt and cost evidence (docs/benchmarks.md, History), and what the
	// user said of themselves or asked for is what a reply needs. Formerly
	// CONTEXT_PROFILE_DERIVED, still read while this is unset (deprecated:
	// it goes in the next minor release).
	ContextAttributesDerived bool `env:"CONTEXT_ATTRIBUTES_DERIVED" envOld:"CONTEXT_PROFILE_DERIVED" envDefault:"false"`
	// ContextAttributesCacheMB is how much of the API's memory, in MB,
	// keeps the assertions of the users whose contexts were read lately
	// and their resolved attributes, by their revision: a context reads
	// them again only once the user's assertions moved. A user's newest
	// 1,000 self-statements take about half a MB; measured
	// (docs/benchmarks.md, History), a context of a user with that many
	// cost 1.4 ms of the database and about 2 ms of the API less. 0 means
	// 32; negative keeps none.
	ContextAttributesCacheMB int `env:"CONTEXT_ATTRIBUTES_CACHE_MB" envDefault:"32"`

	// Config is the history search's part (CONTEXT_RECALL_*,
	// CONTEXT_MAX_RECALLED, SEARCH_EMBED_TIMEOUT): how the context recalls,
	// and how long a query's embedding may take.
	search.Config
}

// WithDefaults fills what is unset (zero) with the documented defaults,
// leaving the -1s that turn a part off.
func (c Config) WithDefaults() Config {
	d := envconfig.Defaults[Config]()
	if c.ContextMaxMessages <= 0 {
		c.ContextMaxMessages = d.ContextMaxMessages
	}
	if c.ContextLang == "" {
		c.ContextLang = d.ContextLang
	}
	if c.ContextMaxFacts == 0 {
		c.ContextMaxFacts = d.ContextMaxFacts
	}
	if c.ContextBudget == 0 {
		c.ContextBudget = d.ContextBudget
	}
	if c.ContextMaxSummaries == 0 {
		c.ContextMaxSummaries = d.ContextMaxSummaries
	}
	if c.PublishTimeout <= 0 {
		c.PublishTimeout = d.PublishTimeout
	}
	if c.TurnWaitMax <= 0 {
		c.TurnWaitMax = d.TurnWaitMax
	}
	if c.TurnWait <= 0 {
		c.TurnWait = min(d.TurnWait, c.TurnWaitMax)
	}
	if c.ContextAttributesChars == 0 {
		c.ContextAttributesChars = d.ContextAttributesChars
	}
	if c.ContextStatementChars == 0 {
		c.ContextStatementChars = d.ContextStatementChars
	}
	if c.ContextMaxRecalled == 0 {
		c.ContextMaxRecalled = d.ContextMaxRecalled
	}
	if c.ContextRecallIDFPower <= 0 {
		c.ContextRecallIDFPower = d.ContextRecallIDFPower
	}
	if c.ContextRecalledShare <= 0 || c.ContextRecalledShare > 1 {
		c.ContextRecalledShare = d.ContextRecalledShare
	}
	if c.ContextAttributesCacheMB == 0 {
		c.ContextAttributesCacheMB = d.ContextAttributesCacheMB
	}
	return c
}

// Options are the service's dependencies.
type Options struct {
	Config Config
	// Limits judge turns and ids as the workers do; the zero value means
	// events.DefaultLimits.
	Limits   events.Limits
	Store    *store.Store
	JS       jetstream.JetStream
	Searcher *search.Searcher
	// Decay ranks facts by their weight now.
	Decay *decay.Policy
	Log   *slog.Logger
	// Now is the clock for TTL, weights and skew checks; nil means time.Now.
	Now func() time.Time
	// Turns, when set, is told the outcome of every turn offered (accepted,
	// duplicate, rejected, failed) and how many: the front door's metrics.
	Turns func(outcome string, n int)
}

// Service is the memory service. It is safe for concurrent use.
type Service struct {
	cfg      Config
	limits   events.Limits
	store    *store.Store
	js       jetstream.JetStream
	pub      *queue.Publisher
	searcher *search.Searcher
	policy   *decay.Policy
	schemas  *attribute.Schemas
	log      *slog.Logger
	now      func() time.Time
	turns    func(outcome string, n int)
	// floors caches the turn stream's consumer floors for a moment, so
	// that many waits and status reads share one listing.
	floors floorCache
	// attrCache keeps the users' assertions and attributes by revision
	// (CONTEXT_ATTRIBUTES_CACHE_MB); nil keeps none.
	attrCache *attributesCache
}

// New builds the service; a configuration it cannot serve (an unknown
// context language) is an error here, at start.
func New(o Options) (*Service, error) {
	cfg := o.Config.WithDefaults()
	if !validLang(cfg.ContextLang) {
		return nil, fmt.Errorf("CONTEXT_LANG: %q is not one of en, zh, auto", cfg.ContextLang)
	}
	if o.Decay == nil {
		return nil, errors.New("memory: no decay policy")
	}
	if cfg.TurnWait > cfg.TurnWaitMax {
		return nil, fmt.Errorf("API_TURN_WAIT (%s) is over API_TURN_WAIT_MAX (%s)", cfg.TurnWait, cfg.TurnWaitMax)
	}
	schemas, err := cfg.Attributes.Schemas()
	if err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, limits: o.Limits, store: o.Store, js: o.JS, pub: queue.NewPublisher(o.JS),
		searcher: o.Searcher, policy: o.Decay, schemas: schemas, log: o.Log, now: o.Now, turns: o.Turns,
		attrCache: newAttributesCache(cfg.ContextAttributesCacheMB << 20)}
	if s.limits == (events.Limits{}) {
		s.limits = events.DefaultLimits
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.turns == nil {
		s.turns = func(string, int) {}
	}
	return s, nil
}

// Limits are the limits turns and ids are judged by.
func (s *Service) Limits() events.Limits { return s.limits }

// ValidID reports whether an id from a header, path or query is non-empty
// valid UTF-8 without control characters, within the id limit (0: no limit,
// as in events.ValidateTurn), i.e. an id a stored event can have.
func (s *Service) ValidID(v string) bool {
	return v != "" && utf8.ValidString(v) && (s.limits.MaxIDBytes <= 0 || len(v) <= s.limits.MaxIDBytes) &&
		!strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// checkID appends a field error when id is not one ValidID accepts, or is
// "." or "..", which no turn, user or session can have (events.IsDotID).
func (s *Service) checkID(name, id string, fe *[]contract.FieldError) {
	switch {
	case !s.ValidID(id):
		*fe = append(*fe, contract.FieldError{Field: name, Message: fmt.Sprintf("required, valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)})
	case events.IsDotID(id):
		*fe = append(*fe, contract.FieldError{Field: name, Message: events.DotIDMessage(id)})
	}
}

// validLang reports whether lang is a language the prompt is rendered in.
func validLang(lang string) bool {
	switch lang {
	case assemble.LangEN, assemble.LangZH, assemble.LangAuto:
		return true
	}
	return false
}

// IDError is the answer to a path id (session_id, user_id, a turn's id)
// that is not one.
func (s *Service) IDError(name, id string) error {
	var fe []contract.FieldError
	s.checkID(name, id, &fe)
	if fe == nil {
		return nil
	}
	return contract.Invalid("invalid "+strings.ReplaceAll(name, "_", " "), fe...)
}

// read runs fn on one tenant's view of the store the API's reads go to: a
// usable read replica, else the primary (store.Store.Read), so fn may run
// twice and must set its results. Only reads that may be a moment behind
// the writes (at most DATABASE_READ_MAX_LAG) go through it: a turn posted
// reaches the database through the stream and the ingest worker anyway, so
// no read of what a turn stored was ever sure to see it at once. Writes,
// and reads that decide a write or wait for one (turn dedupe, unseen items,
// summarize, forget, a session's delete), use s.store, the primary.
func (s *Service) read(ctx context.Context, tenant string, fn func(t *store.Tenant) error) error {
	return s.store.Read(ctx, func(r *store.Store) error { return fn(r.Tenant(tenant)) })
}

// invalid is the answer to parameters with field errors, nil without.
func invalid(msg string, fe []contract.FieldError) error {
	if len(fe) == 0 {
		return nil
	}
	return contract.Invalid(msg, fe...)
}

// noSession is the answer for a session the tenant does not have.
var noSession = contract.Errorf(contract.CodeNotFound, "no such session")

// readError turns a failed session read into the answer for a session the
// tenant does not have, or passes the failure on.
func readError(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return noSession
	}
	return err
}

// nonNil is s, or an empty slice for nil, so that JSON says [] rather than
// null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
