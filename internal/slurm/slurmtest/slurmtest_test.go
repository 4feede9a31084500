package slurmtest

import (
	"path/filepath"
	"slices"
	"testing"
)

// The tests reach the dev cluster alone unless EVOLVE_SLURM_SITE=1: a
// SLURM_CONF of the process (a site's, on an HPC login node) or a
// missing dev cluster never sends them to another cluster.
func TestEnvUsesOnlyTheDevCluster(t *testing.T) {
	dev := t.TempDir()
	devConf := filepath.Join(dev, "etc", "slurm.conf")
	for _, tc := range []struct {
		name      string
		slurmConf string // the process's SLURM_CONF
		site      string // EVOLVE_SLURM_SITE
		want      []string
		reachable bool
	}{
		{name: "no SLURM_CONF, no dev cluster", want: []string{"SLURM_CONF=" + devConf}},
		{name: "a site's SLURM_CONF", slurmConf: "/etc/site/slurm.conf", want: []string{"SLURM_CONF=" + devConf}},
		{name: "opt-in without SLURM_CONF", site: "1", want: nil, reachable: true},
		{name: "opt-in with a site's SLURM_CONF", slurmConf: "/etc/site/slurm.conf", site: "1", want: nil, reachable: true},
		{name: "opt-in needs 1", site: "yes", want: []string{"SLURM_CONF=" + devConf}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("EVOLVE_SLURM_DIR", dev)
			t.Setenv("SLURM_CONF", tc.slurmConf)
			t.Setenv(SiteEnv, tc.site)
			if got := Env(); !slices.Equal(got, tc.want) {
				t.Errorf("Env() = %q, want %q", got, tc.want)
			}
			if err := Unreachable(); (err == nil) != tc.reachable {
				t.Errorf("Unreachable() = %v, want reachable %v", err, tc.reachable)
			}
		})
	}
}
