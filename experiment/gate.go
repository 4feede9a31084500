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
	return evaluate.Gate{Alpha: c.Acceptance.Alpha, Correction: corr}, nil
}

// testName is the acceptance test as recorded in mutation evidence.
func (c *Config) testName() string {
	if c.Acceptance.Test == "signed-rank" {
		return "wilcoxon-signed-rank"
	}
	return "mann-whitney-u"
}
