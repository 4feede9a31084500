package store

import (
	"errors"
	"evolve/prompt"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"evolve/online"
)

// twoVersions is a store with agent v1.0.0 superseded by v1.0.1 (HEAD).
func twoVersions(t *testing.T) *Store {
	t.Helper()
	s := testStore(t)
	root := sectioned("agent", "identity", "You help.")
	root.PolicyParameters = prompt.Base().PolicyParameters
	mustAppend(t, s, root)
	p, err := s.LoadRef(prompt.Ref{Slug: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	p.Metadata = prompt.Metadata{"edit": "second"}
	mustAppend(t, s, p)
	return s
}

var (
	perfect = online.Observation{Sentiment: 1, Success: online.SuccessFull}
	awful   = online.Observation{Sentiment: 0, Corrections: 10, Success: online.SuccessFailure}
)

// checkReplay asserts that replaying the store's log gives exactly its
// weights.json.
func checkReplay(t *testing.T, s *Store) *Weights {
	t.Helper()
	stored, err := s.readWeights()
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := s.ReplayWeights()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stored, replayed) {
		t.Fatalf("weights.json differs from the replay of the log:\nstored   %+v\nreplayed %+v", stored, replayed)
	}
	return stored
}

// TestObserveEMA: 22 perfect observations move v1.0.1's weight from 0.5
// to 1 - 0.5 (0.9)^22 = 0.950762, and the log replays to weights.json.
func TestObserveEMA(t *testing.T) {
	s := twoVersions(t)
	cfg := DefaultWeightsConfig()
	for i := range 22 {
		out, err := s.Observe(cfg, []Observed{{Slug: "agent", Version: vv("v1.0.1"), RequestID: fmt.Sprint("r", i), Observation: perfect}})
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 - 0.5*math.Pow(0.9, float64(i+1)); math.Abs(out[0].Weight-want) > 1e-12 || out[0].Score != 1 {
			t.Fatalf("observation %d: %+v, want weight %v", i, out[0], want)
		}
	}
	w := checkReplay(t, s)
	if got := w.Weight("agent", vv("v1.0.1")); math.Abs(got-0.950762) > 1e-6 {
		t.Errorf("weight %v, want 0.950762", got)
	}
	if got := w.Weight("agent", vv("v1.0.0")); got != online.InitialWeight {
		t.Errorf("unobserved weight %v", got)
	}
	if w.Events != 23 { // config + 22
		t.Errorf("%d events, want 23", w.Events)
	}
	data, _ := os.ReadFile(filepath.Join(s.Dir(), ObservationLog))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 23 || !strings.Contains(lines[0], `"kind":"config"`) ||
		!strings.Contains(lines[1], `"version":"agent@v1.0.1","request_id":"r0","observation":{"sentiment":1,"corrections":0,"success":"success"},"score":1,"weight":0.55`) {
		t.Errorf("log:\n%s", data)
	}
}

func TestObserveErrors(t *testing.T) {
	s := twoVersions(t)
	cfg := DefaultWeightsConfig()
	_, err := s.Observe(cfg, []Observed{{Slug: "agent", Version: vv("v1.0.1"), Observation: perfect}, {Slug: "agent", Version: vv("v9.0.0"), Observation: perfect}})
	if !errors.Is(err, ErrNoVersion) || !strings.Contains(err.Error(), "observation 1: agent@v9.0.0") {
		t.Errorf("unknown version: %v", err)
	}
	_, err = s.Observe(cfg, []Observed{{Slug: "agent", Version: vv("v1.0.1"), Observation: online.Observation{Sentiment: 2}}})
	if err == nil || !strings.Contains(err.Error(), "observation 0 (agent@v1.0.1): sentiment must be in [0, 1]: 2") {
		t.Errorf("bad sentiment: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), ObservationLog)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed batch wrote the log: %v", err)
	}
	if _, err := s.Observe(cfg, []Observed{{Slug: "agent", Version: vv("v1.0.1"), Observation: perfect}}); err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Alpha = 0.2
	if _, err := s.Observe(other, []Observed{{Slug: "agent", Version: vv("v1.0.1"), Observation: perfect}}); !errors.Is(err, ErrWeightsConfig) {
		t.Errorf("other alpha: %v", err)
	}
}

// TestAutoRollback: a HEAD whose scores drop is rolled back with the
// evidence on the edge, is excluded until promoted by hand, and its
// detector restarts after the promotion.
func TestAutoRollback(t *testing.T) {
	s := twoVersions(t)
	cfg := WeightsConfig{Alpha: 0.1, Rule: online.RollbackRule{Baseline: 10, Window: 5, K: 2, MinSigma: 0.01}}
	v1 := vv("v1.0.1")
	obs := func(o online.Observation, n int) []Outcome {
		var batch []Observed
		for range n {
			batch = append(batch, Observed{Slug: "agent", Version: v1, Observation: o})
		}
		out, err := s.Observe(cfg, batch)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// Baseline: alternate 0.9 and 0.7 scores (mean 0.8, sd 0.1054).
	for range 5 {
		obs(online.Observation{Sentiment: 0.8, Success: online.SuccessFull}, 1) // 0.4+0.3+0.2 = 0.9
		obs(online.Observation{Sentiment: 0.4, Success: online.SuccessFull}, 1) // 0.2+0.3+0.2 = 0.7
	}
	out := obs(awful, 5) // window mean 0 < 0.8 - 2 (0.1054) sqrt(1/5 + 1/10)
	for i, o := range out[:4] {
		if o.Alarm != nil {
			t.Fatalf("alarm at observation %d of the window", i)
		}
	}
	a := out[4].Alarm
	if a == nil || a.RolledBackTo == nil || *a.RolledBackTo != vv("v1.0.0") || a.Evidence.Observations != 15 || a.Evidence.RecentMean != 0 {
		t.Fatalf("alarm %+v", a)
	}
	wantHead(t, s, "agent", prompt.MainBranch, "v1.0.0")
	g, _ := s.Graph()
	e, excluded := g.AutoRolledBack("agent", v1)
	if !excluded || e.Evidence == nil || e.Evidence.Window != 5 || math.Abs(e.Evidence.BaselineMean-0.8) > 1e-12 ||
		e.Evidence.LogSeq != 17 || !strings.HasPrefix(e.Reason, "auto-rollback: window mean 0.0000 < baseline mean 0.8000 - 2 sigma (0.1054)") {
		t.Fatalf("edge %+v %+v, excluded %v", e, e.Evidence, excluded)
	}
	if _, ex := g.AutoRolledBack("agent", vv("v1.0.0")); ex {
		t.Error("v1.0.0 excluded")
	}
	// More observations of the excluded version (in flight) raise no
	// second alarm.
	if out := obs(awful, 10); out[9].Alarm != nil {
		t.Error("a second alarm")
	}
	// Promote by hand: v1.0.1 is HEAD again, selectable, and its next
	// observation resets its detector.
	pr, err := s.Promote("agent", v1, "fixed upstream")
	if err != nil || pr != (Promotion{Branch: prompt.MainBranch, From: vv("v1.0.0"), WasExcluded: true}) {
		t.Fatalf("Promote: %+v %v", pr, err)
	}
	wantHead(t, s, "agent", prompt.MainBranch, "v1.0.1")
	g, _ = s.Graph()
	if _, ex := g.AutoRolledBack("agent", v1); ex {
		t.Error("v1.0.1 still excluded after the promotion")
	}
	obs(perfect, 1)
	w := checkReplay(t, s)
	vw := w.Of("agent", v1)
	if vw.Resets != 1 || vw.Detector.N != 1 || vw.Detector.Fired != nil || vw.Observations != 26 {
		t.Errorf("after the promotion: %+v", vw)
	}
	if _, err := s.Promote("agent", v1, ""); err == nil {
		t.Error("promoting HEAD succeeded")
	}
}

// TestAlarmNotHead: an alarm for the first version of a branch rolls
// nothing back and says why.
func TestAlarmNotHead(t *testing.T) {
	s := twoVersions(t)
	cfg := WeightsConfig{Alpha: 0.1, Rule: online.RollbackRule{Baseline: 2, Window: 1, K: 1, MinSigma: 0.01}}
	batch := []Observed{
		{Slug: "agent", Version: vv("v1.0.0"), Observation: perfect},
		{Slug: "agent", Version: vv("v1.0.0"), Observation: perfect},
		{Slug: "agent", Version: vv("v1.0.0"), Observation: awful},
	}
	out, err := s.Observe(cfg, batch)
	if err != nil {
		t.Fatal(err)
	}
	if a := out[2].Alarm; a == nil || a.RolledBackTo != nil || a.Note != "not rolled back: not HEAD of branch main (HEAD is v1.0.1)" {
		t.Fatalf("alarm %+v", a)
	}
	wantHead(t, s, "agent", prompt.MainBranch, "v1.0.1")
	checkReplay(t, s)
}

// TestObserveRecovery: events in the log that weights.json lacks (a
// crash between the two) are seen by Weights and applied by the next
// Observe, a rollback edge lost with them is made again, and a torn last
// line is cut off.
func TestObserveRecovery(t *testing.T) {
	s := twoVersions(t)
	cfg := WeightsConfig{Alpha: 0.1, Rule: online.RollbackRule{Baseline: 3, Window: 1, K: 1, MinSigma: 0.01}}
	one := func(o online.Observation) {
		if _, err := s.Observe(cfg, []Observed{{Slug: "agent", Version: vv("v1.0.1"), Observation: o}}); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		one(perfect)
	}
	wpath, ipath := filepath.Join(s.Dir(), WeightsFile), filepath.Join(s.Dir(), "versions.json")
	oldW, _ := os.ReadFile(wpath)
	oldIx, _ := os.ReadFile(ipath)
	one(awful) // alarms and rolls back
	wantHead(t, s, "agent", prompt.MainBranch, "v1.0.0")
	// The crash: the checkpoint and the index as before the batch, and
	// half a line appended.
	os.WriteFile(wpath, oldW, 0o644)
	os.WriteFile(ipath, oldIx, 0o644)
	f, _ := os.OpenFile(filepath.Join(s.Dir(), ObservationLog), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":7,"kind":"obs`)
	f.Close()
	w, err := s.Weights()
	if err != nil {
		t.Fatal(err)
	}
	if vw := w.Of("agent", vv("v1.0.1")); vw.Observations != 4 || vw.Alarm == nil {
		t.Errorf("Weights with the log's tail: %+v", vw)
	}
	wantHead(t, s, "agent", prompt.MainBranch, "v1.0.1")
	if _, err := s.Observe(cfg, []Observed{{Slug: "agent", Version: vv("v1.0.0"), Observation: perfect}}); err != nil {
		t.Fatal(err)
	}
	wantHead(t, s, "agent", prompt.MainBranch, "v1.0.0") // the edge made again
	g, _ := s.Graph()
	if e, ok := g.AutoRolledBack("agent", vv("v1.0.1")); !ok || e.Evidence.LogSeq != 6 {
		t.Errorf("edge %+v %v", e, ok)
	}
	w = checkReplay(t, s)
	if w.Events != 7 {
		t.Errorf("%d events, want 7 (config, 4 observations, alarm, observation)", w.Events)
	}
	// A log shorter than the checkpoint is an error.
	os.WriteFile(filepath.Join(s.Dir(), ObservationLog), nil, 0o644)
	if _, err := s.Observe(cfg, []Observed{{Slug: "agent", Version: vv("v1.0.0"), Observation: perfect}}); !errors.Is(err, ErrObservationLog) {
		t.Errorf("truncated log: %v", err)
	}
}

// TestObserveConcurrentGoroutines: 8 goroutines, each with its own Store
// value, record 50 batches of 3 observations at once: no update is lost
// (every observation is counted) and the log replays to weights.json.
func TestObserveConcurrentGoroutines(t *testing.T) {
	s := twoVersions(t)
	cfg := DefaultWeightsConfig()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			st, err := OpenStore(s.Dir())
			if err != nil {
				errs <- err
				return
			}
			for i := range 50 {
				o := online.Observation{Sentiment: float64(g) / 8, Corrections: i % 3, Success: online.SuccessPartial}
				b := []Observed{{Slug: "agent", Version: vv("v1.0.0"), Observation: o}, {Slug: "agent", Version: vv("v1.0.1"), Observation: o}, {Slug: "agent", Version: vv("v1.0.1"), Observation: perfect}}
				if _, err := st.Observe(cfg, b); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	w := checkReplay(t, s)
	if a, b := w.Of("agent", vv("v1.0.0")).Observations, w.Of("agent", vv("v1.0.1")).Observations; a != 400 || b != 800 {
		t.Errorf("observations %d and %d, want 400 and 800", a, b)
	}
}

// TestHelperObserver is not a test: run by TestObserveConcurrentProcesses
// in a child process, it records EVOLVE_OBSERVER_N observations one at a
// time in the store in EVOLVE_OBSERVER_DIR.
func TestHelperObserver(t *testing.T) {
	dir := os.Getenv("EVOLVE_OBSERVER_DIR")
	if dir == "" {
		t.Skip("helper process for TestObserveConcurrentProcesses")
	}
	n, _ := strconv.Atoi(os.Getenv("EVOLVE_OBSERVER_N"))
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		o := online.Observation{Sentiment: float64(i%11) / 10, Corrections: i % 4, Success: online.Success(i % 4)}
		if _, err := s.Observe(DefaultWeightsConfig(), []Observed{{Slug: "agent", Version: vv("v1.0.1"), Observation: o, RequestID: os.Getenv("EVOLVE_OBSERVER_ID") + "-" + strconv.Itoa(i)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestObserveConcurrentProcesses: three processes record 100
// observations each into one store at once; all 300 are counted, each
// request id once, and the log replays to weights.json.
func TestObserveConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three processes")
	}
	s := twoVersions(t)
	const per = 100
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for id := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperObserver$", "-test.count=1")
		cmd.Env = append(os.Environ(), "EVOLVE_OBSERVER_DIR="+s.Dir(), fmt.Sprintf("EVOLVE_OBSERVER_ID=p%d", id), fmt.Sprintf("EVOLVE_OBSERVER_N=%d", per))
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("observer %d: %v\n%s", i, err, outs[i])
		}
	}
	w := checkReplay(t, s)
	if n := w.Of("agent", vv("v1.0.1")).Observations; n != 3*per {
		t.Errorf("%d observations, want %d", n, 3*per)
	}
	data, _ := os.ReadFile(filepath.Join(s.Dir(), ObservationLog))
	for id := range 3 {
		for i := range per {
			if c := strings.Count(string(data), fmt.Sprintf(`"request_id":"p%d-%d"`, id, i)); c != 1 {
				t.Fatalf("request p%d-%d logged %d times", id, i, c)
			}
		}
	}
}

// FuzzReplayWeights: any log text either replays or is an error; it
// never panics, and what replays is a consistent state.
func FuzzReplayWeights(f *testing.F) {
	f.Add(`{"seq":1,"kind":"config","time":"2026-11-22T12:00:00Z","config":{"alpha":0.1,"rule":{"baseline":2,"window":1,"k":1,"min_sigma":0.01}}}
{"seq":2,"kind":"observe","time":"2026-11-22T12:00:00Z","version":"agent@v1.0.1","observation":{"sentiment":1,"corrections":0,"success":"success"},"score":1,"weight":0.55}
`)
	f.Add(`{"seq":1,"kind":"observe"}` + "\n")
	f.Add(`{"seq":1,"kind":"config","config":{"alpha":2}}` + "\n")
	f.Add("not json\n")
	f.Fuzz(func(t *testing.T, log string) {
		w, err := ReplayWeights(strings.NewReader(log))
		if err != nil {
			return
		}
		if w.LogSize > int64(len(log)) {
			t.Fatalf("applied %d bytes of %d", w.LogSize, len(log))
		}
		for ref, vw := range w.Versions {
			if !ref.Pinned() || vw.Weight < 0 || vw.Weight > 1 || math.IsNaN(vw.Weight) {
				t.Fatalf("%s: %+v", ref, vw)
			}
		}
	})
}

// BenchmarkObserve: one store write (lock, log append and sync, weights
// checkpoint) of a batch of observations; ns/op is per batch.
func BenchmarkObserve(b *testing.B) {
	for _, n := range []int{1, 256} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			s, err := OpenStore(filepath.Join(b.TempDir(), "prompts"))
			if err != nil {
				b.Fatal(err)
			}
			root := sectioned("agent", "identity", "You help.")
			root.PolicyParameters = prompt.Base().PolicyParameters
			if _, err := s.Append(root, "edit", "root"); err != nil {
				b.Fatal(err)
			}
			batch := make([]Observed, n)
			for i := range batch {
				batch[i] = Observed{Slug: "agent", Version: vv("v1.0.0"), Observation: online.Observation{Sentiment: float64(i%10) / 10}}
			}
			for b.Loop() {
				if _, err := s.Observe(DefaultWeightsConfig(), batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
