package contract_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// deps lists the non-standard packages pkg compiles with, itself included.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).Output()
	require.NoError(t, err, "go list -deps %s", pkg)
	return strings.Fields(string(out))
}

// The contract and the Go client are what a chat backend imports: they must
// not pull the server in (its database driver, gRPC and the tracing
// exporters, metrics), nor any of Recall's server packages.
func TestThinDependencies(t *testing.T) {
	t.Parallel()
	forbidden := []string{"github.com/jackc/", "github.com/pgvector/", "google.golang.org/grpc", "go.opentelemetry.io/",
		"github.com/prometheus/", "github.com/nats-io/nats-server"}
	allowed := map[string][]string{
		"github.com/recallhq/recall/pkg/contract": {"pkg/contract", "pkg/events"},
		"github.com/recallhq/recall/pkg/client":   {"pkg/client", "pkg/contract", "pkg/events", "pkg/eventmsg"},
	}
	for pkg, own := range allowed {
		list := deps(t, pkg)
		require.NotEmpty(t, list)
		for _, d := range list {
			for _, f := range forbidden {
				require.False(t, strings.HasPrefix(d, f), "%s depends on %s", pkg, d)
			}
			if rest, ok := strings.CutPrefix(d, "github.com/recallhq/recall/"); ok {
				require.Contains(t, own, rest, "%s depends on the server package %s", pkg, d)
			}
		}
		// What the client compiles stays small: nats.go and backoff with
		// their own dependencies.
		require.Less(t, len(list), 60, "%s: %d non-standard packages: %v", pkg, len(list), list)
	}
	// The contract and the event types need no NATS client: what builds
	// the messages is pkg/eventmsg.
	for _, pkg := range []string{"github.com/recallhq/recall/pkg/contract", "github.com/recallhq/recall/pkg/events"} {
		for _, d := range deps(t, pkg) {
			require.False(t, strings.HasPrefix(d, "github.com/nats-io/"), "%s depends on %s", pkg, d)
		}
	}
}
