// Command extractor is the worker that turns chat turns into interest facts.
// Scale it by replicas; they share one durable consumer.
package main

import (
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/extractor"
)

func main() { worker.Main(extractor.Def) }
