package main

import (
	"errors"
	"fmt"
	"io"

	"evolve/gate"
	"evolve/scores"
	"evolve/stats"
)

// compareGate runs the CI gate's check on the two samples of evolve
// compare (scores.GateCheck). A sample too small for the gate to ever
// fail gives a nil check and the reason (an error only when the gate is
// asked to decide the exit status).
func compareGate(base, cand *scores.Sample, test stats.TestName, cfg gate.Config, mustDecide bool) (*gate.Check, string, error) {
	check, err := scores.GateCheck(base, cand, test, cfg)
	if errors.Is(err, gate.ErrTooFew) && !mustDecide {
		return nil, err.Error(), nil
	}
	if err != nil {
		return nil, "", err
	}
	return check, "", nil
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
// P on base and cand (scores.FailureCheck).
func compareFailures(base, cand *scores.Sample, cfg gate.Config, p float64) (*gate.Check, error) {
	check, err := scores.FailureCheck(base, cand, cfg, p)
	if errors.Is(err, scores.ErrNoCauses) {
		return nil, fmt.Errorf("--max-failure-increase: %w", err)
	}
	return check, err
}
