package ablate

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"evolve/stats"
)

// Num is a float64 that encodes NaN and ±Inf as JSON null.
type Num float64

// MarshalJSON writes the number, or null if it is not finite.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// CI is an estimate with its 95% confidence interval.
type CI struct {
	Point Num `json:"point"`
	Low   Num `json:"low"`
	High  Num `json:"high"`
}

func ci(p, lo, hi float64) CI { return CI{Num(p), Num(lo), Num(hi)} }

// Summary is what the report states: per environment and across them.
// --json prints it.
type Summary struct {
	Name          string   `json:"name"`
	Seed          uint64   `json:"seed"`
	Replicates    int      `json:"replicates"`
	Proposers     []string `json:"proposers"`
	BootstrapReps int      `json:"bootstrap_reps"`
	// Environments has one entry per environment, in config order.
	Environments []EnvSummary `json:"environments"`
	// Aggregate is, per proposer, the normalised scores of all
	// environments: the IQM with its stratified bootstrap CI and the mean
	// with its stratified bootstrap CI (tasks = environments, runs =
	// replicates).
	Aggregate []Aggregate `json:"aggregate"`
	// Improvement is P(X > Y) of every ordered pair of proposers on the
	// normalised scores, averaged over environments, with its stratified
	// bootstrap CI.
	Improvement []Pair `json:"probability_of_improvement"`
	// Profile is the run-score performance profile of each proposer on
	// the normalised scores (Taus, then one curve per proposer).
	Profile Profile `json:"performance_profile"`
}

// EnvSummary is one environment's part of a Summary.
type EnvSummary struct {
	Name   string `json:"name"`
	Budget int    `json:"budget_episodes"`
	// RefLow and RefHigh are the normalisation's references (Reference).
	RefLow  Num `json:"reference_low"`
	RefHigh Num `json:"reference_high"`
	// BestKnownGiven says RefHigh is the config's best_known.
	BestKnownGiven bool      `json:"best_known_given"`
	Proposers      []EnvStat `json:"proposers"`
	// Improvement is P(X > Y) on this environment's final test means, per
	// ordered pair, with its bootstrap CI.
	Improvement []Pair `json:"probability_of_improvement"`
}

// EnvStat is one proposer's runs on one environment.
type EnvStat struct {
	Proposer string `json:"proposer"`
	Runs     int    `json:"runs"`
	// FinalTest is the mean over replicates of the final test mean, with
	// its Student t 95% CI (NaN with fewer than 2 runs).
	FinalTest CI `json:"final_test_mean"`
	// IQM is the IQM over replicates of the final test mean, with its
	// bootstrap percentile 95% CI.
	IQM CI `json:"final_test_iqm"`
	// BaseTest is the mean over replicates of the base's test mean.
	BaseTest Num `json:"base_test_mean"`
	// Normalized is the mean normalised score.
	Normalized Num `json:"normalized_mean"`
	// Episodes and Generations are the means over replicates of the
	// episodes used and of the generations run.
	Episodes    Num `json:"episodes_used_mean"`
	Generations Num `json:"generations_mean"`
}

// Aggregate is one proposer's scores across environments.
type Aggregate struct {
	Proposer string `json:"proposer"`
	IQM      CI     `json:"iqm"`
	Mean     CI     `json:"mean"`
}

// Pair is P(X > Y) with its CI.
type Pair struct {
	X string `json:"x"`
	Y string `json:"y"`
	P CI     `json:"p"`
}

// Profile is a run-score performance profile.
type Profile struct {
	Taus   []Num          `json:"taus"`
	Curves []ProfileCurve `json:"curves"`
}

// ProfileCurve is one proposer's profile: the fraction of runs whose
// normalised score exceeds each tau, with pointwise bootstrap bands.
type ProfileCurve struct {
	Proposer string `json:"proposer"`
	Points   []CI   `json:"points"`
}

// ProfileTaus is the number of thresholds of the performance profile.
const ProfileTaus = 41

// Summarize computes the report's statistics of an ablation's outcomes.
// Every bootstrap has a random source of its own, a PCG seeded by the
// ablation's seed and the statistic's position, so that the numbers do
// not depend on the order they are computed in.
func Summarize(c *Config, outs []Outcome) (*Summary, error) {
	s := &Summary{Name: c.Name, Seed: c.Seed, Replicates: c.Replicates, Proposers: c.Proposers, BootstrapReps: c.BootstrapReps}
	stream := uint64(0)
	boot := func() stats.BootstrapConfig {
		stream++
		return stats.BootstrapConfig{Reps: c.BootstrapReps, Rand: rand.New(rand.NewPCG(c.Seed, 0x61626c617465+stream))}
	}
	// norm[p] is replicates × environments of normalised scores; final
	// the same of the final test means.
	norm := map[string][][]float64{}
	for _, p := range c.Proposers {
		norm[p] = make([][]float64, c.Replicates)
		for r := range norm[p] {
			norm[p][r] = make([]float64, len(c.Environments))
		}
	}
	for e, env := range c.Environments {
		lo, hi := Reference(c, e, outs)
		es := EnvSummary{Name: env.Name, Budget: c.EpisodeBudget(e), RefLow: Num(lo), RefHigh: Num(hi), BestKnownGiven: env.BestKnown != nil}
		final := map[string][][]float64{}
		for _, p := range c.Proposers {
			var f, base, nrm, eps, gens []float64
			for _, o := range outs {
				if o.Job.Env != e || o.Job.Proposer != p {
					continue
				}
				f = append(f, o.Row.FinalTestMean)
				base = append(base, o.Row.BaseTestMean)
				nrm = append(nrm, o.Row.NormalizedScore)
				eps = append(eps, float64(o.Row.EpisodesUsed))
				gens = append(gens, float64(o.Row.Generations))
				norm[p][o.Job.Replicate-1][e] = o.Row.NormalizedScore
			}
			for _, v := range f {
				if math.IsNaN(v) {
					return nil, fmt.Errorf("%s: proposer %s: a run has no final test mean (all its test episodes were errors)", env.Name, p)
				}
			}
			col := make([][]float64, len(f))
			for i, v := range f {
				col[i] = []float64{v}
			}
			final[p] = col
			sum := stats.Summarize(f)
			st := EnvStat{Proposer: p, Runs: len(f), FinalTest: ci(sum.Mean, sum.CILow, sum.CIHigh),
				BaseTest: Num(stats.Summarize(base).Mean), Normalized: Num(stats.Summarize(nrm).Mean),
				Episodes: Num(stats.Summarize(eps).Mean), Generations: Num(stats.Summarize(gens).Mean)}
			iv, err := stats.BootstrapCI(col, stats.AggregateIQM, boot())
			if err != nil {
				return nil, fmt.Errorf("%s: proposer %s: IQM: %w", env.Name, p, err)
			}
			st.IQM = ci(iv.Point, iv.Low, iv.High)
			es.Proposers = append(es.Proposers, st)
		}
		pairs, err := improvement(c.Proposers, final, boot)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", env.Name, err)
		}
		es.Improvement = pairs
		s.Environments = append(s.Environments, es)
	}
	for _, p := range c.Proposers {
		iqm, err := stats.BootstrapCI(norm[p], stats.AggregateIQM, boot())
		if err != nil {
			return nil, fmt.Errorf("proposer %s: IQM: %w", p, err)
		}
		mean, err := stats.BootstrapCI(norm[p], stats.AggregateMean, boot())
		if err != nil {
			return nil, fmt.Errorf("proposer %s: mean: %w", p, err)
		}
		s.Aggregate = append(s.Aggregate, Aggregate{Proposer: p, IQM: ci(iqm.Point, iqm.Low, iqm.High), Mean: ci(mean.Point, mean.Low, mean.High)})
	}
	pairs, err := improvement(c.Proposers, norm, boot)
	if err != nil {
		return nil, err
	}
	s.Improvement = pairs
	taus := profileTaus(norm)
	for _, t := range taus {
		s.Profile.Taus = append(s.Profile.Taus, Num(t))
	}
	for _, p := range c.Proposers {
		ivs, err := stats.RunScoreProfileCI(norm[p], taus, boot())
		if err != nil {
			return nil, fmt.Errorf("proposer %s: performance profile: %w", p, err)
		}
		pc := ProfileCurve{Proposer: p}
		for _, iv := range ivs {
			pc.Points = append(pc.Points, ci(iv.Point, iv.Low, iv.High))
		}
		s.Profile.Curves = append(s.Profile.Curves, pc)
	}
	return s, nil
}

// improvement returns P(X > Y) with its CI for every ordered pair of
// distinct proposers, X in config order then Y.
func improvement(props []string, scores map[string][][]float64, boot func() stats.BootstrapConfig) ([]Pair, error) {
	var out []Pair
	for _, x := range props {
		for _, y := range props {
			if x == y {
				continue
			}
			iv, err := stats.ProbabilityOfImprovementCI(scores[x], scores[y], boot())
			if err != nil {
				return nil, fmt.Errorf("P(%s > %s): %w", x, y, err)
			}
			out = append(out, Pair{X: x, Y: y, P: ci(iv.Point, iv.Low, iv.High)})
		}
	}
	return out, nil
}

// profileTaus are ProfileTaus evenly spaced thresholds from the lowest
// normalised score (or 0 if higher) to the highest (or 1 if lower).
func profileTaus(norm map[string][][]float64) []float64 {
	lo, hi := 0.0, 1.0
	for _, m := range norm {
		for _, row := range m {
			for _, v := range row {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	taus := make([]float64, ProfileTaus)
	for i := range taus {
		t := lo + (hi-lo)*float64(i)/float64(ProfileTaus-1)
		// Round to 4 significant digits so that the table reads well.
		taus[i], _ = strconv.ParseFloat(strconv.FormatFloat(t, 'g', 4, 64), 64)
	}
	return slices.Compact(taus)
}

// Format writes the estimate and its interval with prec decimals,
// "point [low, high]", a number that is not finite as "–".
func (c CI) Format(prec int) string {
	return fmtNum(float64(c.Point), 'f', prec) + " [" + fmtNum(float64(c.Low), 'f', prec) + ", " + fmtNum(float64(c.High), 'f', prec) + "]"
}
