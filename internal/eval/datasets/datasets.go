// Package datasets reads the conversations of ../shared/data (LoCoMo, KdConv,
// LongMemEval, PrefEval) as turns to post to Recall, for the context
// evaluations (tools/evalcontext on LoCoMo, tools/evallongmem on LongMemEval,
// tools/evalprefs on PrefEval's preferences buried under LongMemEval's
// sessions), the summary evaluation (tools/evalsummary, LoCoMo's sessions
// with their reference summaries) and the data check (tools/checkdata): they
// use the same turns, so they read them the same way, here.
package datasets

import (
	"path/filepath"
	"time"

	"github.com/recallhq/recall/internal/eval/recallrun"
)

// DefaultDir is where the data sits, relative to the repository root: beside
// the repository, never inside it.
const DefaultDir = "../shared/data"

// turnSpacing is the event time between two turns of a session: LoCoMo dates a
// session, not its turns, and the pipeline orders a session's messages by
// event time, so each turn gets its own instant after the session's start.
const turnSpacing = 30 * time.Second

// Turn is one utterance as it is posted to Recall; the tools keep it whole
// (dialogue id, content as posted) because the evaluation finds evidence
// turns in a prompt by their content.
type Turn struct {
	ID         string // stable event id: <sample_id>-<dia_id>
	DiaID      string // D<session>:<n>
	SessionID  string // <sample_id>-s<N>
	Role       string // speaker_a is the user, speaker_b the assistant
	Content    string // "<speaker>: <text>" plus the photo caption, as posted
	OccurredAt time.Time

	// Text is what the speaker wrote, alone, as a chat backend would post
	// it: Content without the speaker's name and a photo's caption on
	// LoCoMo, the same as Content where the data set adds neither. The
	// summary evaluation (tools/evalsummary) summarizes it.
	Text string
}

// Question is one LoCoMo QA item of categories 1–4, with the evidence the
// evaluation looks for in the context asked for it.
type Question struct {
	Index    int // position in the sample's qa list, which names its session
	Text     string
	Answer   string
	Category int
	Evidence []string // dia_ids that exist in the conversation
	// EvidenceStats is what parsing the question's evidence list found.
	EvidenceStats EvidenceStats
}

// Conversation is one user's whole history (a LoCoMo sample, a KdConv
// dialogue, a LongMemEval history) and, for LoCoMo, its questions: one user
// per conversation, so that users never see each other's turns.
type Conversation struct {
	SampleID string
	// Speakers are the names of LoCoMo's two speakers, the user's
	// (speaker_a) first; the other data sets name none.
	Speakers  []string
	Turns     []Turn // in event-time order
	Sessions  []Session
	Questions []Question
}

// Postable is the conversation's turns as the harness posts them.
func (c Conversation) Postable() []recallrun.Turn {
	turns := make([]recallrun.Turn, len(c.Turns))
	for i, t := range c.Turns {
		turns[i] = recallrun.Turn{ID: t.ID, SessionID: t.SessionID, Role: t.Role, Content: t.Content, OccurredAt: t.OccurredAt}
	}
	return turns
}

// Session is one posted session and how many turns it holds, which is what
// the tools wait for before they ask anything.
type Session struct {
	ID    string
	Turns int
	// Summary is the data set's own summary of the session, written by its
	// authors (LoCoMo's session_summary), the reference the summary
	// evaluation (tools/evalsummary) scores against; "" where the data set
	// has none.
	Summary string
	// Source is the data set's own id of the session where it has one
	// (LongMemEval's haystack_session_ids: the same session recurs in
	// several histories); "" elsewhere.
	Source string
}

// EvidenceStats counts what parseEvidence made of the evidence lists, so that
// a report says how many references it could not use.
type EvidenceStats struct {
	Entries   int `json:"entries"`   // strings in the evidence lists
	IDs       int `json:"ids"`       // ids kept
	Repaired  int `json:"repaired"`  // entries that were not one well-formed id but held some
	Malformed int `json:"malformed"` // entries without any id: dropped
	Unknown   int `json:"unknown"`   // ids not in the conversation: dropped
	NoneLeft  int `json:"questions_without_evidence"`
}

// Add sums o into s, for a report over many questions.
func (s *EvidenceStats) Add(o EvidenceStats) {
	s.Entries += o.Entries
	s.IDs += o.IDs
	s.Repaired += o.Repaired
	s.Malformed += o.Malformed
	s.Unknown += o.Unknown
	s.NoneLeft += o.NoneLeft
}

// Dropped is how many evidence references the metrics could not use.
func (s EvidenceStats) Dropped() int { return s.Malformed + s.Unknown }

// All loads the four data sets, each cut to limit conversations when
// limit > 0, and their names in the order to post them.
func All(dataDir string, limit int) (map[string][]Conversation, []string, error) {
	names := []string{"kdconv", "locomo", "longmemeval", "prefeval"}
	loaders := []func(string) ([]Conversation, error){LoadKdConv, LoadLoCoMo, LoadLongMemEval, LoadPrefEvalConversations}
	out := map[string][]Conversation{}
	for i, name := range names {
		convs, err := loaders[i](dataDir)
		if err != nil {
			return nil, nil, err
		}
		if limit > 0 && limit < len(convs) {
			convs = convs[:limit]
		}
		out[name] = convs
	}
	return out, names, nil
}

// Dir resolves the data directory: an absolute dir as is, a relative one from
// the repository root, so the tools and their tests find ../shared/data from
// wherever they run.
func Dir(dir string) (string, error) {
	if filepath.IsAbs(dir) {
		return dir, nil
	}
	root, err := recallrun.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, dir), nil
}
