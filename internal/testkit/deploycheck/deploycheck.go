// Package deploycheck loads the deployment manifests the way their tools do and
// checks them against the binaries, so a renamed env variable or a missing health
// check fails a test here instead of a rollout there. There is no container engine
// in CI: the manifests are checked, not run.
package deploycheck

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// RepoRoot is the repository's root directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// LoadCompose parses and validates deploy/compose.yaml with compose-go, as
// `docker compose config` would.
func LoadCompose(t testing.TB) *types.Project {
	t.Helper()
	dir := filepath.Join(RepoRoot(), "deploy")
	raw, err := os.ReadFile(filepath.Join(dir, "compose.yaml"))
	require.NoError(t, err)
	details := types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "compose.yaml")}},
		// The NATS passwords compose requires, as an operator's
		// deploy/.env gives them.
		Environment: types.Mapping(NATSTestEnv(string(raw))),
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

// WorkerRequired are the variables every long-running binary must be given:
// the database, NATS and the user it logs in to NATS as.
var WorkerRequired = []string{"DATABASE_URL", "NATS_URL", "NATS_USER", "NATS_PASSWORD", "OPS_ADDR"}

// CheckDeployEnv checks a long-running binary's env in every deployment: the
// compose service named like the binary and the Kubernetes workload
// recall-<binary>, in the base and as the cluster overlay renders it; and
// that each logs in to NATS as the binary's own user (CheckNATSLogin).
func CheckDeployEnv(t testing.TB, binary string, reads []string) {
	t.Helper()
	p := LoadCompose(t)
	base, cluster := LoadK8s(t), LoadK8sCluster(t)
	CheckServiceEnv(t, p, binary, reads, WorkerRequired)
	CheckK8sEnv(t, base, "recall-"+binary, reads, WorkerRequired)
	CheckK8sEnv(t, cluster, "recall-"+binary, reads, WorkerRequired)
	CheckNATSLogin(t, p, []*K8s{base, cluster}, binary)
}

// CheckNATSLogin checks that a binary logs in to NATS as its own user
// (recall-<binary>, which the layout's tests find in workers.NATSUsers
// and in the server configs) in every deployment:
// in compose with the password of that user's variable (which the NATS
// service passes to the server too), in Kubernetes with the password the
// Secret recall-nats keeps under the binary's name.
func CheckNATSLogin(t testing.TB, p *types.Project, ks []*K8s, binary string) {
	t.Helper()
	user := "recall-" + binary
	svc, err := p.GetService(binary)
	require.NoError(t, err)
	require.Equal(t, user, value(svc.Environment["NATS_USER"]), "compose %s: NATS_USER", binary)
	require.Equal(t, NATSTestPassword(user), value(svc.Environment["NATS_PASSWORD"]), "compose %s: NATS_PASSWORD is ${%s}", binary, NATSPasswordVar(user))
	nats, err := p.GetService("nats")
	require.NoError(t, err)
	require.Equal(t, NATSTestPassword(user), value(nats.Environment[NATSPasswordVar(user)]), "compose: the NATS server is given %s", NATSPasswordVar(user))
	for _, k := range ks {
		c := k.PodSpec(t, "recall-"+binary).Containers[0]
		i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "NATS_USER" })
		require.GreaterOrEqual(t, i, 0, "recall-%s: NATS_USER", binary)
		require.Equal(t, user, c.Env[i].Value, "recall-%s: NATS_USER", binary)
		i = slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "NATS_PASSWORD" })
		require.GreaterOrEqual(t, i, 0, "recall-%s: NATS_PASSWORD", binary)
		require.NotNil(t, c.Env[i].ValueFrom, "recall-%s: NATS_PASSWORD from a Secret", binary)
		require.Equal(t, &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: NATSSecret}, Key: NATSSecretKey(user)},
			c.Env[i].ValueFrom.SecretKeyRef, "recall-%s: NATS_PASSWORD", binary)
	}
}

func value(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}
