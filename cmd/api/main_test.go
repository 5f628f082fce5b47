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

func TestConfigDefaults(t *testing.T) {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DB.URL == "" || cfg.NATS.URL == "" || cfg.ShutdownTimeout <= 0 {
		t.Fatalf("defaults missing: %+v", cfg)
	}
}
