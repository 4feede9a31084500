package experiment

import (
	"fmt"

	"evolve/accept"
	"evolve/stats"
)

// Gate returns the statistical gate of the config's acceptance section.
func (c *Config) Gate() (accept.Rule, error) {
	corr, err := stats.ParseCorrection(c.Acceptance.Correction)
	if err != nil {
		return accept.Rule{}, err
	}
	test, err := stats.ParseTestName(string(c.Acceptance.Test), stats.UseAcceptance)
	if err != nil {
		return accept.Rule{}, fmt.Errorf("acceptance.test: %w", err)
	}
	return accept.Rule{Test: test, Alpha: c.Acceptance.Alpha, Correction: corr}, nil
}

// sequential is the config's group-sequential gate; Looks <= 1 means
// none.
func (c *Config) sequential() (accept.Sequential, error) {
	sq := c.Acceptance.Sequential
	sp, err := stats.ParseSpending(sq.Spending)
	if err != nil {
		return accept.Sequential{}, err
	}
	return accept.Sequential{Looks: sq.Looks, Spending: sp, Futility: sq.Futility, Simultaneous: sq.Stopping != StoppingSeparate}, nil
}

// alphaOf is the level generation g (0-based) is tested at: the
// configured α, spent across generations (α·6/(π²(g+1)²),
// stats.BaselAlpha) unless acceptance.alpha_spending is "none".
func (c *Config) alphaOf(g int) float64 {
	if c.Acceptance.AlphaSpending == "none" {
		return c.Acceptance.Alpha
	}
	return stats.BaselAlpha(c.Acceptance.Alpha, g+1)
}

// testName is the acceptance test as recorded in mutation evidence: its
// registered long name (stats.TestSpec.Evidence).
func (c *Config) testName() string {
	spec, _ := stats.LookupTest(c.Acceptance.Test)
	return spec.Evidence
}
