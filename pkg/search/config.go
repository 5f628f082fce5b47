package search

import (
	"time"

	"github.com/recallhq/recall/pkg/store"
)

// Config is the history search's part of the API's config: how many hits a
// context recalls for its query and how they are chosen (per session,
// kinds, neighbours), how long a snippet may be, and how long a query's
// embedding may take. memory.Config embeds it (and api.Config that), so
// the variables and their defaults are those of the API (its env tags are
// the one place the defaults live).
type Config struct {
	// ContextMaxRecalled is how many hits of the history search the context
	// may carry for its query; the budget decides how many fit. At 8000
	// characters 60 fill the budget once only the first hits bring their
	// neighbours (see ContextRecallNeighbors); each hit more is search work
	// the budget then throws away; -1 none.
	ContextMaxRecalled int `env:"CONTEXT_MAX_RECALLED" envDefault:"60"`
	// ContextRecallSnippet bounds one recalled snippet, in characters, so a
	// long turn cannot take the room of several short ones (its passage
	// that matches the query is kept: ContextRecallPassages); 0 whole.
	// 300 rather than 400 since long hits stand alone
	// (ContextRecallNeighborsUpTo): LongMemEval 0.906 -> 0.919 evidence,
	// 0.955 -> 0.964 sessions, answer tokens 0.747 -> 0.748; LoCoMo, whose
	// turns are short, 0.824 / 0.794 -> 0.825 / 0.791 (docs/benchmarks.md).
	ContextRecallSnippet int `env:"CONTEXT_RECALL_SNIPPET_CHARS" envDefault:"300"`
	// ContextRecallAssistantSnippet bounds the snippet of an assistant's
	// turn found, or shown as the reply to a turn found, for a message that
	// points back at what the assistant said ("remind me what you
	// suggested", 你之前推荐的; RefersToAssistant): the answer is inside that
	// turn, often past a snippet's length. At most ContextRecallSnippet
	// when smaller. 800 (docs/benchmarks.md):
	// LongMemEval answer tokens 0.748 -> 0.752 and answer hits 0.556 ->
	// 0.564 with the same evidence; 1500 the same as 800; LoCoMo as it was.
	ContextRecallAssistantSnippet int `env:"CONTEXT_RECALL_ASSISTANT_SNIPPET_CHARS" envDefault:"800"`
	// ContextRecallNeighborSnippet bounds the snippet of a turn shown as a
	// hit's neighbour (the question before it, the reply after it), which
	// is there to read the hit by, not for itself: the room it leaves
	// holds more hits (docs/benchmarks.md, History); 0: the hits' length.
	ContextRecallNeighborSnippet int `env:"CONTEXT_RECALL_NEIGHBOR_SNIPPET_CHARS" envDefault:"0"`
	// ContextRecallFeedback is how much the terms added to the query of a
	// message that asks for a count or a total (AsksCount: "how many…",
	// "in total", 一共, 几) weigh, the best of them, as a fraction of a
	// term of the message (Feedback): such a message needs a turn in each
	// of several conversations, which seldom share its words ("doctors"
	// against "my ENT specialist, Dr. Patel") but do share words with the
	// user's turns it finds first; 0: no feedback. The rows the search
	// read are then ranked a second time, with the terms added (one scan:
	// search.Plan.Rank). Not for the time between two moments ("how
	// many days ago did I…", AsksCount). Chosen with make eval-longmem and make
	// eval-context (docs/benchmarks.md, History): LongMemEval multi-session
	// evidence 0.865 -> 0.912, their sessions 0.919 -> 0.961, evidence
	// 0.939 -> 0.949; LoCoMo as it was (0.837 / 0.816).
	ContextRecallFeedback float64 `env:"CONTEXT_RECALL_FEEDBACK" envDefault:"1.5"`
	// ContextRecallFeedbackDocs is how many of the user's turns found first
	// the added terms are taken from (ContextRecallFeedback).
	ContextRecallFeedbackDocs int `env:"CONTEXT_RECALL_FEEDBACK_DOCS" envDefault:"20"`
	// ContextRecallFeedbackTerms is how many terms are added
	// (ContextRecallFeedback), at most 100.
	ContextRecallFeedbackTerms int `env:"CONTEXT_RECALL_FEEDBACK_TERMS" envDefault:"20"`
	// ContextRecallPassages shows, of a turn longer than the snippet, its
	// opening and then the passage that matches the message best (the
	// sentence holding most of its terms, and what follows), instead of
	// its first characters only: in a long answer the sentence a message
	// needs is often far from the start (docs/benchmarks.md, History). A
	// sentence too long to show whole is shown from just before its
	// matches, and the entry of a numbered list that the message names by
	// its position ("what was the fifth bottle you recommended?", 第三本)
	// comes first: LongMemEval answer tokens 0.757 -> 0.769, those of the
	// questions about what the assistant said 0.880 -> 0.963.
	ContextRecallPassages bool `env:"CONTEXT_RECALL_PASSAGES" envDefault:"true"`
	// ContextRecallDates follows each recalled turn that says "yesterday",
	// "last week", "two days ago", 上周五 or 去年 with what those meant on
	// the day it was said ("[yesterday: Sun 7 May 2023]"): its line is
	// dated, but working the day out from the date for each of dozens of
	// lines is where a model reading them goes wrong. make eval-context
	// (docs/benchmarks.md, History): LoCoMo answer tokens 0.795 -> 0.815,
	// its temporal questions' 0.773 -> 0.880; evidence 0.838 -> 0.837 for
	// the room the notes take.
	ContextRecallDates bool `env:"CONTEXT_RECALL_DATES" envDefault:"true"`
	// ContextRecallPerSession caps the recalled hits of one earlier session,
	// so one long session cannot fill the part. The search's own default
	// (3) lost evidence on LoCoMo, whose answers gather in a few sessions;
	// 8 kept it all (docs/benchmarks.md, History).
	ContextRecallPerSession int `env:"CONTEXT_RECALL_PER_SESSION" envDefault:"8"`
	// ContextRecallNeighbors is how many of the first hits bring the turns
	// just before and after them: an answer is often the reply to the turn
	// found, or the question before it. Deeper hits are less likely what
	// the message needs, and their neighbours less still, so there the
	// budget buys more hits instead (chosen with make eval-context:
	// docs/benchmarks.md, History); 0 none.
	ContextRecallNeighbors int `env:"CONTEXT_RECALL_NEIGHBORS" envDefault:"10"`
	// ContextRecallWide is how many of those first hits bring two turns on
	// each side instead of one: a question asked, its answer and the reply
	// to it often run over three or four turns, and the best hits are the
	// likeliest to be the conversation the message is about (chosen with
	// make eval-context: docs/benchmarks.md, History); 0 none.
	ContextRecallWide int `env:"CONTEXT_RECALL_WIDE" envDefault:"4"`
	// ContextRecallNeighborsUpTo is the longest hit (in characters) that
	// brings its neighbours: a short turn ("yes, that one", "what about
	// the second?") says little without the turns around it, a long one
	// stands on its own, and its neighbours' lines would buy other hits
	// instead. 0: any hit, whatever its length. Chosen with make
	// eval-longmem and make eval-context (docs/benchmarks.md, History):
	// 200 gave LongMemEval's long turns 0.880 -> 0.911 evidence and
	// 0.928 -> 0.961 sessions, and left LoCoMo's short ones as they were.
	ContextRecallNeighborsUpTo int `env:"CONTEXT_RECALL_NEIGHBORS_UP_TO" envDefault:"200"`
	// ContextRecallKinds are the kinds of entries the context recalls:
	// message, summary, fact.
	ContextRecallKinds []string `env:"CONTEXT_RECALL_KINDS" envDefault:"message,summary,fact" envSeparator:","`
	// ContextRecallUserWeight lifts the user's own turns over the
	// assistant's in what the context recalls, as a fraction of their score,
	// unless the message points back at what the assistant said ("you
	// recommended…", "remind me…", "你之前推荐的…"): the user's statements about
	// themselves are what a request for advice needs, and the assistant's
	// long answers crowd them out (chosen with make eval-longmem:
	// docs/benchmarks.md); 0 none.
	ContextRecallUserWeight float64 `env:"CONTEXT_RECALL_USER_WEIGHT" envDefault:"0.3"`
	// ContextRecallSelfWeight is ContextRecallUserWeight for a message in
	// which the user speaks of themselves ("how many hours have I
	// spent…", "what did I say my…", 我上次…; AboutUser): what it asks
	// about is what the user said of themselves, not what the assistant
	// answered, and the assistant's turns that share its words crowd the
	// budget. A message that points back at the assistant gets no lift
	// all the same. Chosen with make eval-longmem and make eval-context
	// (docs/benchmarks.md, History); below ContextRecallUserWeight: that.
	ContextRecallSelfWeight float64 `env:"CONTEXT_RECALL_SELF_WEIGHT" envDefault:"1"`
	// ContextRecallIDFPower weighs the terms of the message the context
	// recalls for by their IDF raised to this power (Params.IDFPower; 1:
	// BM25 as it is): a chat message says much besides what it asks about,
	// and its rare words are what tells the turns it needs. 2 weighs a
	// query term as the classic tf-idf vector space does (its IDF on both
	// sides); a number's is left as it is. Chosen with make eval-longmem
	// and make eval-context (docs/benchmarks.md, History): LongMemEval
	// evidence 0.918 -> 0.932, its preference questions 0.794 -> 0.912,
	// multi-session 0.836 -> 0.856, answer tokens 0.749 -> 0.744; LoCoMo
	// 0.825 / 0.791 -> 0.826 / 0.789.
	ContextRecallIDFPower float64 `env:"CONTEXT_RECALL_IDF_POWER" envDefault:"2"`
	// ContextRecallSessionWeight lifts each recalled turn that matches the
	// message by how well its whole session does, read as one document
	// (Params.SessionWeight): the best session adds this fraction of the
	// best turn's lexical score. A question's words are often spread over
	// the conversation that answers it, and a turn of a conversation that
	// holds them all is likelier the answer than the same words alone in a
	// talk about something else. Chosen with make eval-context and make
	// eval-longmem (docs/benchmarks.md, History): LoCoMo 0.826 / 0.789 ->
	// 0.838 / 0.795; LongMemEval (kept database) evidence 0.927 -> 0.926,
	// answer tokens 0.766 -> 0.769, temporal 0.912 -> 0.925; 0 none.
	ContextRecallSessionWeight float64 `env:"CONTEXT_RECALL_SESSION_WEIGHT" envDefault:"0.4"`
	// ContextRecallTimeWeight weighs, in the fusion, the list of what
	// happened when the message says ("what did I do last Saturday?", "the
	// milestone I mentioned four weeks ago", "in the past month", "in
	// March", 上个月;
	// when.MessageTimes, read at the context's time in the user's
	// zone) against the lexical list's 1, times the share of the history
	// the span leaves out (Params.DuringWeight): the message's words alone
	// find the same kind of thing said on other days, and miss what was
	// done then in other words. The time's own words are not searched for.
	// It lifts, it does not filter: a "four weeks ago" that was five still
	// counts. make eval-longmem (docs/benchmarks.md, History): temporal
	// evidence 0.928 -> 0.960, evidence 0.949 -> 0.957; 2 the same but a
	// session lost; with the months named ("in March"), LoCoMo 0.837 /
	// 0.817 -> 0.839 / 0.820. The search of GET /v1/users/{id}/search and
	// of the MCP tool search_memory reads its query's times the same way.
	// 0 none.
	ContextRecallTimeWeight float64 `env:"CONTEXT_RECALL_TIME_WEIGHT" envDefault:"1"`
	// ContextRecallAskedWeight weighs, in the fusion, the list of the
	// user's turns that hold the kind of answer the message asks for, told
	// by their form (search.MessageAsks: the user's age, "how old will I be
	// when ...", found in "I'm 32, so I'm in my 30s", which shares no word
	// with it), against the lexical list's 1, times the share of the
	// history the list leaves out (Params.AskedWeight). The search of GET
	// /v1/users/{id}/search and of the MCP tool search_memory lists them
	// the same way (each hit's asked_rank). 0 none.
	ContextRecallAskedWeight float64 `env:"CONTEXT_RECALL_ASKED_WEIGHT" envDefault:"1"`
	// SearchEmbedTimeout bounds embedding a query: past it the search goes
	// on by terms only, and the context says so.
	SearchEmbedTimeout time.Duration `env:"SEARCH_EMBED_TIMEOUT" envDefault:"500ms"`
	// SearchLargeUserEntries is the number of search entries (turns,
	// summaries, facts) from which a user's history is searched through
	// indexes rather than by a scan of every entry: the newest entries,
	// the holders of the message's rare terms and the sessions that hold
	// most of them (store.LargeSearch; docs/scaling.md, "One user's whole
	// life"). A scan costs about 10 µs an entry and finds exactly; the
	// indexes cost about the same at any size, what a scan of about 1,000
	// entries costs, and find a little less (make eval-longmem
	// -pad-sessions 120 and 200, users of about 1,600 and 2,600 entries:
	// evidence 0.922 and 0.915 against the scan's 0.933 and 0.918). The
	// switch is where the two cost the same, so that no user's context
	// costs much more than the largest's (BenchmarkOneUser: a user of
	// 1,400 turns, scanned, took p50 15 ms, read through the indexes 10 to
	// 12 ms, as a user of 100,000 does). 0: always scan.
	SearchLargeUserEntries int `env:"SEARCH_LARGE_USER_ENTRIES" envDefault:"1000"`
	// SearchLargeUserSample is how many of a large user's newest entries
	// its search reads: candidates themselves, and the sample each of the
	// message's terms' share of the history is estimated from. Each entry
	// read is one more to rank that is rarely the evidence: make
	// eval-longmem -pad-sessions 500 found 0.899 at 100 against 0.896 at
	// 200 (with 40 sessions), and the context of a user of 100,000 turns
	// took less time.
	SearchLargeUserSample int `env:"SEARCH_LARGE_USER_SAMPLE" envDefault:"100"`
	// SearchLargeUserBudget is the most entries the message's rare terms
	// may be estimated to be in, together, for a large user's search to
	// look up their holders (the rarest first; estimated from the sessions
	// of the sample that hold a term, each once, as the sample is mostly
	// the last few conversations); a term past it is too common to tell
	// the sessions apart.
	SearchLargeUserBudget int `env:"SEARCH_LARGE_USER_BUDGET" envDefault:"1000"`
	// SearchLargeUserSessions is how many sessions a large user's search
	// reads besides the newest entries': those whose entries hold the most
	// of the message's rare terms, weighed by their IDF and by how many of
	// the session's entries hold each (saturated, as BM25 weighs a term's
	// frequency in a document). More is not better: each session read
	// brings turns that share the message's words and outrank the
	// evidence (make eval-longmem -pad-sessions 500, with a sample of 200:
	// evidence 0.892 at 20, 0.901 at 30, 0.896 at 40).
	SearchLargeUserSessions int `env:"SEARCH_LARGE_USER_SESSIONS" envDefault:"30"`
	// SearchLargeUserCountSessions is SearchLargeUserSessions for a
	// message that asks for a count or a total (AsksCount): its answer is a
	// turn in each of several sessions, often sharing only the topic's
	// commoner words with the message, and the terms its first hits add
	// (ContextRecallFeedback) score only the entries read. make
	// eval-longmem -pad-sessions 500 (docs/benchmarks.md): multi-session
	// evidence 0.657 at 40, 0.729 at 80, 0.786 at 120; over the whole
	// padded set, with 30 sessions otherwise, 0.852 at 90 and 120, 0.846
	// at 160.
	SearchLargeUserCountSessions int `env:"SEARCH_LARGE_USER_COUNT_SESSIONS" envDefault:"120"`
}

// Large is the large users' search of this config (Params.Large).
func (cfg Config) Large() store.LargeSearch {
	if cfg.SearchLargeUserEntries <= 0 {
		return store.LargeSearch{}
	}
	return store.LargeSearch{From: cfg.SearchLargeUserEntries, Sample: max(cfg.SearchLargeUserSample, 1),
		Budget: max(cfg.SearchLargeUserBudget, 0), Sessions: max(cfg.SearchLargeUserSessions, 0), WholeSession: store.WholeSessionTurns}
}

// LargeFor is Large for a context's message: a count or a total reads
// SearchLargeUserCountSessions sessions.
func (cfg Config) LargeFor(message string) store.LargeSearch {
	l := cfg.Large()
	if l.From > 0 && AsksCount(message) {
		l.Sessions = max(cfg.SearchLargeUserCountSessions, l.Sessions)
	}
	return l
}

// Feedback is the query feedback for a context's message: none unless it
// asks for a count or a total.
func (cfg Config) Feedback(query string) FeedbackParams {
	if cfg.ContextRecallFeedback <= 0 || !AsksCount(query) {
		return FeedbackParams{}
	}
	return FeedbackParams{Docs: cfg.ContextRecallFeedbackDocs, Terms: cfg.ContextRecallFeedbackTerms, Weight: cfg.ContextRecallFeedback}
}
