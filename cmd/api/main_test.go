package main

import (
	"testing"

	"github.com/recallhq/recall/internal/deploycheck"
	"github.com/recallhq/recall/pkg/service"
)

func TestDeployEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckDeployEnv(t, "api", service.EnvVars[config]())
}
