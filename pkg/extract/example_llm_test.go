package extract_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/llm"
)

// A worker runs the LLM when a model is configured and the rules otherwise;
// with a model, the rules still answer whenever the model fails for good.
func ExampleLLM_WithFallback() {
	cfg := envconfig.Defaults[llm.Config]()   // in a binary: LLM_* from the environment
	cfg.BaseURL = "http://localhost:11434/v1" // Ollama; empty means OpenAI
	cfg.Model = "qwen2.5:7b"
	rules, err := extract.NewRules(extract.RulesOptions{})
	if err != nil {
		panic(err)
	}
	var extractor extract.Extractor = rules
	if cfg.Enabled() {
		llm, err := extract.NewLLM(cfg, prometheus.DefaultRegisterer, slog.New(slog.NewJSONHandler(os.Stderr, nil)))
		if err != nil {
			panic(err)
		}
		extractor = llm.WithFallback(rules)
	}
	facts, err := extractor.Extract(context.Background(), extract.Input{Text: "最近在读刘慈欣的《三体》"})
	if err != nil {
		panic(err) // only when the context ends or the rules themselves fail
	}
	fmt.Println(facts)
}
