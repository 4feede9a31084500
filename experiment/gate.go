package experiment

import (
	"evolve/evaluate"
	"evolve/stats"
)

// Gate returns the statistical gate of the config's acceptance section.
func (c *Config) Gate() (evaluate.Gate, error) {
	corr, err := stats.ParseCorrection(c.Acceptance.Correction)
	if err != nil {
		return evaluate.Gate{}, err
	}
	test, err := evaluate.ParseTest(c.Acceptance.Test)
	if err != nil {
		return evaluate.Gate{}, err
	}
	return evaluate.Gate{Test: test, Alpha: c.Acceptance.Alpha, Correction: corr}, nil
}

// sequential is the config's group-sequential gate; Looks <= 1 means
// none.
func (c *Config) sequential() (evaluate.Sequential, error) {
	sq := c.Acceptance.Sequential
	sp, err := stats.ParseSpending(sq.Spending)
	if err != nil {
		return evaluate.Sequential{}, err
	}
	return evaluate.Sequential{Looks: sq.Looks, Spending: sp, Futility: sq.Futility, Simultaneous: sq.Stopping != StoppingSeparate}, nil
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

// testName is the acceptance test as recorded in mutation evidence.
func (c *Config) testName() string {
	if c.Acceptance.Test == "signed-rank" {
		return "wilcoxon-signed-rank"
	}
	return "mann-whitney-u"
}

// signedRankV is the candidate's signed-rank statistic V (T+), or nil
// (null in candidates.parquet) when the gate's test is not the signed-rank
// test.
func signedRankV(c evaluate.Comparison) *float64 {
	if c.SignedRank == nil {
		return nil
	}
	v := c.SignedRank.TPlus
	return &v
}
