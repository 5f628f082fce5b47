package deploycheck_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/deploycheck"
)

func TestComposeShape(t *testing.T) {
	t.Parallel()
	p := deploycheck.LoadCompose(t)
	want := []string{"api", "catalog", "extractor", "gateway", "ingest", "migrate", "nats", "postgres", "profiler"}
	for _, name := range want {
		_, err := p.GetService(name)
		require.NoError(t, err, "compose has service %s", name)
	}
	for name, svc := range p.Services {
		require.True(t, svc.Image != "" || svc.Build != nil, "%s: image or build", name)
		for dep := range svc.DependsOn {
			_, err := p.GetService(dep)
			require.NoError(t, err, "%s depends on unknown %s", name, dep)
		}
		if name == "migrate" {
			require.Equal(t, "service_healthy", svc.DependsOn["postgres"].Condition)
			continue
		}
		require.NotNil(t, svc.HealthCheck, "%s: health check", name)
		require.NotEmpty(t, svc.HealthCheck.Test, "%s: health check command", name)
		if svc.Build != nil {
			// Recall's own services: wait for migrations, probe readiness, drain in time.
			require.Equal(t, "service_completed_successfully", svc.DependsOn["migrate"].Condition, name)
			require.Equal(t, "service_healthy", svc.DependsOn["nats"].Condition, name)
			require.Contains(t, strings.Join(svc.HealthCheck.Test, " "), "/readyz", name)
			require.NotNil(t, svc.StopGracePeriod, name)
			drain, err := time.ParseDuration(*svc.Environment["SHUTDOWN_TIMEOUT"])
			require.NoError(t, err, name)
			require.Greater(t, time.Duration(*svc.StopGracePeriod), drain, "%s: the grace period must outlast the drain", name)
		}
	}
	api, _ := p.GetService("api")
	require.Len(t, api.Ports, 1)
	require.EqualValues(t, 8080, api.Ports[0].Target)
	nats, _ := p.GetService("nats")
	require.Contains(t, strings.Join(nats.Command, " "), "nats.conf")
}

func TestNATSConfigParses(t *testing.T) {
	t.Parallel()
	opts := deploycheck.LoadNATSConf(t)
	require.True(t, opts.JetStream)
	require.Equal(t, time.Second, opts.SyncInterval)
	require.GreaterOrEqual(t, opts.MaxPayload, int32(1<<20), "room for the largest event")
}
