package main

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/eval/recallrun"
	"github.com/recallhq/recall/internal/testkit/testenv"
)

// TestEndToEnd runs the whole harness on the first conversation and a few of
// its questions: a fresh database, a real `recall run` child with embedded
// JetStream, every turn through the API and the workers, the context asked
// per question, and the table printed. It skips only under -short; CI runs it.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL-backed recall run as a child process")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	dir, err := datasets.Dir(datasets.DefaultDir)
	require.NoError(t, err)
	root, err := recallrun.RepoRoot()
	require.NoError(t, err)
	o := options{
		Options: contexteval.Options{DataDir: dir, Budget: 8000, Tenant: "eval", Concurrency: 2,
			System: recallrun.Options{AdminURL: testenv.AdminURL(), Root: root, StopTimeout: 30 * time.Second},
			Settle: recallrun.SettleOptions{Quiet: 3 * time.Second, Timeout: 2 * time.Minute, Poll: 200 * time.Millisecond}},
		LimitConversations: 1, LimitQuestions: 6,
	}
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	rep, err := run(ctx, o, log)
	require.NoError(t, err)

	var out bytes.Buffer
	printTable(&out, rep)
	t.Log("\n" + out.String())

	require.Equal(t, 1, rep.Conversations)
	require.Equal(t, 419, rep.Turns)
	require.Equal(t, int64(rep.Turns), rep.Stored, "every turn was stored")
	require.Equal(t, 6, rep.Questions)
	require.Contains(t, rep.Consumers, "RECALL_TURNS/ingest", "the workers' consumers were found and awaited")
	require.Len(t, rep.Rows, 4)

	full, bm25, recency, recall := rep.Row(contexteval.RowFull), rep.Row(contexteval.RowBM25), rep.Row(contexteval.RowRecency), rep.Row(contexteval.RowRecall)
	require.Equal(t, 1.0, full.EvidenceRecall, "the full history holds every evidence turn")
	require.Greater(t, bm25.EvidenceRecall, 0.0)
	require.LessOrEqual(t, bm25.EvidenceRecall, 1.0)
	require.Greater(t, bm25.AnswerRecall, 0.0)
	require.LessOrEqual(t, bm25.PromptChars, 8000.0)
	require.LessOrEqual(t, recency.PromptChars, 8000.0)
	require.Greater(t, recency.PromptChars, 7000.0, "419 turns fill the budget")
	require.Greater(t, full.PromptChars, 8000.0)
	require.Greater(t, recall.PromptChars, 0.0, "Recall answered with a prompt")
	// The budget counts the entries; the framing and the headings (a few
	// hundred characters) come on top of it.
	require.LessOrEqual(t, recall.PromptChars, 8000.0+600)
	require.Equal(t, 6, full.EvidenceScored)

	// The run dropped its database.
	conn, err := pgx.Connect(ctx, testenv.AdminURL())
	require.NoError(t, err)
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	require.NoError(t, conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, rep.Database).Scan(&exists))
	require.NotEmpty(t, rep.Database)
	require.False(t, exists, "database %s left behind", rep.Database)
}
