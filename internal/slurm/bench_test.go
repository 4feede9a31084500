package slurm_test

import (
	"context"
	"testing"
	"time"

	"evolve/internal/slurm"
	"evolve/internal/slurm/slurmtest"
)

// The costs of the Slurm executor's steps on the cluster at hand (make
// bench-slurm): one sbatch, one squeue of an array, and a whole trivial
// array from submission to its last task's end as the executor sees it
// (ArrayStatus polled every 100 ms).

func BenchmarkSlurmSubmit(b *testing.B) {
	c := slurmtest.Client(b)
	ctx := context.Background()
	dir := b.TempDir()
	// A held job (--hold) is never scheduled: this times sbatch alone.
	held := *c
	held.ExtraArgs = []string{"--hold"}
	var jobs []string
	for b.Loop() {
		job, err := held.SubmitArray(ctx, slurm.ArraySpec{Name: "evolve-bench-submit", Command: []string{"true"}, Dir: dir, Output: "/dev/null", Tasks: []int{0, 1, 2, 3, 4, 5, 6, 7}})
		if err != nil {
			b.Fatal(err)
		}
		jobs = append(jobs, job)
	}
	b.StopTimer()
	for _, job := range jobs {
		if err := c.Cancel(ctx, job); err != nil {
			b.Error(err)
		}
	}
}

func BenchmarkSlurmArrayStatus(b *testing.B) {
	c := slurmtest.Client(b)
	ctx := context.Background()
	held := *c
	held.ExtraArgs = []string{"--hold"}
	// 100 pending tasks: squeue -r lists each.
	tasks := make([]int, 100)
	for i := range tasks {
		tasks[i] = i
	}
	job, err := held.SubmitArray(ctx, slurm.ArraySpec{Name: "evolve-bench-status", Command: []string{"true"}, Dir: b.TempDir(), Output: "/dev/null", Tasks: tasks})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Cancel(ctx, job)
	for b.Loop() {
		st, err := c.ArrayStatus(ctx, job)
		if err != nil || len(st) != len(tasks) {
			b.Fatalf("ArrayStatus: %d tasks, %v", len(st), err)
		}
	}
}

func BenchmarkSlurmArray8(b *testing.B) {
	c := slurmtest.Client(b)
	ctx := context.Background()
	dir := b.TempDir()
	for b.Loop() {
		job, err := c.SubmitArray(ctx, slurm.ArraySpec{Name: "evolve-bench-array", Command: []string{"true"}, Dir: dir, Output: "/dev/null", Tasks: []int{0, 1, 2, 3, 4, 5, 6, 7}})
		if err != nil {
			b.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Minute)
		for {
			st, err := c.ArrayStatus(ctx, job)
			if err != nil {
				b.Fatal(err)
			}
			done := len(st) == 8
			for _, s := range st {
				done = done && slurm.Terminal(s.State)
			}
			if done {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("the array's tasks have not ended after 5 min: %v", st)
			}
			// The fixed 100 ms between polls is part of what is measured:
			// the time to the end as a poller at that rate sees it.
			time.Sleep(100 * time.Millisecond)
		}
	}
}
