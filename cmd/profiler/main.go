// Command profiler is the worker that keeps every user's interest vector: it
// recomputes a user's vector from their shelf and interest facts on each
// profile refresh task. Scale it by replicas; they share one durable consumer.
package main

import (
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/interests"
)

func main() { worker.Main(interests.Def) }
