package memory

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/pause"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/store"
)

// The durable consumers of the turn stream whose floors say a turn is
// stored (ingest) and indexed (indexer): the workers' binding names
// (ingest.Def, indexer.Def), which this package does not import.
const (
	consumerIngest  = "ingest"
	consumerIndexer = "indexer"
)

// TurnWait is what a POST of turns waits for after publishing: For is
// contract.WaitStored or contract.WaitSearchable ("" waits for nothing),
// for at most Timeout.
type TurnWait struct {
	For     string
	Timeout time.Duration
}

// consumers are the turn stream's consumers whose floors must pass a turn
// for the wait to hold.
func (w TurnWait) consumers() []string {
	if w.For == contract.WaitSearchable {
		return []string{consumerIngest, consumerIndexer}
	}
	return []string{consumerIngest}
}

// CheckTurnWait checks the wait a POST of turns asks for, wait (stored or
// searchable; empty: none) within timeout (above 0 up to
// API_TURN_WAIT_MAX, only with a wait; nil: API_TURN_WAIT), and answers it.
// It is checked before anything is published, so a mistake in it stores
// nothing.
func (s *Service) CheckTurnWait(wait string, timeout *time.Duration) (TurnWait, error) {
	var w TurnWait
	var fe []contract.FieldError
	switch wait {
	case "":
	case contract.WaitStored, contract.WaitSearchable:
		w.For, w.Timeout = wait, s.cfg.TurnWait
	default:
		fe = append(fe, contract.FieldError{Field: "wait", Message: fmt.Sprintf("%q: want stored or searchable", events.ClipUTF8(wait, 32, "…"))})
	}
	if timeout != nil {
		switch d := *timeout; {
		case d <= 0 || d > s.cfg.TurnWaitMax:
			fe = append(fe, contract.FieldError{Field: "timeout", Message: fmt.Sprintf("want seconds above 0 up to %g (1.5) or a duration up to %s (1500ms)",
				s.cfg.TurnWaitMax.Seconds(), s.cfg.TurnWaitMax)})
		case wait == "":
			fe = append(fe, contract.FieldError{Field: "timeout", Message: "bounds a wait: give wait=stored or wait=searchable with it"})
		default:
			w.Timeout = d
		}
	}
	return w, invalid("invalid parameter", fe)
}

// AddTurnsWait is AddTurns followed, when every turn was published, by the
// wait w asks for: until every accepted turn (a duplicate's original
// included) is past the floors of the consumers it needs, or w.Timeout
// passes. The answer's Wait says which, and how long it took; a turn one
// of those workers gave up on is named in it (dead_lettered), and the wait
// is then not reached. Nothing here fails the request: the turns are
// accepted whatever the wait found.
func (s *Service) AddTurnsWait(ctx context.Context, tenant string, turns []events.Turn, batch bool, w TurnWait) (*contract.TurnsResult, error) {
	out, subjects, err := s.addTurns(ctx, tenant, turns, batch)
	if err != nil || w.For == "" {
		return out, err
	}
	out.Wait = s.waitTurns(ctx, out.Accepted, subjects, w)
	return out, nil
}

// waitTurns polls the turn stream's consumer floors, with a backoff from 5
// to 100 ms, until they pass every accepted turn or the wait's bound
// passes; then it looks for dead letters of those that passed.
func (s *Service) waitTurns(ctx context.Context, accepted []contract.Accepted, subjects map[string]string, w TurnWait) *contract.TurnsWait {
	start := time.Now()
	out := &contract.TurnsWait{For: w.For}
	need := w.consumers()
	wctx, cancel := context.WithTimeout(ctx, w.Timeout)
	defer cancel()
	pending := slices.Clone(accepted)
	for delay := 5 * time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		if floors, err := s.turnFloors(wctx); err == nil {
			pending = slices.DeleteFunc(pending, func(a contract.Accepted) bool { return allDone(floors, need, a.Sequence) })
			if len(pending) == 0 {
				break
			}
		} else if wctx.Err() == nil {
			s.log.Warn("turn wait: read consumer floors", "error", err.Error())
		}
		if !pause.For(wctx, delay) {
			break
		}
	}
	for _, a := range pending {
		out.Pending = append(out.Pending, a.ID)
	}
	// The turns that passed the floors: was any of them given up on?
	bySubject := map[string]map[uint64]string{}
	for _, a := range accepted {
		if slices.ContainsFunc(pending, func(p contract.Accepted) bool { return p.ID == a.ID }) {
			continue
		}
		subj := subjects[a.ID]
		if bySubject[subj] == nil {
			bySubject[subj] = map[uint64]string{}
		}
		bySubject[subj][a.Sequence] = a.ID
	}
	dctx, dcancel := context.WithTimeout(ctx, readTimeout)
	defer dcancel()
	dead := map[string]bool{}
	for _, subj := range slices.Sorted(maps.Keys(bySubject)) {
		err := queue.SubjectDeadLetters(dctx, s.js, queue.TurnsStream, subj, need, func(_ string, streamSeq, _ uint64) {
			if id, ok := bySubject[subj][streamSeq]; ok && !dead[id] {
				dead[id] = true
				out.DeadLettered = append(out.DeadLettered, id)
			}
		})
		if err != nil {
			s.log.Warn("turn wait: read dead letters", "subject", subj, "error", err.Error())
		}
	}
	out.Reached = len(out.Pending) == 0 && len(out.DeadLettered) == 0
	out.WaitedMS = time.Since(start).Milliseconds()
	return out
}

// allDone reports whether every consumer of names has finished with the
// message at seq; a consumer that does not exist (its worker never ran)
// has not.
func allDone(floors map[string]queue.Floor, names []string, seq uint64) bool {
	for _, n := range names {
		f, ok := floors[n]
		if !ok || !f.Done(seq) {
			return false
		}
	}
	return true
}

// floorTTL is how long one listing of the turn stream's consumer floors
// answers every wait and status read: a floor read that much late only
// delays a wait by as much.
const floorTTL = 5 * time.Millisecond

// floorCache holds the newest listing of the turn stream's consumer
// floors. One reader lists at a time; the others wait for it and share
// its answer.
type floorCache struct {
	mu     sync.Mutex
	at     time.Time
	floors map[string]queue.Floor
}

// turnFloors are the turn stream's consumer floors, at most floorTTL old.
func (s *Service) turnFloors(ctx context.Context) (map[string]queue.Floor, error) {
	c := &s.floors
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.floors != nil && time.Since(c.at) < floorTTL {
		return c.floors, nil
	}
	floors, err := queue.Floors(ctx, s.js, queue.TurnsStream)
	if err != nil {
		return nil, err
	}
	c.floors, c.at = floors, time.Now()
	return floors, nil
}

// noTurn is the answer for a turn the tenant does not have, or not yet
// stored and asked for without its sequence.
func noTurn(id string, seq uint64) error {
	if seq == 0 {
		return contract.Errorf(contract.CodeNotFound, "no stored turn %q; a turn accepted moments ago is found with seq= (its sequence from POST /v1/turns)", events.ClipUTF8(id, 128, "…"))
	}
	return contract.Errorf(contract.CodeNotFound, "no turn %q at sequence %d", events.ClipUTF8(id, 128, "…"), seq)
}

// TurnStatus answers where one of the tenant's turns stands: stored or
// not, and for each worker of the turn stream whether it has finished
// with it (its consumer's acknowledgement floor against the turn's stream
// sequence; a dead letter it left of the turn is named), searchable, and
// summarized. A stored turn is found by its id alone (its row has its
// sequence); one not stored yet by its id with seq, the sequence POST
// /v1/turns answered (0: none), which must be the tenant's turn of that id
// in the stream. Another tenant's turn is not found either way.
func (s *Service) TurnStatus(ctx context.Context, tenant, id string, seq uint64) (*contract.TurnStatus, error) {
	if err := s.IDError("id", id); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	out := &contract.TurnStatus{ID: id, Workers: map[string]contract.WorkerProgress{}}
	row, err := s.store.Tenant(tenant).TurnRow(rctx, id)
	switch {
	case err == nil:
		out.Stored, out.Summarized = true, row.Summarized
		out.Sequence, out.SessionID, out.UserID = row.Seq, row.SessionID, row.UserID
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	case seq == 0:
		return nil, noTurn(id, 0)
	default:
		ids, err := s.streamTurn(rctx, tenant, id, seq)
		if err != nil {
			return nil, err
		}
		out.Sequence, out.SessionID, out.UserID = seq, ids.SessionID, ids.UserID
	}
	floors, err := s.turnFloors(rctx)
	if err != nil {
		return nil, err
	}
	var done []string
	for name, f := range floors {
		d := f.Done(out.Sequence)
		out.Workers[name] = contract.WorkerProgress{Done: d}
		if d {
			done = append(done, name)
		}
	}
	slices.Sort(done)
	dead, err := queue.DeadLettersOf(rctx, s.js, queue.TurnsStream, out.Sequence, events.TurnSubject(tenant, out.UserID, out.SessionID), done)
	if err != nil {
		return nil, err
	}
	for name, dl := range dead {
		out.Workers[name] = contract.WorkerProgress{Done: true, DeadLetter: dl}
	}
	ix := out.Workers[consumerIndexer]
	out.Searchable = out.Stored && ix.Done && ix.DeadLetter == 0
	return out, nil
}

// streamTurn reads the turn stream's message at seq and answers the ids
// its subject carries, if it is the tenant's turn id; otherwise the turn
// is not found (another tenant's turn at that sequence included).
func (s *Service) streamTurn(ctx context.Context, tenant, id string, seq uint64) (events.SubjectIDs, error) {
	st, err := s.js.Stream(ctx, queue.TurnsStream)
	if err != nil {
		return events.SubjectIDs{}, fmt.Errorf("turn stream: %w", err)
	}
	raw, err := st.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return events.SubjectIDs{}, noTurn(id, seq)
	}
	if err != nil {
		return events.SubjectIDs{}, fmt.Errorf("turn stream message %d: %w", seq, err)
	}
	ids, err := events.ParseSubject(raw.Subject)
	if err != nil || ids.TenantID != tenant || raw.Header.Get(jetstream.MsgIDHeader) != events.MsgID(tenant, id) {
		return events.SubjectIDs{}, noTurn(id, seq)
	}
	return ids, nil
}
