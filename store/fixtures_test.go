package store

import (
	"time"

	"evolve/prompt"

	"evolve/params"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// derived is v1.0.0 → v1.0.1 with a threshold mutation and its evidence
// (as package prompt's tests make it).
func derived() *prompt.Prompt {
	ps := prompt.Base().PolicyParameters.With("health_threshold", params.NumberValue(0.4))
	rec := prompt.MutationRecord{
		Version: prompt.MustParseVersion("v1.0.1"), PrevVersion: prompt.MustParseVersion("v1.0.0"),
		Operator:    "threshold_adjustment",
		Description: "Adjusted health_threshold: 0.300 → 0.400 (increase, Δ=0.100)",
		Timestamp:   t0,
		Evidence: &prompt.Evidence{Test: "mann-whitney-u", Alternative: "greater", PValue: 0.0012, AdjustedPValue: 0.0048,
			Correction: "holm", A12: 0.58, NIncumbent: 300, NCandidate: 300, IncumbentValMean: 536.4,
			CandidateValMean: 601.25, Generation: 0, Accepted: true},
	}
	return prompt.Base().Derive(rec.Version, ps, rec, t0)
}
