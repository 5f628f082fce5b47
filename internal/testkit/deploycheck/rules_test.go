package deploycheck

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/workers/decayer"
)

// loadRules parses deploy/prometheus/recall-rules.yaml as Prometheus and
// `promtool check rules` do: strictly (an unknown field fails), every expr
// parsed as PromQL and every annotation and label as a template. Names are
// held to the classic character set, which every Prometheus version accepts.
func loadRules(t testing.TB) *rulefmt.RuleGroups {
	t.Helper()
	path := filepath.Join(RepoRoot(), "deploy", "prometheus", "recall-rules.yaml")
	groups, errs := rulefmt.ParseFile(path, false, model.LegacyValidation, promQL, slog.New(slog.DiscardHandler))
	require.Empty(t, errs, "rule file errors")
	return groups
}

// alerts are the rules of every group.
func alerts(t testing.TB) []rulefmt.Rule {
	var out []rulefmt.Rule
	for _, g := range loadRules(t).Groups {
		out = append(out, g.Rules...)
	}
	return out
}

var runbookRef = regexp.MustCompile(`^docs/operations\.md: (.+)$`)

func TestAlertRulesParse(t *testing.T) {
	t.Parallel()
	groups := loadRules(t)
	require.NotEmpty(t, groups.Groups)
	doc, err := os.ReadFile(filepath.Join(RepoRoot(), "docs", "operations.md"))
	require.NoError(t, err)
	ops := string(doc)

	seen := map[string]bool{}
	for _, g := range groups.Groups {
		require.True(t, strings.HasPrefix(g.Name, "recall-"), "group %s", g.Name)
		require.NotEmpty(t, g.Rules, g.Name)
		for _, r := range g.Rules {
			name := r.Alert
			require.NotEmpty(t, name, "%s: alerting rules only (record: %q)", g.Name, r.Record)
			require.True(t, strings.HasPrefix(name, "Recall"), name)
			require.False(t, seen[name], "%s defined twice", name)
			seen[name] = true
			require.Contains(t, []string{"warning", "critical"}, r.Labels["severity"], "%s: severity", name)
			require.NotEmpty(t, r.Annotations["summary"], "%s: summary", name)
			require.Contains(t, r.Annotations["description"], "Threshold:", "%s: the description gives the threshold's reason", name)
			m := runbookRef.FindStringSubmatch(r.Annotations["runbook"])
			require.NotNil(t, m, "%s: runbook %q points at docs/operations.md: <paragraph>", name, r.Annotations["runbook"])
			require.Contains(t, ops, "**"+m[1]+".**", "%s: docs/operations.md has a paragraph %q", name, m[1])
		}
	}
}

// The rules watch what the operator kit promises to watch.
func TestAlertRulesCoverTheSignals(t *testing.T) {
	t.Parallel()
	selected := map[string]bool{}
	for _, r := range alerts(t) {
		e, err := promQL.ParseExpr(r.Expr)
		require.NoError(t, err)
		parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
			if vs, ok := n.(*parser.VectorSelector); ok {
				selected[vs.Name] = true
			}
			return nil
		})
	}
	for _, name := range []string{
		"recall_consumer_pending_messages", "recall_consumer_dead_lettered_total",
		"recall_consumer_failed_total", "recall_decayer_last_success_timestamp_seconds",
		"recall_api_requests_total", "recall_api_request_seconds_bucket",
		"recall_extract_llm_fallbacks_total", "up", "process_start_time_seconds", "recall_db_replica_usable",
	} {
		require.True(t, selected[name], "no alert watches %s", name)
	}
}

// Thresholds that follow from the code and the manifests move with them.
func TestAlertThresholdsFollowTheirReasons(t *testing.T) {
	t.Parallel()
	byName := map[string]rulefmt.Rule{}
	for _, r := range alerts(t) {
		byName[r.Alert] = r
	}

	// Lag: twice the largest KEDA lagThreshold, so the alert never fires while
	// KEDA is still scaling out as designed.
	maxLag := 0.0
	for _, so := range LoadK8s(t).ScaledObjects {
		if so.Spec.Triggers[0].Type != "nats-jetstream" {
			continue // the gateway's scales on its request rate
		}
		v, err := strconv.ParseFloat(so.Spec.Triggers[0].Metadata["lagThreshold"], 64)
		require.NoError(t, err)
		maxLag = max(maxLag, v)
	}
	lag := comparedWith(t, byName["RecallConsumerLag"].Expr)
	require.GreaterOrEqual(t, lag, 2*maxLag, "RecallConsumerLag: at least twice the largest KEDA lagThreshold")

	// Decayer: twice the default interval, and remembered across restarts for
	// longer than that.
	interval := decayer.Def.Defaults().Interval
	require.Equal(t, 24*time.Hour, interval)
	stale := byName["RecallDecayerStale"].Expr
	require.Equal(t, (2 * interval).Seconds(), comparedWith(t, stale), "RecallDecayerStale: twice DECAYER_INTERVAL's default")
	e, err := promQL.ParseExpr(stale)
	require.NoError(t, err)
	var window time.Duration
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if ms, ok := n.(*parser.MatrixSelector); ok {
			window = ms.Range
		}
		return nil
	})
	require.Greater(t, window, 2*interval, "max_over_time must look back past the threshold")

	// A rollout restarts each process once: a crash loop is more than that.
	require.Greater(t, comparedWith(t, byName["RecallRestarting"].Expr), 1.0)
}

// comparedWith is the number an alert's expression compares its value with:
// the right-hand side of its top-level comparison.
func comparedWith(t testing.TB, expr string) float64 {
	t.Helper()
	e, err := promQL.ParseExpr(expr)
	require.NoError(t, err)
	b, ok := e.(*parser.BinaryExpr)
	require.True(t, ok && b.Op.IsComparisonOperator(), "%q: a comparison at the top", expr)
	n, ok := b.RHS.(*parser.NumberLiteral)
	require.True(t, ok, "%q: compared with a number", expr)
	return n.Val
}

// The checker finds what a valid expression cannot select.
func TestSeriesCheckCatchesMisspellings(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	rec := &recorder{reg: reg}
	counter := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recall_consumer_processed_total", Help: "h"}, []string{"consumer"})
	hist := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "recall_api_request_seconds", Help: "h"}, []string{"route"})
	rec.MustRegister(counter, hist)
	s, err := exported(reg, rec.kinds())
	require.NoError(t, err)
	require.Equal(t, series{
		"recall_consumer_processed_total":   {"consumer", "instance", "job"},
		"recall_api_request_seconds_bucket": {"instance", "job", "le", "route"},
		"recall_api_request_seconds_sum":    {"instance", "job", "route"},
		"recall_api_request_seconds_count":  {"instance", "job", "route"},
	}, s, "vectors with no child yet are listed, histograms under their stored names")

	for _, good := range []string{
		`sum by (consumer) (rate(recall_consumer_processed_total{consumer=~"a|b", job="recall-ingest"}[5m]))`,
		`histogram_quantile(0.99, sum by (route, le) (rate(recall_api_request_seconds_bucket[5m])))`,
		`{__name__=~"recall_api_request_seconds_(sum|count)"}`,
		`sum by (x) (label_replace(recall_consumer_processed_total, "x", "$1", "consumer", "(.*)"))`,
	} {
		require.NoError(t, s.check(good), good)
	}
	for bad, want := range map[string]string{
		`rate(recall_consumer_procesed_total[5m])`:                                      "recall_consumer_procesed_total",
		`rate(recall_consumer_processed_total_bucket[5m])`:                              "recall_consumer_processed_total_bucket",
		`recall_api_request_seconds`:                                                    "recall_api_request_seconds",
		`rate(recall_consumer_processed_total{consumr="ingest"}[5m])`:                   `no label "consumr"`,
		`sum by (rout) (rate(recall_api_request_seconds_count[5m]))`:                    `label "rout"`,
		`recall_consumer_processed_total and on (route) recall_api_request_seconds_sum`: "on(route)",
		`{__name__=~"recall_api_.*_total"}`:                                             "no exported metric",
		`rate(recall_consumer_processed_total[5m]`:                                      "parse",
	} {
		require.ErrorContains(t, s.check(bad), want, bad)
	}
}

func TestParseDesc(t *testing.T) {
	t.Parallel()
	d := prometheus.NewDesc("recall_x_total", `help with "quotes", constLabels: {y="1"}`, []string{"a", "b"}, prometheus.Labels{"c": "x,d=\"2\""})
	name, ls, err := parseDesc(d)
	require.NoError(t, err)
	require.Equal(t, "recall_x_total", name)
	require.ElementsMatch(t, []string{"a", "b", "c"}, ls)
	_, ls, err = parseDesc(prometheus.NewDesc("up_like", "h", nil, nil))
	require.NoError(t, err)
	require.Empty(t, ls)
}
