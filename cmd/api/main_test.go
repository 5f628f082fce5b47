package main

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/configdoc"
	"github.com/recallhq/recall/internal/testkit/deploycheck"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/service"
)

func TestDeployEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckDeployEnv(t, "api", envconfig.EnvVars[config]())
}

// The configuration reference lists what this binary loads.
func TestConfigDocListsWhatAPIReads(t *testing.T) {
	t.Parallel()
	reads := append(envconfig.EnvVars[config](), envconfig.EnvVars[service.Base]()...)
	slices.Sort(reads)
	require.Equal(t, slices.Compact(reads), configdoc.Reads("api"))
}
