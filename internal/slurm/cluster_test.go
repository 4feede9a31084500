package slurm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evolve/internal/slurm"
	"evolve/internal/slurm/slurmtest"
)

// These tests run on a real cluster (scripts/slurm-dev-cluster start) and
// skip without one. Each submits its own small array; the node advertises
// 8 CPUs, so they run side by side.

// waitFor polls ArrayStatus every 200 ms until done says the tasks are
// where the test wants them. The 2-minute bound only keeps a broken
// cluster from hanging the test; it asserts no timing.
func waitFor(t *testing.T, c *slurm.Client, job string, what string, done func(map[int]slurm.TaskState) bool) map[int]slurm.TaskState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var st map[int]slurm.TaskState
	for {
		var err error
		if st, err = c.ArrayStatus(ctx, job); err != nil {
			t.Fatalf("ArrayStatus(%s): %v", job, err)
		}
		if done(st) {
			return st
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s: %s: not after 2 minutes; last status %+v", job, what, st)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// allTerminal is true when each of tasks 0..n-1 is listed and terminal.
func allTerminal(n int) func(map[int]slurm.TaskState) bool {
	return func(st map[int]slurm.TaskState) bool {
		for i := range n {
			if s, ok := st[i]; !ok || !slurm.Terminal(s.State) {
				return false
			}
		}
		return true
	}
}

// submit submits spec and cancels the job when the test ends, whatever
// happened.
func submit(t *testing.T, c *slurm.Client, spec slurm.ArraySpec) string {
	t.Helper()
	job, err := c.SubmitArray(context.Background(), spec)
	if err != nil {
		t.Fatalf("SubmitArray: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Cancel(context.Background(), job); err != nil {
			t.Errorf("Cancel(%s) at cleanup: %v", job, err)
		}
	})
	return job
}

func TestSlurmArray(t *testing.T) {
	c := slurmtest.Client(t)
	t.Parallel()
	dir := t.TempDir()
	// Task 2 exits 7; the others write their index to out/INDEX.
	spec := slurm.ArraySpec{
		Name:    "evolve-test-array",
		Command: []string{"sh", "-c", `[ "$SLURM_ARRAY_TASK_ID" = 2 ] && exit 7; echo "$SLURM_ARRAY_TASK_ID" > "out/$SLURM_ARRAY_TASK_ID"`},
		Dir:     dir,
		Output:  filepath.Join(dir, "logs", "%a.out"),
		Tasks:   []int{0, 1, 2, 3},
	}
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	job := submit(t, c, spec)
	st := waitFor(t, c, job, "4 tasks ended", allTerminal(4))
	if len(st) != 4 {
		t.Errorf("ArrayStatus lists %d tasks, want 4: %+v", len(st), st)
	}
	for task := range 4 {
		s := st[task]
		want := slurm.TaskState{Task: task, State: "COMPLETED", Node: s.Node}
		if task == 2 {
			want.State, want.ExitCode, want.Reason = "FAILED", 7, "NonZeroExitCode"
		}
		if s != want || s.Node == "" {
			t.Errorf("task %d: %+v, want %+v on some node", task, s, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "logs", fmt.Sprint(task)+".out")); err != nil {
			t.Errorf("task %d: no log: %v", task, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "out", fmt.Sprint(task)))
		switch {
		case task == 2 && !errors.Is(err, os.ErrNotExist):
			t.Errorf("task 2 exited before writing, yet out/2 = %q, %v", b, err)
		case task != 2 && string(b) != fmt.Sprintf("%d\n", task):
			t.Errorf("out/%d = %q, %v; want %q", task, b, err, fmt.Sprintf("%d\n", task))
		}
	}
	if name, err := c.JobName(context.Background(), job); err != nil || name != "evolve-test-array" {
		t.Errorf("JobName(%s) = %q, %v; want evolve-test-array", job, name, err)
	}
	script, err := os.ReadFile(filepath.Join(dir, "evolve-test-array.sbatch"))
	if err != nil || !strings.HasPrefix(string(script), "#!/bin/sh\n") || !strings.Contains(string(script), "\nexec 'sh' '-c' ") {
		t.Errorf("batch script: %q, %v", script, err)
	}

	// A resubmission of a subset runs only those tasks.
	if err := os.Remove(filepath.Join(dir, "out", "1")); err != nil {
		t.Fatal(err)
	}
	spec.Tasks, spec.MaxParallel = []int{1, 3}, 1
	job2 := submit(t, c, spec)
	st = waitFor(t, c, job2, "tasks 1 and 3 ended", func(st map[int]slurm.TaskState) bool {
		return len(st) == 2 && slurm.Terminal(st[1].State) && slurm.Terminal(st[3].State)
	})
	if st[1].State != "COMPLETED" || st[3].State != "COMPLETED" {
		t.Errorf("resubmitted tasks: %+v", st)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out", "1")); string(b) != "1\n" {
		t.Errorf("out/1 after resubmission = %q, %v", b, err)
	}
}

func TestSlurmCancel(t *testing.T) {
	c := slurmtest.Client(t)
	t.Parallel()
	dir := t.TempDir()
	job := submit(t, c, slurm.ArraySpec{
		Name:    "evolve-test-cancel",
		Command: []string{"sleep", "300"},
		Dir:     dir,
		Output:  filepath.Join(dir, "%A_%a.out"),
		Tasks:   []int{0, 1, 2},
	})
	waitFor(t, c, job, "task 1 running", func(st map[int]slurm.TaskState) bool { return st[1].State == "RUNNING" })
	ctx := context.Background()
	if err := c.Cancel(ctx, job, 1); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, c, job, "task 1 cancelled", func(st map[int]slurm.TaskState) bool { return slurm.Terminal(st[1].State) })
	if got := st[1]; got.State != "CANCELLED" || got.Signal != 15 || got.ExitCode != 0 {
		t.Errorf("cancelled task 1: %+v, want CANCELLED by signal 15", got)
	}
	for _, task := range []int{0, 2} {
		if slurm.Terminal(st[task].State) {
			t.Errorf("task %d ended when only task 1 was cancelled: %+v", task, st[task])
		}
	}
	// The whole array, then again: cancelling what has ended is no error.
	if err := c.Cancel(ctx, job); err != nil {
		t.Fatal(err)
	}
	st = waitFor(t, c, job, "every task cancelled", allTerminal(3))
	for task, s := range st {
		if s.State != "CANCELLED" {
			t.Errorf("task %d: %+v, want CANCELLED", task, s)
		}
	}
	if err := c.Cancel(ctx, job); err != nil {
		t.Errorf("Cancel of an ended job: %v", err)
	}
	if err := c.Cancel(ctx, job, 0, 2); err != nil {
		t.Errorf("Cancel of ended tasks: %v", err)
	}
}

func TestSlurmUnknownJob(t *testing.T) {
	c := slurmtest.Client(t)
	st, err := c.ArrayStatus(context.Background(), "987654321")
	if err != nil || len(st) != 0 {
		t.Errorf("ArrayStatus(unknown job) = %v, %v; want an empty map and no error", st, err)
	}
	if err := c.Cancel(context.Background(), "987654321"); err != nil {
		t.Errorf("Cancel(unknown job) = %v", err)
	}
	if name, err := c.JobName(context.Background(), "987654321"); err != nil || name != "" {
		t.Errorf("JobName(unknown job) = %q, %v; want \"\" and no error", name, err)
	}
}

func TestSlurmErrors(t *testing.T) {
	c := slurmtest.Client(t)
	ctx := context.Background()
	bad := *c
	bad.Partition = "no-such-partition"
	_, err := bad.SubmitArray(ctx, slurm.ArraySpec{Name: "evolve-test-bad", Command: []string{"true"}, Dir: t.TempDir(), Tasks: []int{0}})
	var ce *slurm.CommandError
	if !errors.As(err, &ce) || ce.Args[0] != "sbatch" || ce.ExitCode != 1 || !strings.Contains(ce.Stderr, "invalid partition") ||
		!strings.Contains(err.Error(), "--partition=no-such-partition") {
		t.Errorf("SubmitArray to a missing partition: %v; want sbatch's exit code 1 and 'invalid partition'", err)
	}
	for _, spec := range []struct {
		s   slurm.ArraySpec
		msg string
	}{
		{slurm.ArraySpec{Command: []string{"true"}, Dir: "/tmp", Tasks: []int{0}}, "Name is empty"},
		{slurm.ArraySpec{Name: "x", Dir: "/tmp", Tasks: []int{0}}, "Command is empty"},
		{slurm.ArraySpec{Name: "x", Command: []string{"true"}, Dir: "rel", Tasks: []int{0}}, `absolute path on the shared filesystem: "rel"`},
		{slurm.ArraySpec{Name: "x", Command: []string{"true"}, Dir: "/tmp"}, "Tasks is empty"},
		{slurm.ArraySpec{Name: "x", Command: []string{"true"}, Dir: "/tmp", Tasks: []int{-1}}, "negative task index -1"},
	} {
		if _, err := c.SubmitArray(ctx, spec.s); err == nil || !strings.Contains(err.Error(), spec.msg) {
			t.Errorf("SubmitArray(%+v) error = %v, want %q", spec.s, err, spec.msg)
		}
	}
	if _, err := c.ArrayStatus(ctx, "12_3"); err == nil {
		t.Error("ArrayStatus(\"12_3\") accepted a task as a job ID")
	}

	// A configuration whose controller does not listen: Available says so
	// (MessageTimeout=1 s: sinfo gives up at once instead of after ~9 s).
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, []byte("ClusterName=none\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=1\nMessageTimeout=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := slurm.Client{Env: []string{"SLURM_CONF=" + conf}}
	err = gone.Available(ctx)
	if !errors.Is(err, slurm.ErrNoCluster) || !errors.As(err, &ce) || ce.Args[0] != "sinfo" {
		t.Errorf("Available with no controller = %v; want ErrNoCluster and sinfo's error", err)
	}
}
