package main

import (
	"testing"

	"github.com/recallhq/recall/internal/testkit/deploycheck"
	"github.com/recallhq/recall/pkg/decayer"
	"github.com/recallhq/recall/pkg/worker"
)

func TestDeployEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckDeployEnv(t, "decayer", worker.EnvVars(decayer.Def))
}
