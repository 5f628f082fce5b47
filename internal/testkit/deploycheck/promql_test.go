package deploycheck

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// promQL parses expressions as Prometheus does with its default options.
var promQL = parser.NewParser(parser.Options{})

// targetLabels are the labels Prometheus adds to every scraped series. A scrape
// config may add more (pod, namespace); the deploy files only use these.
var targetLabels = []string{"job", "instance"}

// series are the series names a query can select, each with the label names
// its series carry. A histogram is stored as name_bucket (with le), name_sum
// and name_count, a summary as name (with quantile), name_sum and name_count.
type series map[string][]string

func (s series) add(name string, labels []string, extra ...string) {
	all := slices.Concat(s[name], labels, targetLabels, extra)
	slices.Sort(all)
	s[name] = slices.Compact(all)
}

// recorder is a Registerer that registers on a Registry and keeps what it
// registered. A vector with no child yet is in the registry's descriptors
// but not in what it gathers, so its type (and with it whether _bucket
// exists) is told from the collector itself.
type recorder struct {
	reg        *prometheus.Registry
	collectors []prometheus.Collector
}

func (r *recorder) Register(c prometheus.Collector) error {
	if err := r.reg.Register(c); err != nil {
		return err
	}
	r.collectors = append(r.collectors, c)
	return nil
}

func (r *recorder) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

func (r *recorder) Unregister(c prometheus.Collector) bool { return r.reg.Unregister(c) }

// kinds are the types of the vectors registered through r, by metric name.
func (r *recorder) kinds() map[string]dto.MetricType {
	out := map[string]dto.MetricType{}
	for _, c := range r.collectors {
		var kind dto.MetricType
		switch c.(type) {
		case *prometheus.HistogramVec:
			kind = dto.MetricType_HISTOGRAM
		case *prometheus.SummaryVec:
			kind = dto.MetricType_SUMMARY
		default:
			continue
		}
		for _, d := range describe(c) {
			if name, _, err := parseDesc(d); err == nil {
				out[name] = kind
			}
		}
	}
	return out
}

func describe(c prometheus.Collector) []*prometheus.Desc {
	ch := make(chan *prometheus.Desc)
	go func() { c.Describe(ch); close(ch) }()
	var out []*prometheus.Desc
	for d := range ch {
		out = append(out, d)
	}
	return out
}

// exported lists the series reg exports once scraped: every metric registered
// on it, from its descriptors (so a vector that has no child yet is listed
// too), and every family it gathers. A metric's type comes from what it
// gathers, else from kinds; a metric of neither is taken as a counter or gauge.
func exported(reg *prometheus.Registry, kinds map[string]dto.MetricType) (series, error) {
	labels := map[string][]string{}
	for _, d := range describe(reg) {
		name, ls, err := parseDesc(d)
		if err != nil {
			return nil, err
		}
		labels[name] = ls
	}
	mfs, err := reg.Gather()
	if err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	types := map[string]dto.MetricType{}
	for name, k := range kinds {
		types[name] = k
	}
	for _, mf := range mfs {
		types[mf.GetName()] = mf.GetType()
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				labels[mf.GetName()] = append(labels[mf.GetName()], lp.GetName())
			}
		}
		if _, ok := labels[mf.GetName()]; !ok {
			labels[mf.GetName()] = nil
		}
	}
	out := series{}
	for name, ls := range labels {
		switch types[name] {
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			out.add(name+"_bucket", ls, "le")
			out.add(name+"_sum", ls)
			out.add(name+"_count", ls)
		case dto.MetricType_SUMMARY:
			out.add(name, ls, "quantile")
			out.add(name+"_sum", ls)
			out.add(name+"_count", ls)
		default:
			out.add(name, ls)
		}
	}
	return out, nil
}

var (
	descFQName = regexp.MustCompile(`^Desc\{fqName: ("(?:[^"\\]|\\.)*")`)
	descConst  = regexp.MustCompile(`(?:^|,)([a-zA-Z_][a-zA-Z0-9_]*)="`)
)

// parseDesc reads a descriptor's name and label names from its String form,
// the only way client_golang shows them:
//
//	Desc{fqName: "x", help: "...", unit: "", constLabels: {a="1"}, variableLabels: {b,c(d)}}
//
// TestParseDesc fails if that form changes.
func parseDesc(d *prometheus.Desc) (string, []string, error) {
	if err := d.Err(); err != nil {
		return "", nil, fmt.Errorf("invalid descriptor %s: %w", d, err)
	}
	s := d.String()
	m := descFQName.FindStringSubmatch(s)
	if m == nil {
		return "", nil, fmt.Errorf("descriptor %s: no fqName", s)
	}
	name, err := strconv.Unquote(m[1])
	if err != nil {
		return "", nil, fmt.Errorf("descriptor %s: %w", s, err)
	}
	const constKey, varKey = "constLabels: {", ", variableLabels: {"
	ci, vi := strings.LastIndex(s, constKey), strings.LastIndex(s, varKey)
	if ci < 0 || vi < ci || !strings.HasSuffix(s, "}}") {
		return "", nil, fmt.Errorf("descriptor %s: unexpected form", s)
	}
	var out []string
	for _, c := range descConst.FindAllStringSubmatch(s[ci+len(constKey):vi], -1) {
		out = append(out, c[1])
	}
	if vars := s[vi+len(varKey) : len(s)-2]; vars != "" {
		for _, v := range strings.Split(vars, ",") {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(v, "c("), ")"))
		}
	}
	return name, out, nil
}

// check parses expr and returns an error for every part of it that cannot
// select anything s exports: a metric name that is not exported, a label
// matcher on a label the metric's series do not carry, and a by or on label
// that no series below it carries. Such a query is valid PromQL and returns
// nothing, which on a dashboard looks like a quiet system and in an alert
// like a healthy one.
func (s series) check(expr string) error {
	e, err := promQL.ParseExpr(expr)
	if err != nil {
		return fmt.Errorf("parse %q: %w", expr, err)
	}
	var errs []error
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			errs = append(errs, s.checkSelector(n)...)
		case *parser.AggregateExpr:
			if !n.Without {
				for _, l := range n.Grouping {
					if !s.carried(n.Expr, l) {
						errs = append(errs, fmt.Errorf("%s: no series below it has label %q", n.Op, l))
					}
				}
			}
		case *parser.BinaryExpr:
			if vm := n.VectorMatching; vm != nil && vm.On {
				for _, l := range vm.MatchingLabels {
					if !s.carried(n.LHS, l) || !s.carried(n.RHS, l) {
						errs = append(errs, fmt.Errorf("on(%s): a side has no series with that label", l))
					}
				}
			}
		}
		return nil
	})
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%q: %w", expr, err)
	}
	return nil
}

// names are the exported series names sel can select.
func (s series) names(sel *parser.VectorSelector) []string {
	var out []string
	for name := range s {
		if sel.Name != "" && name != sel.Name {
			continue
		}
		ok := true
		for _, m := range sel.LabelMatchers {
			if m.Name == labels.MetricName && !m.Matches(name) {
				ok = false
			}
		}
		if ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func (s series) checkSelector(sel *parser.VectorSelector) []error {
	names := s.names(sel)
	if len(names) == 0 {
		return []error{fmt.Errorf("%s: no exported metric has that name", sel)}
	}
	var errs []error
	for _, m := range sel.LabelMatchers {
		if m.Name == labels.MetricName {
			continue
		}
		if !slices.ContainsFunc(names, func(n string) bool { return slices.Contains(s[n], m.Name) }) {
			errs = append(errs, fmt.Errorf("%s: %s has no label %q (it has %s)", sel, strings.Join(names, ", "), m.Name, strings.Join(s[names[0]], ", ")))
		}
	}
	return errs
}

// carried reports whether a series selected below e carries label l. Below
// label_replace or label_join any label may exist, and below a selector of
// no exported metric (an error of its own) any label is taken as carried.
func (s series) carried(e parser.Expr, l string) bool {
	found := false
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.Call:
			if n.Func.Name == "label_replace" || n.Func.Name == "label_join" {
				found = true
			}
		case *parser.VectorSelector:
			names := s.names(n)
			if len(names) == 0 {
				found = true
			}
			for _, name := range names {
				if slices.Contains(s[name], l) {
					found = true
				}
			}
		}
		return nil
	})
	return found
}
