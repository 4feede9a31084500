// Package slurmtest gives tests a slurm.Client for the dev cluster of
// scripts/slurm-dev-cluster, or skips them with the reason and how to
// start one. Tests that need Slurm have "Slurm" in their names, so that
// `make test-slurm` (go test -run Slurm ./...) runs them alone.
//
// By default the tests reach only the dev cluster, whatever SLURM_CONF
// says and whatever cluster the machine's own slurm.conf names: on an HPC
// login node, `make test` must not submit jobs to the site's cluster.
// Setting SiteEnv (EVOLVE_SLURM_SITE=1) opts in to the cluster Slurm's
// commands reach by themselves (SLURM_CONF, else the machine's
// slurm.conf).
package slurmtest

import (
	"context"
	"fmt"
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

// SiteEnv is the environment variable that opts the tests in to a site's
// cluster: when it is "1", Env inherits the process's SLURM_CONF (or the
// machine's default slurm.conf) instead of pointing at the dev cluster.
const SiteEnv = "EVOLVE_SLURM_SITE"

// DevConf returns the dev cluster's slurm.conf: EVOLVE_SLURM_DIR (default
// DefaultDevDir) joined with etc/slurm.conf. The file may not exist.
func DevConf() string {
	dir := os.Getenv("EVOLVE_SLURM_DIR")
	if dir == "" {
		dir = DefaultDevDir
	}
	return filepath.Join(dir, "etc", "slurm.conf")
}

// Site reports whether the tests may reach a site's cluster (SiteEnv is
// "1").
func Site() bool { return os.Getenv(SiteEnv) == "1" }

// Env returns the environment that points Slurm's commands at the
// cluster the tests may use: []string{"SLURM_CONF=" + DevConf()} by
// default, even when the process's SLURM_CONF names another cluster or
// the dev cluster's file does not exist (Client then skips); nil
// (inherit the process's SLURM_CONF or the machine's default) only with
// SiteEnv=1. Pass it as slurm.Client.Env, or append it to a subprocess's
// environment (a subprocess that runs sbatch passes it on to the jobs).
func Env() []string {
	if Site() {
		return nil
	}
	return []string{"SLURM_CONF=" + DevConf()}
}

// Unreachable returns why the tests have no cluster to use without
// asking one: the dev cluster's slurm.conf does not exist and SiteEnv is
// not set. It returns nil when there is a cluster to ask.
func Unreachable() error {
	if Site() {
		return nil
	}
	conf := DevConf()
	if _, err := os.Stat(conf); err != nil {
		return fmt.Errorf("no Slurm dev cluster: %s does not exist (the tests never use another cluster unless %s=1)", conf, SiteEnv)
	}
	return nil
}

// availability caches Available's answer per environment, so that a test
// binary whose cluster is down waits for sinfo once, not once per test.
var availability struct {
	sync.Mutex
	err map[string]error
}

// Client returns a client of the cluster Env names, or skips tb with
// "no Slurm cluster: WHY; start one with scripts/slurm-dev-cluster start"
// when there is none (Unreachable) or slurm.Client.Available fails within
// 20 s. The answer is asked once per test binary.
func Client(tb testing.TB) *slurm.Client {
	tb.Helper()
	c := &slurm.Client{Env: Env()}
	if err := Unreachable(); err != nil {
		tb.Skipf("%v; start one with scripts/slurm-dev-cluster start", err)
	}
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
		tb.Skipf("%v; start one with scripts/slurm-dev-cluster start (a site's cluster: %s=1)", err, SiteEnv)
	}
	return c
}
