package main

import (
	"testing"
	"time"

	"github.com/recallhq/recall/internal/deploycheck"
	"github.com/recallhq/recall/pkg/service"
)

func TestDeployEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckDeployEnv(t, "summarizer", service.EnvVars[config]())
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Summarizer
	if s.MaxMessages != 20 || s.IdleAfter != 30*time.Minute || s.SweepInterval != time.Minute || s.LLM.Enabled() ||
		s.Summary.MaxRunes != 300 || s.Summary.MaxTopics != 5 || !s.LLMFallback || s.LLMTenantRate != 60 {
		t.Fatalf("defaults: %+v", s)
	}
}
