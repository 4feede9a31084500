package main

import (
	"os"
	"strconv"
)

// cpusPerTask returns $SLURM_CPUS_PER_TASK if it is a positive number,
// else 0 (PlayShard then plays one episode at a time).
func cpusPerTask() int {
	n, err := strconv.Atoi(os.Getenv("SLURM_CPUS_PER_TASK"))
	if err != nil || n < 1 {
		return 0
	}
	return n
}
