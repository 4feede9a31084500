package mutate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"evolve/params"
)

// DefaultCMAESStep is the initial step size (sigma) of CMAES in the
// normalised space, where each numeric parameter's range is [0, 1].
const DefaultCMAESStep = 0.3

// CMAES is the generic-optimiser baseline proposer: CMA-ES with a
// Cholesky-factored covariance (gonum.org/v1/gonum/optimize.CmaEsChol;
// Hansen, "The CMA Evolution Strategy: A Tutorial", arXiv:1604.00772)
// over the Number and Integer parameters, each mapped to [0, 1] by its
// range. One generation of the run is one CMA-ES iteration: its
// population is K (mutation.candidates), its K samples are the
// generation's candidates in sample order, and their val means are the
// objective (CMA-ES minimises the negative mean; a candidate without a
// mean, NaN, counts +Inf).
//
// A sample is decoded by reflecting each coordinate into [0, 1] at the
// bounds (u = |x mod 2|, then 2-u if u > 1: a sample 0.1 past a bound
// plays 0.1 inside it) and mapping it to [Min, Max], an Integer rounded
// to the nearest whole number in range. Reflection, unlike clipping,
// leaves no flat region outside the box for the step size to grow in. Enums and orderings are not searched: every candidate
// keeps the incumbent's values of them. Samples are kept even when they
// decode to the incumbent's parameters or to each other, so that the
// generation's candidates are exactly CMA-ES's population.
//
// CMAES keeps no state between generations: Propose replays CMA-ES from
// its start (Start, Seed) through the recorded objectives of the
// generations before (History) and returns the next population. gonum's
// CmaEsChol is deterministic for its Src and the values it is told, so
// the replay re-derives the state exactly, and a resumed run (whose
// History comes from candidates.parquet) proposes what an uninterrupted
// one did. After CMA-ES has converged (its covariance's log-determinant
// fell below gonum's StopLogDet) it proposes nothing.
type CMAES struct {
	// Seed seeds CMA-ES's sampling (a math/rand/v2 PCG with stream 0).
	Seed uint64
	// Start is the parameter set CMA-ES starts from (its initial mean):
	// the run's base version's parameters.
	Start params.Set
	// History holds the val means of the candidates of each generation
	// before this one, in generation order, each K values in sample
	// (proposal) order.
	History [][]float64
	// Step is the initial step size in normalised space, > 0 (the
	// initial covariance is Step²·I); 0 means DefaultCMAESStep.
	Step float64
}

// Propose implements Proposer. Its errors: the incumbent's or Start's
// parameters invalid for the schema, a schema without numeric
// parameters, K < 2, or a History generation whose length is not K (the
// history cannot be replayed).
func (c *CMAES) Propose(_ context.Context, req Request) ([]Mutation, error) {
	inc := req.Incumbent.PolicyParameters
	if err := req.Schema.Validate(inc); err != nil {
		return nil, fmt.Errorf("cmaes proposer: %w", err)
	}
	if err := req.Schema.Validate(c.Start); err != nil {
		return nil, fmt.Errorf("cmaes proposer: start: %w", err)
	}
	if err := CheckProposer(ProposerCMAES, req.K, req.Schema); err != nil {
		return nil, fmt.Errorf("cmaes proposer: %w", err)
	}
	for h, fs := range c.History {
		if len(fs) != req.K {
			return nil, fmt.Errorf("cmaes proposer: generation %d recorded %d candidates, CMA-ES's population is %d: the history cannot be replayed", h, len(fs), req.K)
		}
	}
	idx := numericFields(req.Schema)
	xs, ok := c.samples(req.Schema, idx, req.K)
	if !ok {
		return nil, nil
	}
	out := make([]Mutation, len(xs))
	for i, x := range xs {
		s := decodeNumeric(req.Schema, idx, x, inc)
		out[i] = baselineMutation(OpCMAES, fmt.Sprintf("cmaes sample %d", i+1), inc, s, req.Schema)
	}
	return out, nil
}

// samples replays CMA-ES through c.History and returns the next
// population (k points of len(idx) coordinates, in sample order), or
// false when CMA-ES converged before it.
//
// It drives CmaEsChol through its optimize.Method interface by hand, as
// optimize.Minimize would: Run is started in a goroutine with every
// task, it sends the k samples as FuncEvaluation tasks, receives their
// values, and after the k-th sends a MajorIteration (go on: it is sent a
// MajorIteration back and samples again) or a MethodDone (converged).
// A PostIteration and closing the results channel stop it.
func (c *CMAES) samples(schema params.Schema, idx []int, k int) ([][]float64, bool) {
	dim := len(idx)
	step := c.Step
	if step == 0 {
		step = DefaultCMAESStep
	}
	// CmaEsChol samples from its Cholesky factor alone (the identity
	// unless InitCholesky is set) and uses InitStepSize only in its
	// updates, so the initial covariance is set to step²·I explicitly:
	// with the identity every sample would span the box many times over.
	diag := mat.NewDiagDense(dim, nil)
	for i := range dim {
		diag.SetDiag(i, step*step)
	}
	var chol mat.Cholesky
	if !chol.Factorize(diag) {
		panic("cmaes: step²·I is not positive definite") // step > 0 makes it so
	}
	cma := &optimize.CmaEsChol{Population: k, InitStepSize: step, InitCholesky: &chol, Src: rand.NewPCG(c.Seed, 0)}
	tasks := make([]optimize.Task, cma.Init(dim, k))
	for i := range tasks {
		tasks[i].Location = &optimize.Location{X: make([]float64, dim)}
	}
	copy(tasks[0].X, normalise(schema, idx, c.Start))
	ops := make(chan optimize.Task, k+1)
	res := make(chan optimize.Task, k+1)
	done := make(chan struct{})
	go func() {
		cma.Run(ops, res, tasks)
		close(done)
	}()
	defer func() {
		res <- optimize.Task{Op: optimize.PostIteration}
		close(res)
		for range ops { // Run closes ops when it returns
		}
		<-done
	}()
	ask := func() ([][]float64, []optimize.Task) {
		xs := make([][]float64, k)
		got := make([]optimize.Task, k)
		for range k {
			t := <-ops
			xs[t.ID] = append([]float64(nil), t.X...)
			got[t.ID] = t
		}
		return xs, got
	}
	for _, means := range c.History {
		_, got := ask()
		for i, t := range got {
			t.F = objective(means[i])
			res <- t
		}
		if t := <-ops; t.Op != optimize.MajorIteration {
			return nil, false // MethodDone: converged (or failed to update)
		}
		res <- optimize.Task{Op: optimize.MajorIteration, ID: -1}
	}
	xs, _ := ask()
	return xs, true
}

// objective is the value CMA-ES minimises for a val mean: its negative,
// +Inf for NaN (no episode to average).
func objective(mean float64) float64 {
	if math.IsNaN(mean) {
		return math.Inf(1)
	}
	return -mean
}

// normalise maps the numeric parameters idx of s to [0, 1] by their
// ranges.
func normalise(schema params.Schema, idx []int, s params.Set) []float64 {
	x := make([]float64, len(idx))
	for j, i := range idx {
		f := &schema[i]
		v, _ := s.Get(f.Name)
		if f.Max > f.Min {
			x[j] = (v.Num - f.Min) / (f.Max - f.Min)
		}
	}
	return x
}

// decodeNumeric returns inc with its numeric parameters idx set from the
// normalised point x: each coordinate reflected into [0, 1] (reflect) and
// mapped to [Min, Max], an Integer rounded to the nearest whole number in
// range.
func decodeNumeric(schema params.Schema, idx []int, x []float64, inc params.Set) params.Set {
	s := inc.Clone()
	for j, i := range idx {
		f := &schema[i]
		u := reflect(x[j])
		v := f.Min + u*(f.Max-f.Min)
		if f.Kind == params.Integer {
			lo, hi := math.Ceil(f.Min), math.Floor(f.Max)
			s = s.With(f.Name, params.IntegerValue(int(min(max(math.Round(v), lo), hi))))
		} else {
			s = s.With(f.Name, params.NumberValue(min(max(v, f.Min), f.Max)))
		}
	}
	return s
}

// reflect maps x into [0, 1] by reflecting it at 0 and 1 as often as
// needed: 1.2 -> 0.8, -0.3 -> 0.3, 2.4 -> 0.4.
func reflect(x float64) float64 {
	u := math.Abs(math.Mod(x, 2))
	if u > 1 {
		u = 2 - u
	}
	return u
}
