// Package slurmtest gives tests a slurm.Client for the Slurm cluster they
// can reach, or skips them with the reason and how to start one
// (scripts/slurm-dev-cluster start). Tests that need Slurm have "Slurm"
// in their names, so that `make test-slurm` (go test -run Slurm ./...)
// runs them alone.
package slurmtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"evolve/internal/slurm"
)

// DefaultDevDir is scripts/slurm-dev-cluster's state directory when
// EVOLVE_SLURM_DIR is unset.
const DefaultDevDir = "/tmp/evolve-slurm"

// Env returns the environment that points Slurm's commands at the
// cluster: nil (inherit) when SLURM_CONF is set or when the dev cluster's
// slurm.conf (EVOLVE_SLURM_DIR, default DefaultDevDir, then
// etc/slurm.conf) does not exist, so that a site's default configuration
// is used; else []string{"SLURM_CONF=<that file>"}. Pass it as
// slurm.Client.Env, or append it to a subprocess's environment (a
// subprocess that runs sbatch passes it on to the jobs).
func Env() []string {
	if os.Getenv("SLURM_CONF") != "" {
		return nil
	}
	dir := os.Getenv("EVOLVE_SLURM_DIR")
	if dir == "" {
		dir = DefaultDevDir
	}
	conf := filepath.Join(dir, "etc", "slurm.conf")
	if _, err := os.Stat(conf); err != nil {
		return nil
	}
	return []string{"SLURM_CONF=" + conf}
}

// availability caches Available's answer per environment, so that a test
// binary whose cluster is down waits for sinfo once, not once per test.
var availability struct {
	sync.Mutex
	err map[string]error
}

// Client returns a client of the reachable cluster (with Env) and the
// cluster's default partition, or skips tb with "no Slurm cluster: WHY;
// start one with scripts/slurm-dev-cluster start" when
// slurm.Client.Available fails within 20 s. The answer is asked once per
// test binary.
func Client(tb testing.TB) *slurm.Client {
	tb.Helper()
	c := &slurm.Client{Env: Env()}
	key := strings.Join(c.Env, "\x00")
	availability.Lock()
	err, asked := availability.err[key]
	if !asked {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err = c.Available(ctx)
		cancel()
		if availability.err == nil {
			availability.err = map[string]error{}
		}
		availability.err[key] = err
	}
	availability.Unlock()
	if err != nil {
		tb.Skipf("%v; start one with scripts/slurm-dev-cluster start", err)
	}
	return c
}
