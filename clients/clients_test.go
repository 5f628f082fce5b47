// Package clients holds the Python and TypeScript clients (clients/python,
// clients/typescript); its test runs their own test suites, and the agent
// example built on the Python client, against one live Recall.
package clients

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/internal/testenv"
)

// tenants are the tenants the suites run as, one each, with their API keys:
// the live Recall runs with API_KEYS, so every suite sends its key too.
var tenants = map[string]string{
	"python":     "py-clients-key-0123456789",
	"typescript": "ts-clients-key-0123456789",
	"agent":      "agent-example-key-0123456789",
}

// TestClients starts one Recall (`recall run` on its own database and
// ports) and runs each suite against it as its own tenant.
func TestClients(t *testing.T) {
	t.Parallel()
	var keys []string
	for tenant, key := range tenants {
		keys = append(keys, tenant+":"+key)
	}
	live := testenv.StartRecall(t, "API_KEYS="+strings.Join(keys, ","))
	env := func(tenant string) []string {
		return []string{"RECALL_URL=" + live.URL, "RECALL_TENANT=" + tenant, "RECALL_API_KEY=" + tenants[tenant]}
	}

	t.Run("python", func(t *testing.T) {
		t.Parallel()
		out := run(t, "python", env("python"), "python3", "-m", "unittest", "discover", "-s", "tests", "-t", ".", "-v")
		t.Log(out)
	})

	t.Run("typescript", func(t *testing.T) {
		t.Parallel()
		if _, err := os.Stat("typescript/node_modules/.bin/tsc"); err != nil {
			t.Fatalf("the TypeScript compiler is not installed (%v): run `make deps` (scripts/ensure-node-deps.sh)", err)
		}
		// Compiled here, so the tests always run the current sources.
		run(t, "typescript", nil, "node_modules/.bin/tsc", "-p", "tsconfig.json")
		tests, err := filepath.Glob("typescript/dist/test/*.test.js")
		if err != nil || len(tests) == 0 {
			t.Fatalf("no compiled tests in typescript/dist/test (%v)", err)
		}
		for i, f := range tests {
			tests[i] = strings.TrimPrefix(f, "typescript/")
		}
		out := run(t, "typescript", env("typescript"), "node", append([]string{"--test", "--test-reporter=spec"}, tests...)...)
		t.Log(out)
	})
}

// run runs a command in dir with env on top of the test's environment, and
// fails the test with its output when it fails; it returns the output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}
