package main

import (
	"testing"

	"github.com/recallhq/recall/internal/deploycheck"
	"github.com/recallhq/recall/pkg/service"
)

func TestComposeEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	p := deploycheck.LoadCompose(t)
	deploycheck.CheckServiceEnv(t, p, "extractor", service.EnvVars[config](), []string{"DATABASE_URL", "NATS_URL", "OPS_ADDR"})
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Extractor.Roles) != 1 || cfg.Extractor.Roles[0] != "user" || cfg.Extractor.TTLFor("topic") <= 0 {
		t.Fatalf("defaults: %+v", cfg.Extractor)
	}
}
