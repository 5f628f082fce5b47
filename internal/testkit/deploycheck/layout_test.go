package deploycheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layoutRow is a row of development.md's "Where things live" table: its
// first cell names one package, `pkg/...`, `cmd/...`, `internal/...` or
// `tools/...`.
var layoutRow = regexp.MustCompile("^\\| `((?:pkg|cmd|internal|tools)/[^`]+)` \\|")

// TestDevelopmentDocNamesEveryPackage: the table of where things live in
// docs/development.md has one row for each package of the module under
// pkg/, cmd/, internal/ and tools/ (as `go list ./...` lists them), and no
// row for a package that is not there, so a package added, moved or
// removed fails here until the table says so.
func TestDevelopmentDocNamesEveryPackage(t *testing.T) {
	t.Parallel()
	root := RepoRoot()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Module.Path}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", exitStderr(err))
	var pkgs []string
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		path, module, ok := strings.Cut(strings.TrimSpace(line), " ")
		require.True(t, ok, "go list line %q", line)
		rel, ok := strings.CutPrefix(path, module+"/")
		if ok && layoutRow.MatchString("| `"+rel+"` |") {
			pkgs = append(pkgs, rel)
		}
	}
	require.NotEmpty(t, pkgs)

	data, err := os.ReadFile(filepath.Join(root, "docs", "development.md"))
	require.NoError(t, err)
	section, ok := strings.CutPrefix(string(data)[strings.Index(string(data), "## Where things live"):], "## Where things live")
	require.True(t, ok, "docs/development.md has no section \"Where things live\"")
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var rows []string
	for line := range strings.Lines(section) {
		if m := layoutRow.FindStringSubmatch(line); m != nil {
			require.NotContains(t, rows, m[1], "docs/development.md names %s twice", m[1])
			rows = append(rows, m[1])
		}
	}
	for _, p := range pkgs {
		require.Contains(t, rows, p, "docs/development.md, Where things live: no row for the package %s", p)
	}
	for _, r := range rows {
		require.True(t, slices.Contains(pkgs, r), "docs/development.md, Where things live: a row for %s, which is no package of the module", r)
	}
}

// exitStderr is what a failed command wrote to stderr.
func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
