package gate

import (
	"encoding/json"
	"fmt"
	"math"
)

// UnmarshalJSON decodes a check as MarshalJSON encodes it (the same keys;
// null numbers become NaN), so that a verdict can be stored and read back
// (evolve eval keeps its verdict in its checkpoint). An unknown key or a
// value of the wrong type is an error naming it.
func (c *Check) UnmarshalJSON(data []byte) error {
	var j checkJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("gate: decoding a check: %w", err)
	}
	num := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	*c = Check{
		Version: j.Version, Variant: j.Variant, N: j.N, NBaseline: j.NBaseline, NPaired: j.NPaired,
		NUnmatched: j.NUnmatched, Paired: j.Paired, Hypothesis: j.Hypothesis, MarginOn: j.MarginOn,
		Mean: num(j.Mean), BaselineMean: num(j.BaselineMean), MeanDiff: num(j.MeanDiff),
		Test: j.Test, Method: j.Method, Statistic: num(j.Statistic), P: num(j.P), PAdj: num(j.PAdj), A12: num(j.A12),
		HLShift: num(j.HLShift), HLLow: num(j.HLLow), HLHigh: num(j.HLHigh),
		Margin: j.Margin, MarginA12: j.MarginA12, Alpha: j.Alpha, Correction: j.Correction,
		Family: j.Family, Failed: j.Failed, Regression: j.Regression, Power: num(j.Power), PowerLoss: j.PowerLoss,
		Message: j.Message, Warnings: j.Warnings, FailureMethod: j.FailureMethod,
	}
	if len(c.Warnings) == 0 {
		c.Warnings = nil
	}
	return nil
}
