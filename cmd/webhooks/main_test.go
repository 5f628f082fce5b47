package main

import (
	"testing"

	"github.com/recallhq/recall/internal/testkit/deploycheck"
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers/webhooks"
)

func TestDeployEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckDeployEnv(t, "webhooks", worker.EnvVars(webhooks.Def))
}
