package bandit

import (
	"context"
	"fmt"

	"evolve/agent"
	"evolve/envs"
	"evolve/play"
)

// Table holds every episode the study can ask for, played once before
// any policy runs: each version in each context on each seed of the pool.
// A policy's request then looks its reward up, so that every policy sees
// the same episodes for the same requests (common random numbers).
//
// The indexes are [context][version][seed]: c < len(Contexts), v <
// len(Versions), k < len(Seeds).
type Table struct {
	Contexts []Context
	Versions []Version
	// Seeds is the episode seed pool, in order.
	Seeds []uint64
	// Score is the dungeon's episode score (points, >= 0).
	Score [][][]float64
	// EndReason is why the episode ended ("killed", "turn_limit", ...).
	EndReason [][][]string
	// Scale is, per context, the highest score of the context's episodes
	// (every version, every seed), or 1 if they all scored 0.
	Scale []float64
	// Reward is Score / Scale of the context: the episode's normalised
	// score in [0, 1], the reward of the bandit problem.
	Reward [][][]float64
	// Mean is, per context and version, the mean Reward over the pool:
	// the version's expected reward in the context, since a request's
	// seed is drawn uniformly from the pool.
	Mean [][]float64
	// Best is, per context, the version of the highest Mean (ties: the
	// lowest index): the oracle's choice.
	Best []int
}

// PlayTable plays every version of vs in every context of cs on every
// seed of seeds with the scripted agent, on workers workers (<= 0:
// GOMAXPROCS) through play.Runner, and returns the table. The table
// does not depend on workers. progress, if not nil, is called after each
// episode with the number done and the total (from worker goroutines,
// one call at a time). It returns an error naming the context or version
// that is invalid (see DefaultContexts, DefaultVersions), ctx.Err() when
// cancelled, or the first episode that could not be played.
func PlayTable(ctx context.Context, cs []Context, vs []Version, seeds []uint64, workers int, progress func(done, total int)) (*Table, error) {
	if err := checkContexts(cs); err != nil {
		return nil, err
	}
	if err := checkVersions(vs); err != nil {
		return nil, err
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("no episode seeds")
	}
	t := &Table{Contexts: cs, Versions: vs, Seeds: seeds}
	total := len(cs) * len(vs) * len(seeds)
	done := 0 // episodes of finished Run calls; read by Progress only during a Run
	for _, cx := range cs {
		env, err := agent.NewDungeonEnv(cx.Config)
		if err != nil {
			return nil, fmt.Errorf("context %s: %w", cx.Name, err)
		}
		r := &play.Runner{Env: env, Workers: workers}
		if progress != nil {
			r.Progress = func(n, _ int) { progress(done+n, total) }
		}
		scores := make([][]float64, len(vs))
		ends := make([][]string, len(vs))
		for v, ver := range vs {
			outs, err := r.Run(ctx, func(seed uint64) envs.Episode { return envs.Episode{Seed: seed, Params: ver.Params} }, seeds)
			if err != nil {
				r.Close()
				return nil, fmt.Errorf("playing %s in context %s: %w", ver.Name, cx.Name, err)
			}
			scores[v] = make([]float64, len(seeds))
			ends[v] = make([]string, len(seeds))
			for k, o := range outs {
				scores[v][k], ends[v][k] = o.Score, o.EndReason
			}
			done += len(seeds)
		}
		r.Close()
		t.Score = append(t.Score, scores)
		t.EndReason = append(t.EndReason, ends)
	}
	t.normalise()
	return t, nil
}

// normalise fills Scale, Reward, Mean and Best from Score.
func (t *Table) normalise() {
	nc, nv := len(t.Contexts), len(t.Versions)
	t.Scale = make([]float64, nc)
	t.Reward = make([][][]float64, nc)
	t.Mean = make([][]float64, nc)
	t.Best = make([]int, nc)
	for c := range nc {
		hi := 0.0
		for v := range nv {
			for _, s := range t.Score[c][v] {
				hi = max(hi, s)
			}
		}
		if hi == 0 {
			hi = 1
		}
		t.Scale[c] = hi
		t.Reward[c] = make([][]float64, nv)
		t.Mean[c] = make([]float64, nv)
		for v := range nv {
			rw := make([]float64, len(t.Seeds))
			sum := 0.0
			for k, s := range t.Score[c][v] {
				rw[k] = s / hi
				sum += rw[k]
			}
			t.Reward[c][v] = rw
			t.Mean[c][v] = sum / float64(len(rw))
			if t.Mean[c][v] > t.Mean[c][t.Best[c]] {
				t.Best[c] = v
			}
		}
	}
}

// Gap returns the pseudo-regret of choosing version v in context c:
// Mean[c][Best[c]] - Mean[c][v], >= 0.
func (t *Table) Gap(c, v int) float64 { return t.Mean[c][t.Best[c]] - t.Mean[c][v] }
