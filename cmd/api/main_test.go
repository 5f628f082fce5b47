package main

import (
	"testing"

	"github.com/recallhq/recall/internal/deploycheck"
	"github.com/recallhq/recall/pkg/service"
)

func TestComposeEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	p := deploycheck.LoadCompose(t)
	deploycheck.CheckServiceEnv(t, p, "api", service.EnvVars[config](), []string{"DATABASE_URL", "NATS_URL", "OPS_ADDR"})
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
