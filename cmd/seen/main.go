// Command seen is the worker that records which items each user has been shown
// (the seen-item registry). Scale it by replicas; they share one durable consumer.
package main

import (
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/seen"
)

func main() { worker.Main(seen.Def) }
