package deploycheck

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/workers"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// workerBindings are the stream workers of the registry: each is a
// Deployment scaled by KEDA on its own durable consumer.
func workerBindings() map[string]queue.Binding {
	out := map[string]queue.Binding{}
	for _, w := range workers.All {
		if a := w.About(); a.Binding.Stream != "" {
			out[a.Name] = a.Binding
		}
	}
	return out
}

func TestK8sBaseListsEveryManifest(t *testing.T) {
	t.Parallel()
	k := LoadK8s(t)
	files, err := filepath.Glob(filepath.Join(RepoRoot(), "deploy", "k8s", "*.yaml"))
	require.NoError(t, err)
	var manifests []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" {
			manifests = append(manifests, b)
		}
	}
	got := slices.Clone(k.Kustomization.Resources)
	slices.Sort(got)
	require.Equal(t, manifests, got, "every manifest is in kustomization.yaml, and only those")
	require.Equal(t, "kustomize.config.k8s.io/v1beta1", k.Kustomization.APIVersion)
	require.Len(t, k.Kustomization.Images, 1)
	require.Equal(t, "recall", k.Kustomization.Images[0].Name)
}

func TestK8sWorkloads(t *testing.T) {
	t.Parallel()
	k := LoadK8s(t)
	cm := k.ConfigMaps["recall-config"]
	require.NotNil(t, cm, "the shared ConfigMap")
	opsPort := portOf(t, cm.Data["OPS_ADDR"])
	shutdown, err := time.ParseDuration(cm.Data["SHUTDOWN_TIMEOUT"])
	require.NoError(t, err)

	wantDeployments := []string{"recall-api", "recall-gateway"}
	for name := range workerBindings() {
		wantDeployments = append(wantDeployments, "recall-"+name)
	}
	slices.Sort(wantDeployments)
	var got []string
	for name := range k.Deployments {
		got = append(got, name)
	}
	slices.Sort(got)
	require.Equal(t, wantDeployments, got)

	for name, d := range k.Deployments {
		require.Equal(t, d.Spec.Selector.MatchLabels, d.Spec.Template.Labels, "%s: selector matches the pod labels", name)
		spec := d.Spec.Template.Spec
		require.Len(t, spec.Containers, 1, name)
		c := spec.Containers[0]
		binary := strings.TrimPrefix(name, "recall-")
		require.Equal(t, []string{"/usr/local/bin/" + binary}, c.Command, "%s runs its own binary", name)
		require.DirExists(t, filepath.Join(RepoRoot(), "cmd", binary), "%s: cmd/%s exists", name, binary)
		require.Equal(t, "recall", c.Image, "%s: the image kustomize sets", name)

		ops := containerPort(t, c, "ops")
		require.Equal(t, opsPort, ops, "%s: the ops port is OPS_ADDR's", name)
		// The gateway is ready whatever PostgreSQL and NATS say (it fails
		// open): its readiness is its own port's, which checks nothing else.
		ready := "ops"
		if name == "recall-gateway" {
			ready = "http"
		}
		checkProbe(t, name, c.ReadinessProbe, "/readyz", ready)
		checkProbe(t, name, c.LivenessProbe, "/healthz", "ops")
		require.Equal(t, "9090", d.Spec.Template.Annotations["prometheus.io/port"], "%s: metrics scraped on the ops port", name)

		require.False(t, c.Resources.Requests.Cpu().IsZero(), "%s: cpu request", name)
		require.False(t, c.Resources.Requests.Memory().IsZero(), "%s: memory request", name)
		require.False(t, c.Resources.Limits.Memory().IsZero(), "%s: memory limit", name)

		require.NotNil(t, spec.TerminationGracePeriodSeconds, name)
		grace := time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
		drain := 20 * time.Second // the runner's default drain timeout
		require.Greater(t, grace, max(shutdown, drain), "%s: the pod outlives its drain", name)
		require.NotNil(t, spec.SecurityContext)
		require.True(t, *spec.SecurityContext.RunAsNonRoot, name)
	}

	api := k.Deployments["recall-api"].Spec.Template.Spec.Containers[0]
	httpPort := containerPort(t, api, "http")
	require.Equal(t, httpPort, portOf(t, envValue(api, "API_ADDR")), "the API listens where its port says")
	svc := k.Services["recall-api"]
	require.NotNil(t, svc)
	require.Equal(t, k.Deployments["recall-api"].Spec.Template.Labels, svc.Spec.Selector)
	require.Equal(t, "http", svc.Spec.Ports[0].TargetPort.String())
	require.Equal(t, "recall-api", k.HPAs["recall-api"].Spec.ScaleTargetRef.Name)

	gw := k.Deployments["recall-gateway"].Spec.Template.Spec.Containers[0]
	require.Equal(t, containerPort(t, gw, "http"), portOf(t, envValue(gw, "GATEWAY_ADDR")), "the gateway listens where its port says")
	gsvc := k.Services["recall-gateway"]
	require.NotNil(t, gsvc)
	require.Equal(t, k.Deployments["recall-gateway"].Spec.Template.Labels, gsvc.Spec.Selector)
	require.Equal(t, "http", gsvc.Spec.Ports[0].TargetPort.String())

	cron := k.CronJobs["recall-decayer"]
	require.NotNil(t, cron, "the decayer runs as a CronJob")
	require.Equal(t, batchv1.ForbidConcurrent, cron.Spec.ConcurrencyPolicy)
	cspec := cron.Spec.JobTemplate.Spec.Template.Spec
	require.Equal(t, []string{"/usr/local/bin/decayer", "--once"}, cspec.Containers[0].Command, "one run per job")
	require.DirExists(t, filepath.Join(RepoRoot(), "cmd", "decayer"))
	require.Greater(t, time.Duration(*cspec.TerminationGracePeriodSeconds)*time.Second, shutdown)

	// One decay policy: every binary that ranks or ages facts imports it.
	for _, name := range []string{"recall-api", "recall-extractor", "recall-profiler", "recall-summarizer"} {
		require.Contains(t, k.Deployments[name].Spec.Template.Spec.Containers[0].EnvFrom, corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "recall-decay"}}}, name)
	}

	job := k.Jobs["recall-migrate"]
	require.NotNil(t, job, "migrations run as a Job")
	require.Equal(t, []string{"/usr/local/bin/recall", "migrate"}, job.Spec.Template.Spec.Containers[0].Command)
	require.Equal(t, corev1.RestartPolicyOnFailure, job.Spec.Template.Spec.RestartPolicy)
}

func TestK8sScaledObjectsFollowConsumerLag(t *testing.T) {
	t.Parallel()
	k := LoadK8s(t)
	require.Len(t, k.ScaledObjects, len(workerBindings())+1, "the workers' and the gateway's")
	for worker, b := range workerBindings() {
		so := k.ScaledObjects["recall-"+worker]
		require.NotNil(t, so, "ScaledObject for %s", worker)
		require.Equal(t, "keda.sh/v1alpha1", so.APIVersion)
		require.Equal(t, "recall-"+worker, so.Spec.ScaleTargetRef.Name)
		require.Contains(t, k.Deployments, so.Spec.ScaleTargetRef.Name)
		require.Len(t, so.Spec.Triggers, 1)
		tr := so.Spec.Triggers[0]
		require.Equal(t, "nats-jetstream", tr.Type)
		require.Equal(t, b.Stream, tr.Metadata["stream"], worker)
		require.Equal(t, b.Durable, tr.Metadata["consumer"], worker)
		require.Equal(t, workers.NATSAccount, tr.Metadata["account"], "%s: the account of Recall's streams", worker)
		require.NotEmpty(t, tr.Metadata["natsServerMonitoringEndpoint"])
		require.NotEmpty(t, tr.Metadata["lagThreshold"])
		require.GreaterOrEqual(t, *so.Spec.MinReplicaCount, int32(1), "%s: never scaled to zero (it would stop draining slowly-arriving work)", worker)
		require.Greater(t, *so.Spec.MaxReplicaCount, *so.Spec.MinReplicaCount)
	}
}

// The gateway scales on its chat request rate, a query of the metric it
// serves, which must parse as PromQL.
func TestK8sGatewayScalesOnRequestRate(t *testing.T) {
	t.Parallel()
	k := LoadK8s(t)
	so := k.ScaledObjects["recall-gateway"]
	require.NotNil(t, so)
	require.Equal(t, "recall-gateway", so.Spec.ScaleTargetRef.Name)
	require.Len(t, so.Spec.Triggers, 1)
	tr := so.Spec.Triggers[0]
	require.Equal(t, "prometheus", tr.Type)
	require.NotEmpty(t, tr.Metadata["serverAddress"])
	require.NotEmpty(t, tr.Metadata["threshold"])
	q := tr.Metadata["query"]
	_, err := promQL.ParseExpr(q)
	require.NoError(t, err, q)
	require.Contains(t, q, `recall_gateway_request_duration_seconds_count{route="POST /v1/chat/completions"}`)
	require.GreaterOrEqual(t, *so.Spec.MinReplicaCount, int32(1))
}

func TestK8sStrictDecodingCatchesTypos(t *testing.T) {
	t.Parallel()
	bad := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: x
spec:
  replicaz: 2
`
	err := newK8s().decode("x.yaml", []byte(bad))
	require.ErrorContains(t, err, "replicaz", "an unknown field fails the check")
	err = newK8s().decode("y.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"))
	require.ErrorContains(t, err, "unexpected kind")
}

func portOf(t *testing.T, addr string) int32 {
	t.Helper()
	i := strings.LastIndex(addr, ":")
	require.GreaterOrEqual(t, i, 0, "address %q", addr)
	var p int32
	for _, c := range addr[i+1:] {
		require.True(t, c >= '0' && c <= '9', "address %q", addr)
		p = p*10 + int32(c-'0')
	}
	return p
}

func containerPort(t *testing.T, c corev1.Container, name string) int32 {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	t.Fatalf("container %s has no port %q", c.Name, name)
	return 0
}

func checkProbe(t *testing.T, name string, p *corev1.Probe, path, port string) {
	t.Helper()
	require.NotNil(t, p, "%s: probe for %s", name, path)
	require.NotNil(t, p.HTTPGet, name)
	require.Equal(t, path, p.HTTPGet.Path, name)
	require.Equal(t, port, p.HTTPGet.Port.String(), name)
}

func envValue(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// The cluster overlay, rendered by kustomize: the base's workloads on a
// three-node NATS cluster and a CloudNativePG cluster of a primary and a
// replica, every binary's DATABASE_URL the operator's application URL, the
// API's and the gateway's reads on the replicas, streams at three replicas.
func TestK8sClusterOverlay(t *testing.T) {
	t.Parallel()
	base, k := LoadK8s(t), LoadK8sCluster(t)
	values := LoadNATSValues(t)

	// The same workloads as the base.
	for _, names := range [][2][]string{{keys(base.Deployments), keys(k.Deployments)}, {keys(base.Jobs), keys(k.Jobs)}, {keys(base.CronJobs), keys(k.CronJobs)}} {
		require.Equal(t, names[0], names[1])
	}

	// PostgreSQL: one cluster, a primary and at least one replica, with the
	// database and the extension the migrations need.
	require.Len(t, k.PGClusters, 1)
	var pg *CNPGCluster
	for _, c := range k.PGClusters {
		pg = c
	}
	require.GreaterOrEqual(t, pg.Spec.Instances, 2, "a primary and a replica")
	require.NotEmpty(t, pg.Spec.ImageName)
	require.Contains(t, pg.Spec.Bootstrap.InitDB.PostInitApplicationSQL, "CREATE EXTENSION IF NOT EXISTS vector")
	appSecret := pg.Name + "-app" // the operator's Secret of the application user
	for _, name := range slices.Concat(keys(k.Deployments), keys(k.Jobs), keys(k.CronJobs)) {
		c := k.PodSpec(t, name).Containers[0]
		e := c.Env[slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "DATABASE_URL" })]
		require.NotNil(t, e.ValueFrom, name)
		require.Equal(t, &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: appSecret}, Key: "uri"}, e.ValueFrom.SecretKeyRef, "%s: the primary's URL", name)
	}
	for _, name := range []string{"recall-api", "recall-gateway"} {
		c := k.PodSpec(t, name).Containers[0]
		read := envValue(c, "DATABASE_READ_URL")
		u, err := url.Parse(read)
		require.NoError(t, err, read)
		require.Equal(t, pg.Name+"-ro", u.Hostname(), "%s reads from the operator's read-only Service", name)
		require.Equal(t, "/"+pg.Spec.Bootstrap.InitDB.Database, u.Path)
		// The user and password are the application user's.
		for _, m := range envRef.FindAllStringSubmatch(read, -1) {
			i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == m[1] })
			require.GreaterOrEqual(t, i, 0)
			require.Equal(t, appSecret, c.Env[i].ValueFrom.SecretKeyRef.Name, "%s: $(%s)", name, m[1])
		}
	}
	for name := range k.Deployments {
		if name != "recall-api" && name != "recall-gateway" {
			require.Empty(t, envValue(k.Deployments[name].Spec.Template.Spec.Containers[0], "DATABASE_READ_URL"), "%s: writers stay on the primary", name)
		}
	}

	// NATS: the chart's three servers with JetStream on files, each on its
	// own node; the streams at three replicas; the release the code pins.
	require.True(t, values.Config.Cluster.Enabled)
	require.Equal(t, 3, values.Config.Cluster.Replicas)
	require.True(t, values.Config.JetStream.Enabled)
	require.NotEmpty(t, values.Config.JetStream.FileStore.PVC.Size)
	require.True(t, values.Config.Monitor.Enabled, "KEDA reads the consumers' lag from the monitoring port")
	require.Contains(t, values.PodTemplate.TopologySpreadConstraints, "kubernetes.io/hostname")
	require.Equal(t, strings.TrimPrefix(goModVersion(t, "github.com/nats-io/nats-server/v2"), "v")+"-alpine", values.Container.Image.Tag)
	cm := k.ConfigMaps["recall-config"]
	replicas, err := strconv.Atoi(cm.Data["STREAM_REPLICAS"])
	require.NoError(t, err)
	require.Equal(t, 3, replicas)
	require.LessOrEqual(t, replicas, values.Config.Cluster.Replicas)
	require.Equal(t, "nats://nats:4222", cm.Data["NATS_URL"], "the chart's Service of release nats")
	for worker := range workerBindings() {
		tr := k.ScaledObjects["recall-"+worker].Spec.Triggers[0]
		require.Equal(t, "nats-headless:8222", tr.Metadata["natsServerMonitoringEndpoint"], "%s: KEDA asks the consumer's leader, <server>.nats-headless", worker)
	}
	require.Equal(t, "prometheus", k.ScaledObjects["recall-gateway"].Spec.Triggers[0].Type)
}

// A patch of the overlay that no longer fits the base (DATABASE_URL moved
// from the first place) fails the render instead of setting the wrong
// variable: the overlay's own patch over a base whose first variable is
// another.
func TestK8sClusterPatchesTestTheirTarget(t *testing.T) {
	t.Parallel()
	patch, err := os.ReadFile(filepath.Join(RepoRoot(), "deploy", "k8s-cluster", "database-url.yaml"))
	require.NoError(t, err)
	fs := filesys.MakeFsInMemory()
	deployment := func(first string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: recall-x
spec:
  selector:
    matchLabels: {app: x}
  template:
    metadata:
      labels: {app: x}
    spec:
      containers:
        - name: x
          image: recall
          env:
            - name: ` + first + `
              valueFrom:
                secretKeyRef: {name: recall-database, key: url}
`
	}
	for _, f := range [][2]string{
		{"/overlay/kustomization.yaml", "resources: [../base]\npatches:\n  - path: database-url.yaml\n    target: {kind: Deployment}\n"},
		{"/overlay/database-url.yaml", string(patch)},
		{"/base/kustomization.yaml", "resources: [x.yaml]\n"},
	} {
		require.NoError(t, fs.WriteFile(f[0], []byte(f[1])))
	}
	build := func() (string, error) {
		out, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/overlay")
		if err != nil {
			return "", err
		}
		raw, err := out.AsYaml()
		return string(raw), err
	}
	require.NoError(t, fs.WriteFile("/base/x.yaml", []byte(deployment("DATABASE_URL"))))
	out, err := build()
	require.NoError(t, err)
	require.Contains(t, out, "name: recall-pg-app", "the patch applies where DATABASE_URL is first")
	require.NoError(t, fs.WriteFile("/base/x.yaml", []byte(deployment("DATABASE_READ_URL"))))
	_, err = build()
	require.Error(t, err, "the patch refuses a base whose first variable is another")
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// goModVersion is the version go.mod requires of module.
func goModVersion(t *testing.T, module string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), "go.mod"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == module {
			return f[1]
		}
	}
	t.Fatalf("go.mod does not require %s", module)
	return ""
}
