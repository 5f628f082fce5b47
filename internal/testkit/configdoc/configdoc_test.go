package configdoc

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/envconfig"
)

// root is the repository's root.
func root(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// TestDocMatchesStructs regenerates the reference from the config structs
// and compares it with the document: a variable added, renamed, re-described
// or given another default in a struct and not in the document fails here.
func TestDocMatchesStructs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(root(t), filepath.FromSlash(Doc))
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	want, err := Generate(root(t), doc)
	require.NoError(t, err)
	if line, got, gen := firstDifference(string(doc), string(want)); line > 0 {
		t.Fatalf("%s differs from the config structs at line %d: run `make docs` and commit it\n  the page: %s\n  the structs: %s", Doc, line, got, gen)
	}
}

// firstDifference is the first line (from 1) where a and b differ, and that
// line of each; 0 when they are the same.
func firstDifference(a, b string) (int, string, string) {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			return i + 1, x, y
		}
	}
	return 0, "", ""
}

func TestFirstDifference(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b     string
		line     int
		from, to string
	}{
		{"x\ny", "x\ny", 0, "", ""},
		{"x\ny", "x\nz", 2, "y", "z"},
		{"x", "x\nmore", 2, "", "more"},
	} {
		line, from, to := firstDifference(c.a, c.b)
		require.Equal(t, []any{c.line, c.from, c.to}, []any{line, from, to}, "%q %q", c.a, c.b)
	}
}

type fixtureQueue struct {
	// Size is how many at once.
	Size int `env:"SIZE"`
	// Wait is how long to wait for more.
	Wait time.Duration `env:"WAIT" envDefault:"5ms"`
}

// fixture is a config struct for the tests.
type fixture struct {
	A fixtureQueue `envPrefix:"A_"`
	B fixtureQueue `envPrefix:"B_"`
	// Low and High bound a value | not a cell's end.
	Low  int `env:"FIX_LOW" envDefault:"1"`
	High int `env:"FIX_HIGH" envDefault:"9"`

	// Kinds are what is read; HighWater is not a field.
	Kinds []string `env:"FIX_KINDS" envDefault:"a,b"`
	// Every is read with Kinds, and unlike High it is a duration.
	Every time.Duration `env:"FIX_EVERY"`
	Quiet string        `env:"FIX_QUIET"`
}

type undocumented struct {
	// Said is documented.
	Said string `env:"SAID"`

	Unsaid string `env:"UNSAID"`
}

func TestReference(t *testing.T) {
	t.Parallel()
	one := fixture{}
	one.A.Size, one.B.Size = 3, 4
	binaries := []Binary{{Name: "one", Parts: []Part{{Value: one}}}, {Name: "two", Parts: []Part{{Value: one, Only: []string{"FIX_LOW"}}}}}
	ref, err := Reference(root(t), binaries)
	require.NoError(t, err)
	for _, line := range []string{
		"### configdoc.fixture",
		"fixture is a config struct for the tests.",
		"| `<PREFIX>SIZE` | integer | per worker, below | per prefix, below | `<PREFIX>SIZE` is how many at once. |",
		"| `<PREFIX>WAIT` | duration | `5ms` | per prefix, below | `<PREFIX>WAIT` is how long to wait for more. |",
		"| prefix | read by | `SIZE` |",
		"| `A_` | one | `3` |",
		"| `B_` | one | `4` |",
		"| `FIX_LOW`<br>`FIX_HIGH` | integer | `1`<br>`9` | all<br>one | `FIX_LOW` and `FIX_HIGH` bound a value \\| not a cell's end. |",
		"| `FIX_KINDS` | list of strings | `a,b` | one | `FIX_KINDS` are what is read; HighWater is not a field. |",
		// Quiet shares Every's comment (no blank line between them); a
		// sibling's Go name outside the row is replaced only when it cannot
		// be an English word.
		"| `FIX_EVERY`<br>`FIX_QUIET` | duration<br>string |  | one | `FIX_EVERY` is read with Kinds, and unlike High it is a duration. |",
	} {
		require.Contains(t, ref, line+"\n")
	}

	other := one
	other.B.Size = 5
	changed, err := Reference(root(t), []Binary{{Name: "one", Parts: []Part{{Value: other}}}, binaries[1]})
	require.NoError(t, err)
	require.NotEqual(t, ref, changed, "a default given by the owner (a worker's batch size) is in the reference")
}

func TestReferenceWantsDocComments(t *testing.T) {
	t.Parallel()
	_, err := Reference(root(t), []Binary{{Name: "one", Parts: []Part{{Value: undocumented{}}}}})
	require.ErrorContains(t, err, "configdoc.undocumented.Unsaid (UNSAID) has no doc comment")
	require.NotContains(t, err.Error(), "(SAID)")
}

func TestGenerateKeepsTheProse(t *testing.T) {
	t.Parallel()
	doc := "# Title\n\nhand-written\n\n" + Begin + "\nstale\n" + End + "\n\nfooter\n"
	out, err := Generate(root(t), []byte(doc))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(out), "# Title\n\nhand-written\n\n"+Begin+"\n\n### service.Base\n"))
	require.True(t, strings.HasSuffix(string(out), "\n"+End+"\n\nfooter\n"))
	require.NotContains(t, string(out), "stale")

	_, err = Generate(root(t), []byte("# Title\n"))
	require.ErrorContains(t, err, "markers")
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    any
		want string
	}{
		{time.Second, "duration"},
		{int32(0), "integer"},
		{0.5, "number"},
		{true, "bool"},
		{"", "string"},
		{[]string{}, "list of strings"},
		{map[string]time.Duration{}, "list of key:duration"},
		{envconfig.Field{}, "field"},
	} {
		require.Equal(t, c.want, kindOf(reflect.TypeOf(c.v)), "%T", c.v)
	}
}

func TestRenderReaders(t *testing.T) {
	t.Parallel()
	g := newReaderGroups(Binaries())
	for _, c := range []struct {
		names []string
		want  string
	}{
		{g.all, "all"},
		{append(append([]string{"mcp"}, g.services...), "forget"), "services, forget, mcp"},
		{append([]string{"run"}, g.workers...), "workers, run"},
		{[]string{"replay", "seen", "run"}, "seen, run, replay"},
	} {
		require.Equal(t, c.want, g.render(c.names), "%v", c.names)
	}
}

// Reads is what each binary's config reads: the worker binaries' own
// configs and the shared part, checked here against the registry; the mains
// check the others (cmd/api, cmd/recall).
func TestReadsMatchesWorkers(t *testing.T) {
	t.Parallel()
	require.Contains(t, Reads("ingest"), "INGEST_CONSUMER_ACK_WAIT")
	require.Contains(t, Reads("ingest"), "DATABASE_URL")
	require.NotContains(t, Reads("ingest"), "API_ADDR")
	require.Equal(t, []string{"LOG_LEVEL"}, Reads("probe"))
}
