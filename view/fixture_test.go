package view

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"evolve/envs"
	"evolve/eval"
	"evolve/experiment"
	"evolve/gate"
	"evolve/results"
	"evolve/seeds"
	"evolve/trajectory"
)

// fixture is a root directory with two finished runs of one small config
// on two seed sets (replicates) and an eval of the first run's base and
// final versions, made once for the package's tests by the real runner.
type fixture struct {
	root       string
	run1, run2 *experiment.Result
	evalDir    string
	evalRes    *eval.Result
	// gatedDir is an eval of the final version alone, gated against
	// evalDir's base version with the eval's own settings (margin 25,
	// failure-share checks); gatedRes its result.
	gatedDir    string
	gatedRes    *eval.Result
	base, final string
	// special holds three test episodes of run2's final version whose
	// stored trajectories are an asciicast recording, an LLM transcript
	// and other JSON, in that order.
	special []uint64
	err     error
}

var (
	fixOnce sync.Once
	fix     fixture
)

func getFixture(t testing.TB) *fixture {
	t.Helper()
	fixOnce.Do(func() {
		dir, err := os.MkdirTemp("", "evolve-view-test-")
		if err != nil {
			fix.err = err
			return
		}
		fix.root = dir
		fix.err = makeFixture(&fix)
	})
	if fix.err != nil {
		t.Fatal(fix.err)
	}
	return &fix
}

func makeFixture(f *fixture) error {
	ctx := context.Background()
	var res []*experiment.Result
	for i, seed := range []uint64{7, 8} {
		sd := filepath.Join(f.root, "seeds", fmt.Sprint(seed))
		if _, err := seeds.Create(sd, seed, seeds.Sizes{Train: 40, Val: 60, Test: 60}, "view test"); err != nil {
			return err
		}
		cfgText := fmt.Sprintf("name: small\nseeds: %s\nmax_generations: 2\nmutation:\n  candidates: 2\n", sd)
		cfg, err := experiment.Parse(fmt.Sprintf("small%d.yaml", i), []byte(cfgText))
		if err != nil {
			return err
		}
		r, err := experiment.Run(ctx, cfg, experiment.Options{Out: filepath.Join(f.root, "runs"), Workers: 2, Version: "test"})
		if err != nil {
			return err
		}
		res = append(res, r)
	}
	f.run1, f.run2 = res[0], res[1]
	f.base, f.final = f.run1.Base, f.run1.Final
	var vs []eval.Version
	for _, v := range []string{f.base, f.final} {
		ver, err := eval.ResolvePrompt(f.run1.Dir+":"+v, "")
		if err != nil {
			return err
		}
		vs = append(vs, *ver)
	}
	cfg := experiment.DefaultConfig()
	cfg.Seeds = filepath.Join(f.root, "seeds", "7")
	cfg.Trajectories = "all"
	er, err := eval.Run(ctx, vs, eval.Options{Config: cfg, Split: "test", Out: filepath.Join(f.root, "evals"), Workers: 2, Version: "test"})
	if err != nil {
		return err
	}
	f.evalDir, f.evalRes = er.Dir, er
	inc := 0.1
	gr, err := eval.Run(ctx, vs[1:], eval.Options{Config: cfg, Split: "test", Out: filepath.Join(f.root, "evals"), Workers: 2, Version: "test",
		Gate: eval.GateSettings{Baseline: er.Dir, Config: gate.Config{Margin: 25}, FailOnRegression: true, MaxFailureIncrease: &inc}, GateGiven: true})
	if err != nil {
		return err
	}
	f.gatedDir, f.gatedRes = gr.Dir, gr
	return storeSpecial(f)
}

// Trajectories of the kinds the dungeon does not record, for the replay
// of each kind.
const (
	testCast       = "{\"version\":2,\"width\":40,\"height\":5}\n[0.1,\"o\",\"\\u001b[2J\\u001b[1;1HHello\"]\n[0.2,\"o\",\"\\u001b[3;5Hworld\\r\\n\"]\n[0.3,\"o\",\"\\u001b[1;1H\\u001b[KDlvl:1 $:0\"]\n"
	testTranscript = `{"kind":"llm-transcript/v1","system":"You play a dungeon.","turns":[` +
		`{"turn":1,"tries":[{"messages":[{"Role":"user","Content":"Turn 1. Map: @."}],"reply":"hmm","rejected":"no action named"},` +
		`{"messages":[{"Role":"user","Content":"Your reply could not be used."}],"reply":"ACTION: explore"}],"action":"explore"},` +
		`{"turn":2,"tries":[{"messages":[{"Role":"user","Content":"Turn 2."}],"reply":"ACTION: eat"}],"action":"eat"}]}`
	testRaw = `[{"turn":1,"action":"forage","reward":0.5}]`
)

// storeSpecial replaces run2's test trajectories of its final version by
// the three special ones.
func storeSpecial(f *fixture) error {
	eps, _, err := results.ReadEpisodes(filepath.Join(f.run2.Dir, "episodes.parquet"))
	if err != nil {
		return err
	}
	for _, e := range eps {
		if e.Split == "test" && e.Version == f.run2.Final && len(f.special) < 3 {
			f.special = append(f.special, e.Seed)
		}
	}
	ph := trajectory.Phase{Split: "test", Version: f.run2.Final}
	rel, _ := ph.Rel()
	os.Remove(filepath.Join(f.run2.Dir, rel))
	_, err = trajectory.Write(f.run2.Dir, ph, []trajectory.Entry{
		{Seed: f.special[0], Format: envs.TrajectoryAsciicast, Data: []byte(testCast)},
		{Seed: f.special[1], Format: envs.TrajectoryJSON, Data: []byte(testTranscript)},
		{Seed: f.special[2], Format: envs.TrajectoryJSON, Data: []byte(testRaw)},
	})
	return err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fix.root != "" {
		os.RemoveAll(fix.root)
	}
	os.Exit(code)
}
