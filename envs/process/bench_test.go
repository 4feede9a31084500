package process

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"evolve/envs"
)

// BenchmarkStepsPerSecond measures step mode over pipes: per step, an act
// request to the agent process and a step request to the environment
// process (the test binary as a trivial helper process for both), against
// the same trivial environment and agent in process, with the same JSON
// values passed by function call. One iteration is one step; episodes
// have helperSteps steps.
func BenchmarkStepsPerSecond(b *testing.B) {
	b.Run("pipe", func(b *testing.B) {
		e, err := New(helperConfig("env"))
		if err != nil {
			b.Fatal(err)
		}
		playSteps(b, e)
	})
	b.Run("python", func(b *testing.B) {
		// A trivial Python environment and agent (testdata/trivial_*.py):
		// what a user's step-mode program costs at the least, per worker.
		py := python3(b)
		cfg := testConfig("testdata", py, "trivial_env.py")
		cfg.Agent = []string{py, "trivial_agent.py"}
		e, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		playSteps(b, e)
	})
	b.Run("in-process", func(b *testing.B) {
		env := func(action json.RawMessage, t int) (json.RawMessage, bool) {
			return json.RawMessage(`1`), t >= helperSteps
		}
		agent := func(obs json.RawMessage) json.RawMessage { return json.RawMessage(`"a"`) }
		start := time.Now()
		steps := 0
		for steps < b.N {
			obs := json.RawMessage(`0`)
			for t := 1; ; t++ {
				var done bool
				obs, done = env(agent(obs), t)
				steps++
				if done {
					break
				}
			}
		}
		b.ReportMetric(float64(steps)/time.Since(start).Seconds(), "steps/s")
	})
}

// playSteps plays e's episodes on one player until b.N steps are done
// (the first metric of an outcome counts its steps) and reports steps/s.
func playSteps(b *testing.B, e *Env) {
	pl, err := e.NewPlayer(0)
	if err != nil {
		b.Fatal(err)
	}
	defer pl.Close()
	b.ResetTimer()
	start := time.Now()
	steps := 0
	for steps < b.N {
		out, err := pl.Play(context.Background(), envs.Episode{Seed: uint64(steps)})
		if err != nil {
			b.Fatal(err)
		}
		steps += int(out.Metrics[0].Num)
	}
	b.ReportMetric(float64(steps)/time.Since(start).Seconds(), "steps/s")
}

// BenchmarkEpisodeMode measures one play request and its outcome over a
// pipe (the test binary as a trivial episode-mode process).
func BenchmarkEpisodeMode(b *testing.B) {
	e, err := New(helperConfig("episode"))
	if err != nil {
		b.Fatal(err)
	}
	pl, err := e.NewPlayer(0)
	if err != nil {
		b.Fatal(err)
	}
	defer pl.Close()
	ps := e.Info().Params.Defaults()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		if _, err := pl.Play(context.Background(), envs.Episode{Seed: uint64(i), Params: ps, Prompt: checkPrompt}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "episodes/s")
}
