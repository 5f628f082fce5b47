package deploycheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// docFiles are the project's own Markdown documents.
func docFiles(t *testing.T) []string {
	t.Helper()
	root := RepoRoot()
	files := []string{filepath.Join(root, "README.md")}
	for _, pattern := range []string{"docs/*.md", "clients/*/README.md", "examples/*/README.md"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		require.NoError(t, err)
		files = append(files, m...)
	}
	return files
}

// tableSeparator is a table's second line: |---|:---:|...
var tableSeparator = regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+\s*$`)

// TestMarkdownTablesRender: every line that starts with "|" belongs to a
// table with a header and a separator line, and has the table's number of
// columns; a row left after a paragraph (as the turn field table's
// `metadata` once was) renders as loose text.
func TestMarkdownTablesRender(t *testing.T) {
	t.Parallel()
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		lines := strings.Split(string(data), "\n")
		inFence := false
		for i := 0; i < len(lines); i++ {
			if strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
				inFence = !inFence
			}
			if inFence || !strings.HasPrefix(lines[i], "|") {
				continue
			}
			start := i
			require.True(t, i+1 < len(lines) && tableSeparator.MatchString(lines[i+1]),
				"%s:%d: a table row without a table (no header and |---| line): %q", file, i+1, lines[i])
			cols := columns(lines[i])
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|") {
				i++
				require.Equal(t, cols, columns(lines[i]), "%s:%d: the table starting at line %d has %d columns", file, i+1, start+1, cols)
			}
		}
	}
}

// columns counts a table row's cells: the pipes that are not escaped and
// not inside `code`.
func columns(row string) int {
	n, inCode := 0, false
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '`':
			inCode = !inCode
		case row[i] == '\\':
			i++
		case row[i] == '|' && !inCode:
			n++
		}
	}
	return n - 1
}

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
)

// anchor is GitHub's anchor of a heading.
func anchor(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = regexp.MustCompile(`[^\p{L}\p{N}\- _]`).ReplaceAllString(h, "")
	return strings.ReplaceAll(h, " ", "-")
}

// TestDocLinks: every relative link in the documents names a file that
// exists and, with a #fragment into a Markdown file, a heading it has.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), path)
			}
			_, err := os.Stat(dest)
			require.NoError(t, err, "%s: link %q", file, target)
			if frag == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			doc, err := os.ReadFile(dest)
			require.NoError(t, err)
			var anchors []string
			for _, h := range heading.FindAllStringSubmatch(string(doc), -1) {
				anchors = append(anchors, anchor(h[1]))
			}
			require.Contains(t, anchors, frag, "%s: link %q: no such heading in %s", file, target, dest)
		}
	}
}
