package bandit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"evolve/online"
)

// RollbackConfig configures the auto-rollback study: one version's
// observation scores are its rewards in the study's request stream
// (a uniform context, a uniform seed of the pool), and online.Detector
// watches them through online.RollbackStudy, once per shift.
type RollbackConfig struct {
	// Rule is the rollback rule under study.
	Rule online.RollbackRule
	// Version names the version observed (one of Config.Versions).
	Version string
	// Shifts are the drops simulated, in standard deviations of the
	// version's rewards, each >= 0; 0 is "no change" and measures the
	// false rollback rate.
	Shifts []float64
	// Trials is the number of seeded trials per shift, >= 1.
	Trials int
	// Horizon is the scores watched after the baseline, per trial.
	Horizon int
	// ChangeAt is the watched scores before the drop (plus the trial's
	// offset, see online.RollbackStudy); ChangeAt + Rule.Window <=
	// Horizon.
	ChangeAt int
}

// DefaultRollback returns the defaults: online.DefaultRollbackRule, the
// version v1.0.5 (the evolved HEAD), shifts 0, 0.5, 1 and 2 sigma, 2000
// trials each, a horizon of 1000 scores and the drop after 200.
func DefaultRollback() RollbackConfig {
	return RollbackConfig{Rule: online.DefaultRollbackRule, Version: "v1.0.5", Shifts: []float64{0, 0.5, 1, 2},
		Trials: 2000, Horizon: 1000, ChangeAt: 200}
}

// Validate returns an error naming the first field out of range (the
// version is checked against the study's versions by Config.Validate).
func (r *RollbackConfig) Validate() error {
	if err := r.Rule.Validate(); err != nil {
		return err
	}
	switch {
	case len(r.Shifts) == 0:
		return fmt.Errorf("shifts: none")
	case r.Trials < 1:
		return fmt.Errorf("trials must be >= 1, got %d", r.Trials)
	case r.Horizon < 1:
		return fmt.Errorf("horizon must be >= 1, got %d", r.Horizon)
	case r.ChangeAt < 0 || r.ChangeAt+r.Rule.Window > r.Horizon:
		return fmt.Errorf("change_at %d must be in [0, horizon %d - window %d]", r.ChangeAt, r.Horizon, r.Rule.Window)
	}
	for i, s := range r.Shifts {
		if !(s >= 0) || math.IsInf(s, 0) {
			return fmt.Errorf("shifts[%d]: %v is not a finite number >= 0", i, s)
		}
	}
	return nil
}

// RollbackScenario is the rollback study's result for one shift.
type RollbackScenario struct {
	// Shift is the drop in standard deviations (0: no change).
	Shift float64
	// Result holds the counts and delays online.RollbackStudy found.
	Result online.RollbackResult
	// FalseCI and DetectionCI are 95% Wilson score intervals (Wilson,
	// JASA 22, 1927) of Result.FalseRate() and Result.DetectionRate().
	FalseCI, DetectionCI [2]float64
}

// RollbackResult is the rollback study's result.
type RollbackResult struct {
	Config RollbackConfig
	// Mean and SD are the observed version's reward mean and standard
	// deviation (population) over the stream's mix of contexts and
	// seeds: one sigma of the shifts.
	Mean, SD float64
	// Scenarios holds one entry per shift, in the order of Config.Shifts.
	Scenarios []RollbackScenario
}

// streamScores is the online.ScoreModel of one version's rewards in the
// study's stream: a uniform context, then a uniform seed of the pool.
type streamScores struct {
	rewards [][]float64 // [context][seed]
	mean    float64
	sd      float64
}

func newStreamScores(t *Table, v int) *streamScores {
	m := &streamScores{}
	var n, s1 float64
	for c := range t.Contexts {
		m.rewards = append(m.rewards, t.Reward[c][v])
		for _, x := range t.Reward[c][v] {
			s1 += x
			n++
		}
	}
	m.mean = s1 / n
	ss := 0.0
	for _, rw := range m.rewards {
		for _, x := range rw {
			ss += (x - m.mean) * (x - m.mean)
		}
	}
	m.sd = math.Sqrt(ss / n)
	return m
}

// Draw implements online.ScoreModel.
func (m *streamScores) Draw(r *rand.Rand) float64 {
	rw := m.rewards[r.IntN(len(m.rewards))]
	return rw[r.IntN(len(rw))]
}

// SD implements online.ScoreModel: the population standard deviation of
// the mixture, every (context, seed) equally likely.
func (m *streamScores) SD() float64 { return m.sd }

// rollbackStudy runs the rollback study of cfg on the table, the shifts
// in parallel (each trial's draws depend only on the seed and the trial,
// so every shift sees the same draws before its drop).
func rollbackStudy(ctx context.Context, cfg *Config, t *Table, progress Progress) (RollbackResult, error) {
	rc := cfg.Rollback
	v := slices.IndexFunc(t.Versions, func(v Version) bool { return v.Name == rc.Version })
	m := newStreamScores(t, v)
	res := RollbackResult{Config: rc, Mean: m.mean, SD: m.sd, Scenarios: make([]RollbackScenario, len(rc.Shifts))}
	errs := make([]error, len(rc.Shifts))
	sem := make(chan struct{}, cfg.workers())
	done := make(chan int)
	for i, shift := range rc.Shifts {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem; done <- i }()
			if ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			st := online.RollbackStudy{Rule: rc.Rule, Scores: m, Trials: rc.Trials, Horizon: rc.Horizon,
				ChangeAt: rc.ChangeAt, Shift: shift, Seed: mix(cfg.Seed, 0, tagRollback)}
			r, err := st.Run()
			if err != nil {
				errs[i] = err
				return
			}
			sc := RollbackScenario{Shift: shift, Result: r}
			sc.FalseCI = wilson(r.Early, r.Trials)
			sc.DetectionCI = wilson(r.InWindow, r.Trials)
			res.Scenarios[i] = sc
		}()
	}
	for n := range rc.Shifts {
		<-done
		progress("rollback", n+1, len(rc.Shifts))
	}
	for _, err := range errs {
		if err != nil {
			return RollbackResult{}, err
		}
	}
	return res, nil
}

// wilson returns the 95% Wilson score interval of a binomial proportion
// k/n (Wilson, "Probable inference, the law of succession, and
// statistical inference", JASA 22, 1927), which keeps its coverage near
// 0 and 1 where the Wald interval fails (Brown, Cai and DasGupta,
// Statistical Science 16, 2001).
func wilson(k, n int) [2]float64 {
	const z = 1.959963984540054 // the 0.975 quantile of the standard normal
	if n == 0 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return [2]float64{math.Max(0, centre-half), math.Min(1, centre+half)}
}
