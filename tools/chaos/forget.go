package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/pause"
	"github.com/recallhq/recall/pkg/queue"
)

// forgotten is a user the run forgets at the end, and the text only that
// user's turns hold.
type forgotten struct {
	Tenant, User string
	Marker       string
}

// markForgotten picks n users, each of another tenant, from the last
// tenant back (the encoded ones first: their stream subjects are the
// hardest to filter on), and appends a text unique to the user to every one
// of their user turns, so that their bytes can be found in a server's files
// and nothing else can hold that text.
func markForgotten(w *workload, n int) []forgotten {
	var out []forgotten
	for i := 0; i < n && i < len(tenants); i++ {
		tenant := tenants[len(tenants)-1-i]
		f := forgotten{Tenant: tenant, Marker: fmt.Sprintf("recall-chaos-forget-%d-marker", i+1)}
		for j := range w.Turns {
			t := &w.Turns[j].Turn
			if t.TenantID != tenant {
				continue
			}
			if f.User == "" {
				f.User = t.UserID
			}
			if t.UserID == f.User && t.Role == "user" {
				t.Content += " (" + f.Marker + ")"
			}
		}
		if f.User != "" {
			out = append(out, f)
		}
	}
	return out
}

// filesHolding lists the files under dir whose bytes contain text, relative
// to dir.
func filesHolding(dir string, text []byte) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // removed by a compaction while walking
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if bytes.Contains(b, text) {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// isRaftFile reports whether a file of a server's store directory belongs
// to a replicated group's Raft state (its log, snapshots, peer state) rather
// than to a stream's or consumer's own store: those live under
// jetstream/$SYS/_js_/.
func isRaftFile(rel string) bool {
	return strings.Contains(filepath.ToSlash(rel), "$SYS/_js_/")
}

// holdings is where each server's store directory holds a forgotten user's
// text: files of the streams' stores and of the Raft logs, by server.
type holdings struct {
	Store, Raft map[string][]string
}

func (h holdings) count(raft bool) int {
	m := h.Store
	if raft {
		m = h.Raft
	}
	n := 0
	for _, fs := range m {
		n += len(fs)
	}
	return n
}

// servers lists the servers with at least one such file of the kind.
func (h holdings) servers(raft bool) []string {
	m := h.Store
	if raft {
		m = h.Raft
	}
	var out []string
	for s, fs := range m {
		if len(fs) > 0 {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func (h holdings) String() string {
	var parts []string
	for _, m := range []map[string][]string{h.Store, h.Raft} {
		var names []string
		for s := range m {
			names = append(names, s)
		}
		sort.Strings(names)
		for _, s := range names {
			if len(m[s]) > 0 {
				parts = append(parts, s+": "+firstN(m[s], 4))
			}
		}
	}
	return strings.Join(parts, "; ")
}

// scanForgotten greps every server's store directory for every forgotten
// user's text.
func (r *run) scanForgotten(users []forgotten) (holdings, error) {
	h := holdings{Store: map[string][]string{}, Raft: map[string][]string{}}
	for _, s := range r.nats.servers {
		for _, u := range users {
			files, err := filesHolding(s.dir, []byte(u.Marker))
			if err != nil {
				return h, fmt.Errorf("grep %s: %w", s.dir, err)
			}
			for _, f := range files {
				if slices.Contains(h.Raft[s.name], f) || slices.Contains(h.Store[s.name], f) {
					continue // another user's text in the same file
				}
				if isRaftFile(f) {
					h.Raft[s.name] = append(h.Raft[s.name], f)
				} else {
					h.Store[s.name] = append(h.Store[s.name], f)
				}
			}
		}
	}
	return h, nil
}

// waitForgotten polls the store directories until cond holds, at most
// timeout, and returns the last scan and how long it took.
func (r *run) waitForgotten(ctx context.Context, users []forgotten, timeout time.Duration, cond func(holdings) bool) (holdings, time.Duration, error) {
	start := time.Now()
	for {
		h, err := r.scanForgotten(users)
		if err != nil || cond(h) || time.Since(start) > timeout {
			return h, time.Since(start), err
		}
		if !pause.For(ctx, 250*time.Millisecond) {
			return h, time.Since(start), ctx.Err()
		}
	}
}

// forgetUser runs `recall forget` for one user, as an operator would, and
// returns how many stream messages it erased.
func (r *run) forgetUser(ctx context.Context, u forgotten) (map[string]uint64, map[string]int64, error) {
	fctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(fctx, filepath.Join(r.bin, "recall"), "forget", "-tenant", u.Tenant, "-user", u.User)
	cmd.Env = envList(r.env, r.auth.Env(opsUser)...)
	cmd.SysProcAttr = childProcAttr()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("recall forget -tenant %s -user %s: %w: %s", u.Tenant, u.User, err, lastLine(stderr.String()))
	}
	var res contract.UserData
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, nil, fmt.Errorf("recall forget: %w: %s", err, out)
	}
	return res.StreamMessages, res.Rows, nil
}

// bystander is the text only a bystander's turn holds: a turn of another
// user in a forgotten user's session, which the forget must leave.
func bystander(u forgotten) string { return strings.Replace(u.Marker, "-forget-", "-bystander-", 1) }

// shareSessions gives each forgotten user sessions shared with another user
// of their tenant, as versions before a session had one owner stored them:
// a turn of the forgotten user (with their marker) in the other user's
// session, and a turn of the other user (with a bystander's text) in the
// forgotten user's. Both are written to PostgreSQL as ingest and the
// indexer wrote them then and published on the turn stream as they were
// then, where the workers now refuse them (each dead-letters them, so the
// dead letters hold them too); `recall sessions -scan` then records the
// guests, as the migration did for what it found. The forget must remove
// the first and leave the second, here and in every server's store.
func (r *run) shareSessions(ctx context.Context, users []forgotten) error {
	for i, u := range users {
		var hostSession, host, ownSession string
		if err := r.db.QueryRow(ctx, `SELECT session_id, user_id FROM sessions WHERE tenant_id = $1 AND user_id <> $2 ORDER BY session_id LIMIT 1`,
			u.Tenant, u.User).Scan(&hostSession, &host); err != nil {
			return fmt.Errorf("shared sessions: another user of %s: %w", u.Tenant, err)
		}
		if err := r.db.QueryRow(ctx, `SELECT session_id FROM sessions WHERE tenant_id = $1 AND user_id = $2 ORDER BY session_id LIMIT 1`,
			u.Tenant, u.User).Scan(&ownSession); err != nil {
			return fmt.Errorf("shared sessions: a session of %s/%s: %w", u.Tenant, u.User, err)
		}
		at := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
		for _, t := range []events.Turn{
			{V: events.Version, ID: fmt.Sprintf("chaos-guest-%d", i), TenantID: u.Tenant, UserID: u.User, SessionID: hostSession,
				OccurredAt: at, Role: events.RoleUser, Content: "a turn in another user's session (" + u.Marker + ")"},
			{V: events.Version, ID: fmt.Sprintf("chaos-bystander-%d", i), TenantID: u.Tenant, UserID: host, SessionID: ownSession,
				OccurredAt: at, Role: events.RoleUser, Content: "a bystander's turn (" + bystander(u) + ")"},
		} {
			if _, err := r.db.Exec(ctx, `
				WITH m AS (
				    INSERT INTO messages (tenant_id, event_id, session_id, user_id, role, content, occurred_at)
				    VALUES ($1, $2, $3, $4, 'user', $5, $6) RETURNING 1
				), e AS (
				    INSERT INTO search_entries (tenant_id, user_id, kind, source_id, session_id, role, occurred_at, body, terms, term_count)
				    VALUES ($1, $4, 'message', $2, $3, 'user', $6, $5, to_tsvector('simple', $5), 3)
				)
				UPDATE sessions SET message_count = message_count + 1 WHERE tenant_id = $1 AND session_id = $3`,
				t.TenantID, t.ID, t.SessionID, t.UserID, t.Content, t.OccurredAt); err != nil {
				return fmt.Errorf("shared sessions: store %s: %w", t.ID, err)
			}
			raw, err := json.Marshal(t)
			if err != nil {
				return err
			}
			if _, err := r.js.Publish(ctx, events.TurnSubject(t.TenantID, t.UserID, t.SessionID), raw, jetstream.WithMsgID(t.ID)); err != nil {
				return fmt.Errorf("shared sessions: publish %s: %w", t.ID, err)
			}
		}
	}
	out, err := r.tool(ctx, "sessions", "-scan", "-json")
	if err != nil {
		return err
	}
	r.rep.add(countRow("guests `recall sessions -scan` finds in the forgotten users' tenants' shared sessions", int64(2*len(users)), int64(strings.Count(out, `"user_id"`))))
	return nil
}

// tool runs a `recall` command as the operator would and returns its
// standard output.
func (r *run) tool(ctx context.Context, args ...string) (string, error) {
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(tctx, filepath.Join(r.bin, "recall"), args...)
	cmd.Env = envList(r.env)
	cmd.SysProcAttr = childProcAttr()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("recall %s: %w: %s", strings.Join(args, " "), err, lastLine(stderr.String()))
	}
	return string(out), nil
}

// dumpHolds counts, of texts, those a pg_dump of the run's database holds.
func (r *run) dumpHolds(ctx context.Context, texts []string) (int64, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(r.pgBin, "pg_dump"), "--no-owner", "--dbname", r.pg.URL("recall")).Output()
	if err != nil {
		return 0, fmt.Errorf("pg_dump: %w", err)
	}
	var n int64
	for _, t := range texts {
		if bytes.Contains(out, []byte(t)) {
			n++
		}
	}
	return n, nil
}

// forgetChecks forget the marked users once everything else is checked and
// then look for their text in every server's store directory. First it must
// be there, on every server (else the check could not fail); then `recall
// forget` erases it (queue.EraseSubject: a secure delete of each message,
// which each replica applies to its own store as the Raft log hands it the
// delete), and no stream store may hold it after.
func (r *run) forgetChecks(ctx context.Context, users []forgotten) error {
	if len(users) == 0 {
		return nil
	}
	var names []string
	for _, u := range users {
		names = append(names, u.Tenant+"/"+u.User)
	}
	who := strings.Join(names, ", ")
	if err := r.shareSessions(ctx, users); err != nil {
		return err
	}
	var markers, bystanders []string
	for _, u := range users {
		markers, bystanders = append(markers, u.Marker), append(bystanders, bystander(u))
	}
	if err := r.storedEverywhere(ctx, users, who); err != nil {
		return err
	}
	if !r.forgetAll(ctx, users) {
		return nil
	}
	if err := r.forgottenInDatabase(ctx, users, markers, bystanders); err != nil {
		return err
	}
	if err := r.forgottenInStreamStores(ctx, users, bystanders); err != nil {
		return err
	}
	return r.forgottenInRaftLogs(ctx, users)
}

// storedEverywhere waits until every server's stream store holds the
// forgotten users' text (the followers write the turns as the Raft log
// hands them over) and adds a row saying whether it did: else its absence
// after the forget would prove nothing.
func (r *run) storedEverywhere(ctx context.Context, users []forgotten, who string) error {
	n := len(r.nats.servers)
	before, _, err := r.waitForgotten(ctx, users, 30*time.Second, func(h holdings) bool { return len(h.servers(false)) == n })
	if err != nil {
		return err
	}
	row := checkRow{Name: fmt.Sprintf("forgotten users' text in every server's stream store before the forget (%s)", who),
		Expected: fmt.Sprintf("%d servers", n), Got: fmt.Sprintf("%d servers, %d files", len(before.servers(false)), before.count(false)), Status: statusPass}
	if len(before.servers(false)) != n {
		row.Status, row.Evidence = statusFail, "the text was never stored everywhere, so its absence after the forget would prove nothing: "+before.String()
	}
	r.rep.add(row)
	return nil
}

// forgetAll runs `recall forget` for each user and checks that it erased
// their turns from the turn stream; false when a forget failed (reported),
// and there is nothing more to check.
func (r *run) forgetAll(ctx context.Context, users []forgotten) bool {
	erased := uint64(0)
	for _, u := range users {
		msgs, rows, err := r.forgetUser(ctx, u)
		if err != nil {
			r.rep.add(checkRow{Name: "recall forget -tenant " + u.Tenant + " -user " + u.User, Expected: "exit 0", Got: "failed", Status: statusFail, Evidence: err.Error()})
			return false
		}
		erased += msgs[queue.TurnsStream]
		r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("recall forget %s/%s: stream messages %v, rows %v", u.Tenant, u.User, msgs, rows))
	}
	erow := checkRow{Name: fmt.Sprintf("turns of the forgotten users erased from %s", queue.TurnsStream), Expected: "> 0", Got: fmt.Sprint(erased), Status: statusPass}
	if erased == 0 {
		erow.Status = statusFail
	}
	r.rep.add(erow)
	return true
}

// forgottenInDatabase checks the database after the forget: none of the
// users' messages or session guests left, none of their texts in a pg_dump
// (their turns in other users' sessions too), every bystander's text still
// there.
func (r *run) forgottenInDatabase(ctx context.Context, users []forgotten, markers, bystanders []string) error {
	var left int64
	for _, u := range users {
		var c int64
		if err := r.db.QueryRow(ctx, `SELECT count(*) FROM messages WHERE tenant_id = $1 AND user_id = $2`, u.Tenant, u.User).Scan(&c); err != nil {
			return err
		}
		left += c
	}
	r.rep.add(countRow("messages rows of the forgotten users after the forget", 0, left))
	held, err := r.dumpHolds(ctx, markers)
	if err != nil {
		return err
	}
	r.rep.add(countRow("forgotten users' texts a pg_dump of the database holds after the forget (their turns in other users' sessions too)", 0, held))
	kept, err := r.dumpHolds(ctx, bystanders)
	if err != nil {
		return err
	}
	r.rep.add(countRow("bystanders' texts (their turns in the forgotten users' sessions) a pg_dump still holds", int64(len(bystanders)), kept))
	var guestsLeft int64
	for _, u := range users {
		var c int64
		if err := r.db.QueryRow(ctx, `SELECT count(*) FROM session_guests WHERE tenant_id = $1 AND (user_id = $2 OR owner_id = $2)`, u.Tenant, u.User).Scan(&c); err != nil {
			return err
		}
		guestsLeft += c
	}
	r.rep.add(countRow("session_guests rows naming a forgotten user after the forget", 0, guestsLeft))
	return nil
}

// forgottenInStreamStores waits until no server's stream store holds the
// forgotten users' text (each follower applies the erase when its Raft log
// reaches it) and checks that every server still holds every bystander's
// turn.
func (r *run) forgottenInStreamStores(ctx context.Context, users []forgotten, bystanders []string) error {
	n := len(r.nats.servers)
	after, took, err := r.waitForgotten(ctx, users, 30*time.Second, func(h holdings) bool { return h.count(false) == 0 })
	if err != nil {
		return err
	}
	row := countRow(fmt.Sprintf("files of a server's stream store holding a forgotten user's text after the forget (%d servers)", n), 0, int64(after.count(false)))
	row.Got += fmt.Sprintf(" (after %s)", took.Round(time.Millisecond))
	if after.count(false) > 0 {
		row.Evidence = after.String()
	}
	r.rep.add(row)
	r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("forgotten users' text right after the forget: %d stream-store files, %d Raft log files (%s)", after.count(false), after.count(true), after.String()))
	var bystanderServers int
	for _, srv := range r.nats.servers {
		holds := 0
		for _, b := range bystanders {
			files, err := filesHolding(srv.dir, []byte(b))
			if err != nil {
				return err
			}
			if len(files) > 0 {
				holds++
			}
		}
		if holds == len(bystanders) {
			bystanderServers++
		}
	}
	r.rep.add(countRow("servers whose store still holds every bystander's turn after the forget", int64(n), int64(bystanderServers)))
	return nil
}

// forgottenInRaftLogs waits until no server's store directory, Raft logs
// included, holds the forgotten users' text, and reports when each server's
// Raft log let go of it. The Raft log of each server holds the entries that
// carried the turns until the stream's next snapshot on that server compacts
// the log up to it: every 2 minutes plus up to 1 minute of jitter per server
// (nats-server's compactInterval), or after 64k entries or 8 MB. With
// nothing proposed since, the snapshot covers the whole log and its files
// are removed.
func (r *run) forgottenInRaftLogs(ctx context.Context, users []forgotten) error {
	start := time.Now()
	cleared := map[string]time.Duration{}
	last, _, err := r.waitForgotten(ctx, users, raftLetGo, func(h holdings) bool {
		for _, s := range r.nats.servers {
			if _, ok := cleared[s.name]; !ok && len(h.Raft[s.name]) == 0 {
				cleared[s.name] = time.Since(start)
			}
		}
		return h.count(true) == 0 && h.count(false) == 0
	})
	if err != nil {
		return err
	}
	row := countRow(fmt.Sprintf("files of a server's store directory, Raft logs included, holding a forgotten user's text %s after the forget", fmtDur(raftLetGo)), 0, int64(last.count(true)+last.count(false)))
	var when []string
	for _, s := range r.nats.servers {
		if d, ok := cleared[s.name]; ok {
			when = append(when, fmt.Sprintf("%s after %s", s.name, fmtDur(d)))
		} else {
			when = append(when, s.name+" never")
		}
	}
	row.Got += " (Raft logs let go: " + strings.Join(when, ", ") + ")"
	if row.Status == statusFail {
		row.Evidence = last.String()
	}
	r.rep.add(row)
	return nil
}

// raftLetGo bounds the wait for every server's Raft log to let go of a
// forgotten user's text: nats-server snapshots a stream every 2 minutes
// plus up to a minute of jitter, and compacts the log when it does.
const raftLetGo = 200 * time.Second
