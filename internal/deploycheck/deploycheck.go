// Package deploycheck loads the deployment manifests the way their tools do and
// checks them against the binaries, so a renamed env variable or a missing health
// check fails a test here instead of a rollout there. There is no container engine
// in CI: the manifests are checked, not run.
package deploycheck

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"
)

// RepoRoot is the repository's root directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// LoadCompose parses and validates deploy/compose.yaml with compose-go, as
// `docker compose config` would.
func LoadCompose(t testing.TB) *types.Project {
	t.Helper()
	dir := filepath.Join(RepoRoot(), "deploy")
	details := types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "compose.yaml")}},
		Environment: types.Mapping{},
	}
	p, err := loader.LoadWithContext(context.Background(), details, func(o *loader.Options) {
		o.SetProjectName("recall", true)
	})
	require.NoError(t, err)
	return p
}

// CheckServiceEnv checks that a service sets no variable its binary does not read
// (a typo is silently ignored otherwise) and every variable in required.
func CheckServiceEnv(t testing.TB, p *types.Project, service string, reads, required []string) {
	t.Helper()
	svc, err := p.GetService(service)
	require.NoError(t, err, "compose service %q", service)
	var unknown []string
	for k := range svc.Environment {
		if !slices.Contains(reads, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	require.Empty(t, unknown, "service %q sets variables its binary does not read", service)
	for _, k := range required {
		v, ok := svc.Environment[k]
		require.True(t, ok && v != nil && *v != "", "service %q must set %s", service, k)
	}
}

// WorkerRequired are the variables every long-running binary must be given.
var WorkerRequired = []string{"DATABASE_URL", "NATS_URL", "OPS_ADDR"}

// CheckDeployEnv checks a long-running binary's env in every deployment: the
// compose service named like the binary and the Kubernetes workload
// recall-<binary>, in the base and as the cluster overlay renders it.
func CheckDeployEnv(t testing.TB, binary string, reads []string) {
	t.Helper()
	CheckServiceEnv(t, LoadCompose(t), binary, reads, WorkerRequired)
	CheckK8sEnv(t, LoadK8s(t), "recall-"+binary, reads, WorkerRequired)
	CheckK8sEnv(t, LoadK8sCluster(t), "recall-"+binary, reads, WorkerRequired)
}
