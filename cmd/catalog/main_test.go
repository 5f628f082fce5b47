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
	deploycheck.CheckDeployEnv(t, "catalog", service.EnvVars[config]())
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := service.LoadConfig[config]()
	require.NoError(t, err)
	require.Equal(t, 5*time.Second, cfg.Catalog.Refresh.Bucket)
	require.Positive(t, cfg.Catalog.Consumer.MaxDeliver)
	require.Empty(t, cfg.Embed.Model, "offline (hashing) embeddings unless a model is configured")
}
