package main

import (
	"errors"
	"fmt"
	"io"

	"evolve/gate"
	"evolve/scores"
)

// compareGate runs the CI gate's check (package gate) on the two samples
// of evolve compare: the hypothesis, margin and pairing flags of the gate
// applied to one candidate against one baseline. A sample too small for
// the gate to ever fail gives a nil check and the reason (an error only
// when the gate is asked to decide the exit status).
func compareGate(base, cand *scores.Sample, test string, cfg gate.Config, mustDecide bool) (*gate.Check, string, error) {
	cfg.Test = gate.TestMWU
	if test == "signed-rank" {
		cfg.Test = gate.TestSignedRank
	}
	if cfg.MarginOn == gate.MarginOnMean && test == "signed-rank" {
		cfg.Test = gate.TestAuto // the paired t test
	}
	b := gate.Sample{Version: "baseline", Seeds: base.Seeds, Scores: base.Scores}
	c := gate.Sample{Version: "candidate", Seeds: cand.Seeds, Scores: cand.Scores}
	if test == "signed-rank" && b.Seeds == nil && c.Seeds == nil && len(b.Scores) == len(c.Scores) {
		// Files without seeds pair by line, as scores.Pair does.
		b.Seeds = make([]uint64, len(b.Scores))
		for i := range b.Seeds {
			b.Seeds[i] = uint64(i)
		}
		c.Seeds = b.Seeds
	}
	checks, err := gate.Compare([]gate.Sample{b}, []gate.Sample{c}, cfg)
	if errors.Is(err, gate.ErrTooFew) && !mustDecide {
		return nil, err.Error(), nil
	}
	if err != nil {
		return nil, "", err
	}
	return &checks[0], "", nil
}

// printGate prints the gate's check of evolve compare under the table.
func printGate(w io.Writer, c *gate.Check, why string) {
	if c == nil {
		fmt.Fprintf(w, "gate: not computed: %s\n", why)
		return
	}
	fmt.Fprintf(w, "gate (hypothesis %s, H1: %s): %s\n", c.Hypothesis, gate.H1(*c), c.Message)
	for _, warn := range c.Warnings {
		fmt.Fprintf(w, "gate warning: %s\n", warn)
	}
}

// compareFailures runs the failure-share check of --max-failure-increase
// P on base and cand (gate.CompareFailures, paired by seed when both have
// seeds). It refuses a sample without causes, naming it.
func compareFailures(base, cand *scores.Sample, cfg gate.Config, p float64) (*gate.Check, error) {
	for _, s := range []*scores.Sample{base, cand} {
		if s.Failed == nil {
			return nil, fmt.Errorf("--max-failure-increase: %s has no failure causes (give RUN_DIR:VERSION, or a CSV file with a \"cause\" column: none or a failure cause per episode)", s.Source)
		}
	}
	b := gate.FailureSample{Version: "baseline", Seeds: base.Seeds, Failed: base.Failed}
	c := gate.FailureSample{Version: "candidate", Seeds: cand.Seeds, Failed: cand.Failed}
	checks, err := gate.CompareFailures([]gate.FailureSample{b}, []gate.FailureSample{c},
		gate.FailureConfig{Alpha: cfg.Alpha, MaxIncrease: p, MaxUnmatched: cfg.MaxUnmatched})
	if err != nil {
		return nil, err
	}
	return &checks[0], nil
}
