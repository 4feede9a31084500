package bandit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/sourcegraph/conc/pool"

	"evolve/online"
	"evolve/seeds"
	"evolve/stats"
)

// Config is a study's settings. DefaultConfig gives the defaults of
// evolve bandit simulate.
type Config struct {
	// Contexts are the environment variants requests arrive in; each
	// request's context is drawn uniformly from them.
	Contexts []Context
	// Versions are the prompt versions to select among.
	Versions []Version
	// Policies are the policies to compare, names of Policies(), in the
	// order of the outputs.
	Policies []string
	// Requests is the number of requests of one stream, N >= 1.
	Requests int
	// Repeats is the number of independent streams R >= 2 each policy
	// plays (the CIs are over them).
	Repeats int
	// Epsilon is the exploration probability of PolicySeed and
	// PolicyEpsilonGreedy, in [0, 1].
	Epsilon float64
	// Alpha is PolicySeed's EMA smoothing factor, in (0, 1].
	Alpha float64
	// Seed seeds every random stream of the study (requests, policies,
	// rollback trials).
	Seed uint64
	// Pool is the number of episode seeds: the first Pool seeds of the
	// embedded test split (seeds.Embedded), in [1, 1000]. Each (context,
	// version) is played on all of them.
	Pool int
	// Workers bounds the episodes played and streams simulated at once;
	// <= 0 means GOMAXPROCS. The results do not depend on it.
	Workers int
	// Rollback configures the auto-rollback study.
	Rollback RollbackConfig
}

// DefaultConfig returns the defaults: DefaultContexts, DefaultVersions,
// every policy, 10000 requests, 30 repeats, epsilon 0.2 and alpha 0.1
// (the design's), seed 1, a pool of 500 seeds, and DefaultRollback.
func DefaultConfig() Config {
	return Config{
		Contexts: DefaultContexts(), Versions: DefaultVersions(), Policies: Policies(),
		Requests: 10000, Repeats: 30, Epsilon: online.DefaultEpsilon, Alpha: online.DefaultAlpha,
		Seed: 1, Pool: 500, Rollback: DefaultRollback(),
	}
}

// Validate returns an error naming the first field out of range.
func (c *Config) Validate() error {
	switch {
	case c.Requests < 1:
		return fmt.Errorf("requests must be >= 1, got %d", c.Requests)
	case c.Repeats < 2:
		return fmt.Errorf("repeats must be >= 2 (a CI needs two streams), got %d", c.Repeats)
	case !(c.Epsilon >= 0 && c.Epsilon <= 1):
		return fmt.Errorf("epsilon must be in [0, 1], got %v", c.Epsilon)
	case !(c.Alpha > 0 && c.Alpha <= 1):
		return fmt.Errorf("alpha must be in (0, 1], got %v", c.Alpha)
	case c.Pool < 1 || c.Pool > 1000:
		return fmt.Errorf("pool must be in [1, 1000] (the embedded test split's seeds), got %d", c.Pool)
	case len(c.Policies) == 0:
		return fmt.Errorf("policies: none")
	}
	for i, p := range c.Policies {
		if !slices.Contains(Policies(), p) {
			return fmt.Errorf("policies[%d]: unknown policy %q (known: %v)", i, p, Policies())
		}
		if slices.Index(c.Policies, p) != i {
			return fmt.Errorf("policies[%d]: %q is given twice", i, p)
		}
	}
	if err := checkContexts(c.Contexts); err != nil {
		return err
	}
	if err := checkVersions(c.Versions); err != nil {
		return err
	}
	if err := c.Rollback.Validate(); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	if !slices.ContainsFunc(c.Versions, func(v Version) bool { return v.Name == c.Rollback.Version }) {
		return fmt.Errorf("rollback: version %q is not one of the study's versions", c.Rollback.Version)
	}
	return nil
}

func (c *Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Trace is one policy's play of one stream.
type Trace struct {
	Policy string // the policy's name
	Repeat int    // the stream, 0-based
	// The per-request columns, each of Config.Requests entries, indexed
	// by request (0-based): the context and episode seed (an index into
	// Table.Seeds) the stream drew, the version the policy chose, its
	// reward (normalised score) and its pseudo-regret Table.Gap.
	Context, Seed, Version []int
	Reward, Regret         []float64
}

// Final returns the trace's cumulative pseudo-regret after its last
// request.
func (tr *Trace) Final() float64 {
	s := 0.0
	for _, g := range tr.Regret {
		s += g
	}
	return s
}

// PolicySummary is a policy's result over the study's repeats. Regrets
// are in normalised-reward units summed over requests.
type PolicySummary struct {
	Policy string // the policy's name
	// Final summarises the cumulative regret after the last request over
	// the R repeats: mean and 95% Student-t CI (stats.Summarize).
	Final stats.Summary
	// VsSeed summarises the paired differences Final(policy) -
	// Final(PolicySeed) over the repeats (both played the same streams):
	// negative means less regret than the seed. Its N is 0 when the seed
	// policy is not in the study.
	VsSeed stats.Summary
	// ByContext is the mean (over repeats) regret accrued in each
	// context, indexed like Config.Contexts; they sum to Final.Mean.
	ByContext []float64
	// OptimalShare is the share of requests given the context's best
	// version, in [0, 1].
	OptimalShare float64
	// MeanReward is the mean reward per request, in [0, 1].
	MeanReward float64
}

// Result is a study's outcome.
type Result struct {
	Config Config
	Table  *Table
	// Traces holds one trace per policy and repeat, policy-major in the
	// order of Config.Policies, then by repeat.
	Traces []Trace
	// Summaries holds one summary per policy, in the order of
	// Config.Policies.
	Summaries []PolicySummary
	// Rollback is the auto-rollback study's result.
	Rollback RollbackResult
}

// Trace returns the trace of the policy and repeat, or nil.
func (r *Result) Trace(policy string, repeat int) *Trace {
	p := slices.Index(r.Config.Policies, policy)
	if p < 0 || repeat < 0 || repeat >= r.Config.Repeats {
		return nil
	}
	return &r.Traces[p*r.Config.Repeats+repeat]
}

// Progress receives a study's progress: the phase ("episodes",
// "streams", "rollback"), the work done and its total. Calls come one at
// a time, possibly from worker goroutines.
type Progress func(phase string, done, total int)

// Run runs the study: it plays the table of episodes (PlayTable), then
// every policy on every stream, then the rollback study. The result is a
// pure function of cfg without Workers. It returns cfg.Validate's error,
// ctx.Err() when cancelled, or PlayTable's error.
func Run(ctx context.Context, cfg Config, progress Progress) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(string, int, int) {}
	}
	set, err := seeds.Embedded()
	if err != nil {
		return nil, fmt.Errorf("reading the embedded seeds: %w", err)
	}
	if len(set.Test) < cfg.Pool {
		return nil, fmt.Errorf("pool: %d seeds asked, the embedded test split has %d", cfg.Pool, len(set.Test))
	}
	pool := slices.Clone(set.Test[:cfg.Pool])
	table, err := PlayTable(ctx, cfg.Contexts, cfg.Versions, pool, cfg.Workers, func(d, t int) { progress("episodes", d, t) })
	if err != nil {
		return nil, err
	}
	res := &Result{Config: cfg, Table: table}
	if res.Traces, err = simulate(ctx, &cfg, table, progress); err != nil {
		return nil, err
	}
	res.Summaries = summarise(&cfg, table, res.Traces)
	if res.Rollback, err = rollbackStudy(ctx, &cfg, table, progress); err != nil {
		return nil, err
	}
	return res, nil
}

// Stream returns repeat r's requests: for each of cfg.Requests requests
// a context index (uniform over the contexts) and a seed index (uniform
// over the pool of pool seeds), from a PCG generator seeded with
// (cfg.Seed, r). Every policy plays the same stream.
func Stream(cfg *Config, pool, r int) (contexts, seedIdx []int) {
	rng := rand.New(rand.NewPCG(cfg.Seed, mix(cfg.Seed, uint64(r), tagStream)))
	contexts, seedIdx = make([]int, cfg.Requests), make([]int, cfg.Requests)
	for t := range cfg.Requests {
		contexts[t] = rng.IntN(len(cfg.Contexts))
		seedIdx[t] = rng.IntN(pool)
	}
	return contexts, seedIdx
}

// simulate plays every policy on every stream, cfg.workers() at a time.
func simulate(ctx context.Context, cfg *Config, table *Table, progress Progress) ([]Trace, error) {
	np, nr := len(cfg.Policies), cfg.Repeats
	signals := make([]online.Signals, len(table.Contexts))
	for c, cx := range table.Contexts {
		signals[c] = cx.Signals()
	}
	type stream struct{ contexts, seeds []int }
	streams := make([]stream, nr)
	for r := range nr {
		streams[r].contexts, streams[r].seeds = Stream(cfg, len(table.Seeds), r)
	}
	traces := make([]Trace, np*nr)
	done := 0
	var mu sync.Mutex
	wp := pool.New().WithMaxGoroutines(cfg.workers()).WithContext(ctx).WithCancelOnError()
	for p, name := range cfg.Policies {
		for r := range nr {
			wp.Go(func(ctx context.Context) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				rng := rand.New(rand.NewPCG(cfg.Seed, mix(cfg.Seed, uint64(r), tagPolicy+uint64(slices.Index(Policies(), name))<<8)))
				l := newLearner(name, policyEnv{table: table, signals: signals, cfg: cfg, repeat: r, rng: rng})
				st := streams[r]
				tr := Trace{Policy: name, Repeat: r, Context: st.contexts, Seed: st.seeds,
					Version: make([]int, cfg.Requests), Reward: make([]float64, cfg.Requests), Regret: make([]float64, cfg.Requests)}
				for t := range cfg.Requests {
					c := st.contexts[t]
					v := l.choose(t, c)
					rw := table.Reward[c][v][st.seeds[t]]
					l.learn(c, v, rw)
					tr.Version[t], tr.Reward[t], tr.Regret[t] = v, rw, table.Gap(c, v)
				}
				traces[p*nr+r] = tr
				mu.Lock()
				done++
				progress("streams", done, np*nr)
				mu.Unlock()
				return nil
			})
		}
	}
	if err := wp.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return traces, nil
}

// summarise computes each policy's PolicySummary.
func summarise(cfg *Config, table *Table, traces []Trace) []PolicySummary {
	nr := cfg.Repeats
	seedIdx := slices.Index(cfg.Policies, PolicySeed)
	finals := make([][]float64, len(cfg.Policies))
	for p := range cfg.Policies {
		finals[p] = make([]float64, nr)
		for r := range nr {
			finals[p][r] = traces[p*nr+r].Final()
		}
	}
	out := make([]PolicySummary, len(cfg.Policies))
	for p, name := range cfg.Policies {
		s := PolicySummary{Policy: name, Final: stats.Summarize(finals[p]), ByContext: make([]float64, len(table.Contexts))}
		if seedIdx >= 0 {
			d := make([]float64, nr)
			for r := range nr {
				d[r] = finals[p][r] - finals[seedIdx][r]
			}
			s.VsSeed = stats.Summarize(d)
		}
		var optimal, n int
		var reward float64
		for r := range nr {
			tr := &traces[p*nr+r]
			for t, c := range tr.Context {
				s.ByContext[c] += tr.Regret[t] / float64(nr)
				if tr.Version[t] == table.Best[c] {
					optimal++
				}
				reward += tr.Reward[t]
				n++
			}
		}
		s.OptimalShare, s.MeanReward = float64(optimal)/float64(n), reward/float64(n)
		out[p] = s
	}
	return out
}
