package process

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"evolve/envs"
)

// BenchmarkStepsPerSecond measures step mode over pipes: per step, an act
// request to the agent process and a step request to the environment
// process: pipe with the test binary as a trivial helper process for
// both (episodes of helperSteps steps), python with a trivial Python
// environment and agent (testdata/trivial_*.py, episodes of 1,000 steps),
// python_direct with the same programs over the direct channel (the
// environment process exchanges the act requests and actions with the
// agent process itself: two messages a step, none of them evolve's).
// floor_python relays the same four lines per step to two Python
// processes that only echo them: what the pipes, the wake-ups and
// Python's reads and writes cost, the most step mode with Python
// programs can do here. in-process is the trivial environment and agent
// with the same JSON values passed by function call. One iteration is
// one step.
//
// Each of pipe, python, python_direct and floor_python runs as configured by default
// and with pin_cpu (the processes on one CPU: Config.PinCPU).
func BenchmarkStepsPerSecond(b *testing.B) {
	for _, pin := range []bool{false, true} {
		suffix := ""
		if pin {
			suffix = "_pin_cpu"
		}
		b.Run("pipe"+suffix, func(b *testing.B) {
			cfg := helperConfig("env")
			cfg.PinCPU = pin
			e, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			playSteps(b, e)
		})
		b.Run("python"+suffix, func(b *testing.B) {
			// A trivial Python environment and agent
			// (testdata/trivial_*.py): what a user's step-mode program
			// costs at the least, per worker.
			py := python3(b)
			cfg := testConfig("testdata", py, "trivial_env.py")
			cfg.Agent = []string{py, "trivial_agent.py"}
			cfg.PinCPU = pin
			e, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			playSteps(b, e)
		})
		b.Run("python_direct"+suffix, func(b *testing.B) {
			// The same programs over the direct channel (Config.Direct):
			// the environment sends the act requests itself, two
			// messages a step instead of four.
			py := python3(b)
			cfg := testConfig("testdata", py, "trivial_env.py")
			cfg.Agent = []string{py, "trivial_agent.py"}
			cfg.PinCPU = pin
			cfg.Direct = true
			e, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			playSteps(b, e)
		})
		b.Run("floor_python"+suffix, func(b *testing.B) {
			// The floor: two Python processes that echo lines
			// (testdata/echo.py), relayed to as a step relays to the
			// agent and the environment (four lines of a step's size,
			// the same pipes and reads), with no JSON on either side.
			py := python3(b)
			cfg := testConfig("testdata", py, "echo.py")
			cpus := allowedCPUs()
			run := func(f func()) { f() }
			if pin && len(cpus) > 0 {
				run = func(f func()) { onCPU(cpus[0], f) }
			}
			run(func() { floorSteps(b, &cfg, py) })
		})
	}
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
// Where /proc/PID/schedstat exists (Linux), it also reports where a
// step's wall time went, in µs per step: evolve's CPU time (all its
// threads: go-µs/step), the environment's and the agent's
// (env-µs/step, agent-µs/step), and the time the three spent runnable
// but waiting for a CPU (runq-µs/step: other load on the machine). What
// is left of 1e6/(steps/s) is the wake-ups: a process woken by a pipe
// write, on a CPU that was idle.
func playSteps(b *testing.B, e *Env) {
	pl, err := e.NewPlayer(0)
	if err != nil {
		b.Fatal(err)
	}
	defer pl.Close()
	p := pl.(*Player)
	pids := []int{os.Getpid(), p.ep.cmd.Process.Pid, p.ag.cmd.Process.Pid}
	before := schedstats(pids)
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
	after := schedstats(pids)
	if before == nil || after == nil {
		return
	}
	perStep := func(ns int64) float64 { return float64(ns) / 1e3 / float64(steps) }
	var wait int64
	for i, unit := range []string{"go-µs/step", "env-µs/step", "agent-µs/step"} {
		b.ReportMetric(perStep(after[i].run-before[i].run), unit)
		wait += after[i].wait - before[i].wait
	}
	b.ReportMetric(perStep(wait), "runq-µs/step")
}

// floorSteps relays b.N steps between two echo processes (cfg's
// command), each step a line of an act request's size to the first and
// one of a step response's size to the second, and reports steps/s.
func floorSteps(b *testing.B, cfg *Config, py string) {
	var ps [2]*proc
	for i := range ps {
		p, err := startProc(cfg, append([]string{py}, cfg.Command[1:]...), RoleEnvironment, "")
		if err != nil {
			b.Fatal(err)
		}
		defer p.terminate(false, "")
		ps[i] = p
	}
	lines := [2][]byte{
		[]byte(`{"id":123,"type":"act","observation":45}` + "\n"),
		[]byte(`{"id":123,"type":"step","observation":45,"reward":0,"done":false}` + "\n"),
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		for i, p := range ps {
			p.req = append(p.req[:0], lines[i]...)
			line, err := p.roundTrip(time.Now().Add(10 * time.Second))
			if err != nil || len(line) != len(lines[i])-1 {
				b.Fatalf("echo: %q, %v", line, err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "steps/s")
}

// schedstat is a process's time on a CPU and time runnable but waiting
// for one, in ns, summed over its threads (/proc/PID/task/*/schedstat).
type schedstat struct{ run, wait int64 }

// schedstats reads the schedstat of each process of pids; nil if one
// cannot be read (no /proc, or a kernel without schedstats).
func schedstats(pids []int) []schedstat {
	out := make([]schedstat, len(pids))
	for i, pid := range pids {
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
		if err != nil || len(tasks) == 0 {
			return nil
		}
		for _, t := range tasks {
			data, err := os.ReadFile(t)
			if err != nil {
				continue // a thread that ended
			}
			var run, wait int64
			if _, err := fmt.Sscan(string(data), &run, &wait); err != nil {
				return nil
			}
			out[i].run += run
			out[i].wait += wait
		}
	}
	return out
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
