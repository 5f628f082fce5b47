package deploycheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Kustomization is the part of kustomization.yaml the base uses.
type Kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Labels     []struct {
		Pairs map[string]string `json:"pairs"`
	} `json:"labels"`
	Images []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

// ScaledObject is KEDA's keda.sh/v1alpha1 ScaledObject, the fields the base uses
// (decoded strictly, so a misspelt field fails).
type ScaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		ScaleTargetRef struct {
			APIVersion string `json:"apiVersion,omitempty"`
			Kind       string `json:"kind,omitempty"`
			Name       string `json:"name"`
		} `json:"scaleTargetRef"`
		MinReplicaCount *int32 `json:"minReplicaCount,omitempty"`
		MaxReplicaCount *int32 `json:"maxReplicaCount,omitempty"`
		PollingInterval *int32 `json:"pollingInterval,omitempty"`
		CooldownPeriod  *int32 `json:"cooldownPeriod,omitempty"`
		Triggers        []struct {
			Type     string            `json:"type"`
			Metadata map[string]string `json:"metadata"`
		} `json:"triggers"`
	} `json:"spec"`
}

// CNPGCluster is CloudNativePG's postgresql.cnpg.io/v1 Cluster, the fields
// the cluster overlay uses (decoded strictly, so a misspelt field fails).
type CNPGCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Instances             int    `json:"instances"`
		ImageName             string `json:"imageName"`
		PrimaryUpdateStrategy string `json:"primaryUpdateStrategy,omitempty"`
		PostgreSQL            struct {
			Parameters map[string]string `json:"parameters,omitempty"`
		} `json:"postgresql"`
		Bootstrap struct {
			InitDB struct {
				Database               string   `json:"database"`
				Owner                  string   `json:"owner"`
				PostInitApplicationSQL []string `json:"postInitApplicationSQL,omitempty"`
			} `json:"initdb"`
		} `json:"bootstrap"`
		Storage struct {
			Size string `json:"size"`
		} `json:"storage"`
		Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	} `json:"spec"`
}

// K8s is the kustomize base in deploy/k8s, every manifest decoded strictly into
// its Kubernetes API type.
type K8s struct {
	Kustomization Kustomization
	Deployments   map[string]*appsv1.Deployment
	Jobs          map[string]*batchv1.Job
	CronJobs      map[string]*batchv1.CronJob
	ConfigMaps    map[string]*corev1.ConfigMap
	Services      map[string]*corev1.Service
	HPAs          map[string]*autoscalingv2.HorizontalPodAutoscaler
	ScaledObjects map[string]*ScaledObject
	// PGClusters are the CloudNativePG clusters (the cluster overlay's).
	PGClusters map[string]*CNPGCluster
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// envRef is a reference to another variable in an env value, $(NAME).
var envRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// LoadK8s reads deploy/k8s: the kustomization, then every resource it lists.
func LoadK8s(t testing.TB) *K8s {
	t.Helper()
	dir := filepath.Join(RepoRoot(), "deploy", "k8s")
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	require.NoError(t, err)
	k := newK8s()
	require.NoError(t, yaml.UnmarshalStrict(raw, &k.Kustomization), "kustomization.yaml")
	for _, res := range k.Kustomization.Resources {
		raw, err := os.ReadFile(filepath.Join(dir, res))
		require.NoError(t, err, "resource %s", res)
		require.NoError(t, k.decode(res, raw))
	}
	return k
}

func newK8s() *K8s {
	return &K8s{
		Deployments: map[string]*appsv1.Deployment{}, Jobs: map[string]*batchv1.Job{},
		CronJobs: map[string]*batchv1.CronJob{}, ConfigMaps: map[string]*corev1.ConfigMap{},
		Services: map[string]*corev1.Service{}, HPAs: map[string]*autoscalingv2.HorizontalPodAutoscaler{},
		ScaledObjects: map[string]*ScaledObject{}, PGClusters: map[string]*CNPGCluster{},
	}
}

// decode decodes every document of one manifest file strictly into its type.
func (k *K8s) decode(file string, raw []byte) error {
	for i, doc := range docSep.Split(string(raw), -1) {
		if len(bytes.TrimSpace(stripComments([]byte(doc)))) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			return fmt.Errorf("%s doc %d: %w", file, i, err)
		}
		var obj metav1.Object
		switch tm.APIVersion + " " + tm.Kind {
		case "apps/v1 Deployment":
			obj = &appsv1.Deployment{}
		case "batch/v1 Job":
			obj = &batchv1.Job{}
		case "batch/v1 CronJob":
			obj = &batchv1.CronJob{}
		case "v1 ConfigMap":
			obj = &corev1.ConfigMap{}
		case "v1 Service":
			obj = &corev1.Service{}
		case "autoscaling/v2 HorizontalPodAutoscaler":
			obj = &autoscalingv2.HorizontalPodAutoscaler{}
		case "keda.sh/v1alpha1 ScaledObject":
			obj = &ScaledObject{}
		case "postgresql.cnpg.io/v1 Cluster":
			obj = &CNPGCluster{}
		default:
			return fmt.Errorf("%s doc %d: unexpected kind %q %q", file, i, tm.APIVersion, tm.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			return fmt.Errorf("%s doc %d (%s): %w", file, i, tm.Kind, err)
		}
		name := obj.GetName()
		if name == "" {
			return fmt.Errorf("%s doc %d (%s): no metadata.name", file, i, tm.Kind)
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			k.Deployments[name] = o
		case *batchv1.Job:
			k.Jobs[name] = o
		case *batchv1.CronJob:
			k.CronJobs[name] = o
		case *corev1.ConfigMap:
			k.ConfigMaps[name] = o
		case *corev1.Service:
			k.Services[name] = o
		case *autoscalingv2.HorizontalPodAutoscaler:
			k.HPAs[name] = o
		case *ScaledObject:
			k.ScaledObjects[name] = o
		case *CNPGCluster:
			k.PGClusters[name] = o
		}
	}
	return nil
}

// LoadK8sCluster renders the cluster overlay (deploy/k8s-cluster: the base on
// a NATS cluster and a CloudNativePG cluster) with kustomize itself, as
// `kubectl apply -k` would, patches applied, and decodes every resource of
// the result strictly into its type.
func LoadK8sCluster(t testing.TB) *K8s {
	t.Helper()
	out, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(RepoRoot(), "deploy", "k8s-cluster"))
	require.NoError(t, err, "kustomize build deploy/k8s-cluster")
	raw, err := out.AsYaml()
	require.NoError(t, err)
	k := newK8s()
	require.NoError(t, k.decode("deploy/k8s-cluster (rendered)", raw))
	return k
}

// NATSValues are the values of the official NATS Helm chart (nats-io/k8s,
// chart nats 2.x) that deploy/k8s-cluster/nats-values.yaml sets, decoded
// strictly, so a key the chart does not have fails.
type NATSValues struct {
	Config struct {
		Cluster struct {
			Enabled  bool `json:"enabled"`
			Replicas int  `json:"replicas"`
		} `json:"cluster"`
		JetStream struct {
			Enabled   bool `json:"enabled"`
			FileStore struct {
				PVC struct {
					Size string `json:"size"`
				} `json:"pvc"`
			} `json:"fileStore"`
		} `json:"jetstream"`
		Monitor struct {
			Enabled bool `json:"enabled"`
		} `json:"monitor"`
		// Merge is merged into the server config the chart renders, its
		// << $VAR >> written as $VAR: Recall's account and users.
		Merge json.RawMessage `json:"merge"`
	} `json:"config"`
	Container struct {
		// Env is the server's environment, each variable from a Secret.
		Env map[string]struct {
			ValueFrom corev1.EnvVarSource `json:"valueFrom"`
		} `json:"env"`
		Image struct {
			Tag string `json:"tag"`
		} `json:"image"`
		Merge struct {
			Resources corev1.ResourceRequirements `json:"resources"`
		} `json:"merge"`
	} `json:"container"`
	PodTemplate struct {
		TopologySpreadConstraints map[string]struct {
			MaxSkew           int    `json:"maxSkew"`
			WhenUnsatisfiable string `json:"whenUnsatisfiable"`
		} `json:"topologySpreadConstraints"`
	} `json:"podTemplate"`
	PodDisruptionBudget struct {
		Enabled bool `json:"enabled"`
	} `json:"podDisruptionBudget"`
}

// LoadNATSValues reads deploy/k8s-cluster/nats-values.yaml.
func LoadNATSValues(t testing.TB) NATSValues {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), "deploy", "k8s-cluster", "nats-values.yaml"))
	require.NoError(t, err)
	var v NATSValues
	require.NoError(t, yaml.UnmarshalStrict(raw, &v), "nats-values.yaml")
	return v
}

func stripComments(b []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// PodSpec is the pod template of the named Deployment, Job or CronJob.
func (k *K8s) PodSpec(t testing.TB, name string) *corev1.PodSpec {
	t.Helper()
	if d, ok := k.Deployments[name]; ok {
		return &d.Spec.Template.Spec
	}
	if j, ok := k.Jobs[name]; ok {
		return &j.Spec.Template.Spec
	}
	if c, ok := k.CronJobs[name]; ok {
		return &c.Spec.JobTemplate.Spec.Template.Spec
	}
	t.Fatalf("no Deployment, Job or CronJob %q in deploy/k8s", name)
	return nil
}

// CheckK8sEnv checks that the workload's container sets no variable its binary
// does not read (directly or through a ConfigMap it imports) and every variable
// in required.
func CheckK8sEnv(t testing.TB, k *K8s, workload string, reads, required []string) {
	t.Helper()
	spec := k.PodSpec(t, workload)
	require.Len(t, spec.Containers, 1, "%s: one container", workload)
	c := spec.Containers[0]
	set := map[string]bool{}
	for _, e := range c.Env {
		require.False(t, set[e.Name], "%s sets %s twice", workload, e.Name)
		set[e.Name] = true
	}
	for _, from := range c.EnvFrom {
		require.NotNil(t, from.ConfigMapRef, "%s: envFrom only from ConfigMaps of this base", workload)
		cm, ok := k.ConfigMaps[from.ConfigMapRef.Name]
		require.True(t, ok, "%s imports ConfigMap %q, which the base does not define", workload, from.ConfigMapRef.Name)
		for key := range cm.Data {
			set[key] = true
		}
	}
	// A variable another one's value refers to as $(NAME) (Kubernetes'
	// expansion, the overlay's way of putting a Secret's password into a
	// URL) is used, though the binary does not read it.
	referenced := map[string]bool{}
	for i, e := range c.Env {
		for _, m := range envRef.FindAllStringSubmatch(e.Value, -1) {
			j := slices.IndexFunc(c.Env, func(d corev1.EnvVar) bool { return d.Name == m[1] })
			require.True(t, j >= 0 && j < i, "%s: %s refers to $(%s), which is not set before it", workload, e.Name, m[1])
			referenced[m[1]] = true
		}
	}
	var unknown []string
	for name := range set {
		if !slices.Contains(reads, name) && !referenced[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	require.Empty(t, unknown, "%s sets variables its binary does not read", workload)
	for _, name := range required {
		require.True(t, set[name], "%s must set %s", workload, name)
	}
}
