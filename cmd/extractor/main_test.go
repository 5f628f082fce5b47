package main

import (
	"testing"

	"github.com/recallhq/recall/internal/deploycheck"
	"github.com/recallhq/recall/pkg/service"
)

func TestDeployEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckDeployEnv(t, "extractor", service.EnvVars[config]())
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
