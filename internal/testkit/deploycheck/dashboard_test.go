package deploycheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// dashboard is the part of a Grafana dashboard model the checks read.
type dashboard struct {
	UID           string  `json:"uid"`
	Title         string  `json:"title"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []variable `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID         int         `json:"id"`
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	Datasource *datasource `json:"datasource"`
	Targets    []target    `json:"targets"`
	// Panels are those of a collapsed row.
	Panels  []panel `json:"panels"`
	GridPos struct {
		H int `json:"h"`
		W int `json:"w"`
		X int `json:"x"`
		Y int `json:"y"`
	} `json:"gridPos"`
}

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type target struct {
	RefID      string      `json:"refId"`
	Expr       string      `json:"expr"`
	Datasource *datasource `json:"datasource"`
}

type variable struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Datasource *datasource     `json:"datasource"`
	Query      json.RawMessage `json:"query"`
	Definition string          `json:"definition"`
}

// loadDashboard decodes deploy/grafana/recall-dashboard.json.
func loadDashboard(t testing.TB) *dashboard {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), "deploy", "grafana", "recall-dashboard.json"))
	require.NoError(t, err)
	var d dashboard
	require.NoError(t, json.Unmarshal(raw, &d))
	return &d
}

// queryPanels are the panels that query, those inside collapsed rows included.
func (d *dashboard) queryPanels() []panel {
	var out []panel
	for _, p := range d.Panels {
		if p.Type == "row" {
			out = append(out, p.Panels...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// grafanaVar is a variable in a query: $name, ${name} or ${name:format}.
var grafanaVar = regexp.MustCompile(`\$(?:\{(\w+)(?::\w+)?\}|(\w+))`)

// grafanaIntervals are Grafana's built-in variables that stand for a duration.
var grafanaIntervals = map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}

// promQLOf is expr as Prometheus receives it, with Grafana's variables
// replaced: the built-in intervals by a duration, the dashboard's own
// variables (vars) by a value valid in a label matcher. A variable that is
// neither is an error: Grafana would send it to Prometheus as it is.
func promQLOf(expr string, vars map[string]bool) (string, error) {
	var unknown []string
	out := grafanaVar.ReplaceAllStringFunc(expr, func(m string) string {
		sub := grafanaVar.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		switch {
		case grafanaIntervals[name]:
			return "5m"
		case vars[name]:
			return "x"
		}
		unknown = append(unknown, m)
		return m
	})
	if len(unknown) > 0 {
		return "", fmt.Errorf("%q: unknown variables %s", expr, strings.Join(unknown, ", "))
	}
	return out, nil
}

// variables are the names of the dashboard's template variables.
func (d *dashboard) variables() map[string]bool {
	out := map[string]bool{}
	for _, v := range d.Templating.List {
		out[v.Name] = true
	}
	return out
}

// labelValues matches a Prometheus variable query label_values(selector, label).
var labelValues = regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)

// variableQueries are the dashboard's Prometheus variable queries as PromQL:
// label_values(m, l) asks for the values of l on the series of m, which is
// what count by (l) (m) selects.
func (d *dashboard) variableQueries(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Definition)
		require.NotNil(t, m, "variable %s: label_values(selector, label), got %q", v.Name, v.Definition)
		out = append(out, fmt.Sprintf("count by (%s) (%s)", m[2], m[1]))
	}
	return out
}

func TestDashboardShape(t *testing.T) {
	t.Parallel()
	d := loadDashboard(t)
	require.Equal(t, 39, d.SchemaVersion)
	require.NotEmpty(t, d.UID)
	require.NotEmpty(t, d.Title)

	vars := map[string]variable{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v
	}
	ds := vars["datasource"]
	require.Equal(t, "datasource", ds.Type, "a data source variable, chosen at import")
	require.JSONEq(t, `"prometheus"`, string(ds.Query))
	consumer := vars["consumer"]
	require.Equal(t, "query", consumer.Type)
	require.Equal(t, &datasource{Type: "prometheus", UID: "${datasource}"}, consumer.Datasource)
	require.Len(t, d.variableQueries(t), 1)

	ids := map[int]bool{}
	for _, p := range d.Panels {
		require.False(t, ids[p.ID], "panel id %d used twice", p.ID)
		ids[p.ID] = true
		require.Positive(t, p.GridPos.W, p.Title)
		require.LessOrEqual(t, p.GridPos.X+p.GridPos.W, 24, "%s: within the 24 columns", p.Title)
		if p.Type == "row" {
			require.Empty(t, p.Targets, "row %s only lays out", p.Title)
		}
	}
	panels := d.queryPanels()
	require.NotEmpty(t, panels)
	want := &datasource{Type: "prometheus", UID: "${datasource}"}
	for _, p := range panels {
		require.NotEmpty(t, p.Title, "panel %d: title", p.ID)
		require.Equal(t, want, p.Datasource, "%s: the datasource variable", p.Title)
		require.NotEmpty(t, p.Targets, "%s: at least one query", p.Title)
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			require.NotEmpty(t, tg.RefID, p.Title)
			require.False(t, refs[tg.RefID], "%s: refId %s twice", p.Title, tg.RefID)
			refs[tg.RefID] = true
			require.Equal(t, want, tg.Datasource, "%s %s: the datasource variable", p.Title, tg.RefID)
			q, err := promQLOf(tg.Expr, d.variables())
			require.NoError(t, err, p.Title)
			_, err = promQL.ParseExpr(q)
			require.NoError(t, err, "%s %s: %s", p.Title, tg.RefID, q)
		}
	}
}

func TestPromQLOfReplacesGrafanaVariables(t *testing.T) {
	t.Parallel()
	vars := map[string]bool{"consumer": true}
	got, err := promQLOf(`rate(x{consumer=~"$consumer", a="${consumer:regex}"}[$__rate_interval]) + increase(x[$__range])`, vars)
	require.NoError(t, err)
	require.Equal(t, `rate(x{consumer=~"x", a="x"}[5m]) + increase(x[5m])`, got)
	_, err = promQLOf(`rate(x{consumer=~"$consumers"}[5m])`, vars)
	require.ErrorContains(t, err, "$consumers")
}
