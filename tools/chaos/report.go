package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// status is a check's outcome.
type status string

const (
	statusPass status = "PASS"
	statusFail status = "FAIL"
	// statusWarn is a deviation whose cause is the environment, not Recall:
	// the nats-server is older than the 2.10 Recall is built for (see
	// docs). It is shown but does not fail the run.
	statusWarn status = "WARN"
	// statusKnown is a deviation that a limit the README documents
	// accounts for, shown with its evidence; it does not fail the run.
	statusKnown status = "KNOWN"
)

// checkRow is one line of the result table.
type checkRow struct {
	Name, Expected, Got string
	Status              status
	Evidence            string
}

// phase is a timed part of the run.
type phase struct {
	Name string
	Took time.Duration
}

// Report is everything a run found.
type Report struct {
	Mode        string
	Seed        uint64
	Dir         string
	NATSServer  string
	PostgreSQL  string
	Processes   []string
	Workload    workloadSummary
	Publish     publishStats
	StreamTurns uint64 // messages RECALL_TURNS holds
	Faults      []faultRecord
	// PublishStart is when publishing began: fault times are given from it.
	PublishStart time.Time
	Exits        map[string][]procExit
	Checks       []checkRow
	Notes        []string
	Phases       []phase
}

type workloadSummary struct {
	Tenants, Users, Sessions, Turns int
	System, Lists                   int
}

// Failed reports whether any check failed.
func (r *Report) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == statusFail {
			return true
		}
	}
	return false
}

func (r *Report) add(rows ...checkRow) { r.Checks = append(r.Checks, rows...) }

func (r *Report) phase(name string, start time.Time) {
	r.Phases = append(r.Phases, phase{name, time.Since(start)})
}

// Render writes the report as text tables.
func (r *Report) Render(w io.Writer) {
	fmt.Fprintf(w, "Recall chaos run: mode %s, seed %d\n", r.Mode, r.Seed)
	fmt.Fprintf(w, "  nats-server %s; %s\n", r.NATSServer, r.PostgreSQL)
	fmt.Fprintf(w, "  processes: %s\n", strings.Join(r.Processes, ", "))
	fmt.Fprintf(w, "  logs and data: %s\n\n", r.Dir)

	ws, ps := r.Workload, r.Publish
	fmt.Fprintln(w, "Turns")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  distinct turns\t%d\t(%d tenants, %d users, %d sessions; %d system turns, %d present a list)\n", ws.Turns, ws.Tenants, ws.Users, ws.Sessions, ws.System, ws.Lists)
	fmt.Fprintf(tw, "  first publish\t%d\t(%d straight to JetStream, %d via POST /v1/turns)\n", ps.First[routeDirect]+ps.First[routeAPI], ps.First[routeDirect], ps.First[routeAPI])
	fmt.Fprintf(tw, "  repeats inside the window\t%d\t(%d dropped by JetStream as duplicates)\n", ps.InWindow, ps.InWindowDup)
	fmt.Fprintf(tw, "  repeats after the window\t%d\t(%d dropped by JetStream; the rest reach the stream)\n", ps.AfterWindow, ps.AfterDup)
	fmt.Fprintf(tw, "  poison messages\t%d\t\n", ps.Poison)
	fmt.Fprintf(tw, "  attempts sent again\t%d\t(publish errors, API down, 503)\n", ps.Retries)
	if len(ps.HTTPStatus) > 0 {
		var parts []string
		for code, n := range ps.HTTPStatus {
			parts = append(parts, fmt.Sprintf("%d×%d", n, code))
		}
		sort.Strings(parts)
		fmt.Fprintf(tw, "  API answers other than 202\t%s\t\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(tw, "  RECALL_TURNS messages\t%d\t\n", r.StreamTurns)
	tw.Flush()

	fmt.Fprintln(w, "\nFaults, and exits the harness did not cause (UTC, and since publishing started)")
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, e := range r.timeline() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.when(e.At), e.What, e.Detail)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nChecks")
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  CHECK\tEXPECTED\tGOT\tRESULT")
	for _, c := range r.Checks {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Name, c.Expected, c.Got, c.Status)
	}
	tw.Flush()
	var ev []string
	for _, c := range r.Checks {
		if c.Evidence != "" && c.Status != statusPass {
			ev = append(ev, fmt.Sprintf("  %s %s: %s", c.Status, c.Name, c.Evidence))
		}
	}
	if len(ev) > 0 {
		fmt.Fprintln(w, "\nEvidence")
		for _, e := range ev {
			fmt.Fprintln(w, e)
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "\nNotes")
		for _, n := range r.Notes {
			fmt.Fprintln(w, "  - "+n)
		}
	}
	var total time.Duration
	var parts []string
	for _, p := range r.Phases {
		total += p.Took
		parts = append(parts, fmt.Sprintf("%s %s", p.Name, fmtDur(p.Took)))
	}
	fmt.Fprintf(w, "\nTimings: %s; total %s\n", strings.Join(parts, ", "), fmtDur(total))
	n := map[status]int{}
	for _, c := range r.Checks {
		n[c.Status]++
	}
	fmt.Fprintf(w, "Result: %d PASS, %d FAIL, %d KNOWN, %d WARN\n", n[statusPass], n[statusFail], n[statusKnown], n[statusWarn])
}

// timeline merges the faults with the processes' own exits, in time
// order. A crash loop says the same thing every time: it is shown once,
// with a count.
func (r *Report) timeline() []faultRecord {
	out := append([]faultRecord(nil), r.Faults...)
	for name, exits := range r.Exits {
		for i := 0; i < len(exits); {
			e := exits[i]
			j := i + 1
			for j < len(exits) && exits[j].Last == e.Last && exits[j].Status == e.Status {
				j++
			}
			what := name + " exited on its own"
			if j-i > 1 {
				what += fmt.Sprintf(" (%d times until %s)", j-i, exits[j-1].At.UTC().Format("15:04:05.000"))
			}
			out = append(out, faultRecord{At: e.At, What: what, Detail: fmt.Sprintf("pid %d, %s: %s", e.Pid, e.Status, e.Last)})
			i = j
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// when is a time of the run: UTC, and its offset from the publish start.
func (r *Report) when(t time.Time) string {
	return fmt.Sprintf("%s %+7.1fs", t.UTC().Format("15:04:05.000"), t.Sub(r.PublishStart).Seconds())
}

func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}
