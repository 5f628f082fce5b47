// Command indexer is the worker that indexes every user and assistant turn
// for memory search (terms, and an embedding from EMBED_*). Scale it by
// replicas; they share one durable consumer. Re-index with
// `recall replay -worker indexer`.
package main

import (
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/indexer"
)

func main() { worker.Main(indexer.Def) }
