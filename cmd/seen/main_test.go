package main

import (
	"testing"

	"github.com/recallhq/recall/internal/deploycheck"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

func TestComposeEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	p := deploycheck.LoadCompose(t)
	deploycheck.CheckServiceEnv(t, p, "seen", service.EnvVars[config](), []string{"DATABASE_URL", "NATS_URL", "OPS_ADDR"})
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seen.Cap != store.DefaultSeenCap || cfg.DB.URL == "" || cfg.NATS.URL == "" {
		t.Fatalf("defaults: %+v", cfg.Seen)
	}
}
