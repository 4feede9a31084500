package view

import (
	"encoding/json"
	"errors"
	"evolve/internal/httpguard"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"evolve/eval"
	"evolve/gate"
	"evolve/results"
	"evolve/rundir"
	"evolve/stats"
	"evolve/trajectory"
)

func newTestServer(t *testing.T, token string) (*httptest.Server, *fixture) {
	t.Helper()
	f := getFixture(t)
	s, err := New(Config{Roots: []string{f.root}, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts, f
}

func get(t *testing.T, c *http.Client, u string, v any) int {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if v != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("%s: %v: %.200s", u, err, body)
		}
	}
	return resp.StatusCode
}

// runID returns the URL id of a run directory of the fixture.
func runID(f *fixture, dir string) string {
	rel, _ := filepath.Rel(f.root, dir)
	return ID(filepath.ToSlash(rel))
}

func TestAPI(t *testing.T) {
	ts, f := newTestServer(t, "")
	c := ts.Client()
	var runs RunsJSON
	if code := get(t, c, ts.URL+"/api/runs", &runs); code != 200 {
		t.Fatalf("/api/runs: %d", code)
	}
	kinds := map[rundir.Kind]int{}
	for _, e := range runs.Entries {
		kinds[e.Kind]++
		if e.Status != rundir.Finished {
			t.Errorf("%s: status %s, want finished", e.Key, e.Status)
		}
		if e.Kind == rundir.KindRun && (e.StopReason == "" || e.TestFinal == nil || e.Generations < 1) {
			t.Errorf("%s: stop %q, test final %v, generations %d", e.Key, e.StopReason, e.TestFinal, e.Generations)
		}
	}
	if kinds[rundir.KindRun] != 2 || kinds[rundir.KindEval] != 2 {
		t.Fatalf("kinds %v, want 2 runs and 2 evals", kinds)
	}
	if len(runs.Groups) != 1 || len(runs.Groups[0].Members) != 2 || runs.Groups[0].Final.N != 2 {
		t.Fatalf("replicate groups %+v, want the two runs in one", runs.Groups)
	}

	id := runID(f, f.run1.Dir)
	var run RunJSON
	if code := get(t, c, ts.URL+"/api/v1/runs/"+id, &run); code != 200 {
		t.Fatalf("run: %d", code)
	}
	if len(run.Generations) != len(f.run1.Generations) || len(run.Candidates) == 0 || len(run.Lineage.Versions) < 2 || run.StopText == "" {
		t.Fatalf("run: %d generations (want %d), %d candidates, %d versions, stop %q", len(run.Generations), len(f.run1.Generations),
			len(run.Candidates), len(run.Lineage.Versions), run.StopText)
	}
	if run.Trajectory["val"] == 0 {
		t.Errorf("no val trajectories stored: %v", run.Trajectory)
	}

	// Episodes: filter, sort, page.
	var p EpisodePage
	if code := get(t, c, ts.URL+"/api/v1/runs/"+id+"/episodes?split=val&sort=score&desc=1&size=7&page=1", &p); code != 200 {
		t.Fatalf("episodes: %d", code)
	}
	if len(p.Episodes) != 7 || p.Total == 0 {
		t.Fatalf("page of %d episodes of %d", len(p.Episodes), p.Total)
	}
	for i, e := range p.Episodes {
		if e.Split != "val" || (i > 0 && e.Score > p.Episodes[i-1].Score) {
			t.Fatalf("episode %d: split %s score %v after %v: not val sorted by score descending", i, e.Split, e.Score, p.Episodes[i-1].Score)
		}
	}
	var q EpisodePage
	get(t, c, ts.URL+"/api/v1/runs/"+id+"/episodes?cause=none&min=100&max=1e9&size=1000", &q)
	for _, e := range q.Episodes {
		if e.Cause != "none" || e.Score < 100 {
			t.Fatalf("filter cause=none min=100 let through %+v", e)
		}
	}
	for _, bad := range []string{"sort=nope", "seed=x", "size=0", "size=5000", "page=-1", "min=abc"} {
		if code := get(t, c, ts.URL+"/api/v1/runs/"+id+"/episodes?"+bad, nil); code != 400 {
			t.Errorf("episodes?%s: %d, want 400", bad, code)
		}
	}

	// A failed episode replays its stored trajectory.
	var failed EpisodePage
	get(t, c, ts.URL+"/api/v1/runs/"+id+"/episodes?split=val&cause=injury&size=1", &failed)
	if len(failed.Episodes) != 1 || !failed.Episodes[0].HasTrajectory {
		t.Fatalf("no failed val episode with a trajectory: %+v", failed.Episodes)
	}
	e := failed.Episodes[0]
	var d EpisodeDetail
	u := ts.URL + "/api/v1/runs/" + id + "/episodes/" + e.Split + "/" + e.Version + "/" + strconv.FormatUint(e.Seed, 10)
	if code := get(t, c, u+"?step=100000", &d); code != 200 || d.Replay == nil || d.Replay.Kind != "dungeon" {
		t.Fatalf("%s: %d %+v", u, code, d)
	}
	rp := d.Replay
	last := rp.Frames[len(rp.Frames)-1] // the end: its score given
	if rp.Diverged != "" || last.Score == nil || float64(*last.Score) != e.Score || d.Step != rp.Steps-1 || !rp.Frames[0].Full {
		t.Fatalf("replay: diverged %q, final score %v (episode %v), step %d of %d", rp.Diverged, last.Score, e.Score, d.Step, rp.Steps)
	}
	var d0 EpisodeDetail
	get(t, c, u, &d0)
	if d0.Replay == nil || d0.Replay.From != 0 || !strings.Contains(d0.Replay.Frames[0].Rows[0].Text+strings.Join(rowTexts(d0.Replay.Frames[0].Rows), "\n"), "@") {
		t.Fatalf("replay's first page: %+v", d0.Replay)
	}
	// A successful one has none under the default policy.
	var ok EpisodePage
	get(t, c, ts.URL+"/api/v1/runs/"+id+"/episodes?split=test&cause=none&size=1", &ok)
	if len(ok.Episodes) == 1 {
		var d2 EpisodeDetail
		get(t, c, ts.URL+"/api/v1/runs/"+id+"/episodes/test/"+ok.Episodes[0].Version+"/"+strconv.FormatUint(ok.Episodes[0].Seed, 10), &d2)
		if d2.Replay != nil || d2.Note == "" || ok.Episodes[0].HasTrajectory {
			t.Errorf("a successful episode under trajectories: failed has a trajectory")
		}
	}

	// A version with its parent's diff.
	var v VersionJSON
	if code := get(t, c, ts.URL+"/api/v1/runs/"+id+"/versions/"+f.final, &v); code != 200 {
		t.Fatalf("version: %d", code)
	}
	if f.final != f.base && (v.Parent == "" || len(v.Changes) == 0 || !strings.Contains(v.TextDiff, "+ ")) {
		t.Fatalf("version %s: parent %q, %d changes, diff %q", f.final, v.Parent, len(v.Changes), v.TextDiff)
	}

	// Compare two runs, and an eval's version against its baseline.
	var cmp CompareJSON
	id2 := runID(f, f.run2.Dir)
	if code := get(t, c, ts.URL+"/api/v1/compare?a="+id+"&b="+id2, &cmp); code != 200 || cmp.Worse == nil || cmp.A.Summary.N == 0 {
		t.Fatalf("compare runs: %d %+v", code, cmp)
	}
	eid := runID(f, f.evalDir)
	cmp = CompareJSON{}
	if code := get(t, c, ts.URL+"/api/v1/compare?a="+eid, &cmp); code != 200 || cmp.A.Version != f.base || cmp.B.Version != f.final || cmp.Paired != cmp.A.Summary.N {
		t.Fatalf("compare eval: %d A %s B %s paired %d", code, cmp.A.Version, cmp.B.Version, cmp.Paired)
	}
	if cmp.Worse.Test != "signed-rank" || len(cmp.Top) == 0 {
		t.Errorf("eval compare: test %s, %d top pairs; want the paired test and pairs", cmp.Worse.Test, len(cmp.Top))
	}
	var erun RunJSON
	get(t, c, ts.URL+"/api/v1/runs/"+eid, &erun)
	if erun.Verdict == nil || len(erun.Verdict.Comparisons) != 1 || erun.Verdict.Comparisons[0].Check.Version != f.final || len(erun.Summaries) != 2 {
		t.Fatalf("eval page: verdict %+v, %d summaries", erun.Verdict, len(erun.Summaries))
	}
}

// TestSecurity: nothing outside the roots is reachable, nothing writes,
// and a token guards every request when set.
func TestSecurity(t *testing.T) {
	ts, f := newTestServer(t, "")
	c := ts.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	id := runID(f, f.run1.Dir)
	// A symbolic link out of the run directory is not followed.
	link := filepath.Join(f.run1.Dir, "link-out")
	if err := os.Symlink("/etc", link); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(link)
	for _, path := range []string{
		"/files/" + id + "/../../../etc/passwd",
		"/files/" + id + "/..%2f..%2f..%2fetc%2fpasswd",
		"/files/" + id + "/plots/..%2fcheckpoint.json",
		"/files/" + id + "/plots/.%2f..%2f..%2fcheckpoint.json",
		"/files/" + id + "/plots/.hidden.svg",
		"/files/" + id + "/%2fetc%2fpasswd",
		"/files/" + id + "/link-out/passwd",
		"/files/..~..~etc/passwd",
		"/api/v1/runs/..~..~..~etc",
		"/api/v1/runs/" + id + "/episodes/val/..%2f..%2fx/1",
		"/api/v1/runs/" + id + "/versions/..%2f..%2fx",
		"/files/" + url.PathEscape(f.root) + "/report.html",
	} {
		resp, err := c.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 || strings.Contains(string(body), "root:") || strings.Contains(string(body), "run_id") {
			t.Errorf("GET %s: %d %.100q: reached outside the allowlist", path, resp.StatusCode, body)
		}
	}
	if code := get(t, c, ts.URL+"/files/"+id+"/manifest.yaml", nil); code != 200 {
		t.Errorf("manifest.yaml: %d, want 200", code)
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		req, _ := http.NewRequest(m, ts.URL+"/api/runs", strings.NewReader("{}"))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, resp.StatusCode)
		}
	}

	tts, _ := newTestServer(t, "s3cret-s3cret-s3cret")
	tc := tts.Client()
	tc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if code := get(t, tc, tts.URL+"/api/runs", nil); code != 401 {
		t.Errorf("no token: %d, want 401", code)
	}
	if code := get(t, tc, tts.URL+"/api/runs?token=wrong", nil); code != 401 {
		t.Errorf("wrong token: %d, want 401", code)
	}
	resp, err := tc.Get(tts.URL + "/?token=s3cret-s3cret-s3cret")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || strings.Contains(resp.Header.Get("Location"), "s3cret-s3cret-s3cret") {
		t.Fatalf("?token: %d, cookies %v, location %q", resp.StatusCode, resp.Cookies(), resp.Header.Get("Location"))
	}
	req, _ := http.NewRequest("GET", tts.URL+"/api/runs", nil)
	req.AddCookie(resp.Cookies()[0])
	if r2, err := tc.Do(req); err != nil || r2.StatusCode != 200 {
		t.Fatalf("with the cookie: %v %v", r2.StatusCode, err)
	}
	req, _ = http.NewRequest("GET", tts.URL+"/api/runs", nil)
	req.Header.Set("Authorization", "Bearer s3cret-s3cret-s3cret")
	if r2, err := tc.Do(req); err != nil || r2.StatusCode != 200 {
		t.Fatalf("with the bearer token: %v %v", r2.StatusCode, err)
	}
}

func TestAllowedFile(t *testing.T) {
	for name, want := range map[string]bool{
		"report.html": true, "results.tex": true, "plots/val.svg": true, "plots/a.png": true, "checkpoint.json": true,
		"episodes.parquet": true, "plots/a/b.svg": true, "trajectories/val/v1.0.0.zip": true,
		"plots/../x.svg": false, "plots/": false, "plots/.x.svg": false, "../report.html": false, "": false, ".": false,
		"/etc/passwd": false, "a//b": false, "./a": false, "a/./b": false, "a\\b": false, "a\x00b": false, ".git/config": false,
	} {
		if got := allowedFile(name); got != want {
			t.Errorf("allowedFile(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestWriteJSONNaN(t *testing.T) {
	type row struct {
		Mean  float64
		P     *float64 `json:"p"`
		Name  string   `json:"name,omitempty"`
		Inner struct{ X []float64 }
	}
	nan := math.NaN()
	v := []row{{Mean: nan, P: &nan, Name: "a"}}
	v[0].Inner.X = []float64{1, math.Inf(1)}
	rec := httptest.NewRecorder()
	writeJSON(rec, nil, v)
	if got, want := strings.TrimSpace(rec.Body.String()), `[{"Inner":{"X":[1,null]},"Mean":null,"name":"a","p":null}]`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestEvalVerdict: the eval page shows the verdict the eval reached
// (its checkpoint's), with its own gate settings, the baseline named and
// linked, and each check's p, adjusted p and α; the compare page of a
// candidate against its baseline repeats that verdict in words.
func TestEvalVerdict(t *testing.T) {
	ts, f := newTestServer(t, "")
	c := ts.Client()
	var runs RunsJSON
	get(t, c, ts.URL+"/api/runs", &runs)
	words := map[string]string{}
	for _, e := range runs.Entries {
		words[e.Dir] = e.Verdict
	}
	for _, ev := range []struct {
		dir string
		res *eval.Result
	}{{f.evalDir, f.evalRes}, {f.gatedDir, f.gatedRes}} {
		v := ev.res.Verdict
		want := rundir.VerdictPass
		for _, cm := range v.Comparisons {
			if cm.Improvement {
				want = rundir.VerdictImprovement
			}
		}
		for _, ch := range v.Checks() {
			if ch.Failed {
				want = rundir.VerdictRegression
			}
		}
		if words[ev.dir] != want {
			t.Errorf("%s: listed verdict %q, want %q", ev.dir, words[ev.dir], want)
		}
		id := runID(f, ev.dir)
		var run RunJSON
		if code := get(t, c, ts.URL+"/api/v1/runs/"+id, &run); code != 200 || run.Verdict == nil {
			t.Fatalf("%s: %d, verdict %v", id, code, run.Verdict)
		}
		got := run.Verdict
		if got.Verdict != want || got.Headline != eval.Headline(v) || got.Baseline != v.Baseline || len(got.Comparisons) != len(v.Comparisons) {
			t.Fatalf("%s: verdict %q headline %q baseline %q, %d comparisons; want %q %q %q %d", id, got.Verdict, got.Headline, got.Baseline,
				len(got.Comparisons), want, eval.Headline(v), v.Baseline, len(v.Comparisons))
		}
		for i, cm := range got.Comparisons {
			w := v.Comparisons[i]
			if cm.Check.P != w.Check.P || cm.Check.PAdj != w.Check.PAdj || cm.Check.Alpha != w.Check.Alpha || float64(cm.PBetterAdj) != w.PBetterAdj ||
				cm.Verdict != w.Verdict() || cm.Compare == "" {
				t.Errorf("%s comparison %d: p %v adj %v α %v better %v %q link %q; stored p %v adj %v α %v better %v %q", id, i, cm.Check.P, cm.Check.PAdj,
					cm.Check.Alpha, cm.PBetterAdj, cm.Verdict, cm.Compare, w.Check.P, w.Check.PAdj, w.Check.Alpha, w.PBetterAdj, w.Verdict())
			}
			// The compare page of this candidate against its baseline
			// repeats the stored verdict, in words.
			var cmp CompareJSON
			if code := get(t, c, ts.URL+"/api/v1"+cm.Compare, &cmp); code != 200 || !cmp.Stored || cmp.Worse == nil {
				t.Fatalf("%s: %d stored %v", cm.Compare, code, cmp.Stored)
			}
			if cmp.Worse.PAdj != w.Check.PAdj || cmp.Worse.Statistic != w.Check.Statistic || float64(cmp.BetterPAdj) != w.PBetterAdj || cmp.Better != w.Improvement {
				t.Errorf("%s: V %v p adj %v better %v %v; the eval stored V %v p adj %v better %v %v", cm.Compare, cmp.Worse.Statistic, cmp.Worse.PAdj,
					cmp.BetterPAdj, cmp.Better, w.Check.Statistic, w.Check.PAdj, w.PBetterAdj, w.Improvement)
			}
			worse, better := "candidate B worse than baseline A", "candidate B better than baseline A: "+yesNo(w.Improvement)+" (p adj. = "
			if !strings.HasPrefix(cmp.WorseText, worse) || !strings.Contains(cmp.WorseText, ": "+yesNo(w.Check.Failed)+" (p adj. = ") ||
				!strings.HasPrefix(cmp.BetterText, better) || !strings.HasPrefix(cmp.PowerText, "Power: ") {
				t.Errorf("%s: texts %q / %q / %q", cm.Compare, cmp.WorseText, cmp.BetterText, cmp.PowerText)
			}
		}
		if ev.dir == f.gatedDir {
			if got.BaselineSelf || got.BaselineURLID != runID(f, f.evalDir) || got.BaselineVersion != f.base {
				t.Errorf("gated eval: baseline self %v, url id %q (want %q), version %q (want %s)", got.BaselineSelf, got.BaselineURLID,
					runID(f, f.evalDir), got.BaselineVersion, f.base)
			}
			if got.Gate.Margin != 25 || got.Gate.MarginOn != gate.MarginOnShift || !got.FailOnRegression || len(got.FailureChecks) != 1 ||
				got.FailureChecks[0].FailureMethod == "" {
				t.Errorf("gated eval: gate %+v, fail %v, %d failure checks", got.Gate, got.FailOnRegression, len(got.FailureChecks))
			}
			// The eval's own settings, not the defaults: the margin moves
			// the statistic.
			var cmp CompareJSON
			get(t, c, ts.URL+"/api/v1"+got.Comparisons[0].Compare, &cmp)
			if cmp.Gate.Margin != 25 || !strings.Contains(cmp.Gate.Source, "eval") {
				t.Errorf("compare gate %+v, want the eval's margin 25", cmp.Gate)
			}
			def, err := gate.Compare([]gate.Sample{sampleOf(t, f.evalDir, f.base)}, []gate.Sample{sampleOf(t, f.gatedDir, f.final)}, gate.DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			if def[0].Statistic == cmp.Worse.Statistic {
				t.Errorf("the compare page's statistic %v equals the defaults' (margin 0): the eval's margin was not used", cmp.Worse.Statistic)
			}
		} else if !got.BaselineSelf || got.BaselineVersion != f.base {
			t.Errorf("eval: baseline self %v version %q", got.BaselineSelf, got.BaselineVersion)
		}
	}
}

// sampleOf reads an eval's scores of a version as a gate sample.
func sampleOf(t *testing.T, dir, version string) gate.Sample {
	t.Helper()
	rows, _, err := results.ReadEpisodes(filepath.Join(dir, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	x, s, r := eval.Scores(rows, "", version)
	return gate.Sample{Version: version, Scores: x, Seeds: s, Repeats: r}
}

// TestFiles: every file of a run is served read-only with its content
// type, byte for byte.
func TestFiles(t *testing.T) {
	ts, f := newTestServer(t, "")
	c := ts.Client()
	id := runID(f, f.run1.Dir)
	var run RunJSON
	get(t, c, ts.URL+"/api/v1/runs/"+id, &run)
	listed := map[string]string{}
	for _, fl := range run.AllFiles {
		listed[fl.Name] = fl.URL
	}
	for name, ctype := range map[string]string{
		"episodes.parquet":    "application/vnd.apache.parquet",
		"generations.parquet": "application/vnd.apache.parquet",
		"checkpoint.json":     "application/json",
		"manifest.yaml":       "text/plain; charset=utf-8",
		"candidates.parquet":  "application/vnd.apache.parquet",
	} {
		u, ok := listed[name]
		if !ok {
			t.Errorf("%s is not listed among the run's files", name)
			continue
		}
		resp, err := c.Get(ts.URL + u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want, _ := os.ReadFile(filepath.Join(f.run1.Dir, name))
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctype || string(body) != string(want) ||
			!strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") {
			t.Errorf("%s: %d %q CSP %q, %d bytes (file %d); want 200 %q", u, resp.StatusCode, resp.Header.Get("Content-Type"),
				resp.Header.Get("Content-Security-Policy"), len(body), len(want), ctype)
		}
	}
	zips := 0
	for name, u := range listed {
		if strings.HasPrefix(name, "trajectories/") && strings.HasSuffix(name, ".zip") {
			zips++
			resp, err := c.Head(ts.URL + u)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" {
				t.Errorf("%s: %d %q", u, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
	}
	if zips == 0 {
		t.Errorf("no trajectory archive listed: %v", listed)
	}
}

// copyRun copies a fixture directory into a new root and returns the
// root and the copy.
func copyRun(t *testing.T, from, name string) (root, dir string) {
	t.Helper()
	root = t.TempDir()
	dir = filepath.Join(root, "runs", name)
	if err := os.CopyFS(dir, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	return root, dir
}

// TestHonestLinks: a run is offered comparisons only on splits both of
// its versions played, and a compare without a split says which it took.
func TestHonestLinks(t *testing.T) {
	ts, f := newTestServer(t, "")
	c := ts.Client()
	id := runID(f, f.run1.Dir)
	var run RunJSON
	get(t, c, ts.URL+"/api/v1/runs/"+id, &run)
	if f.run1.Base != f.run1.Final && (len(run.Comparisons) != 2 || !strings.HasSuffix(run.Comparisons[0].Text, "on test") ||
		!strings.Contains(run.Comparisons[0].URL, "split=test") || !strings.Contains(run.Comparisons[1].URL, "split=val")) {
		t.Fatalf("finished run: comparisons %+v, want test then val", run.Comparisons)
	}

	// An interrupted run: its test split was never played.
	root, dir := copyRun(t, f.run1.Dir, "interrupted")
	rows, metrics, err := results.ReadEpisodes(filepath.Join(dir, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var keep []results.EpisodeRow
	for _, r := range rows {
		if r.Split != "test" {
			keep = append(keep, r)
		}
	}
	if err := results.WriteEpisodes(filepath.Join(dir, "episodes.parquet"), metrics, keep); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	its := httptest.NewServer(s)
	defer its.Close()
	var irun RunJSON
	get(t, its.Client(), its.URL+"/api/v1/runs/runs~interrupted", &irun)
	for _, l := range irun.Comparisons {
		if strings.Contains(l.URL, "split=test") || strings.Contains(l.Text, "test") {
			t.Errorf("a run without test episodes offers %+v", l)
		}
	}
	if code := get(t, its.Client(), its.URL+"/api/v1/compare?a=runs~interrupted&split=test", nil); code != 404 {
		t.Errorf("compare on test without test episodes: %d, want 404", code)
	}
	var cmp CompareJSON
	if code := get(t, its.Client(), its.URL+"/api/v1/compare?a=runs~interrupted", &cmp); code != 200 || cmp.A.Split != "val" ||
		!strings.HasPrefix(cmp.Note, "Compared on val") {
		t.Errorf("compare without a split: %d split %q note %q; want val, said", code, cmp.A.Split, cmp.Note)
	}
}

// TestDamagedTrajectory: a damaged archive still shows the episode,
// with the error, instead of failing the page.
func TestDamagedTrajectory(t *testing.T) {
	f := getFixture(t)
	root, dir := copyRun(t, f.run1.Dir, "damaged")
	eps, _, err := results.ReadEpisodes(filepath.Join(dir, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var ep results.EpisodeRow
	for _, e := range eps {
		if e.Split == "val" && e.Cause != "none" {
			ep = e
			break
		}
	}
	rel, err := trajectory.Phase{Split: ep.Split, Version: ep.Version}.Rel()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rel), []byte("PK\x03\x04 not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	var d EpisodeDetail
	u := ts.URL + "/api/v1/runs/runs~damaged/episodes/val/" + ep.Version + "/" + strconv.FormatUint(ep.Seed, 10)
	if code := get(t, ts.Client(), u, &d); code != 200 {
		t.Fatalf("%s: %d, want 200", u, code)
	}
	if d.Episode.Score != ep.Score || d.Episode.Cause != ep.Cause || d.Replay != nil || d.TrajectoryError == "" || !strings.Contains(d.Note, "cannot be read") {
		t.Fatalf("damaged archive: score %v cause %q (want %v %q), trajectory %v, error %q, note %q", d.Episode.Score, d.Episode.Cause,
			ep.Score, ep.Cause, d.Replay != nil, d.TrajectoryError, d.Note)
	}
}

// TestDecisions: each generation's α under alpha spending, counted from
// 1 as docs/sequential.md does.
func TestDecisions(t *testing.T) {
	ts, f := newTestServer(t, "")
	var run RunJSON
	get(t, ts.Client(), ts.URL+"/api/v1/runs/"+runID(f, f.run1.Dir), &run)
	if run.Alpha != 0.05 || run.AlphaSpending != "basel" || len(run.GenerationAlpha) != len(run.Generations) {
		t.Fatalf("alpha %v spending %q, %d generation alphas for %d generations", run.Alpha, run.AlphaSpending, len(run.GenerationAlpha), len(run.Generations))
	}
	for g, a := range run.GenerationAlpha {
		if want := 0.05 * 6 / (math.Pi * math.Pi * float64(g+1) * float64(g+1)); math.Abs(a-want) > 1e-15 {
			t.Errorf("generation %d (from 0): α %v, want %v", g, a, want)
		}
	}
	if math.Abs(run.GenerationAlpha[0]-0.0304) > 1e-4 {
		t.Errorf("generation 0's α = %v, want 0.0304 (the formula's g = 1, docs/sequential.md)", run.GenerationAlpha[0])
	}
	// Every accepted candidate passed its generation's α, and says so;
	// generations and candidates are numbered from 0, as the tables, the
	// CLI and the report number them.
	for i, g := range run.Generations {
		if g.Generation != i || float64(g.Alpha) != run.GenerationAlpha[i] || float64(g.Alpha) != stats.BaselAlpha(0.05, i+1) {
			t.Errorf("generation row %d: numbered %d, α %v; want %d, %v", i, g.Generation, g.Alpha, i, stats.BaselAlpha(0.05, i+1))
		}
	}
	for _, c := range run.Candidates {
		a := run.GenerationAlpha[c.Generation]
		if c.Accepted && (float64(c.PAdj) >= a || !strings.HasPrefix(c.Why, "accepted: p adj. ")) {
			t.Errorf("%s accepted at p adj. %v >= α %v (%q)", c.Version, c.PAdj, a, c.Why)
		}
		if !c.Accepted && !strings.HasPrefix(c.Why, "rejected") {
			t.Errorf("%s rejected, why %q", c.Version, c.Why)
		}
	}
}

// TestDirectionWords: each direction of a comparison reads right, the
// candidate against the baseline, with its p and α.
func TestDirectionWords(t *testing.T) {
	reg := gate.Check{Hypothesis: gate.HypothesisRegression, MarginOn: gate.MarginOnShift, PAdj: 2.7e-21, Alpha: 0.05,
		Correction: gate.CorrectionHolm, Failed: true, Regression: true, Margin: 25, Power: 0.8, PowerLoss: 174.07, N: 60, NBaseline: 60}
	ok := gate.Check{Hypothesis: gate.HypothesisRegression, MarginOn: gate.MarginOnShift, PAdj: 1, Alpha: 0.05, Correction: gate.CorrectionNone,
		Power: math.NaN(), N: 5, NBaseline: 5}
	ni := gate.Check{Hypothesis: gate.HypothesisNonInferiority, MarginOn: gate.MarginOnMean, PAdj: 0.01, Alpha: 0.05, Correction: gate.CorrectionHolm,
		Margin: 10, Power: 0.5, N: 60, NBaseline: 60}
	for _, c := range []struct{ got, want string }{
		{worseText(reg), "candidate B worse than baseline A (H1: shift worse by more than 25): yes (p adj. = 2.7e-21 < α = 0.05)"},
		{worseText(ok), "candidate B worse than baseline A: no (p = 1 ≥ α = 0.05)"},
		{worseText(ni), "candidate B non-inferior to baseline A (H1: mean worse by less than 10): yes (p adj. = 0.01 < α = 0.05)"},
		{betterText(4.3e-47, 0.05, true, true), "candidate B better than baseline A: yes (p adj. = 4.3e-47 < α = 0.05)"},
		{betterText(0.76, 0.05, false, false), "candidate B better than baseline A: no (p = 0.76 ≥ α = 0.05)"},
		{powerText(reg), `Power: a true loss of 174 score points would be caught with probability 80% at these sample sizes (n = 60 vs 60); a "no" with low power is not evidence of no loss.`},
		{powerText(ok), `Power: a true loss of 0 score points would be caught with probability unknown at these sample sizes (n = 5 vs 5); a "no" with low power is not evidence of no loss.`},
		{powerText(ni), "Power: a candidate exactly as good as the baseline would be shown non-inferior with probability 50% at these sample sizes (n = 60 vs 60)."},
	} {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
}

// TestOtherHosts: a tokenless server on loopback answers only Host
// headers it knows, so that a web page whose DNS name was rebound to
// 127.0.0.1 cannot read it; and a weak token is refused.
func TestOtherHosts(t *testing.T) {
	f := getFixture(t)
	s, err := New(Config{Roots: []string{f.root}, AllowedHosts: []string{"runs.example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	for _, tt := range []struct {
		host string
		want int
	}{
		{"attacker.example:" + port, 403},
		{"attacker.example", 403},
		{"127.0.0.1.attacker.example", 403},
		{"127.0.0.1:" + port, 200},
		{"localhost:" + port, 200},
		{"[::1]:" + port, 200},
		{"runs.example.org", 200},
	} {
		for _, path := range []string{"/api/runs", "/", "/assets/app.js"} {
			req, _ := http.NewRequest("GET", ts.URL+path, nil)
			req.Host = tt.host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("Host %s, GET %s: %d %.100s, want %d", tt.host, path, resp.StatusCode, body, tt.want)
			}
			if tt.want == 403 && (strings.Contains(string(body), "run_id") || strings.Contains(string(body), "<html")) {
				t.Errorf("Host %s, GET %s: a refusal shows content: %.200s", tt.host, path, body)
			}
		}
	}
	for _, tok := range []string{" ", "short", "sixteen chars ok"} {
		if _, err := New(Config{Roots: []string{f.root}, Token: tok}); !errors.Is(err, httpguard.ErrWeakToken) {
			t.Errorf("New with token %q: %v, want ErrWeakToken", tok, err)
		}
	}
}

// episodesAt answers the episodes API for a page URL (/runs/ID/episodes?Q)
// with every match on one page.
func episodesAt(t *testing.T, ts *httptest.Server, page string) EpisodePage {
	t.Helper()
	u, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("size", strconv.Itoa(MaxPageSize))
	var p EpisodePage
	if code := get(t, ts.Client(), ts.URL+"/api/v1"+u.Path+"?"+q.Encode(), &p); code != 200 {
		t.Fatalf("%s: %d", page, code)
	}
	return p
}

// TestFailures: the cause × version tables, the killed_by ranking and the
// mixes around each accepted mutation hold the counts episodes.parquet
// gives (and generations.parquet, for the incumbents' train mixes), and
// every cell's link lists exactly the episodes it counts.
func TestFailures(t *testing.T) {
	ts, f := newTestServer(t, "")
	id := runID(f, f.run1.Dir)
	var run RunJSON
	if code := get(t, ts.Client(), ts.URL+"/api/v1/runs/"+id, &run); code != 200 {
		t.Fatalf("run: %d", code)
	}
	eps, _, err := results.ReadEpisodes(filepath.Join(f.run1.Dir, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	gens, causes, err := results.ReadGenerations(filepath.Join(f.run1.Dir, "generations.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	fa := run.Failures
	if fa == nil {
		t.Fatal("no failure analysis")
	}
	if len(fa.Causes) < len(causes)+1 || fa.Causes[len(fa.Causes)-1] != "none" {
		t.Fatalf("causes %v: want the declared %v first and none last", fa.Causes, causes)
	}
	for i, c := range causes {
		if fa.Causes[i] != c.Name {
			t.Fatalf("cause column %d is %q, want the declared %q", i, fa.Causes[i], c.Name)
		}
	}
	count := func(split, version string, gen int, cause string) int {
		n := 0
		for _, e := range eps {
			if e.Split == split && e.Version == version && (gen < 0 || int(e.Generation) == gen) && (cause == "" || e.Cause == cause) {
				n++
			}
		}
		return n
	}
	splits := map[string]bool{}
	for _, e := range eps {
		splits[e.Split] = true
	}
	if len(fa.Tables) != len(splits) || fa.Tables[0].Split != "train" {
		t.Fatalf("%d tables (first %q), want one per split of %v, train first", len(fa.Tables), fa.Tables[0].Split, splits)
	}
	cells, linked := 0, 0
	for _, tb := range fa.Tables {
		total := 0
		for _, row := range tb.Rows {
			if want := count(tb.Split, row.Version, -1, ""); row.N != want {
				t.Errorf("%s %s: n %d, want %d", tb.Split, row.Version, row.N, want)
			}
			total += row.N
			for i, c := range fa.Causes {
				want := count(tb.Split, row.Version, -1, c)
				if row.Counts[i] != want {
					t.Errorf("%s %s %s: %d, want %d", tb.Split, row.Version, c, row.Counts[i], want)
				}
				if got := float64(row.Shares[i]); math.Abs(got-float64(want)/float64(row.N)) > 1e-12 {
					t.Errorf("%s %s %s: share %v, want %d/%d", tb.Split, row.Version, c, got, want, row.N)
				}
				cells++
				if want > 0 && linked < 12 { // follow a dozen links: each lists exactly its episodes
					linked++
					p := episodesAt(t, ts, row.URLs[i])
					if p.Total != want {
						t.Errorf("%s lists %d episodes, want %d", row.URLs[i], p.Total, want)
					}
					for _, e := range p.Episodes {
						if e.Split != tb.Split || e.Version != row.Version || e.Cause != c {
							t.Fatalf("%s lists %s/%s/%s", row.URLs[i], e.Split, e.Version, e.Cause)
						}
					}
				}
			}
		}
		n := 0
		for _, e := range eps {
			if e.Split == tb.Split {
				n++
			}
		}
		if total != n {
			t.Errorf("%s table counts %d episodes, the split has %d", tb.Split, total, n)
		}
	}
	if cells == 0 || linked == 0 {
		t.Fatalf("%d cells, %d links followed", cells, linked)
	}

	// killed_by: the dungeon declares it; the top text's count and link.
	if len(fa.KilledBy) == 0 {
		t.Fatal("no killed_by texts, though the dungeon declares killed_by and episodes died")
	}
	kb := fa.KilledBy[0]
	p := episodesAt(t, ts, kb.URL)
	if p.Total != kb.Count || kb.Count == 0 {
		t.Fatalf("%q on %s: count %d, its link lists %d", kb.Text, kb.Split, kb.Count, p.Total)
	}
	for _, e := range p.Episodes {
		if e.Metrics[KilledByMetric] != kb.Text || e.Split != kb.Split {
			t.Fatalf("%s lists an episode killed by %v on %s", kb.URL, e.Metrics[KilledByMetric], e.Split)
		}
	}
	for i := 1; i < len(fa.KilledBy); i++ {
		if a, b := fa.KilledBy[i-1], fa.KilledBy[i]; a.Split == b.Split && a.Count < b.Count {
			t.Errorf("killed_by not most frequent first: %+v before %+v", a, b)
		}
	}

	// The mix around each accepted mutation: the incumbents' train mixes
	// are generations.parquet's cause counts.
	accepted := 0
	for gi, g := range gens {
		if g.Accepted != "" {
			accepted++
		}
		for _, s := range fa.Shifts {
			if s.Generation != int(g.Generation) {
				continue
			}
			if s.Parent != g.Incumbent || s.Accepted != g.Accepted || s.TrainBefore == nil || s.ValBefore == nil || s.ValAfter == nil {
				t.Fatalf("generation %d: shift %+v, want %s → %s with train and val mixes", s.Generation, s, g.Incumbent, g.Accepted)
			}
			for ci := range causes {
				if s.TrainBefore.Counts[ci] != int(g.CauseCounts[ci]) {
					t.Errorf("generation %d train before, %s: %d, generations.parquet says %d", s.Generation, causes[ci].Name, s.TrainBefore.Counts[ci], g.CauseCounts[ci])
				}
				if gi+1 < len(gens) && s.TrainAfter.Counts[ci] != int(gens[gi+1].CauseCounts[ci]) {
					t.Errorf("generation %d train after, %s: %d, generations.parquet says %d", s.Generation, causes[ci].Name, s.TrainAfter.Counts[ci], gens[gi+1].CauseCounts[ci])
				}
			}
			if s.TrainBefore.Failures != int(g.Failures) {
				t.Errorf("generation %d: %d train failures, generations.parquet says %d", s.Generation, s.TrainBefore.Failures, g.Failures)
			}
			if want := count("val", g.Accepted, int(g.Generation), ""); s.ValAfter.N != want || want == 0 {
				t.Errorf("generation %d: val after n %d, want %d", s.Generation, s.ValAfter.N, want)
			}
		}
	}
	if len(fa.Shifts) != accepted || accepted == 0 {
		t.Fatalf("%d shifts for %d accepted mutations", len(fa.Shifts), accepted)
	}

	// An eval: one table (its split), no mutation, snake_case keys.
	var ev RunJSON
	get(t, ts.Client(), ts.URL+"/api/v1/runs/"+runID(f, f.evalDir), &ev)
	if ev.Failures == nil || len(ev.Failures.Tables) != 1 || ev.Failures.Tables[0].Split != "test" || len(ev.Failures.Tables[0].Rows) != 2 || len(ev.Failures.Shifts) != 0 {
		t.Fatalf("eval failures %+v: want one test table of 2 versions and no shifts", ev.Failures)
	}
	resp, err := ts.Client().Get(ts.URL + "/api/v1/runs/" + id)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, key := range []string{`"failures":{"causes":`, `"killed_by":[{"split":`, `"train_before":{"version":`, `"parameters":{"names":`, `"val_mean":`, `"changed":[`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("the run's JSON lacks %s", key)
		}
	}

	// The episodes filters the links use refuse bad values by name.
	for q, want := range map[string]string{"generation=-1": "generation", "generation=x": "generation", "metric=nope&metric_value=a": "metric"} {
		resp, err := ts.Client().Get(ts.URL + "/api/v1/runs/" + id + "/episodes?" + q)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), want) {
			t.Errorf("?%s: %d %s, want 400 naming %s", q, resp.StatusCode, body, want)
		}
	}

	// generation=0 selects generation 0, as episodes.parquet numbers it;
	// an empty generation selects every generation.
	for _, c := range []struct {
		query string
		gen   int
	}{{"generation=0", 0}, {"generation=1", 1}, {"generation=", -1}} {
		want := 0
		for _, e := range eps {
			if c.gen < 0 || int(e.Generation) == c.gen {
				want++
			}
		}
		p := episodesAt(t, ts, "/runs/"+id+"/episodes?size=1000&"+c.query)
		if p.Total != want || want == 0 {
			t.Errorf("?%s: %d episodes, want %d", c.query, p.Total, want)
		}
		for _, e := range p.Episodes {
			if c.gen >= 0 && int(e.Generation) != c.gen {
				t.Errorf("?%s lists an episode of generation %d", c.query, e.Generation)
			}
		}
	}
}

// TestParameters: the parameter table holds every version of the store,
// its values as its prompt file gives them, the changes from its parent
// and its val mean from candidates.parquet.
func TestParameters(t *testing.T) {
	ts, f := newTestServer(t, "")
	var run RunJSON
	get(t, ts.Client(), ts.URL+"/api/v1/runs/"+runID(f, f.run1.Dir), &run)
	pt := run.Parameters
	if pt == nil || len(pt.Names) == 0 {
		t.Fatal("no parameter table")
	}
	if len(pt.Rows) != len(run.Lineage.Versions) {
		t.Fatalf("%d rows for %d versions", len(pt.Rows), len(run.Lineage.Versions))
	}
	mean := map[string]float64{}
	for _, c := range run.Candidates {
		mean[c.Version] = float64(c.Mean)
	}
	byVer := map[string]ParamRowJSON{}
	for _, r := range pt.Rows {
		byVer[r.Version] = r
	}
	changedRows := 0
	for i, vi := range run.Lineage.Versions {
		row := pt.Rows[i]
		p, err := loadVersion(f.run1.Dir, vi)
		if err != nil || row.Error != "" {
			t.Fatalf("%s: %v %s", vi.Version, err, row.Error)
		}
		for k, name := range pt.Names {
			v, ok := p.PolicyParameters.Get(name)
			if !ok || row.Values[k] != v.String() {
				t.Errorf("%s %s: %q, the prompt says %v", row.Version, name, row.Values[k], v)
			}
			if pt.Numeric[k] && float64(row.Nums[k]) != v.Num {
				t.Errorf("%s %s: %v, the prompt says %v", row.Version, name, row.Nums[k], v.Num)
			}
			if par, ok := byVer[row.Parent]; ok {
				if want := par.Values[k] != row.Values[k]; row.Changed[k] != want {
					t.Errorf("%s %s: changed %v, parent %q, own %q", row.Version, name, row.Changed[k], par.Values[k], row.Values[k])
				}
			}
		}
		if slices.Contains(row.Changed, true) {
			changedRows++
		}
		if m, ok := mean[row.Version]; ok && float64(row.ValMean) != m {
			t.Errorf("%s: val mean %v, candidates.parquet says %v", row.Version, row.ValMean, m)
		}
	}
	if changedRows == 0 {
		t.Error("no version changed a parameter from its parent")
	}
	if base := byVer[f.base]; math.Abs(float64(base.ValMean)-float64(run.Generations[0].ValMean)) > 0 {
		t.Errorf("base %s: val mean %v, generation 0's incumbent val mean %v", f.base, base.ValMean, run.Generations[0].ValMean)
	}
}

// rowTexts are the texts of a frame's rows.
func rowTexts(rows []RowJSON) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Text)
	}
	return out
}

// TestLivePhase: a running run's progress file shows, on the runs list,
// on its page and in the API, its phase, the episodes done of the
// phase's total, the rate since the phase started and the time left; a
// run not running shows none.
func TestLivePhase(t *testing.T) {
	f := getFixture(t)
	root := t.TempDir()
	live := filepath.Join(root, "runs", "live")
	writeLiveRun(t, f.run1.Dir, live, 1)
	lock := lockRun(t, live)
	defer lock.Close()
	t0 := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	p := &rundir.Progress{RunID: "live-run", Generation: 1, Split: "val", Versions: []string{"v1.0.3", "v1.0.4"}, Done: 30, Total: 120,
		PhaseStarted: t0, Updated: t0.Add(10 * time.Second), RunStarted: t0.Add(-5 * time.Minute)}
	if err := rundir.WriteProgress(live, p); err != nil {
		t.Fatal(err)
	}
	// A finished run with a stale progress file (a copy) shows none.
	if err := os.CopyFS(filepath.Join(root, "runs", "done"), os.DirFS(f.run1.Dir)); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteProgress(filepath.Join(root, "runs", "done"), p); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()

	check := func(where string, ph *PhaseJSON) {
		t.Helper()
		if ph == nil {
			t.Fatalf("%s: no phase", where)
		}
		if ph.Generation != 1 || ph.Split != "val" || len(ph.Versions) != 2 || ph.Done != 30 || ph.Total != 120 ||
			float64(ph.Rate) != 3 || float64(ph.ETASeconds) != 30 || !ph.Started.Equal(t0) || !ph.RunStarted.Equal(p.RunStarted) {
			t.Errorf("%s: phase %+v; want generation 1 val, 30 of 120, 3 a second, 30 s left", where, ph)
		}
	}
	var runs RunsJSON
	get(t, ts.Client(), ts.URL+"/api/v1/", &runs)
	for _, e := range runs.Entries {
		switch e.URLID {
		case "runs~live":
			check("runs list", e.Phase)
		case "runs~done":
			if e.Phase != nil {
				t.Errorf("a finished run shows a phase: %+v", e.Phase)
			}
		}
	}
	var run RunJSON
	get(t, ts.Client(), ts.URL+"/api/v1/runs/runs~live", &run)
	check("run", run.Entry.Phase)

	for page, want := range map[string]string{
		"/":               "gen 1 val: 30/120 episodes, 3.0/s, ETA 30s",
		"/runs/runs~live": "generation 1, val (v1.0.3, v1.0.4): 30 of 120 episodes, 3.0 a second since the phase started " + fmtWhen(t0) + " UTC; about 30s left in the phase",
	} {
		resp, err := ts.Client().Get(ts.URL + page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), want) {
			t.Errorf("%s lacks %q", page, want)
		}
	}
}
