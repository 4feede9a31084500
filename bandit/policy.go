package bandit

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"evolve/online"
)

// The policies the study compares, by the names its files use.
const (
	// PolicySeed is the seed's selection (the graph prompt design's):
	// online.EpsilonGreedy over online.TotalScore, one EMA edge weight per
	// version shared by every context (online.EMA with Config.Alpha,
	// from online.InitialWeight), the context entering only through the
	// versions' hand-set context weights.
	PolicySeed = "seed-egreedy"
	// PolicyEpsilonGreedy is textbook epsilon-greedy (Sutton and Barto,
	// Reinforcement Learning, 2nd ed., 2018, sec. 2.2-2.4) run separately
	// per context on sample-mean rewards: each version once first (lowest
	// index first), then with probability Config.Epsilon a uniform
	// version, else the highest sample mean (ties: lowest index). It
	// differs from PolicySeed only in what it estimates, so the pair
	// separates the seed's scoring from its exploration rule.
	PolicyEpsilonGreedy = "egreedy-context"
	// PolicyUCB1 is UCB1 (Auer, Cesa-Bianchi and Fischer, "Finite-time
	// analysis of the multiarmed bandit problem", Machine Learning 47,
	// 2002, fig. 1) per context: each version once, then the highest
	// mean + sqrt(2 ln n / n_v), n the context's requests so far and n_v
	// the version's (ties: lowest index). Its guarantee needs rewards in
	// [0, 1], which the normalised score is.
	PolicyUCB1 = "ucb1"
	// PolicyThompson is Thompson sampling (Thompson, Biometrika 25, 1933)
	// with Beta(1, 1) priors per context and version, for rewards in
	// [0, 1] by the Bernoulli trick of Agrawal and Goyal ("Analysis of
	// Thompson sampling for the multi-armed bandit problem", COLT 2012,
	// algorithm 2): a reward r counts as a success with probability r.
	// Each request draws one sample per version (gonum's distuv.Beta) and
	// takes the highest.
	PolicyThompson = "thompson"
	// PolicyUniform picks a version uniformly at random: the baseline
	// every learner must beat.
	PolicyUniform = "uniform"
	// PolicyOracle knows every version's mean reward in every context and
	// always takes the best: zero regret by definition, a check of the
	// accounting.
	PolicyOracle = "oracle"
)

// Policies returns the names of the policies the study runs, in the
// order of its tables and plot.
func Policies() []string {
	return []string{PolicySeed, PolicyEpsilonGreedy, PolicyUCB1, PolicyThompson, PolicyUniform, PolicyOracle}
}

// policyDescriptions says in one line what each policy is, for the
// summary.
var policyDescriptions = map[string]string{
	PolicySeed:          "the seed: epsilon-greedy on 0.5 EMA weight + 0.5 context fit, one weight per version for all contexts",
	PolicyEpsilonGreedy: "epsilon-greedy per context on sample means (Sutton & Barto 2018)",
	PolicyUCB1:          "UCB1 per context (Auer, Cesa-Bianchi & Fischer 2002)",
	PolicyThompson:      "Thompson sampling per context, Beta(1,1) priors, Bernoulli trick (Agrawal & Goyal 2012)",
	PolicyUniform:       "a uniformly random version",
	PolicyOracle:        "the best version of each context (knows the means)",
}

// learner is one policy's state over one stream of requests.
type learner interface {
	// choose returns the version for request t (0-based) in context c.
	choose(t, c int) int
	// learn takes the reward of version v in context c.
	learn(c, v int, reward float64)
}

// policyEnv is what a learner is built from.
type policyEnv struct {
	table   *Table
	signals []online.Signals // per context
	cfg     *Config
	repeat  int
	rng     *rand.Rand // the policy's own stream for this repeat
}

// newLearner returns a fresh learner of the named policy; it panics on
// an unknown name (Config.Validate checks them).
func newLearner(name string, e policyEnv) learner {
	nc, nv := len(e.table.Contexts), len(e.table.Versions)
	switch name {
	case PolicySeed:
		vs := make([]online.Variant, nv)
		for v, ver := range e.table.Versions {
			vs[v] = online.Variant{ID: ver.Name, Weight: online.InitialWeight, ContextWeights: ver.ContextWeights}
		}
		return &seedLearner{vs: vs, signals: e.signals, alpha: e.cfg.Alpha,
			sel: online.EpsilonGreedy{Epsilon: e.cfg.Epsilon, Seed: mix(e.cfg.Seed, uint64(e.repeat), tagSeedPolicy)}}
	case PolicyEpsilonGreedy:
		return &meanLearner{stats: newArmStats(nc, nv), eps: e.cfg.Epsilon, rng: e.rng}
	case PolicyUCB1:
		return &ucbLearner{stats: newArmStats(nc, nv)}
	case PolicyThompson:
		return newThompson(nc, nv, e.rng)
	case PolicyUniform:
		return &uniformLearner{n: nv, rng: e.rng}
	case PolicyOracle:
		return &oracleLearner{best: e.table.Best}
	}
	panic("bandit: unknown policy " + name)
}

// seedLearner is PolicySeed.
type seedLearner struct {
	vs      []online.Variant
	signals []online.Signals
	alpha   float64
	sel     online.EpsilonGreedy
}

func (l *seedLearner) choose(t, c int) int {
	return l.sel.Select(l.vs, l.signals[c], uint64(t)).Index
}

func (l *seedLearner) learn(_, v int, r float64) {
	l.vs[v].Weight = online.EMA(l.vs[v].Weight, r, l.alpha)
}

// armStats are per-context counts and reward sums.
type armStats struct {
	n     [][]int     // [context][version] plays
	sum   [][]float64 // [context][version] reward sums
	total []int       // [context] plays
}

func newArmStats(nc, nv int) armStats {
	s := armStats{n: make([][]int, nc), sum: make([][]float64, nc), total: make([]int, nc)}
	for c := range nc {
		s.n[c], s.sum[c] = make([]int, nv), make([]float64, nv)
	}
	return s
}

// untried returns the lowest-indexed version not yet played in c, or -1.
func (s *armStats) untried(c int) int {
	for v, n := range s.n[c] {
		if n == 0 {
			return v
		}
	}
	return -1
}

// argmax returns the version of the highest f(v) in c, ties to the lowest.
func (s *armStats) argmax(c int, f func(v int) float64) int {
	best, bv := 0, math.Inf(-1)
	for v := range s.n[c] {
		if x := f(v); x > bv {
			best, bv = v, x
		}
	}
	return best
}

func (s *armStats) mean(c, v int) float64 { return s.sum[c][v] / float64(s.n[c][v]) }

func (s *armStats) learn(c, v int, r float64) {
	s.n[c][v]++
	s.sum[c][v] += r
	s.total[c]++
}

// meanLearner is PolicyEpsilonGreedy.
type meanLearner struct {
	stats armStats
	eps   float64
	rng   *rand.Rand
}

func (l *meanLearner) choose(_, c int) int {
	if v := l.stats.untried(c); v >= 0 {
		return v
	}
	if l.rng.Float64() < l.eps {
		return l.rng.IntN(len(l.stats.n[c]))
	}
	return l.stats.argmax(c, func(v int) float64 { return l.stats.mean(c, v) })
}

func (l *meanLearner) learn(c, v int, r float64) { l.stats.learn(c, v, r) }

// ucbLearner is PolicyUCB1.
type ucbLearner struct{ stats armStats }

func (l *ucbLearner) choose(_, c int) int {
	if v := l.stats.untried(c); v >= 0 {
		return v
	}
	logn := math.Log(float64(l.stats.total[c]))
	return l.stats.argmax(c, func(v int) float64 {
		return l.stats.mean(c, v) + math.Sqrt(2*logn/float64(l.stats.n[c][v]))
	})
}

func (l *ucbLearner) learn(c, v int, r float64) { l.stats.learn(c, v, r) }

// thompsonLearner is PolicyThompson.
type thompsonLearner struct {
	a, b [][]float64 // [context][version] Beta parameters
	rng  *rand.Rand
}

func newThompson(nc, nv int, rng *rand.Rand) *thompsonLearner {
	l := &thompsonLearner{a: make([][]float64, nc), b: make([][]float64, nc), rng: rng}
	for c := range nc {
		l.a[c], l.b[c] = make([]float64, nv), make([]float64, nv)
		for v := range nv {
			l.a[c][v], l.b[c][v] = 1, 1
		}
	}
	return l
}

func (l *thompsonLearner) choose(_, c int) int {
	best, bx := 0, math.Inf(-1)
	for v := range l.a[c] {
		if x := (distuv.Beta{Alpha: l.a[c][v], Beta: l.b[c][v], Src: l.rng}).Rand(); x > bx {
			best, bx = v, x
		}
	}
	return best
}

func (l *thompsonLearner) learn(c, v int, r float64) {
	if l.rng.Float64() < r {
		l.a[c][v]++
	} else {
		l.b[c][v]++
	}
}

// uniformLearner is PolicyUniform.
type uniformLearner struct {
	n   int
	rng *rand.Rand
}

func (l *uniformLearner) choose(int, int) int     { return l.rng.IntN(l.n) }
func (l *uniformLearner) learn(int, int, float64) {}

// oracleLearner is PolicyOracle.
type oracleLearner struct{ best []int }

func (l *oracleLearner) choose(_, c int) int     { return l.best[c] }
func (l *oracleLearner) learn(int, int, float64) {}

// Tags that keep the study's random streams apart (see mix).
const (
	tagStream     = 1 // the requests' contexts and seeds
	tagPolicy     = 2 // a policy's own draws (plus the policy's index)
	tagSeedPolicy = 3 // online.EpsilonGreedy's seed
	tagRollback   = 4 // the rollback study's trials
)

// mix derives a 64-bit seed from (seed, a, b) by SplitMix64's finaliser
// (Steele, Lea and Flood, OOPSLA 2014), so that nearby inputs give
// unrelated seeds.
func mix(seed, a, b uint64) uint64 {
	x := seed
	for _, y := range [...]uint64{a, b} {
		x ^= y + 0x9e3779b97f4a7c15 + (x << 6) + (x >> 2)
		x += 0x9e3779b97f4a7c15
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
		x = (x ^ (x >> 27)) * 0x94d049bb133111eb
		x ^= x >> 31
	}
	return x
}
