package process

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/envs"
)

// cpusAllowed returns the Cpus_allowed_list line of /proc/PATH/status
// ("0-1", "1").
func cpusAllowed(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/proc", path, "status"))
	if err != nil {
		t.Fatalf("reading /proc/%s/status: %v", path, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("/proc/%s/status has no Cpus_allowed_list", path)
	return ""
}

// TestPinCPU: with pin_cpu, worker w's environment and agent processes
// (restarted ones too) may run only on the (w mod n)-th allowed CPU;
// evolve's own threads keep their affinity once Play returns; without
// it, the processes inherit evolve's.
func TestPinCPU(t *testing.T) {
	cpus := allowedCPUs()
	if len(cpus) == 0 {
		t.Skip("sched_getaffinity failed: no CPU list to pin to")
	}
	threads := func() map[string]int {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", os.Getpid()))
		m := map[string]int{}
		for _, task := range tasks {
			if data, err := os.ReadFile(filepath.Join(task, "status")); err == nil {
				for _, line := range strings.Split(string(data), "\n") {
					if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
						m[strings.TrimSpace(v)]++
					}
				}
			}
		}
		return m
	}
	own := cpusAllowed(t, "self")
	for _, pin := range []bool{false, true} {
		cfg := helperConfig("env")
		cfg.PinCPU = pin
		e := newEnv(t, cfg)
		for _, w := range []int{0, 1, len(cpus) + 1} {
			p := newPlayer(t, e, w)
			want := own
			if pin {
				want = fmt.Sprint(cpus[w%len(cpus)])
			}
			for round := range 2 {
				if _, err := p.Play(context.Background(), envs.Episode{Seed: 1}); err != nil {
					t.Fatal(err)
				}
				for _, pr := range []*proc{p.ep, p.ag} {
					if got := cpusAllowed(t, fmt.Sprint(pr.cmd.Process.Pid)); got != want {
						t.Errorf("pin_cpu %v, worker %d, round %d: %s process may run on CPUs %q, want %q", pin, w, round, pr.role, got, want)
					}
				}
				for list := range threads() {
					if list != own {
						t.Errorf("pin_cpu %v, worker %d: after Play a thread of evolve may run on CPUs %q, want %q", pin, w, list, own)
					}
				}
				// The next round plays on fresh processes.
				p.discard("the test restarts the processes")
			}
			p.Close()
		}
	}
}
