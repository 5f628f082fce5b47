// Package summarize writes the summary of a stretch of conversation: one or two
// sentences and the key topics, rolled forward from the previous summary of the
// same session. Extractive does it offline and deterministically (salient
// sentences, topics from the extractor's rules and lexicon); LLM asks a
// language model for strict JSON. The summarizer worker
// (pkg/workers/summarizer) decides which runs and stores what they write. Policy is when a session's summary is
// due after ingest (SUMMARY_EVERY_MESSAGES, SUMMARY_MIN_INTERVAL).
package summarize

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/script"
)

// Turn is one message of the stretch to summarize, oldest first.
type Turn struct {
	// Role is user, assistant or tool; system prompts never reach a summary.
	Role string
	Text string
}

// Previous is the session's summary so far, which a new one rolls forward.
type Previous struct {
	Text      string
	KeyTopics []string
}

// Input is what a summary is made from.
type Input struct {
	// Previous is nil for a session's first summary.
	Previous *Previous
	// Turns are the messages since the previous summary, oldest first.
	Turns []Turn
}

// Topic is a key topic of a summary.
type Topic struct {
	// Kind is the fact type the topic is recorded as (book_title, person,
	// genre, topic...).
	Kind    extract.Kind
	Value   string // extract.Normalize(Display)
	Display string
	// Mentioned is set when the new turns mention the topic (rather than it
	// being carried over from the previous summary): only those count as a
	// new mention of an interest.
	Mentioned bool
}

// Summary is what a summarizer wrote.
type Summary struct {
	Text   string
	Topics []Topic
	// Model is "extractive" or the language model's name.
	Model string
}

// TopicNames are the display names of the topics, in order.
func (s Summary) TopicNames() []string {
	out := make([]string, len(s.Topics))
	for i, t := range s.Topics {
		out[i] = t.Display
	}
	return out
}

// Options bound what a summarizer writes.
type Options struct {
	// MaxRunes bounds the summary text, in characters (default 300).
	MaxRunes int `env:"SUMMARY_MAX_CHARS" envDefault:"300"`
	// MaxTopics bounds the key topics (default 5).
	MaxTopics int `env:"SUMMARY_MAX_TOPICS" envDefault:"5"`
	// TopicRoles are the roles of the turns a summary's topics come from: the
	// extractor's EXTRACT_ROLES, read here too, so that a summary records as
	// the user's interests what the extractor would (default: the user's own
	// turns). A summary's key topics are written "The user mentioned: …" in a
	// context and recorded as interest facts; a title the assistant suggested
	// is neither. The offline summary reads the rules' facts of these turns
	// only (facts also make a sentence salient); every turn's words still
	// count.
	TopicRoles []string `env:"EXTRACT_ROLES" envDefault:"user" envSeparator:","`
}

// DefaultOptions are Options with their env defaults.
var DefaultOptions = envconfig.Defaults[Options]()

func (o Options) withDefaults() Options {
	if o.MaxRunes <= 0 {
		o.MaxRunes = DefaultOptions.MaxRunes
	}
	if o.MaxTopics <= 0 {
		o.MaxTopics = DefaultOptions.MaxTopics
	}
	if len(o.TopicRoles) == 0 {
		o.TopicRoles = DefaultOptions.TopicRoles
	}
	// Read as the extractor reads EXTRACT_ROLES: each one trimmed.
	roles := make([]string, len(o.TopicRoles))
	for i, r := range o.TopicRoles {
		roles[i] = strings.TrimSpace(r)
	}
	o.TopicRoles = roles
	return o
}

// topicRole reports whether a turn of this role can make a topic the
// user's (Options.TopicRoles, as withDefaults left them).
func (o Options) topicRole(role string) bool { return slices.Contains(o.TopicRoles, role) }

// ModelExtractive is the model name of the offline summarizer.
const ModelExtractive = "extractive"

// Usable keeps the turns that can go into a summary: user and assistant turns
// with text. Empty and whitespace-only messages carry nothing, system prompts
// are instructions rather than conversation, and tool turns are structured
// results kept whole elsewhere.
func Usable(turns []Turn) []Turn {
	out := turns[:0:0]
	for _, t := range turns {
		if (t.Role == "user" || t.Role == "assistant") && strings.TrimSpace(t.Text) != "" {
			out = append(out, t)
		}
	}
	return out
}

// mostlyHan reports whether Han characters dominate the texts, weighing a
// Han character like a short word, which decides the summary's language.
func mostlyHan(texts ...string) bool {
	var han, other int
	for _, s := range texts {
		h, o := script.Count(s)
		han, other = han+h, other+o
	}
	return han*3 > other
}

// clip bounds s to n characters, cutting at the last sentence end that fits
// when there is one in the second half, otherwise at n-1 characters plus "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	for i := n - 1; i >= n/2; i-- {
		if isSentenceEnd(rs[i]) {
			return strings.TrimSpace(string(rs[:i+1]))
		}
	}
	return strings.TrimSpace(string(rs[:n-1])) + "…"
}

func isSentenceEnd(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？', '…':
		return true
	}
	return false
}

// collapse turns every run of white space into one space and trims the ends,
// so a summary is one line.
func collapse(s string) string {
	// Most sentences are words one space apart already: s itself then.
	space := true // before the first character, so a leading space is a run
	for _, r := range s {
		isSpace := unicode.IsSpace(r)
		if isSpace && (space || r != ' ') {
			return strings.Join(strings.Fields(s), " ")
		}
		space = isSpace
	}
	if space { // empty, or a trailing space
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}

// topicKind types a topic name found outside the rules (from a model's answer
// or a previous summary): the kind the rules give the whole name when they
// find it in it, otherwise topic.
func topicKind(ctx context.Context, rules *extract.Rules, name string) extract.Kind {
	if rules == nil {
		return extract.KindTopic
	}
	value := extract.Normalize(name)
	facts, err := rules.Extract(ctx, extract.Input{Text: name})
	if err != nil {
		return extract.KindTopic
	}
	for _, f := range facts {
		if f.Value == value {
			return f.Kind
		}
	}
	return extract.KindTopic
}

// mentionedIn reports whether the normalized value occurs in the turns'
// normalized text.
func mentionedIn(value string, normTurns []string) bool {
	if value == "" {
		return false
	}
	for _, t := range normTurns {
		if strings.Contains(t, value) {
			return true
		}
	}
	return false
}

// normalizedTurns are the normalized texts of the turns of the roles keep
// reports true for.
func normalizedTurns(turns []Turn, keep func(role string) bool) []string {
	out := make([]string, 0, len(turns))
	for _, t := range turns {
		if keep(t.Role) {
			out = append(out, extract.Normalize(t.Text))
		}
	}
	return out
}
