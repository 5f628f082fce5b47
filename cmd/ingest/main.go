// Command ingest is the worker that stores turns from the stream in PostgreSQL.
// Scale it by replicas; they share one durable consumer.
package main

import (
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/ingest"
)

func main() { worker.Main(ingest.Def) }
