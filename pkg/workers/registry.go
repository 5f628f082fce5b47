// Package workers is the registry of every Recall worker, each of which is a
// package of its own below this folder (pkg/workers/<name>; each is a
// worker.Def). It is the one place workers are named: `recall run` starts
// them all, `recall worker NAME` and the cmd/<worker> binaries start one,
// `recall replay -worker NAME` runs one over history, and the deployment
// checks compare each one's env with compose and Kubernetes.
package workers

import (
	"fmt"
	"strings"

	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/decayer"
	"github.com/recallhq/recall/pkg/workers/extractor"
	"github.com/recallhq/recall/pkg/workers/indexer"
	"github.com/recallhq/recall/pkg/workers/ingest"
	"github.com/recallhq/recall/pkg/workers/interests"
	"github.com/recallhq/recall/pkg/workers/seen"
	"github.com/recallhq/recall/pkg/workers/signals"
	"github.com/recallhq/recall/pkg/workers/summarizer"
	"github.com/recallhq/recall/pkg/workers/webhooks"
)

// All are the workers, in start order.
var All = []worker.Worker{
	ingest.Def,
	extractor.Def,
	seen.Def,
	indexer.Def,
	signals.Def,
	interests.Def,
	summarizer.Def,
	webhooks.Def,
	decayer.Def,
}

// Names are the workers' names, in start order.
func Names() []string {
	out := make([]string, len(All))
	for i, w := range All {
		out[i] = w.About().Name
	}
	return out
}

// Get returns the worker called name.
func Get(name string) (worker.Worker, error) {
	for _, w := range All {
		if w.About().Name == name {
			return w, nil
		}
	}
	return nil, fmt.Errorf("unknown worker %q (one of: %s)", name, strings.Join(Names(), ", "))
}

// Replayable are the workers that read a stream, which a replay can run over
// history again.
func Replayable() []string {
	var out []string
	for _, w := range All {
		if a := w.About(); a.Binding.Stream != "" {
			out = append(out, a.Name)
		}
	}
	return out
}

// NATSAccount is the account a production NATS cluster holds Recall's
// streams in, apart from other applications' (and from the system
// account), with NATSUsers as its users.
const NATSAccount = "RECALL"

// NATSUser is one user of NATSAccount: who logs in as it, and the subjects
// it may publish and subscribe to.
type NATSUser struct {
	// Name is the user's name: recall-<binary> for a binary.
	Name string
	// For says who logs in as the user.
	For         string
	Permissions queue.Permissions
}

// NATSUsers are the users of a production cluster, a user for each binary
// with what that binary needs and nothing more, from where each reads and
// what it publishes: the API, the gateway, every worker of All, and two
// for what is not a binary: the applications that publish to Recall on the
// bus (recall-producer) and the operator's tools (recall-ops: `recall dlq`,
// `forget`, `replay`, `worker`, which together do what any binary does).
// docs/operations.md explains them; deploy/nats.conf and
// deploy/k8s-cluster/nats-values.yaml are held to them by
// internal/testkit/deploycheck.
func NATSUsers() []NATSUser {
	out := []NATSUser{
		{Name: "recall-api", For: "the API (cmd/api)", Permissions: queue.APIPermissions()},
		{Name: "recall-gateway", For: "the chat gateway (cmd/gateway)", Permissions: queue.GatewayPermissions()},
	}
	for _, w := range All {
		a := w.About()
		out = append(out, NATSUser{Name: "recall-" + a.Name, For: "the " + a.Name + " worker (cmd/" + a.Name + ")", Permissions: worker.Permissions(w)})
	}
	return append(out,
		NATSUser{Name: "recall-producer", For: "applications publishing turns, catalog items, shelf entries and attribute edits", Permissions: queue.ProducerPermissions()},
		NATSUser{Name: "recall-ops", For: "the operator's tools: recall dlq, forget, replay, worker", Permissions: queue.LocalPermissions()},
	)
}
