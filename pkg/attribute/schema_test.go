package attribute_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/service"
)

// The schema file is named by ATTRIBUTE_SCHEMA_FILE; PROFILE_SCHEMA_FILE,
// its old name, is still read while it is unset, with one warning at start
// naming both; when both are set the new one wins. An error names the
// variable that was read.
func TestSchemaFileVariables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	noPets := write("no-pets.json", `{"tenants": {"shop": {"drop": ["pets"]}}}`)
	noDiet := write("no-diet.json", `{"tenants": {"shop": {"drop": ["diet"]}}}`)
	broken := write("broken.json", `{"tenants": {"shop": {"drop": ["nope"]}}}`)
	// load reads the config from environ as a process does at start, logs
	// it, and loads the schemas it names: the warnings logged, and the
	// keys the shop tenant lost.
	load := func(environ map[string]string) (warnings []string, dropped []string, err error) {
		var c attribute.Config
		require.NoError(t, envconfig.LoadInto(&c, environ))
		var buf bytes.Buffer
		service.LogConfig(slog.New(slog.NewTextHandler(&buf, nil)), c)
		for line := range strings.Lines(buf.String()) {
			if strings.Contains(line, "level=WARN") {
				warnings = append(warnings, line)
			}
		}
		s, err := c.Schemas()
		if err != nil {
			return warnings, nil, err
		}
		for _, k := range []string{"pets", "diet"} {
			if _, ok := s.For("shop").Key(k); !ok {
				dropped = append(dropped, k)
			}
		}
		return warnings, dropped, nil
	}

	warnings, dropped, err := load(map[string]string{"ATTRIBUTE_SCHEMA_FILE": noPets})
	require.NoError(t, err)
	require.Equal(t, []string{"pets"}, dropped)
	require.Empty(t, warnings)

	warnings, dropped, err = load(map[string]string{"PROFILE_SCHEMA_FILE": noDiet})
	require.NoError(t, err)
	require.Equal(t, []string{"diet"}, dropped, "the old name is read while the new one is unset")
	require.Len(t, warnings, 1)
	require.Contains(t, warnings[0], "PROFILE_SCHEMA_FILE is deprecated and read in place of ATTRIBUTE_SCHEMA_FILE, which is unset")

	warnings, dropped, err = load(map[string]string{"ATTRIBUTE_SCHEMA_FILE": noPets, "PROFILE_SCHEMA_FILE": noDiet})
	require.NoError(t, err)
	require.Equal(t, []string{"pets"}, dropped, "the new name wins")
	require.Len(t, warnings, 1)
	require.Contains(t, warnings[0], "PROFILE_SCHEMA_FILE is deprecated and ignored, as ATTRIBUTE_SCHEMA_FILE is set")

	_, _, err = load(map[string]string{"ATTRIBUTE_SCHEMA_FILE": broken})
	require.ErrorContains(t, err, "ATTRIBUTE_SCHEMA_FILE "+broken+": tenants.shop.drop")
	_, _, err = load(map[string]string{"PROFILE_SCHEMA_FILE": broken})
	require.ErrorContains(t, err, "PROFILE_SCHEMA_FILE "+broken+": tenants.shop.drop")
	require.NotContains(t, err.Error(), "ATTRIBUTE_SCHEMA_FILE")
	_, _, err = load(map[string]string{"PROFILE_SCHEMA_FILE": filepath.Join(dir, "missing.json")})
	require.ErrorContains(t, err, "PROFILE_SCHEMA_FILE: ")
}
