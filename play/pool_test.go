package play

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"evolve/agent"
	"evolve/envs"
	"evolve/params"
)

// onlyPlay hides the Runner's PlayAll, as an executor without one pool
// (the Slurm executor) does: PlayAll then calls Play of every job at
// once.
type onlyPlay struct{ *Runner }

func (o onlyPlay) Play(ctx context.Context, ph Phase, seeds []uint64) ([]envs.Outcome, error) {
	return o.Runner.Play(ctx, ph, seeds)
}

// Three phases of different parameters played as one pool give, for any
// worker count and with or without the runner's own pool, the outcomes
// of each phase played alone; each phase's progress reaches its total.
func TestPlayAllEqualsPlay(t *testing.T) {
	env := dungeonEnv(t)
	seeds := seedRange(25)
	var jobs []Job
	for _, risk := range []float64{0.2, 0.5, 0.8} {
		p := agent.BaseParameters().With("risk_tolerance", params.NumberValue(risk))
		jobs = append(jobs, Job{Phase: Phase{Split: "val", Params: p}, Seeds: seeds})
	}
	alone := make([][]envs.Outcome, len(jobs))
	r := &Runner{Env: env, Workers: 2}
	for j, job := range jobs {
		var err error
		if alone[j], err = r.Play(context.Background(), job.Phase, job.Seeds); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	if reflect.DeepEqual(alone[0], alone[2]) {
		t.Fatal("the phases' parameters change nothing: the test cannot tell them apart")
	}
	for _, w := range []int{1, 3} {
		for _, pool := range []bool{true, false} {
			r := &Runner{Env: env, Workers: w}
			var x Executor = r
			if !pool {
				x = onlyPlay{r}
			}
			last := make([]int, len(jobs))
			js := append([]Job(nil), jobs...)
			for j := range js {
				js[j].Phase.Progress = func(done, total int) {
					if done != last[j]+1 || total != len(seeds) {
						t.Errorf("job %d: progress %d/%d after %d", j, done, total, last[j])
					}
					last[j] = done
				}
			}
			got, err := PlayAll(context.Background(), x, js)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, alone) {
				t.Errorf("workers=%d pool=%v: PlayAll differs from Play of each phase", w, pool)
			}
			for j, n := range last {
				if n != len(seeds) {
					t.Errorf("workers=%d pool=%v: job %d progress ended at %d", w, pool, j, n)
				}
			}
		}
	}
}

// An episode that cannot be played stops the pool with a *JobError
// naming its job, around the *EpisodeError; with RecordErrors it is
// recorded through its own phase's OnError.
func TestPlayAllErrors(t *testing.T) {
	ok := []uint64{1000, 1001}
	bad := []uint64{1000, 1003}
	jobs := []Job{{Phase: Phase{Split: "val"}, Seeds: ok}, {Phase: Phase{Split: "val"}, Seeds: bad}}
	for _, pool := range []bool{true, false} {
		r := &Runner{Env: &faulty{}, Workers: 2}
		var x Executor = r
		if !pool {
			x = onlyPlay{r}
		}
		_, err := PlayAll(context.Background(), x, jobs)
		var je *JobError
		var ee *EpisodeError
		if !errors.As(err, &je) || je.Job != 1 || !errors.As(err, &ee) || ee.Seed != 1003 {
			t.Errorf("pool=%v: err = %v, want a *JobError of job 1 around seed 1003's *EpisodeError", pool, err)
		}
		r.RecordErrors = true
		var got []int
		js := append([]Job(nil), jobs...)
		for j := range js {
			js[j].Phase.OnError = func(*EpisodeError) { got = append(got, j) }
		}
		outs, err := PlayAll(context.Background(), x, js)
		if err != nil || len(got) != 1 || got[0] != 1 || outs[1][1].Cause != envs.CauseError {
			t.Errorf("pool=%v, RecordErrors: err %v, OnError of jobs %v, outcome %+v", pool, err, got, outs)
		}
		r.Close()
	}
}
