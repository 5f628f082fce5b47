package deploycheck

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/gateway"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers"
)

// recallSeries builds every Recall component on one registry, as `recall run`
// does, and returns the series Prometheus would scrape from them: the API
// (which has served one turn, so its vectors have children), every worker of
// the registry with its runner on its durable consumer, with a model
// configured so that the model clients' metrics exist, the Go and process
// collectors, and the up series Prometheus writes for every target.
func recallSeries(t *testing.T) series {
	t.Helper()
	ctx := context.Background()
	db := testenv.NewDB(t)
	n := testenv.NewNATS(t)
	reg := service.NewRegistry()
	rec := &recorder{reg: reg}

	cfgs, err := worker.Load(workers.All, map[string]string{
		"LLM_MODEL": "any-model", "LLM_BASE_URL": "http://127.0.0.1:9/v1",
	})
	require.NoError(t, err)
	wd := &worker.Deps{Store: db.Store, JS: n.JS, Registry: rec, Limits: events.DefaultLimits, Log: testenv.Logger(t)}
	_, err = worker.Tasks(ctx, wd, queue.NewRunnerMetrics(rec), cfgs)
	require.NoError(t, err)

	srv, err := api.New(api.Options{Config: envconfig.Defaults[api.Config](), Store: db.Store, JS: n.JS, Registry: reg, Log: testenv.Logger(t)})
	require.NoError(t, err)
	turn := `{"id":"t-1","user_id":"u1","session_id":"s1","occurred_at":"` + time.Now().UTC().Format(time.RFC3339) + `","role":"user","content":"hello"}`
	req := httptest.NewRequest(http.MethodPost, "/v1/turns", strings.NewReader(turn))
	req.Header.Set("X-Tenant-ID", "demo")
	w := httptest.NewRecorder()
	srv.Handler(reg).ServeHTTP(w, req)
	require.Equal(t, http.StatusAccepted, w.Code, w.Body.String())

	// The gateway, in front of a fake upstream, after one request.
	up := openaitest.New(t)
	gw, err := gateway.New(gateway.Options{Config: gateway.Config{UpstreamURL: up.URL() + "/v1"}, Memory: srv.Memory(), Registry: reg, Log: testenv.Logger(t)})
	require.NoError(t, err)
	req = httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("X-Tenant-ID", "demo")
	w = httptest.NewRecorder()
	gw.Handler(reg).ServeHTTP(w, req)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())

	// The read replicas' metrics, of a replica that is down (its gauges
	// exist, labelled, whatever its state).
	st, err := store.Open(ctx, store.Config{URL: db.URL, MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.OpenReplicas(ctx, store.ReadConfig{URL: "postgres://recall@127.0.0.1:1/recall", MaxLag: time.Second, CheckInterval: time.Hour}, rec, testenv.Logger(t)))

	s, err := exported(reg, rec.kinds())
	require.NoError(t, err)
	s.add("up", nil)
	return s
}

// The alert rules and the dashboard select only what Recall exports: a renamed
// metric or label fails here, not as an alert that can never fire or a panel
// that shows nothing.
func TestOperatorKitSelectsExportedMetrics(t *testing.T) {
	t.Parallel()
	s := recallSeries(t)

	// The collection sees metrics that have no series yet, and every family.
	for _, name := range []string{
		"recall_consumer_dead_lettered_total", "recall_consumer_handler_seconds_bucket",
		"recall_api_request_seconds_bucket", "recall_api_turns_total",
		"recall_decayer_last_success_timestamp_seconds", "recall_extract_llm_fallbacks_total",
		"recall_summarize_llm_requests_total", "recall_summarizer_summaries_total",
		"process_resident_memory_bytes", "go_memstats_heap_inuse_bytes", "up",
	} {
		require.Contains(t, s, name)
	}
	require.ErrorContains(t, s.check(`rate(recall_consumer_procesed_total[5m])`), "recall_consumer_procesed_total", "a misspelt metric fails")
	require.ErrorContains(t, s.check(`recall_api_requests_total{code=~"5.."}`), `no label "code"`, "a misspelt label fails")

	t.Run("alert rules", func(t *testing.T) {
		for _, r := range alerts(t) {
			t.Run(r.Alert, func(t *testing.T) {
				require.NoError(t, s.check(r.Expr))
			})
		}
	})
	t.Run("gateway scaling", func(t *testing.T) {
		require.NoError(t, s.check(LoadK8s(t).ScaledObjects["recall-gateway"].Spec.Triggers[0].Metadata["query"]))
	})
	t.Run("dashboard", func(t *testing.T) {
		d := loadDashboard(t)
		for _, p := range d.queryPanels() {
			t.Run(p.Title, func(t *testing.T) {
				for _, tg := range p.Targets {
					q, err := promQLOf(tg.Expr, d.variables())
					require.NoError(t, err)
					require.NoError(t, s.check(q), tg.RefID)
				}
			})
		}
		for _, q := range d.variableQueries(t) {
			require.NoError(t, s.check(q), "variable query")
		}
	})
}
