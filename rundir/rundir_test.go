package rundir

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evolve/internal/flock"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

const runConfig = `name: exp
seeds: embedded
max_generations: 10
patience: 1
`

func TestStatus(t *testing.T) {
	root := t.TempDir()
	run := func(name, extra string) string {
		dir := filepath.Join(root, "runs", name)
		write(t, filepath.Join(dir, "checkpoint.json"), `{"schema":1,"run_id":"`+name+`","config":`+jsonString(runConfig)+
			`,"seed_sha256":{"train":"a","val":"b","test":"c"},"base":"v1.0.0","incumbent":"v1.0.2","generations":3,"versions":["v1.0.0","v1.0.1"],`+
			`"started":"2026-11-25T10:00:00Z"`+extra+`}`)
		write(t, filepath.Join(dir, "run.lock"), "")
		return dir
	}
	run("finished", `,"done":true,"loop_done":true,"finished":"2026-11-25T10:05:00Z","stop_reason":"patience","sessions":[{"started":"2026-11-25T10:00:00Z","end":"finished"}]`)
	write(t, filepath.Join(root, "runs", "finished", "manifest.yaml"), "test_base:\n  mean: 500\ntest_final:\n  mean: 700.5\n")
	run("interrupted", `,"sessions":[{"started":"2026-11-25T10:00:00Z","end":"SIGINT"}],"stop_reason":"interrupted"`)
	run("crashed", `,"sessions":[{"started":"2026-11-25T10:00:00Z"}]`)
	running := run("running", `,"sessions":[{"started":"2026-11-25T10:00:00Z"}]`)
	f, err := os.OpenFile(filepath.Join(running, "run.lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := flock.TryLock(f); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "deep", "er", "evals", "e1", "checkpoint.json"),
		`{"schema":1,"id":"exp-eval-1","config":`+jsonString(runConfig)+`,"split":"test","seeds_sha256":"x","versions":[{"Label":"v1.0.0"},{"Label":"v1.0.2"}],"done":["\u0000v1.0.0"],"finished":false,"started":"2026-11-25T09:00:00Z"}`)
	write(t, filepath.Join(root, "broken", "checkpoint.json"), "{")
	write(t, filepath.Join(root, "not-a-run", "notes.txt"), "hello")

	entries, err := List([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range entries {
		got[e.Key] = e
	}
	for key, want := range map[string]struct {
		kind   Kind
		status Status
		stop   string
	}{
		"runs/finished":    {KindRun, Finished, "patience"},
		"runs/interrupted": {KindRun, Interrupted, "interrupted"},
		"runs/crashed":     {KindRun, Crashed, "crashed"},
		"runs/running":     {KindRun, Running, ""},
		"deep/er/evals/e1": {KindEval, Interrupted, ""},
	} {
		e, ok := got[key]
		if !ok {
			t.Errorf("%s not listed (got %v)", key, keys(got))
			continue
		}
		if e.Kind != want.kind || e.Status != want.status || e.StopReason != want.stop || e.Problem != "" {
			t.Errorf("%s: kind %s status %s stop %q problem %q; want %s %s %q", key, e.Kind, e.Status, e.StopReason, e.Problem, want.kind, want.status, want.stop)
		}
	}
	fin := got["runs/finished"]
	if fin.TestBase == nil || *fin.TestFinal != 700.5 || fin.Seconds != 300 || fin.Generations != 3 || fin.MaxGenerations != 10 {
		t.Errorf("finished: %+v", fin)
	}
	if ev := got["deep/er/evals/e1"]; len(ev.Versions) != 2 || ev.Phases != 1 || ev.Split != "test" {
		t.Errorf("eval: %+v", ev)
	}
	if b, ok := got["broken"]; !ok || b.Problem == "" {
		t.Errorf("a broken checkpoint is not listed with its problem: %+v", b)
	}
	if _, ok := got["not-a-run"]; ok {
		t.Error("a directory without a checkpoint is listed")
	}
	// The order: newest first.
	if entries[len(entries)-1].Key != "deep/er/evals/e1" && entries[len(entries)-1].Key != "broken" {
		t.Errorf("last entry %s, want the oldest", entries[len(entries)-1].Key)
	}
	// Table and JSON name every directory.
	var tb, js bytes.Buffer
	if err := WriteTable(&tb, entries); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, entries); err != nil {
		t.Fatal(err)
	}
	var back []Entry
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back) != len(entries) {
		t.Fatalf("JSON: %v, %d entries", err, len(back))
	}
	for _, k := range []string{"running", "crashed", "500.0 → 700.5", "patience"} {
		if !strings.Contains(tb.String(), k) {
			t.Errorf("table lacks %q:\n%s", k, tb.String())
		}
	}
	if _, err := List([]string{filepath.Join(root, "missing")}); err == nil {
		t.Error("a missing root is not an error")
	}
	// Two roots: keys carry the root's index.
	two, err := List([]string{filepath.Join(root, "runs"), filepath.Join(root, "deep")})
	if err != nil || len(two) != 5 || !strings.HasPrefix(two[0].Key, "0:") {
		t.Errorf("two roots: %v, %d entries, first key %q", err, len(two), two[0].Key)
	}
}

func TestReplicateHash(t *testing.T) {
	a := configHash("name: a\nseeds: /x\nmax_generations: 3\n")
	b := configHash("name: b\nseeds: /y\nmax_generations: 3\n")
	c := configHash("name: a\nseeds: /x\nmax_generations: 4\n")
	if a != b || a == c {
		t.Errorf("config hashes %s %s %s: want the seeds and name ignored, the rest not", a, b, c)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func keys(m map[string]Entry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestVerdict: a finished eval's verdict is read from the checks its
// checkpoint stores, worst first, and shown in the table and the JSON.
func TestVerdict(t *testing.T) {
	const (
		ok     = `{"check":{"failed":false,"hypothesis":"regression"},"improvement":false}`
		better = `{"check":{"failed":false,"hypothesis":"regression"},"improvement":true}`
		worse  = `{"check":{"failed":true,"hypothesis":"regression"},"improvement":false}`
		notNI  = `{"check":{"failed":true,"hypothesis":"non-inferiority"},"improvement":false}`
	)
	for _, c := range []struct {
		name, verdict, want string
	}{
		{"none", ``, ""},
		{"empty", `,"verdict":{"baseline":"","comparisons":[]}`, ""},
		{"pass", `,"verdict":{"baseline":"v1.0.0 of /e","comparisons":[` + ok + `]}`, VerdictPass},
		{"improvement", `,"verdict":{"baseline":"v1.0.0 of /e","comparisons":[` + ok + `,` + better + `]}`, VerdictImprovement},
		{"regression", `,"verdict":{"baseline":"v1.0.0 of /e","comparisons":[` + better + `,` + worse + `]}`, VerdictRegression},
		{"not-ni", `,"verdict":{"baseline":"v1.0.0 of /e","comparisons":[` + better + `,` + notNI + `]}`, VerdictNotNonInferior},
		{"failure-share", `,"verdict":{"baseline":"v1.0.0 of /e","comparisons":[` + better + `],"failure_checks":[{"failed":true}]}`, VerdictRegression},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "e")
			write(t, filepath.Join(dir, "checkpoint.json"), `{"schema":1,"id":"exp-eval-1","config":`+jsonString(runConfig)+
				`,"split":"test","versions":[{"Label":"v1.0.0"}],"finished":true,"started":"2026-11-25T09:00:00Z"`+c.verdict+`}`)
			e := Read(dir)
			if e.Status != Finished || e.Verdict != c.want {
				t.Fatalf("status %s verdict %q, want finished %q", e.Status, e.Verdict, c.want)
			}
			if c.want != "" && e.Baseline != "v1.0.0 of /e" {
				t.Errorf("baseline %q", e.Baseline)
			}
			var tb, js bytes.Buffer
			WriteTable(&tb, []Entry{e})
			WriteJSON(&js, []Entry{e})
			want := c.want
			if want == "" {
				want = "-"
			}
			if lines := strings.Split(tb.String(), "\n"); !strings.Contains(lines[0], "VERDICT") || !strings.Contains(lines[1], "  "+want+"  ") {
				t.Errorf("table lacks the verdict %q:\n%s", want, tb.String())
			}
			if c.want != "" && !strings.Contains(js.String(), `"verdict": "`+c.want+`"`) {
				t.Errorf("JSON lacks the verdict:\n%s", js.String())
			}
		})
	}
}

// TestRunningSeconds: a running directory's duration counts to now, not
// to its last checkpoint.
func TestRunningSeconds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	started := time.Now().UTC().Add(-90 * time.Minute).Truncate(time.Second)
	write(t, filepath.Join(dir, "checkpoint.json"), `{"schema":1,"run_id":"r","config":`+jsonString(runConfig)+
		`,"generations":1,"started":"`+started.Format(time.RFC3339)+`","sessions":[{"started":"`+started.Format(time.RFC3339)+`"}]}`)
	old := time.Now().Add(-80 * time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "checkpoint.json"), old, old); err != nil {
		t.Fatal(err)
	}
	if e := Read(dir); e.Status != Crashed || e.Seconds < 9*60 || e.Seconds > 11*60 {
		t.Fatalf("crashed: status %s, %v s; want about 600 s (to the last checkpoint)", e.Status, e.Seconds)
	}
	write(t, filepath.Join(dir, "run.lock"), "")
	f, err := os.OpenFile(filepath.Join(dir, "run.lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := flock.TryLock(f); err != nil {
		t.Fatal(err)
	}
	if e := Read(dir); e.Status != Running || e.Seconds < 89*60 || e.Seconds > 92*60 {
		t.Fatalf("running: status %s, %v s; want about 5400 s (since the start)", e.Status, e.Seconds)
	}
}
