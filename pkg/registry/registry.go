// Package registry lists every Recall worker. It is the one place workers are
// named: `recall run` starts them all, `recall worker NAME` and the
// cmd/<worker> binaries start one, `recall replay -worker NAME` runs one over
// history, and the deployment checks compare each one's env with compose and
// Kubernetes.
package registry

import (
	"fmt"
	"strings"

	"github.com/recallhq/recall/pkg/catalog"
	"github.com/recallhq/recall/pkg/decayer"
	"github.com/recallhq/recall/pkg/extractor"
	"github.com/recallhq/recall/pkg/indexer"
	"github.com/recallhq/recall/pkg/ingest"
	"github.com/recallhq/recall/pkg/profiler"
	"github.com/recallhq/recall/pkg/seen"
	"github.com/recallhq/recall/pkg/summarizer"
	"github.com/recallhq/recall/pkg/worker"
)

// All are the workers, in start order.
var All = []worker.Worker{
	ingest.Def,
	extractor.Def,
	seen.Def,
	indexer.Def,
	catalog.Def,
	profiler.Def,
	summarizer.Def,
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
