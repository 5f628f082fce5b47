package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kljensen/snowball/english"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/summarize"
	"github.com/recallhq/recall/pkg/workers/summarizer"
)

// Row names, in the order they are printed: the summarizer, then the
// baselines cut to its length.
const (
	RowExtractive    = "extractive"
	RowLead          = "lead"
	RowUserLead      = "user lead"
	RowAssistantLead = "assistant lead"
	RowOracle        = "oracle"
)

// rowNames are the rows of every report.
var rowNames = []string{RowExtractive, RowLead, RowUserLead, RowAssistantLead, RowOracle}

// feed is how the summarizer worker is fed a live session, by its
// defaults: the ingest worker asks for a summary when summarize.Policy says
// one is due (10 messages since the last summary and 5 minutes of event
// time after it), each version reads at most maxMessages of the oldest
// unread messages with the previous version, a backlog is read by as many
// versions as it takes, and the idle sweep asks for the rest when the
// session ends.
type feed struct {
	policy      summarize.Policy
	maxMessages int
}

// defaultFeed is the worker's feed with every setting at its default.
func defaultFeed() feed {
	return feed{policy: summarize.DefaultPolicy, maxMessages: envconfig.Defaults[summarizer.Config]().MaxMessages}
}

// writer is what roll asks for each version: summarize.Extractive, or a
// test's recorder.
type writer interface {
	Summarize(ctx context.Context, in summarize.Input) (summarize.Summary, error)
}

// roll writes a session's summaries as the worker would while its turns
// arrive one by one (in event-time order), and returns the last version and
// how many versions were written.
func (f feed) roll(ctx context.Context, w writer, turns []datasets.Turn) (summarize.Summary, int, error) {
	var (
		sum          summarize.Summary
		prev         *summarize.Previous
		read         int       // messages a version has read
		summarizedAt time.Time // event time of the newest message read
		versions     int
	)
	catchUp := func(through int) error {
		for read < through {
			batch := turns[read:min(read+f.maxMessages, through)]
			in := make([]summarize.Turn, len(batch))
			for i, t := range batch {
				in[i] = summarize.Turn{Role: t.Role, Text: t.Text}
			}
			read += len(batch)
			summarizedAt = batch[len(batch)-1].OccurredAt
			in = summarize.Usable(in)
			if len(in) == 0 {
				continue // the worker marks them read without a version
			}
			s, err := w.Summarize(ctx, summarize.Input{Previous: prev, Turns: in})
			if err != nil {
				return err
			}
			sum, versions = s, versions+1
			prev = &summarize.Previous{Text: s.Text, KeyTopics: s.TopicNames()}
		}
		return nil
	}
	for i, t := range turns {
		if f.policy.Due(int64(i+1-read), t.OccurredAt, summarizedAt) {
			if err := catchUp(i + 1); err != nil {
				return sum, versions, err
			}
		}
	}
	// The session goes idle: the sweep asks for the rest.
	err := catchUp(len(turns))
	return sum, versions, err
}

// scorer turns texts into the content words the recall counts: the tokens
// (contexteval.Tokens: lower-cased runs of letters and digits) that are not
// on the general English stopword list (contexteval.Stopword) nor a
// speaker's name, each reduced to its Snowball (Porter 2) stem so that
// "painted" meets "painting".
type scorer struct {
	names map[string]bool // the speakers' names, lower-cased tokens
	// first are the first tokens of the speakers' names, the user's first.
	first []string
}

func newScorer(speakers []string) scorer {
	s := scorer{names: map[string]bool{}}
	for _, sp := range speakers {
		toks := contexteval.Tokens(sp)
		for _, t := range toks {
			s.names[t] = true
		}
		if len(toks) > 0 {
			s.first = append(s.first, toks[0])
		}
	}
	return s
}

// about splits a reference summary by whom its sentences are about: the
// sentences that open with the user's name, those that open with the
// other speaker's ("Melanie praised Caroline's empathy"), each joined; a
// sentence about both ("Caroline and Melanie talked ...") or opening
// otherwise is in neither.
func (s scorer) about(reference string) (user, other string) {
	var parts [2][]string
	for _, sent := range sentenceEnd.Split(reference, -1) {
		toks := contexteval.Tokens(sent)
		if len(toks) == 0 || len(toks) > 2 && toks[1] == "and" && slices.Contains(s.first, toks[2]) {
			continue
		}
		for i, name := range s.first {
			if i < 2 && toks[0] == name {
				parts[i] = append(parts[i], sent)
			}
		}
	}
	return strings.Join(parts[0], " "), strings.Join(parts[1], " ")
}

// content is the set of distinct content words of tokens.
func (s scorer) content(tokens []string) map[string]bool {
	out := map[string]bool{}
	for _, t := range tokens {
		if contexteval.Stopword(t) || s.names[t] {
			continue
		}
		out[english.Stem(t, false)] = true
	}
	return out
}

// recall is the share of ref's content words that got holds.
func recall(got, ref map[string]bool) (float64, bool) {
	if len(ref) == 0 {
		return 0, false
	}
	n := 0
	for w := range ref {
		if got[w] {
			n++
		}
	}
	return float64(n) / float64(len(ref)), true
}

// unlabelled is a summary's text without its speakers' labels ("User: ",
// "Assistant: ", "用户：", "助手："), which are the summary's form, not what
// it says: the reference names the speakers instead, and names are not
// counted.
func unlabelled(text string) string {
	r := strings.NewReplacer("User: ", " ", "Assistant: ", " ", "用户：", " ", "助手：", " ")
	return strings.TrimSpace(r.Replace(text))
}

// userSentences counts a summary's sentences by the label they start
// with: the user's and all labelled ones.
func userSentences(text string) (user, all int) {
	for _, l := range []string{"User: ", "用户："} {
		user += strings.Count(text, l)
	}
	all = user
	for _, l := range []string{"Assistant: ", "助手："} {
		all += strings.Count(text, l)
	}
	return user, all
}

// leadTokens are the first n tokens of the texts of the turns keep takes.
func leadTokens(turns []datasets.Turn, n int, keep func(datasets.Turn) bool) []string {
	var out []string
	for _, t := range turns {
		if len(out) >= n {
			break
		}
		if keep(t) {
			out = append(out, contexteval.Tokens(t.Text)...)
		}
	}
	return out[:min(n, len(out))]
}

// sentenceEnd is where a sentence ends: a run of . ! ? and what closes a
// quotation, then white space.
var sentenceEnd = regexp.MustCompile(`[.!?]+["')\]]*\s+`)

// oracleTokens are the ceiling of a summary made of the session's own
// sentences at n tokens: the sentences, picked greedily by how many of
// the reference's content words (ref) they add that the picked ones lack,
// until n tokens, cut to n. It knows the reference, so no summarizer can
// be expected to reach it; greedy picking makes it a close bound, not an
// exact one.
func oracleTokens(sc scorer, turns []datasets.Turn, n int, ref map[string]bool) []string {
	type sent struct {
		toks    []string
		content map[string]bool
	}
	var sents []sent
	for _, t := range turns {
		for _, s := range sentenceEnd.Split(t.Text, -1) {
			if toks := contexteval.Tokens(s); len(toks) > 0 {
				sents = append(sents, sent{toks: toks, content: sc.content(toks)})
			}
		}
	}
	covered := map[string]bool{}
	var out []string
	for len(out) < n {
		best, gain := -1, 0
		for i, s := range sents {
			g := 0
			for w := range s.content {
				if ref[w] && !covered[w] {
					g++
				}
			}
			if g > gain {
				best, gain = i, g
			}
		}
		if best < 0 {
			break
		}
		out = append(out, sents[best].toks...)
		for w := range sents[best].content {
			covered[w] = true
		}
	}
	return out[:min(n, len(out))]
}

// sessionResult is one session's scores.
type sessionResult struct {
	Conversation string `json:"conversation"`
	Session      string `json:"session"`
	Turns        int    `json:"turns"`
	Versions     int    `json:"versions"`
	// Words is the length of the summary, its labels off, in tokens: every
	// row's length.
	Words     int    `json:"words"`
	Summary   string `json:"summary"`
	Reference string `json:"reference"`
	// Recall is each row's recall of the reference; User and Other of its
	// sentences about the user and about the other speaker (scorer.about).
	Recall    map[string]float64 `json:"recall"`
	User      map[string]float64 `json:"user_recall"`
	Other     map[string]float64 `json:"other_recall"`
	UserShare float64            `json:"user_sentence_share"`
	userOK    bool
}

// scoreSession scores the summary of one session and the baselines at its
// length against the session's reference summary.
func scoreSession(sc scorer, turns []datasets.Turn, sum summarize.Summary, reference string) sessionResult {
	toks := contexteval.Tokens(unlabelled(sum.Text))
	n := len(toks)
	ref := sc.content(contexteval.Tokens(reference))
	userText, otherText := sc.about(reference)
	userRef, otherRef := sc.content(contexteval.Tokens(userText)), sc.content(contexteval.Tokens(otherText))
	rows := map[string][]string{
		RowExtractive:    toks,
		RowLead:          leadTokens(turns, n, func(datasets.Turn) bool { return true }),
		RowUserLead:      leadTokens(turns, n, func(t datasets.Turn) bool { return t.Role == "user" }),
		RowAssistantLead: leadTokens(turns, n, func(t datasets.Turn) bool { return t.Role == "assistant" }),
		RowOracle:        oracleTokens(sc, turns, n, ref),
	}
	res := sessionResult{Words: n, Summary: sum.Text, Reference: reference, Recall: map[string]float64{},
		User: map[string]float64{}, Other: map[string]float64{}}
	for name, toks := range rows {
		got := sc.content(toks)
		if r, ok := recall(got, ref); ok {
			res.Recall[name] = r
		}
		if r, ok := recall(got, userRef); ok {
			res.User[name] = r
		}
		if r, ok := recall(got, otherRef); ok {
			res.Other[name] = r
		}
	}
	if u, all := userSentences(sum.Text); all > 0 {
		res.UserShare, res.userOK = float64(u)/float64(all), true
	}
	return res
}

// rowResult is one row of the report: its recall over every session and
// per conversation.
type rowResult struct {
	Name           string             `json:"name"`
	Recall         float64            `json:"recall"`
	User           float64            `json:"user_recall"`
	Other          float64            `json:"other_recall"`
	ByConversation map[string]float64 `json:"recall_by_conversation"`
	all            contexteval.Mean
	user, other    contexteval.Mean
	byConv         contexteval.Groups
}

// report is everything one run measured.
type report struct {
	Conversations  []string        `json:"conversations"`
	SessionsByConv map[string]int  `json:"sessions_by_conversation"`
	Sessions       int             `json:"sessions"`
	Turns          int             `json:"turns"`
	Versions       int             `json:"versions"`
	MaxRunes       int             `json:"summary_max_chars"`
	Words          float64         `json:"words"`
	UserShare      float64         `json:"user_sentence_share"`
	Rows           []*rowResult    `json:"rows"`
	Seconds        float64         `json:"seconds"`
	SessionsOut    []sessionResult `json:"sessions_scored,omitempty"`
}

// Row returns the row of the given name.
func (r *report) Row(name string) *rowResult {
	for _, row := range r.Rows {
		if row.Name == name {
			return row
		}
	}
	return nil
}

// run summarizes every session of the LoCoMo conversations as the worker
// does offline and scores each summary and the baselines.
func run(ctx context.Context, dataDir string, limit int) (*report, error) {
	began := time.Now()
	convs, err := datasets.LoadLoCoMo(dataDir)
	if err != nil {
		return nil, err
	}
	if limit > 0 && limit < len(convs) {
		convs = convs[:limit]
	}
	rules, err := extract.NewRules(extract.RulesOptions{})
	if err != nil {
		return nil, err
	}
	opts := envconfig.Defaults[summarizer.Config]().Summary
	e := summarize.NewExtractive(rules, opts)
	f := defaultFeed()

	rep := &report{SessionsByConv: map[string]int{}, MaxRunes: opts.MaxRunes}
	for _, name := range rowNames {
		rep.Rows = append(rep.Rows, &rowResult{Name: name, byConv: contexteval.Groups{}})
	}
	var words, share contexteval.Mean
	for _, c := range convs {
		rep.Conversations = append(rep.Conversations, c.SampleID)
		sc := newScorer(c.Speakers)
		bySession := map[string][]datasets.Turn{}
		for _, t := range c.Turns {
			bySession[t.SessionID] = append(bySession[t.SessionID], t)
		}
		for _, s := range c.Sessions {
			turns := bySession[s.ID]
			sum, versions, err := f.roll(ctx, e, turns)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.ID, err)
			}
			res := scoreSession(sc, turns, sum, s.Summary)
			res.Conversation, res.Session, res.Turns, res.Versions = c.SampleID, s.ID, len(turns), versions
			rep.SessionsOut = append(rep.SessionsOut, res)
			rep.Sessions++
			rep.SessionsByConv[c.SampleID]++
			rep.Turns += len(turns)
			rep.Versions += versions
			words.Add(float64(res.Words), true)
			share.Add(res.UserShare, res.userOK)
			for _, row := range rep.Rows {
				v, ok := res.Recall[row.Name]
				row.all.Add(v, ok)
				row.byConv.Add(c.SampleID, v, ok)
				v, ok = res.User[row.Name]
				row.user.Add(v, ok)
				v, ok = res.Other[row.Name]
				row.other.Add(v, ok)
			}
		}
	}
	for _, row := range rep.Rows {
		row.Recall, row.User, row.Other, row.ByConversation = row.all.Value(), row.user.Value(), row.other.Value(), row.byConv.Values()
	}
	rep.Words, rep.UserShare = words.Value(), share.Value()
	rep.Seconds = time.Since(began).Seconds()
	return rep, nil
}

// checkTargets returns an error naming every baseline of the same length
// the summarizer does not beat: a summary that keeps no more of the
// session than its first words is no summary.
func checkTargets(rep *report) error {
	var errs []error
	ex := rep.Row(RowExtractive)
	for _, name := range []string{RowLead, RowUserLead, RowAssistantLead} {
		if r := rep.Row(name); ex.Recall <= r.Recall {
			errs = append(errs, fmt.Errorf("extractive recall %.3f is not above %s %.3f", ex.Recall, name, r.Recall))
		}
	}
	return errors.Join(errs...)
}

// printTable writes the human-readable report.
func printTable(w io.Writer, rep *report) {
	fmt.Fprintf(w, "summary eval: %d conversations, %d sessions, %d turns; %d extractive versions (SUMMARY_MAX_CHARS %d); %.1f words a summary, %.0f%% of its sentences the user's\n",
		len(rep.Conversations), rep.Sessions, rep.Turns, rep.Versions, rep.MaxRunes, rep.Words, 100*rep.UserShare)
	cols := []contexteval.Column{{Head: "row", Width: 15}, {Head: "recall", Width: 7}, {Head: "user", Width: 6}, {Head: "other", Width: 6}}
	for _, c := range rep.Conversations {
		cols = append(cols, contexteval.Column{Head: fmt.Sprintf("%s (%d)", c, rep.SessionsByConv[c]), Width: 13})
	}
	var cells [][]string
	for _, r := range rep.Rows {
		line := []string{r.Name, contexteval.Cell(r.Recall, r.all.N > 0, 3), contexteval.Cell(r.User, r.user.N > 0, 3), contexteval.Cell(r.Other, r.other.N > 0, 3)}
		for _, c := range rep.Conversations {
			v, ok := r.ByConversation[c]
			line = append(line, contexteval.Cell(v, ok, 3))
		}
		cells = append(cells, line)
	}
	contexteval.WriteTable(w, cols, cells)
	fmt.Fprintf(w, "recall: share of the reference session summary's content words (stemmed; no stopwords, no speaker names) in the row, every row cut to the summary's words (per conversation too); user, other: of the reference's sentences about the user, about the other speaker; %.1fs\n", rep.Seconds)
}

// printSessions writes every session's summary and scores, for -v.
func printSessions(w io.Writer, rep *report) {
	for _, s := range rep.SessionsOut {
		fmt.Fprintf(w, "%s (%d turns, %d versions, %d words): recall extractive %.3f, lead %.3f, user lead %.3f, assistant lead %.3f\n  summary:   %s\n  reference: %s\n",
			s.Session, s.Turns, s.Versions, s.Words, s.Recall[RowExtractive], s.Recall[RowLead], s.Recall[RowUserLead], s.Recall[RowAssistantLead], s.Summary, s.Reference)
	}
}
