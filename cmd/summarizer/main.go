// Command summarizer is the worker that keeps session summaries, and runs the
// idle sweep that asks for the final summary of sessions gone quiet. Scale it by
// replicas; they share one durable consumer, and one sweeps at a time.
package main

import (
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/summarizer"
)

func main() { worker.Main(summarizer.Def) }
