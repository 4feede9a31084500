package online

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// ScoreModel draws the observation scores of a version that does not
// change.
type ScoreModel interface {
	// Draw returns one score, using only r for randomness.
	Draw(r *rand.Rand) float64
	// SD is the standard deviation of the scores Draw returns (the sigma
	// a degradation is measured in).
	SD() float64
}

// NormalScores are normal scores (not clipped to [0, 1]).
type NormalScores struct{ Mean, Sigma float64 }

// Draw returns Mean + Sigma z, z standard normal.
func (n NormalScores) Draw(r *rand.Rand) float64 { return n.Mean + n.Sigma*r.NormFloat64() }

// SD returns Sigma.
func (n NormalScores) SD() float64 { return n.Sigma }

// ObservationScores are Observation.Score of random interactions:
// sentiment Beta(SentimentA, SentimentB), corrections Poisson(Corrections)
// and success drawn with probabilities PFull, PPartial (the rest
// failure), independently.
type ObservationScores struct {
	SentimentA, SentimentB float64 // Beta parameters, > 0
	Corrections            float64 // Poisson mean, > 0
	PFull, PPartial        float64 // probabilities of SuccessFull and SuccessPartial; PFull + PPartial <= 1
}

// DefaultObservationScores is the model of the rollback simulation:
// sentiment Beta(4, 2) (mean 2/3), 1 correction on average, success 60%
// full, 20% partial, 20% failure. Its scores have mean 0.7433 and
// standard deviation 0.123436 and are skewed to the left.
var DefaultObservationScores = ObservationScores{SentimentA: 4, SentimentB: 2, Corrections: 1, PFull: 0.6, PPartial: 0.2}

// Draw returns the score of one random observation.
func (m ObservationScores) Draw(r *rand.Rand) float64 {
	o := Observation{
		Sentiment:   distuv.Beta{Alpha: m.SentimentA, Beta: m.SentimentB, Src: r}.Rand(),
		Corrections: int(distuv.Poisson{Lambda: m.Corrections, Src: r}.Rand()),
	}
	switch u := r.Float64(); {
	case u < m.PFull:
		o.Success = SuccessFull
	case u < m.PFull+m.PPartial:
		o.Success = SuccessPartial
	default:
		o.Success = SuccessFailure
	}
	return o.Score()
}

// SD is the exact standard deviation of the scores: the three terms are
// independent, so Var = 0.25 Var(sentiment) + 0.09 Var(min(0.1 C, 1)) +
// 0.04 Var(success value), the middle one summed over the Poisson
// probabilities.
func (m ObservationScores) SD() float64 {
	a, b := m.SentimentA, m.SentimentB
	vs := a * b / ((a + b) * (a + b) * (a + b + 1))
	pois := distuv.Poisson{Lambda: m.Corrections}
	var e1, e2, mass float64
	for k := 0; k < 10; k++ {
		p := pois.Prob(float64(k))
		x := 0.1 * float64(k)
		e1 += p * x
		e2 += p * x * x
		mass += p
	}
	e1 += 1 - mass // min(0.1 C, 1) = 1 for C >= 10
	e2 += 1 - mass
	vc := e2 - e1*e1
	su1 := m.PFull + 0.5*m.PPartial
	su2 := m.PFull + 0.25*m.PPartial
	vu := su2 - su1*su1
	return math.Sqrt(0.25*vs + 0.09*vc + 0.04*vu)
}

// RollbackStudy simulates a RollbackRule on seeded score streams: each
// trial is one version's life of Baseline + Horizon scores, with, if
// Shift > 0, every score after the drop lowered by Shift standard
// deviations of Scores. Trial i's drop comes after ChangeAt + (i mod
// Rule.Window) monitored scores, so the trials cover every alignment of
// the drop with the rule's windows.
type RollbackStudy struct {
	Rule     RollbackRule
	Scores   ScoreModel
	Trials   int     // > 0
	Horizon  int     // monitored scores after the baseline, > 0
	ChangeAt int     // monitored scores before the drop (plus the trial's offset), >= 0, ChangeAt + Rule.Window <= Horizon
	Shift    float64 // the drop in standard deviations; 0 for no change
	Seed     uint64  // trial i draws from PCG(Seed, i)
}

// RollbackResult is what a RollbackStudy found.
type RollbackResult struct {
	Trials int
	// Rollbacks counts trials that alarmed at all; Early those that
	// alarmed before the drop (every alarm when Shift is 0: a false
	// rollback); InWindow those that alarmed after the drop and within
	// Rule.DetectionWindow() scores of it.
	Rollbacks, Early, InWindow int
	// Delays are, for the trials that alarmed after the drop, the scores
	// from the drop to the alarm (1 = the first degraded score), sorted.
	Delays []int
}

// FalseRate is Early / Trials.
func (r RollbackResult) FalseRate() float64 { return float64(r.Early) / float64(r.Trials) }

// DetectionRate is InWindow / Trials.
func (r RollbackResult) DetectionRate() float64 { return float64(r.InWindow) / float64(r.Trials) }

// DelayQuantile returns the q-quantile (the smallest delay with at least
// q of the delays at or below it) of Delays; -1 if there is none.
func (r RollbackResult) DelayQuantile(q float64) int {
	if len(r.Delays) == 0 {
		return -1
	}
	i := int(math.Ceil(q*float64(len(r.Delays)))) - 1
	return r.Delays[max(i, 0)]
}

// Run simulates the study. Errors name an invalid field.
func (s RollbackStudy) Run() (RollbackResult, error) {
	if err := s.Rule.Validate(); err != nil {
		return RollbackResult{}, err
	}
	switch {
	case s.Scores == nil:
		return RollbackResult{}, fmt.Errorf("rollback study: no score model")
	case s.Trials <= 0 || s.Horizon <= 0:
		return RollbackResult{}, fmt.Errorf("rollback study: trials and horizon must be > 0: %d, %d", s.Trials, s.Horizon)
	case s.ChangeAt < 0 || s.ChangeAt+s.Rule.Window > s.Horizon:
		return RollbackResult{}, fmt.Errorf("rollback study: change at %d is outside [0, horizon %d - window %d]", s.ChangeAt, s.Horizon, s.Rule.Window)
	case !(s.Shift >= 0):
		return RollbackResult{}, fmt.Errorf("rollback study: shift must be >= 0: %v", s.Shift)
	}
	res := RollbackResult{Trials: s.Trials}
	drop := s.Shift * s.Scores.SD()
	for i := range s.Trials {
		r := rand.New(rand.NewPCG(s.Seed, uint64(i)))
		d := NewDetector(s.Rule)
		change := s.ChangeAt + i%s.Rule.Window
		for t := 1; t <= s.Rule.Baseline+s.Horizon; t++ {
			x := s.Scores.Draw(r)
			after := t - s.Rule.Baseline - change // 1 = first degraded score
			if s.Shift > 0 && after >= 1 {
				x -= drop
			}
			if _, ok := d.Add(x); !ok {
				continue
			}
			res.Rollbacks++
			switch {
			case s.Shift == 0 || after < 1:
				res.Early++
			default:
				res.Delays = append(res.Delays, after)
				if after <= s.Rule.DetectionWindow() {
					res.InWindow++
				}
			}
			break
		}
	}
	slices.Sort(res.Delays)
	return res, nil
}
