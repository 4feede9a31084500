package nethack

import (
	nh "evolve/envs/nethack"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"evolve/envs"
	"evolve/params"
)

// TestSweep plays NH_SWEEP seeds (1..N) under the base parameters and one
// change of each parameter, and prints the table of docs/nethack.md. It
// checks that every episode ended in one of the known ways with a
// finite score and a depth of at least 1, and, for the 200 seeds of
// docs/nethack.md, that the table there is the one played. It is
// skipped unless NH_SWEEP is set: NH_SWEEP=200 go test -run Sweep -v.
func TestSweep(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("NH_SWEEP"))
	if n <= 0 {
		t.Skip("set NH_SWEEP=200 to run the parameter sweep")
	}
	e := newTestEnv(t, DefaultConfig())
	base := BaseParameters()
	settings := []struct {
		name string
		p    params.Set
	}{
		{"base (v1.0.0)", base},
		{"max_exploration_steps=10", base.With("max_exploration_steps", params.IntegerValue(10))},
		{"max_exploration_steps=600", base.With("max_exploration_steps", params.IntegerValue(600))},
		{"hunger_threshold=1.0", base.With("hunger_threshold", params.NumberValue(1))},
		{"health_threshold=0.0", base.With("health_threshold", params.NumberValue(0))},
		{"health_threshold=0.7", base.With("health_threshold", params.NumberValue(0.7))},
		{"risk_tolerance=0.4", base.With("risk_tolerance", params.NumberValue(0.4))},
		{"risk_tolerance=1.0", base.With("risk_tolerance", params.NumberValue(1))},
		{"max_combat_attempts=1", base.With("max_combat_attempts", params.IntegerValue(1))},
		{"search_turns=20", base.With("search_turns", params.IntegerValue(20))},
		{"eat_corpses=never", base.With("eat_corpses", params.EnumValue(EatNever))},
		{"eat_corpses=always", base.With("eat_corpses", params.EnumValue(EatAlways))},
		{"elbereth=low", base.With("elbereth", params.EnumValue(ElberethLow))},
	}
	var b strings.Builder
	b.WriteString("| setting | mean score | mean max depth | died | starved | stuck | turn cap |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range settings {
		outs := playAll(t, e, s.p, 1, uint64(n), 2)
		var sum, depth float64
		ends := map[string]int{}
		for _, o := range outs {
			if math.IsNaN(o.Score) || math.IsInf(o.Score, 0) || o.Score < 0 || len(o.Metrics) == 0 || o.Metrics[0].Num < 1 {
				t.Errorf("%s, seed %d: score %v, metrics %v; want a finite score >= 0 and a max_depth of at least 1", s.name, o.Seed, o.Score, o.Metrics)
				continue
			}
			sum += o.Score
			depth += o.Metrics[0].Num
			ends[o.EndReason]++
		}
		if known := ends[nh.EndDied] + ends[nh.EndStarved] + ends[nh.EndEscaped] + ends[nh.EndStuck] + ends[nh.EndTurnCap]; known != n {
			t.Errorf("%s: %d of %d episodes ended in a known way (died, starved, escaped, stuck, turn_cap): %v", s.name, known, n, ends)
		}
		fmt.Fprintf(&b, "| %s | %.1f | %.2f | %d | %d | %d | %d |\n", s.name, sum/float64(n), depth/float64(n),
			ends[nh.EndDied], ends[nh.EndStarved], ends[nh.EndStuck], ends[nh.EndTurnCap])
	}
	t.Log("\n" + b.String())
	if n != sweepDocSeeds {
		return
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "nethack.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), b.String()) {
		t.Errorf("docs/nethack.md's sweep table is not the one played over seeds 1-%d: replace it with\n%s", n, b.String())
	}
}

// sweepDocSeeds is the number of seeds of the sweep table in
// docs/nethack.md ("Mean score over seeds 1–200").
const sweepDocSeeds = 200

// playAll plays seeds [from, to] under p with w workers (player i plays
// the seeds i, i+w, ...) and returns the outcomes in seed order.
func playAll(t testing.TB, e *Env, p params.Set, from, to uint64, w int) []envs.Outcome {
	list := make([]uint64, 0, to-from+1)
	for s := from; s <= to; s++ {
		list = append(list, s)
	}
	outs, _ := playSeeds(t, e, p, list, w, "")
	return outs
}

// newTestEnv returns the environment, or skips the test naming the
// Debian package when the game is not installed.
func newTestEnv(t testing.TB, c Config) *Env {
	t.Helper()
	e, err := New(c)
	if err != nil {
		if strings.Contains(err.Error(), "not installed") {
			t.Skipf("NetHack is not installed (Debian package %s): %v", nh.Package, err)
		}
		t.Fatal(err)
	}
	return e
}
