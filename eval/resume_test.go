package eval

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"evolve/experiment"
	"evolve/rundir"
)

// cancelAfterPhase cancels its context when the first phase ends, so that
// the eval is interrupted at the start of its second phase (the first is
// checkpointed in between).
type cancelAfterPhase struct{ cancel context.CancelFunc }

func (o cancelAfterPhase) PhaseStart(int, string, string, int)              {}
func (o cancelAfterPhase) EpisodeDone(int, int)                             {}
func (o cancelAfterPhase) PhaseEnd(int, string, string, int, time.Duration) { o.cancel() }

// A resume without the config and the flags the eval started with plays
// as the eval began: the config's variants (which the resolved config
// leaves out), the --seeds file (named by the manifest) and the settings
// of rundir.Settings (here the trajectories policy) come from the
// checkpoint, and the outputs equal those of an eval never interrupted.
func TestResumeRestoresInvocation(t *testing.T) {
	tmp := t.TempDir()
	seedsFile := filepath.Join(tmp, "seeds.txt")
	if err := os.WriteFile(seedsFile, []byte("11\n12\n13\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const cfgYAML = "name: rv\ntrajectories: all\nvariants:\n  - {name: short, params: {max_turns: 1000}}\n  - {name: long, params: {max_turns: 3000}}\n"
	start := func(ctx context.Context, dir string, obs Observer) (*Result, error) {
		cfg, err := experiment.Parse("rv.yaml", []byte(cfgYAML))
		if err != nil {
			t.Fatal(err)
		}
		v, err := ResolvePrompt("embedded", "")
		if err != nil {
			t.Fatal(err)
		}
		return Run(ctx, []Version{*v}, Options{Config: cfg, SeedsFile: seedsFile, Dir: dir, Observer: obs, Workers: 1})
	}
	whole := filepath.Join(tmp, "whole")
	if _, err := start(context.Background(), whole, nil); err != nil {
		t.Fatal(err)
	}

	parts := filepath.Join(tmp, "parts")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := start(ctx, parts, cancelAfterPhase{cancel})
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Phases != 1 {
		t.Fatalf("interrupted eval: %v, want an *InterruptedError after 1 phase", err)
	}
	ck, err := rundir.ReadEval(parts)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Variants == "" || ck.SeedsFile != seedsFile || ck.Settings == nil || ck.Settings.Trajectories != "all" {
		t.Fatalf("checkpoint records variants %q, seeds file %q, settings %+v; want the config's variants, %s, trajectories all",
			ck.Variants, ck.SeedsFile, ck.Settings, seedsFile)
	}
	res, err := Resume(context.Background(), parts, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Variants) != 2 || res.Variants[0] != "short" || res.Variants[1] != "long" {
		t.Errorf("resumed eval played variants %q, want [short long]", res.Variants)
	}

	times := regexp.MustCompile(`(?m)^(started|finished): .*\n`)
	for _, name := range []string{rundir.EpisodesFile, rundir.SummaryFile, rundir.ManifestFile, "report.md"} {
		a, errA := os.ReadFile(filepath.Join(whole, name))
		b, errB := os.ReadFile(filepath.Join(parts, name))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", name, errA, errB)
		}
		if name == rundir.ManifestFile {
			a, b = times.ReplaceAll(a, nil), times.ReplaceAll(b, nil)
			if !bytes.Contains(b, []byte("seeds_file: "+seedsFile)) {
				t.Errorf("the resumed eval's manifest does not name the seeds file %s:\n%s", seedsFile, b)
			}
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the uninterrupted eval and the resumed one", name)
		}
	}
	trajA, _ := filepath.Glob(filepath.Join(whole, "trajectories", "test", "*", "*.zip"))
	trajB, _ := filepath.Glob(filepath.Join(parts, "trajectories", "test", "*", "*.zip"))
	if len(trajA) != 2 || len(trajB) != len(trajA) {
		t.Fatalf("trajectory archives: %d uninterrupted, %d resumed; want one per phase (2) each", len(trajA), len(trajB))
	}
	for i := range trajA {
		a, _ := os.ReadFile(trajA[i])
		b, _ := os.ReadFile(trajB[i])
		relA, _ := filepath.Rel(whole, trajA[i])
		relB, _ := filepath.Rel(parts, trajB[i])
		if relA != relB || !bytes.Equal(a, b) {
			t.Errorf("trajectory archive %s differs from %s", trajB[i], trajA[i])
		}
	}
}
