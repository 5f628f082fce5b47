// Command decayer keeps memory in shape on a schedule: fact weights decayed,
// facts archived below the floor and expired past their expiry, messages and
// sessions beyond a tenant's retention deleted, and the profiles of users
// whose facts changed refreshed. It runs at start and then every
// DECAYER_INTERVAL; with --once it runs once and exits 0 (done, or skipped
// because another decayer was running) or 1 (failed), for a Kubernetes
// CronJob. Replicas are safe: runs are serialized by an advisory lock.
package main

import (
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/decayer"
)

func main() { worker.Main(decayer.Def) }
