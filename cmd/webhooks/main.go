// Command webhooks is the worker that delivers the change feed to tenants'
// webhook endpoints (docs/webhooks.md). Scale it by replicas; they share one
// durable consumer and the deliveries to make.
package main

import (
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/webhooks"
)

func main() { worker.Main(webhooks.Def) }
