package main

import (
	"bytes"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestChaosShort is the short mode: about a minute of kills, a NATS kill,
// a PostgreSQL crash restart and repeated publishes of 3000 turns against
// separate processes, then the exact checks. It needs nats-server and
// PostgreSQL's server binaries with pgvector (make deps), not running
// servers: it starts its own. -short skips it.
func TestChaosShort(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the chaos run takes about a minute")
	}
	t.Parallel()
	o, err := ModeOptions("short")
	require.NoError(t, err)
	o.Root, err = repoRoot()
	require.NoError(t, err)
	var logBuf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logBuf, nil))
	if os.Getenv("RECALL_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}

	rep, err := Run(t.Context(), o, log)
	if rep != nil {
		var out bytes.Buffer
		rep.Render(&out)
		t.Log("\n" + out.String())
	}
	if err != nil {
		t.Log(logBuf.String())
	}
	require.NoError(t, err)
	require.False(t, rep.Failed(), "a check failed; see the table (the run's directory is kept)")
}

func TestFaultSchedule(t *testing.T) {
	t.Parallel()
	procs := []string{"api", "ingest", "extractor", "seen", "summarizer"}
	extra := []string{"ingest", "extractor"}
	plan := faultSchedule(procs, extra, 3, 1, 1, 60*time.Second, 500*time.Millisecond)
	require.Len(t, plan, 3*len(procs)+len(extra)+2)

	kills := map[string][]int{}
	var nats, pg int
	for i, f := range plan {
		if i > 0 {
			require.Greater(t, f.At, plan[i-1].At)
		}
		require.Less(t, f.At, 60*time.Second)
		switch f.Kind {
		case faultNATS:
			nats++
		case faultPostgres:
			pg++
		case faultKill:
			kills[f.Process] = append(kills[f.Process], i)
		}
	}
	require.Equal(t, 1, nats)
	require.Equal(t, 1, pg)
	require.Len(t, kills["api"], 3)
	require.Len(t, kills["ingest"], 4)
	// Two kills of one process are as far apart as the others allow.
	for name, slots := range kills {
		for i := 1; i < len(slots); i++ {
			require.GreaterOrEqual(t, slots[i]-slots[i-1], len(extra), name)
		}
	}

	// The short mode's processes: a turn worker's two kills are a round
	// of all the others apart.
	procs = []string{"api", "ingest", "extractor", "seen", "summarizer", "profiler", "decayer"}
	extra = []string{"ingest", "extractor", "seen", "summarizer"}
	plan = faultSchedule(procs, extra, 1, 1, 1, 24*time.Second, 0)
	last := map[string]int{}
	for i, f := range plan {
		if f.Kind != faultKill {
			continue
		}
		if j, ok := last[f.Process]; ok {
			require.GreaterOrEqual(t, i-j, len(procs), f.Process)
		}
		last[f.Process] = i
	}
}

func TestFaultScheduleMinGap(t *testing.T) {
	t.Parallel()
	plan := faultSchedule([]string{"a", "b"}, nil, 5, 0, 1, 5*time.Second, time.Second)
	for i := 1; i < len(plan); i++ {
		require.GreaterOrEqual(t, plan[i].At-plan[i-1].At, time.Second)
	}
}

func TestParseServerVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		out    string
		want   serverVersion
		atLeat bool
	}{
		{"nats-server: v2.9.10\n", serverVersion{2, 9, 10}, false},
		{"nats-server: v2.10.0", serverVersion{2, 10, 0}, true},
		{"nats-server: v2.15.2", serverVersion{2, 15, 2}, true},
		{"nats-server: v3.0.1", serverVersion{3, 0, 1}, true},
	} {
		v, err := parseServerVersion(tc.out)
		require.NoError(t, err)
		require.Equal(t, tc.want, v)
		require.Equal(t, tc.atLeat, v.AtLeast(2, 10), tc.out)
	}
	_, err := parseServerVersion("nats-server: unknown")
	require.Error(t, err)
}

func TestNewWorkload(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	w := newWorkload(1234, 30, 0.3, 7, now)
	require.Len(t, w.Turns, 1234)
	again := newWorkload(1234, 30, 0.3, 7, now)
	require.Equal(t, w.Turns, again.Turns, "the same seed plans the same turns")

	keys := map[turnKey]bool{}
	last := map[[2]string]time.Time{}
	routes := map[route]int{}
	for i, pt := range w.Turns {
		require.False(t, keys[pt.Key()], "id %v twice", pt.Key())
		keys[pt.Key()] = true
		t0 := pt.Turn.OccurredAt
		s := [2]string{pt.Turn.TenantID, pt.Turn.SessionID}
		require.True(t, t0.After(last[s]), "a session's turns go out in order")
		require.True(t, t0.Before(now.Add(-time.Hour)), "every session is idle for the sweep")
		last[s] = t0
		require.Equal(t, w.Turns[i/30*30].Route, pt.Route, "one route per chunk")
		routes[pt.Route]++
		if pt.Refs > 0 {
			require.Len(t, pt.Turn.Items, pt.Refs)
		}
	}
	require.NotZero(t, routes[routeAPI])
	require.NotZero(t, routes[routeDirect])
	require.Equal(t, len(last), w.Sessions)
}

func TestSummaryProblems(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	msgs := func(n int) []msgKey {
		var out []msgKey
		for i := range n {
			out = append(out, msgKey{At: base.Add(time.Duration(i) * time.Minute), ID: string(rune('a' + i))})
		}
		return out
	}
	v := func(version int, from, through int64, current bool, lastMsg int) summaryRow {
		return summaryRow{Tenant: "t", Session: "s", Version: version, FromCount: from, Through: through, Current: current,
			Last: msgKey{At: base.Add(time.Duration(lastMsg) * time.Minute), ID: string(rune('a' + lastMsg))}}
	}
	key := [2]string{"t", "s"}
	for _, tc := range []struct {
		name        string
		rows        []summaryRow
		state       sessionState
		late, other int
	}{
		{"contiguous", []summaryRow{v(1, 0, 3, false, 2), v(2, 3, 6, true, 5)}, sessionState{Summarized: 6, Messages: msgs(6)}, 0, 0},
		// v1 read messages 0..3 (through 3 counted only three of them: one
		// of the first four was committed after it), then the late one
		// alone was marked covered.
		{"gap of a late commit", []summaryRow{v(1, 0, 3, false, 3), v(2, 4, 6, true, 5)}, sessionState{Summarized: 6, Messages: msgs(6)}, 1, 0},
		{"gap nothing accounts for", []summaryRow{v(1, 0, 3, false, 2), v(2, 4, 6, true, 5)}, sessionState{Summarized: 6, Messages: msgs(6)}, 0, 1},
		{"overlap", []summaryRow{v(1, 0, 3, false, 2), v(2, 2, 6, true, 5)}, sessionState{Summarized: 6, Messages: msgs(6)}, 0, 1},
		{"first not from 0", []summaryRow{v(1, 1, 3, true, 2)}, sessionState{Summarized: 3, Messages: msgs(3)}, 0, 1},
		{"two current", []summaryRow{v(1, 0, 3, true, 2), v(2, 3, 6, true, 5)}, sessionState{Summarized: 6, Messages: msgs(6)}, 0, 1},
		{"trailing late range", []summaryRow{v(1, 0, 3, true, 3)}, sessionState{Summarized: 4, Messages: msgs(4)}, 1, 0},
		{"trailing range without late commits", []summaryRow{v(1, 0, 3, true, 2)}, sessionState{Summarized: 4, Messages: msgs(4)}, 0, 1},
		{"summarized without any summary", nil, sessionState{Summarized: 2, Messages: msgs(2)}, 0, 1},
		{"ends past summarized_count", []summaryRow{v(1, 0, 3, true, 2)}, sessionState{Summarized: 2, Messages: msgs(3)}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := summaryProblems(tc.rows, map[[2]string]sessionState{key: tc.state})
			require.Len(t, f.Late, tc.late, "late: %v", f.Late)
			require.Len(t, f.Other, tc.other, "other: %v", f.Other)
		})
	}
}

func TestDLQRows(t *testing.T) {
	t.Parallel()
	poison := func(consumer string, seq uint64) deadLetter {
		return deadLetter{Consumer: consumer, StreamSeq: seq, MsgID: "acme:" + poisonID}
	}
	old, cur := serverVersion{2, 9, 10}, serverVersion{2, 10, 0}
	statuses := func(rows []checkRow) []status {
		var out []status
		for _, r := range rows {
			out = append(out, r.Status)
		}
		return out
	}

	once := []deadLetter{poison("ingest", 9), poison("extractor", 9), poison("indexer", 9)}
	require.Equal(t, []status{statusPass, statusPass, statusPass}, statuses(dlqRows(once, true, cur)))

	twice := append(once, poison("ingest", 9))
	require.Equal(t, []status{statusPass, statusPass, statusFail}, statuses(dlqRows(twice, true, cur)))
	require.Equal(t, []status{statusPass, statusPass, statusWarn}, statuses(dlqRows(twice, true, old)), "an old server's repeats are the server's")

	other := append(once, deadLetter{Consumer: "ingest", StreamSeq: 12, MsgID: "acme:s-1-0-t001", Reason: "gave up after 5 deliveries"})
	rows := dlqRows(other, true, cur)
	require.Equal(t, statusFail, rows[0].Status)
	require.Contains(t, rows[0].Evidence, "s-1-0-t001")

	rows = dlqRows([]deadLetter{poison("ingest", 9)}, false, cur)
	require.Equal(t, []status{statusFail}, statuses(rows), "no poison: any dead letter fails")
	require.Equal(t, []status{statusPass, statusFail, statusPass}, statuses(dlqRows([]deadLetter{poison("ingest", 9)}, true, cur)), "the extractor and the indexer must dead-letter it too")
}

func TestSilentlyDropped(t *testing.T) {
	t.Parallel()
	advs := []maxDelivery{
		{Stream: "RECALL_TURNS", Consumer: "ingest", StreamSeq: 5},
		{Stream: "RECALL_TURNS", Consumer: "ingest", StreamSeq: 9},
		{Stream: "RECALL_TURNS", Consumer: "ingest", StreamSeq: 9},
		{Stream: "RECALL_TURNS", Consumer: "extractor", StreamSeq: 9},
	}
	dlq := []deadLetter{{Consumer: "extractor", StreamSeq: 9}}
	got := silentlyDropped(advs, dlq)
	require.Len(t, got, 2)
	require.Equal(t, uint64(5), got[0].StreamSeq)
	require.Equal(t, uint64(9), got[1].StreamSeq)
	require.Equal(t, "ingest", got[1].Consumer)
}
