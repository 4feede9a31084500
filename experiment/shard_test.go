package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"evolve/envs"
	"evolve/internal/atomicfile"
	"evolve/play"
	"evolve/rundir"
)

func TestCutShards(t *testing.T) {
	seeds := []uint64{10, 11, 12, 13, 14, 15, 16}
	tests := []struct {
		n    int
		want [][]uint64
	}{
		{1, [][]uint64{{10, 11, 12, 13, 14, 15, 16}}},
		{2, [][]uint64{{10, 11, 12, 13}, {14, 15, 16}}},
		{3, [][]uint64{{10, 11, 12}, {13, 14}, {15, 16}}},
		{7, [][]uint64{{10}, {11}, {12}, {13}, {14}, {15}, {16}}},
		{100, [][]uint64{{10}, {11}, {12}, {13}, {14}, {15}, {16}}},
	}
	for _, tt := range tests {
		if got := cutShards(seeds, tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("cutShards(7 seeds, %d) = %v, want %v", tt.n, got, tt.want)
		}
	}
	if got := cutShards(nil, 4); got != nil {
		t.Errorf("cutShards(nil, 4) = %v, want nil", got)
	}
}

func TestValidTimeLimit(t *testing.T) {
	for s, want := range map[string]bool{
		"30": true, "30:00": true, "01:00:00": true, "2-12": true, "2-12:30": true, "2-12:30:15": true,
		"UNLIMITED": true, "1h": false, "": false, "1:2:3:4": false, "-5": false, "a-1": false, "1-": false,
	} {
		if got := validTimeLimit(s); got != want {
			t.Errorf("validTimeLimit(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParseExecutor(t *testing.T) {
	c, err := Parse("exp.yaml", []byte("executor:\n  kind: slurm\n  partition: debug\n  array_size: 8\n  poll_interval: 500ms\n  time_limit: \"00:10:00\"\n  extra_args: [--qos=low]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := rundir.ExecutorConfig{Kind: rundir.ExecutorSlurm, Partition: "debug", ArraySize: 8, Retries: 2, PollInterval: 500 * time.Millisecond, TimeLimit: "00:10:00", ExtraArgs: []string{"--qos=low"}, Command: []string{}}
	if !reflect.DeepEqual(c.Executor, want) {
		t.Errorf("executor = %+v, want %+v", c.Executor, want)
	}
	// The executor never enters the run's ID or the resolved config.
	d := DefaultConfig()
	a, _ := c.identity()
	b, _ := d.identity()
	if !bytes.Equal(a, b) {
		t.Errorf("the executor changed the config's identity:\n%s\nvs\n%s", a, b)
	}
}

// writePhase writes the phase directory of the default config's first n
// val seeds, cut into shards, and returns it with the seeds.
func writePhase(t *testing.T, n, shards int) (string, []uint64, *Inputs) {
	t.Helper()
	cfg := DefaultConfig()
	in, err := cfg.Check("")
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := cfg.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	seeds := in.Seeds.Val[:n]
	spec := shardSpec{Schema: shardSchema, RunID: "test", Generation: 0, Split: PhaseVal, Config: string(resolved),
		Params: in.Base.PolicyParameters, Prompt: &envs.Prompt{Slug: "dungeon-agent", Version: "v1.0.0"}, Shards: cutShards(seeds, shards)}
	name, data, err := phaseName(&spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "phase.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, seeds, in
}

// The shards of a phase, played by PlayShard and merged in order, are the
// outcomes the local executor plays; a task run twice (a requeue) writes
// the same bytes.
func TestPlayShardMatchesLocal(t *testing.T) {
	dir, seeds, in := writePhase(t, 30, 4)
	for task := 0; task < 4; task++ {
		if err := PlayShard(context.Background(), dir, task, 2); err != nil {
			t.Fatal(err)
		}
	}
	var merged []envs.Outcome
	spec, err := readShardSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	for task, sh := range spec.Shards {
		res, err := readShard(dir, task, len(sh))
		if err != nil {
			t.Fatal(err)
		}
		merged = append(merged, res.Outcomes...)
		e, ok, err := readExit(dir, task)
		if err != nil || !ok || e.Exit != 0 || e.Episodes != len(sh) || e.Node == "" {
			t.Errorf("task %d exit record %+v, %v, %v", task, e, ok, err)
		}
	}
	runner := &play.Runner{Env: in.Env, Workers: 1}
	defer runner.Close()
	local, err := runner.Play(context.Background(), play.Phase{Params: in.Base.PolicyParameters, Prompt: spec.Prompt}, seeds)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(merged, local) {
		t.Fatalf("merged shards differ from the local executor's outcomes")
	}
	before, err := os.ReadFile(shardOut(dir, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := PlayShard(context.Background(), dir, 2, 1); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(shardOut(dir, 2))
	if !bytes.Equal(before, after) {
		t.Errorf("a task run twice wrote different bytes")
	}
}

func TestPlayShardErrors(t *testing.T) {
	dir, _, _ := writePhase(t, 6, 2)
	err := PlayShard(context.Background(), dir, 5, 1)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("task 5 is out of range: the phase has 2 shards (0-1)")) {
		t.Errorf("out of range task: %v", err)
	}
	// A phase whose config no longer checks (a seed directory gone) fails
	// with exit 1 and the reason in the exit record.
	spec, _ := readShardSpec(dir)
	spec.Config = "seeds: /nonexistent/seeds\n"
	data, _ := json.Marshal(spec)
	os.WriteFile(filepath.Join(dir, "phase.json"), data, 0o644)
	err = PlayShard(context.Background(), dir, 1, 1)
	if err == nil {
		t.Fatal("want an error for a missing seed directory")
	}
	e, ok, rerr := readExit(dir, 1)
	if rerr != nil || !ok || e.Exit != 1 || !bytes.Contains([]byte(e.Error), []byte("/nonexistent/seeds")) {
		t.Errorf("exit record %+v %v %v, want exit 1 naming the seed directory", e, ok, rerr)
	}
	if _, err := os.Stat(shardOut(dir, 1)); !os.IsNotExist(err) {
		t.Errorf("a failed task left an outcome file: %v", err)
	}
}
