package contexteval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Row names, in the order the rows are printed and Prompts holds them.
const (
	RowRecall  = "recall"
	RowBM25    = "bm25"
	RowRecency = "recency"
	RowFull    = "full history"
)

// RowNames are the rows of every report: Recall's context, then the
// baselines it is measured against.
var RowNames = []string{RowRecall, RowBM25, RowRecency, RowFull}

// Mean is a metric's mean over the questions it could score: a question it
// cannot score (no evidence, no answer words) is left out rather than
// counted as a miss, and N says how many were scored.
type Mean struct {
	sum float64
	N   int
}

// Add counts v when ok.
func (m *Mean) Add(v float64, ok bool) {
	if ok {
		m.sum += v
		m.N++
	}
}

// Value is the mean, 0 when nothing was scored.
func (m Mean) Value() float64 {
	if m.N == 0 {
		return 0
	}
	return m.sum / float64(m.N)
}

// Groups are a metric's means per group of questions (a LoCoMo category, a
// LongMemEval question type), each group made when it first scores.
type Groups map[string]*Mean

// Add counts v in group key when ok.
func (g Groups) Add(key string, v float64, ok bool) {
	if !ok {
		return
	}
	m := g[key]
	if m == nil {
		m = &Mean{}
		g[key] = m
	}
	m.Add(v, true)
}

// Values are the groups' means.
func (g Groups) Values() map[string]float64 {
	out := make(map[string]float64, len(g))
	for k, m := range g {
		out[k] = m.Value()
	}
	return out
}

// Column is one column of a table: its heading and the width every cell of
// it is padded to.
type Column struct {
	Head  string
	Width int
}

// WriteTable writes the headings and then each row's cells, every cell
// left-aligned in its column's width and one space from the next, so the
// reports of every evaluation read alike.
func WriteTable(w io.Writer, cols []Column, rows [][]string) {
	line := func(cell func(i int) string) {
		for i, c := range cols {
			if i > 0 {
				fmt.Fprint(w, " ")
			}
			fmt.Fprintf(w, "%-*s", c.Width, cell(i))
		}
		fmt.Fprintln(w)
	}
	line(func(i int) string { return cols[i].Head })
	for _, r := range rows {
		line(func(i int) string {
			if i < len(r) {
				return r[i]
			}
			return ""
		})
	}
}

// Cell is a score with prec decimals, or "-" when nothing was scored (ok
// false), so an empty cell is never read as a zero.
func Cell(v float64, ok bool, prec int) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// WriteJSON writes a report as one indented JSON document.
func WriteJSON(w io.Writer, report any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}

// WithFile runs f with a buffered writer on a new file at path, or with a
// nil writer when path is empty, and flushes and closes the file however f
// ends: the per-question reports are written while the run goes on.
func WithFile(path string, f func(io.Writer) error) (err error) {
	if path == "" {
		return f(nil)
	}
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(file)
	defer func() {
		err = errors.Join(err, w.Flush(), file.Close())
	}()
	return f(w)
}

// Report runs a measurement with its per-question file (questionsOut; ""
// for none: WithFile) and writes its report to w, as JSON or by print: the
// body of every evaluation command.
func Report[R any](ctx context.Context, questionsOut string, asJSON bool, w io.Writer,
	run func(ctx context.Context, questions io.Writer) (R, error), print func(io.Writer, R)) error {
	return WithFile(questionsOut, func(q io.Writer) error {
		rep, err := run(ctx, q)
		if err != nil {
			return err
		}
		if asJSON {
			return WriteJSON(w, rep)
		}
		print(w, rep)
		return nil
	})
}
