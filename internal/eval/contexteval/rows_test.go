package contexteval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMeanLeavesOutWhatItCannotScore(t *testing.T) {
	t.Parallel()
	var m Mean
	require.Equal(t, 0.0, m.Value(), "nothing scored")
	m.Add(1, true)
	m.Add(0, false)
	m.Add(0.5, true)
	require.Equal(t, 0.75, m.Value())
	require.Equal(t, 2, m.N)

	g := Groups{}
	g.Add("multi-session", 1, true)
	g.Add("multi-session", 0, true)
	g.Add("temporal-reasoning", 1, false)
	require.Equal(t, map[string]float64{"multi-session": 0.5}, g.Values(), "a group that scored nothing is absent, not 0")
}

// TestWriteTable holds the table to the layout the LoCoMo report has always
// printed with one format string per line.
func TestWriteTable(t *testing.T) {
	t.Parallel()
	cols := []Column{{"row", 13}, {"evidence", 9}, {"answer-tokens", 14}, {"prompt-chars", 13}, {"cat1", 6}, {"cat2", 6}}
	var got bytes.Buffer
	WriteTable(&got, cols, [][]string{
		{"full history", Cell(1, true, 3), Cell(0.61234, true, 3), Cell(91234.4, true, 0), Cell(0.5, true, 3), Cell(0, false, 3)},
	})
	want := fmt.Sprintf("%-13s %-9s %-14s %-13s %-6s %-6s\n", "row", "evidence", "answer-tokens", "prompt-chars", "cat1", "cat2") +
		fmt.Sprintf("%-13s %-9.3f %-14.3f %-13.0f", "full history", 1.0, 0.61234, 91234.4) + fmt.Sprintf(" %-6.3f", 0.5) + fmt.Sprintf(" %-6s", "-") + "\n"
	require.Equal(t, want, got.String())
}

func TestWithFile(t *testing.T) {
	t.Parallel()
	require.NoError(t, WithFile("", func(w io.Writer) error {
		require.Nil(t, w, "no path: no writer")
		return nil
	}))
	// What was written before f failed is in the file, and f's error is returned.
	path := filepath.Join(t.TempDir(), "questions.jsonl")
	err := WithFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "{}\n")
		require.NoError(t, err)
		return errors.New("interrupted")
	})
	require.EqualError(t, err, "interrupted")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{}\n", string(b))
}
