package rundir

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteJSON writes entries as one indented JSON array (the fields of
// Entry, by their json names).
func WriteJSON(w io.Writer, entries []Entry) error {
	if entries == nil {
		entries = []Entry{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(entries)
}

// WriteTable writes entries as an aligned text table, one line each: ID,
// kind, status, start (UTC, to the minute), duration, generations
// (done/max), accepted versions, base → final test mean (a run's), the
// eval's versions, an eval's verdict (Entry.Verdict, "-" for a run or
// an eval without one), and the stop reason.
func WriteTable(w io.Writer, entries []Entry) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSTATUS\tSTARTED\tDURATION\tGENERATIONS\tACCEPTED\tTEST MEAN\tVERDICT\tSTOP\tDIR")
	for _, e := range entries {
		gens, acc, test := "-", "-", "-"
		if e.Kind == KindRun {
			gens = fmt.Sprintf("%d/%d", e.Generations, e.MaxGenerations)
			acc = fmt.Sprint(e.Accepted)
			if e.TestBase != nil && e.TestFinal != nil {
				test = fmt.Sprintf("%.1f → %.1f", *e.TestBase, *e.TestFinal)
			}
		} else {
			var parts []string
			for _, v := range e.Versions {
				if m, ok := e.Means[v]; ok {
					parts = append(parts, fmt.Sprintf("%s %.1f", v, m))
				} else {
					parts = append(parts, v)
				}
			}
			test = strings.Join(parts, ", ")
		}
		verdict := e.Verdict
		if verdict == "" {
			verdict = "-"
		}
		stop := e.StopReason
		if stop == "" {
			stop = "-"
		}
		if e.Problem != "" {
			stop = "unreadable: " + e.Problem
		}
		started := "-"
		if !e.Started.IsZero() {
			started = e.Started.UTC().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Kind, e.Status, started,
			Duration(e.Seconds), gens, acc, test, verdict, stop, e.Dir)
	}
	return tw.Flush()
}

// Duration formats seconds as "1h02m", "3m05s" or "8s".
func Duration(seconds float64) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}
