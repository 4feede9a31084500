package view

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"evolve/results"
	"evolve/rundir"
	"evolve/trajectory"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"evolve/internal/flock"
)

// chromium returns the path of a Chromium on PATH, or skips.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (apt-get install chromium; .ci/run installs it)")
	return ""
}

// TestBrowser clicks through evolve view in headless Chromium: runs →
// run → episodes → a failed episode, steps its replay with the buttons
// and the keyboard, opens compare (two runs, and an eval against its
// baseline) and a version, asserting the DOM at each step and that the
// console shows no error. Screenshots go to $EVOLVE_SCREENSHOTS (kept as
// CI artifacts), else to a temporary directory.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	f := getFixture(t)
	srv, err := New(Config{Roots: []string{f.root}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	shots := os.Getenv("EVOLVE_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true), chromedp.WindowSize(1400, 1000))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 240*time.Second)
	defer cancelT()

	var mu sync.Mutex
	var problems []string
	// flushed is closed when the console message consoleFlush arrives: the
	// browser sends the messages in order, so every one written before it
	// has been read by then.
	flushed := make(chan struct{})
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleLog && m.Text == consoleFlush {
				close(flushed)
				continue
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				problems = append(problems, m.String()+" at "+m.URL)
				mu.Unlock()
			}
		}
	}()

	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		t.Logf("%s %s", time.Now().Format("15:04:05"), what)
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	shot := func(name string) {
		t.Helper()
		body, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.getElementById('main').innerText"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, bad := range []string{"\nnull\n", "undefined", "[object ", "NaN"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: the page shows %q:\n%.800s", name, bad, body)
			}
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	id1, id2 := runID(f, f.run1.Dir), runID(f, f.run2.Dir)
	// A copy of run 1 whose val archive of the base is damaged.
	damaged := filepath.Join(f.root, "runs", "damaged")
	defer os.RemoveAll(damaged)
	if err := os.CopyFS(damaged, os.DirFS(f.run1.Dir)); err != nil {
		t.Fatal(err)
	}
	rel, _ := trajectory.Phase{Split: "val", Version: f.run1.Base}.Rel()
	if err := os.WriteFile(filepath.Join(damaged, rel), []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	eps, _, err := results.ReadEpisodes(filepath.Join(damaged, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var seed uint64
	for _, e := range eps {
		if e.Split == "val" && e.Version == f.run1.Base {
			seed = e.Seed
			break
		}
	}
	// Runs.
	do("runs page", chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+id1+`"] a.run-link`)))
	if s := text("#runs"); !strings.Contains(s, f.run1.RunID) || !strings.Contains(s, "finished") || !strings.Contains(s, "eval") {
		t.Fatalf("runs table lacks the run, its status or the eval:\n%s", s)
	}
	shot("runs.png")
	// Run.
	do("open the run", chromedp.Click(chromedp.CSS(`tr[data-id="`+id1+`"] a.run-link`)), chromedp.WaitVisible(chromedp.CSS("#generations")))
	if s := text("#summary"); !strings.Contains(s, "stopped") || !strings.Contains(s, f.run1.StopReason) {
		t.Fatalf("run summary lacks the stop reason %q:\n%s", f.run1.StopReason, s)
	}
	if s := text("#generations"); !strings.Contains(s, "accepted") && !strings.Contains(s, "rejected") {
		t.Fatalf("generations table lacks verdicts:\n%s", s)
	}
	// Decisions: generations numbered from 0 as the CLI numbers them,
	// each with its α under alpha spending (the formula's g = k+1).
	if s := text("#spending"); !strings.Contains(s, "numbered from 0") || !strings.Contains(s, "(k+1)") {
		t.Fatalf("the decisions do not say how generations are counted: %q", s)
	}
	if s := text("#generations tr.gen td"); s != "0" {
		t.Fatalf("the first generation is numbered %q, want 0", s)
	}
	if s := text("#generations tr.gen td.alpha"); s != "0.03" {
		t.Fatalf("generation 0's α is shown as %q, want 0.03 (0.05·6/π², two significant digits)", s)
	}
	if s := text("#compare-links"); !strings.Contains(s, "on test") {
		t.Fatalf("a finished run offers no comparison on test: %q", s)
	}
	do("files", chromedp.WaitVisible(chromedp.CSS("#files-box summary")))
	do("lineage", chromedp.WaitVisible(chromedp.CSS("#lineage rect")))
	shot("run.png")
	// Failures: the cause × version table of train, then of val, and a
	// count that opens its episodes.
	do("failures", chromedp.WaitVisible(chromedp.CSS("#cause-table td.cell a")))
	if s := text("#cause-table"); !strings.Contains(s, f.run1.Base) || !strings.Contains(s, "starvation") || !strings.Contains(s, "no failure") {
		t.Fatalf("the cause table lacks the base version or a cause:\n%s", s)
	}
	do("failures on val", chromedp.Click(chromedp.CSS(`#failure-splits button[data-split="val"]`)), chromedp.WaitVisible(chromedp.CSS(`#failure-splits button.on[data-split="val"]`)))
	if s := text("#shifts"); !strings.Contains(s, "→") || !strings.Contains(s, "train:") || !strings.Contains(s, "val, gen") {
		t.Fatalf("the mix table lacks a shift:\n%s", s)
	}
	if s := text("#killed-by"); !strings.Contains(s, "%") {
		t.Fatalf("no killed_by ranking:\n%s", s)
	}
	// Parameters: a changed value highlighted and a slice plot per numeric parameter.
	do("parameters", chromedp.WaitVisible(chromedp.CSS("#params td.changed")), chromedp.WaitVisible(chromedp.CSS("#slice-plot svg.slice circle")))
	nPlots, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('#slice-plot svg.slice').length"))
	if err != nil || nPlots == 0 {
		t.Fatalf("%d slice plots: %v", nPlots, err)
	}
	// Plots are drawn at least 640 px wide (the window is 1400), never shrunk to a thumbnail.
	narrow, err := chromedp.Run(ctx, chromedp.Evaluate[float64]("Math.min(...[...document.querySelectorAll('.plots img')].map((i) => i.getBoundingClientRect().width))"))
	if err != nil || narrow < 640 {
		t.Fatalf("a plot is drawn %v px wide, want >= 640 (%v)", narrow, err)
	}
	do("scroll to failures", chromedp.ScrollIntoView(chromedp.CSS("#failures")))
	shot("run-failures.png")
	do("a killed_by text's episodes", chromedp.Click(chromedp.CSS("#killed-by a")), chromedp.WaitVisible(chromedp.CSS("#extra-filters")))
	if s := text("#extra-filters"); !strings.Contains(s, "killed_by") {
		t.Fatalf("the episodes page does not say it is filtered by killed_by: %q", s)
	}
	if s := text("#pager"); strings.Contains(s, " 0 episodes") {
		t.Fatalf("a killed_by link lists no episode: %q", s)
	}
	// The episodes table scrolls inside the page, never widening it.
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("document.documentElement.scrollWidth > window.innerWidth"))
	if err != nil || wide {
		t.Fatalf("the episodes page is wider than the window (%v)", err)
	}
	shot("episodes-killed-by.png")
	do("back to the run", chromedp.Navigate(ts.URL+"/runs/"+id1), chromedp.WaitVisible(chromedp.CSS("#episodes-link")))
	// Episodes, filtered to failed val episodes, then one of them.
	do("episodes", chromedp.Click(chromedp.CSS("#episodes-link")), chromedp.WaitVisible(chromedp.CSS("#episodes")))
	do("filter", chromedp.Navigate(ts.URL+"/runs/"+id1+"/episodes?split=val&cause=injury&sort=score"), chromedp.WaitVisible(chromedp.CSS("#episodes a.episode-link")))
	if s := text("#episodes"); strings.Contains(s, "combat_loss") || !strings.Contains(s, "injury") {
		t.Fatalf("the cause filter let other causes through:\n%.500s", s)
	}
	shot("episodes.png")
	do("episode", chromedp.Click(chromedp.CSS("#episodes a.episode-link")), chromedp.WaitVisible(chromedp.CSS("#map")))
	first := text("#map")
	if !strings.Contains(first, "@") || !strings.Contains(text("#step-label"), "step 1 of") {
		t.Fatalf("replay does not start at step 1 with the hero on the map:\n%s", first)
	}
	do("step", chromedp.Click(chromedp.CSS("#step-forward")), chromedp.Click(chromedp.CSS("#step-forward")))
	do("key", chromedp.KeyEvent(kb.ArrowRight))
	if s := text("#step-label"); !strings.HasPrefix(s, "step 4 of") {
		t.Fatalf("after two clicks and a key the label is %q, want step 4", s)
	}
	// The last step may be on another page of frames, fetched first.
	do("end", chromedp.KeyEvent(kb.End))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('action').innerText.startsWith("end: ")`)); err != nil {
		t.Fatalf("End does not show the episode's end: %q (%v)", text("#action"), err)
	}
	if text("#map") == first {
		t.Fatal("the map did not change between the first and the last step")
	}
	// The step is in the URL; the log shows what happened up to it; the
	// same seed under the other versions is linked.
	search, err := chromedp.Run(ctx, chromedp.Evaluate[string]("location.search"))
	if err != nil || !strings.Contains(search, "step=") {
		t.Fatalf("the URL does not name the step: %q (%v)", search, err)
	}
	do("log", chromedp.WaitVisible(chromedp.CSS("#log li.latest")))
	do("other versions", chromedp.WaitVisible(chromedp.CSS("#other-versions a")))
	shot("episode.png")
	// A ?step=N URL opens at that step.
	do("step URL", chromedp.Navigate(ts.URL+"/runs/"+id1+"/episodes?split=val&cause=injury&sort=score"), chromedp.WaitVisible(chromedp.CSS("#episodes a.episode-link")))
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.querySelector('#episodes a.episode-link').href"))
	if err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(href, "?") {
		sep = "&"
	}
	do("open at step 3", chromedp.Navigate(href+sep+"step=2"), chromedp.WaitVisible(chromedp.CSS("#map")))
	if s := text("#step-label"); !strings.HasPrefix(s, "step 3 of") {
		t.Fatalf("?step=2 opens at %q, want step 3", s)
	}
	// Compare two runs from the runs table.
	do("compare", chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`input[data-id="`+id2+`"]`)),
		chromedp.Click(chromedp.CSS(`input[data-id="`+id1+`"]`)), chromedp.Click(chromedp.CSS(`input[data-id="`+id2+`"]`)),
		chromedp.Click(chromedp.CSS("#compare")), chromedp.WaitVisible(chromedp.CSS("#compare-summary")))
	if s := text("#compare-summary"); !strings.Contains(s, "mean") {
		t.Fatalf("compare summary:\n%s", s)
	}
	do("histogram", chromedp.WaitVisible(chromedp.CSS("#hist rect")), chromedp.WaitVisible(chromedp.CSS("#curves polyline")))
	nCurves, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('#curves polyline').length"))
	if err != nil || nCurves != 2 {
		t.Fatalf("%d val curves overlaid, want 2 (%v)", nCurves, err)
	}
	shot("compare-runs.png")
	// The gated eval: its verdict first, its gate, its baseline linked.
	gid := runID(f, f.gatedDir)
	do("gated eval", chromedp.Navigate(ts.URL+"/runs/"+gid), chromedp.WaitVisible(chromedp.CSS("#verdict .badge")))
	want := f.gatedRes.Verdict.Comparisons[0].Verdict()
	if want == "no significant difference" {
		want = "pass"
	}
	if s := text("#verdict"); !strings.HasPrefix(s, want) {
		t.Fatalf("eval verdict %q, want it to start with %q", s, want)
	}
	if s := text("#gate-settings"); !strings.Contains(s, "25 score points on the shift scale") || !strings.Contains(s, "exit 3") {
		t.Fatalf("gate settings lack the margin or the CI rule:\n%s", s)
	}
	do("failure checks", chromedp.WaitVisible(chromedp.CSS("#failure-checks")), chromedp.WaitVisible(chromedp.CSS("#baseline-link")))
	shot("eval-gated.png")
	do("gated compare", chromedp.Click(chromedp.CSS("#checks a.compare-link")), chromedp.WaitVisible(chromedp.CSS("#gate-worse")))
	if s := text("#gate-worse"); !strings.HasPrefix(s, "candidate B worse than baseline A (H1: shift worse by more than 25): ") {
		t.Fatalf("worse line: %q", s)
	}
	if s := text("#gate-settings"); !strings.Contains(s, "margin 25 on the shift scale") {
		t.Fatalf("compare does not use the eval's margin: %q", s)
	}
	cls, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.getElementById('gate-better').className + '|' + document.getElementById('gate-worse').className"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cls, "regression") && strings.HasPrefix(cls, "accepted") {
		t.Fatalf("a regression is shown with a green line: %q", cls)
	}
	if s := text("#power"); !strings.HasPrefix(s, "Power: ") {
		t.Fatalf("power line: %q", s)
	}
	shot("compare-gated.png")
	// An eval against its baseline, from the eval's page.
	eid := runID(f, f.evalDir)
	do("eval", chromedp.Navigate(ts.URL+"/runs/"+eid), chromedp.WaitVisible(chromedp.CSS("#checks a")))
	shot("eval.png")
	if s := text("#checks"); !strings.Contains(s, f.final) {
		t.Fatalf("eval checks lack %s:\n%s", f.final, s)
	}
	do("eval compare", chromedp.Click(chromedp.CSS("#checks a")), chromedp.WaitVisible(chromedp.CSS("#top-pairs a.pair-b")))
	if s := text("#paired"); !strings.HasPrefix(s, "60 seeds played by both") {
		t.Fatalf("eval compare pairs: %q", s)
	}
	shot("compare-eval.png")
	do("pair", chromedp.Click(chromedp.CSS("#top-pairs a.pair-b")), chromedp.WaitVisible(chromedp.CSS("#episode-facts")))
	// The other replays: a terminal recording, an LLM transcript, raw JSON.
	ep := func(seed uint64) string {
		return ts.URL + "/runs/" + id2 + "/episodes/test/" + f.run2.Final + "/" + strconv.FormatUint(seed, 10)
	}
	do("asciicast", chromedp.Navigate(ep(f.special[0])), chromedp.WaitVisible(chromedp.CSS("#terminal")))
	if s := text("#terminal"); !strings.HasPrefix(s, "Hello") {
		t.Fatalf("terminal at the first event: %q", s)
	}
	do("asciicast end", chromedp.KeyEvent(kb.End))
	if s := text("#terminal"); s != "Dlvl:1 $:0\n\n    world" {
		t.Fatalf("terminal at the last event: %q, want the status line over the cleared Hello and world at row 3, column 5", s)
	}
	shot("episode-asciicast.png")
	do("transcript", chromedp.Navigate(ep(f.special[1])), chromedp.WaitVisible(chromedp.CSS("#transcript")))
	if s := text("#transcript"); !strings.Contains(s, "rejected: no action named") || !strings.Contains(s, "ACTION: explore") {
		t.Fatalf("transcript turn 1:\n%s", s)
	}
	do("transcript step", chromedp.Click(chromedp.CSS("#step-forward")))
	if s := text("#transcript"); !strings.Contains(s, "Turn 2: action eat") {
		t.Fatalf("transcript turn 2:\n%s", s)
	}
	shot("episode-transcript.png")
	do("events", chromedp.Navigate(ep(f.special[2])), chromedp.WaitVisible(chromedp.CSS("#events-table")))
	if s := text("#events-table"); !strings.Contains(s, "forage") || !strings.Contains(s, "reward") {
		t.Fatalf("a process environment's trajectory as a table: %q", s)
	}
	shot("episode-events.png")
	// A damaged archive (made before the first page, so that the
	// listing has it): the episode with the error, not a failed page.
	do("damaged", chromedp.Navigate(ts.URL+"/runs/runs~damaged/episodes/val/"+f.run1.Base+"/"+strconv.FormatUint(seed, 10)),
		chromedp.WaitVisible(chromedp.CSS("#trajectory-error")))
	if s := text("#episode-facts"); !strings.Contains(s, "score") {
		t.Fatalf("damaged archive: the episode's facts are missing: %q", s)
	}
	shot("episode-damaged.png")
	// A version and its diff.
	do("version", chromedp.Navigate(ts.URL+"/runs/"+id1+"/versions/"+f.final), chromedp.WaitVisible(chromedp.CSS("#rendered")))
	shot("version.png")

	// Live: a run that starts while the runs page is open appears, as
	// running, without a reload; its progress moves when its checkpoint
	// does.
	do("runs again", chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`tr[data-id="runs~damaged"] a.run-link`)))
	// Two directories of one ID are told apart by their directory; an
	// eval's verdict has its column.
	if s := text(`tr[data-id="runs~damaged"] a.run-link`); s != f.run1.RunID+" · runs/damaged" {
		t.Fatalf("a copy of a run under the same ID is listed as %q, want its directory in the link", s)
	}
	if s := text(`tr[data-id="` + runID(f, f.gatedDir) + `"] td.verdict`); s == "–" || s == "" {
		t.Fatalf("the gated eval's verdict column is %q", s)
	}
	live := filepath.Join(f.root, "runs", "live-run")
	defer os.RemoveAll(live)
	writeLiveRun(t, f.run1.Dir, live, 0)
	lock := lockRun(t, live)
	defer lock.Close()
	t0 := time.Now().UTC().Truncate(time.Second)
	progress := func(done int) {
		t.Helper()
		p := &rundir.Progress{RunID: "live-run", Generation: 0, Split: "train", Versions: []string{f.base}, Done: done, Total: 40,
			PhaseStarted: t0, Updated: t0.Add(10 * time.Second), RunStarted: t0.Add(-time.Minute)}
		if err := rundir.WriteProgress(live, p); err != nil {
			t.Fatal(err)
		}
	}
	progress(10)
	do("live run appears", chromedp.WaitVisible(chromedp.CSS(`tr[data-id="runs~live-run"] .s-running`)))
	// Its current phase: episodes done of total, rate and ETA.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('tr[data-id="runs~live-run"]').innerText.includes("gen 0 train: 10/40 episodes, 1.0/s, ETA 30s")`)); err != nil {
		t.Fatalf("the live run's row lacks its phase: %v (%q)", err, text(`tr[data-id="runs~live-run"]`))
	}
	writeLiveRun(t, f.run1.Dir, live, 1)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('tr[data-id="runs~live-run"]').innerText.includes("1/2")`)); err != nil {
		t.Fatalf("the live run's progress did not move to 1/2: %v", err)
	}
	shot("runs-live.png")
	// The running run's page: elapsed since the start, no comparison on
	// a split it has not played, and it updates without a reload.
	do("live run page", chromedp.Navigate(ts.URL+"/runs/runs~live-run"), chromedp.WaitVisible(chromedp.CSS("#summary")))
	if s := text("#summary"); !strings.Contains(s, "elapsed (since the start)") || !strings.Contains(s, "1 of at most 2") {
		t.Fatalf("live run summary:\n%s", s)
	}
	if s := text("#compare-links"); strings.Contains(s, "on test") {
		t.Fatalf("a running run offers %q", s)
	}
	writeLiveRun(t, f.run1.Dir, live, 2)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('summary').innerText.includes("2 of at most 2")`)); err != nil {
		t.Fatalf("the live run's page did not move to 2 generations: %v", err)
	}
	// The phase's progress moves without a reload too.
	progress(20)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('phase').innerText.includes("20 of 40 episodes, 2.0 a second")`)); err != nil {
		t.Fatalf("the live run's phase did not move to 20 of 40: %v", err)
	}
	shot("run-live.png")

	// Read the console up to a last message of our own, written after the
	// next frame and the tasks queued before it (a failed draw's error).
	flush := `new Promise(done => requestAnimationFrame(() => setTimeout(() => { console.log(` + strconv.Quote(consoleFlush) + `); done(true); }, 0)))`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](flush, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("console flush: %v", err)
	}
	select {
	case <-flushed:
	case <-time.After(30 * time.Second):
		t.Fatal("the console's last message did not arrive within 30 s")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(problems, "\n"))
	}
	t.Logf("screenshots in %s", shots)
}

// consoleFlush is the console message by which TestBrowser knows it has
// read every message the page wrote before it.
const consoleFlush = "evolve-test: console flushed"

// writeLiveRun writes a checkpoint into live that says generations of
// the fixture run in from finished and the run going on.
func writeLiveRun(t *testing.T, from, live string, generations int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(from, "checkpoint.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ck map[string]any
	if err := json.Unmarshal(data, &ck); err != nil {
		t.Fatal(err)
	}
	ck["done"], ck["loop_done"], ck["generations"], ck["run_id"] = false, false, generations, "live-run"
	delete(ck, "stop_reason")
	delete(ck, "finished")
	data, _ = json.Marshal(ck)
	if err := os.MkdirAll(live, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(live, "checkpoint.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// lockRun holds a run directory's lock as a running evolve does; close
// the file to release it.
func lockRun(t *testing.T, live string) *os.File {
	t.Helper()
	lock, err := os.OpenFile(filepath.Join(live, "run.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := flock.TryLock(lock); err != nil {
		t.Fatal(err)
	}
	return lock
}
