// Command catalog is the worker that keeps the bookshelf: it stores catalog
// items (embedded) and users' shelf entries, and asks the profiler to refresh
// the users whose vectors they change. Scale it by replicas; they share one
// durable consumer.
package main

import (
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/signals"
)

func main() { worker.Main(signals.Def) }
