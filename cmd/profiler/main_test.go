package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/deploycheck"
	"github.com/recallhq/recall/pkg/service"
)

func TestDeployEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckDeployEnv(t, "profiler", service.EnvVars[config]())
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := service.LoadConfig[config]()
	require.NoError(t, err)
	require.Equal(t, time.Second, cfg.Profiler.DebounceGrace)
	require.Equal(t, 500, cfg.Profiler.MaxFacts)
	require.Equal(t, 30*time.Second, cfg.Profiler.MaxHold)
	require.Positive(t, cfg.Profiler.Consumer.MaxDeliver)
	require.Empty(t, cfg.Embed.Model, "offline (hashing) embeddings unless a model is configured")
}
