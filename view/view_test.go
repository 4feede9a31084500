package view

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"evolve/internal/httpguard"
	"evolve/rundir"
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
	if kinds[rundir.KindRun] != 2 || kinds[rundir.KindEval] != 1 {
		t.Fatalf("kinds %v, want 2 runs and 1 eval", kinds)
	}
	if len(runs.Groups) != 1 || len(runs.Groups[0].Members) != 2 || runs.Groups[0].Final.N != 2 {
		t.Fatalf("replicate groups %+v, want the two runs in one", runs.Groups)
	}

	id := runID(f, f.run1.Dir)
	var run RunJSON
	if code := get(t, c, ts.URL+"/api/runs/"+id, &run); code != 200 {
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
	if code := get(t, c, ts.URL+"/api/runs/"+id+"/episodes?split=val&sort=score&desc=1&size=7&page=1", &p); code != 200 {
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
	get(t, c, ts.URL+"/api/runs/"+id+"/episodes?cause=none&min=100&max=1e9&size=1000", &q)
	for _, e := range q.Episodes {
		if e.Cause != "none" || e.Score < 100 {
			t.Fatalf("filter cause=none min=100 let through %+v", e)
		}
	}
	for _, bad := range []string{"sort=nope", "seed=x", "size=0", "size=5000", "page=-1", "min=abc"} {
		if code := get(t, c, ts.URL+"/api/runs/"+id+"/episodes?"+bad, nil); code != 400 {
			t.Errorf("episodes?%s: %d, want 400", bad, code)
		}
	}

	// A failed episode replays its stored trajectory.
	var failed EpisodePage
	get(t, c, ts.URL+"/api/runs/"+id+"/episodes?split=val&cause=injury&size=1", &failed)
	if len(failed.Episodes) != 1 || !failed.Episodes[0].HasTrajectory {
		t.Fatalf("no failed val episode with a trajectory: %+v", failed.Episodes)
	}
	e := failed.Episodes[0]
	var d EpisodeDetail
	u := ts.URL + "/api/runs/" + id + "/episodes/" + e.Split + "/" + e.Version + "/" + strconv.FormatUint(e.Seed, 10)
	if code := get(t, c, u, &d); code != 200 || d.Trajectory == nil || d.Trajectory.Kind != "dungeon" {
		t.Fatalf("%s: %d %+v", u, code, d)
	}
	rp := d.Trajectory.Dungeon
	last := rp.Steps[len(rp.Steps)-1]
	if rp.Diverged != "" || float64(last.Score) != e.Score || !strings.Contains(rp.Steps[0].Map, "@") {
		t.Fatalf("replay: diverged %q, final score %d (episode %v)", rp.Diverged, last.Score, e.Score)
	}
	// A successful one has none under the default policy.
	var ok EpisodePage
	get(t, c, ts.URL+"/api/runs/"+id+"/episodes?split=test&cause=none&size=1", &ok)
	if len(ok.Episodes) == 1 {
		var d2 EpisodeDetail
		get(t, c, ts.URL+"/api/runs/"+id+"/episodes/test/"+ok.Episodes[0].Version+"/"+strconv.FormatUint(ok.Episodes[0].Seed, 10), &d2)
		if d2.Trajectory != nil || d2.Note == "" || ok.Episodes[0].HasTrajectory {
			t.Errorf("a successful episode under trajectories: failed has a trajectory")
		}
	}

	// A version with its parent's diff.
	var v VersionJSON
	if code := get(t, c, ts.URL+"/api/runs/"+id+"/versions/"+f.final, &v); code != 200 {
		t.Fatalf("version: %d", code)
	}
	if f.final != f.base && (v.Parent == "" || len(v.Changes) == 0 || !strings.Contains(v.TextDiff, "+ ")) {
		t.Fatalf("version %s: parent %q, %d changes, diff %q", f.final, v.Parent, len(v.Changes), v.TextDiff)
	}

	// Compare two runs, and an eval's version against its baseline.
	var cmp CompareJSON
	id2 := runID(f, f.run2.Dir)
	if code := get(t, c, ts.URL+"/api/compare?a="+id+"&b="+id2, &cmp); code != 200 || cmp.Worse == nil || cmp.A.Summary.N == 0 {
		t.Fatalf("compare runs: %d %+v", code, cmp)
	}
	eid := runID(f, f.evalDir)
	cmp = CompareJSON{}
	if code := get(t, c, ts.URL+"/api/compare?a="+eid, &cmp); code != 200 || cmp.A.Version != f.base || cmp.B.Version != f.final || cmp.Paired != cmp.A.Summary.N {
		t.Fatalf("compare eval: %d A %s B %s paired %d", code, cmp.A.Version, cmp.B.Version, cmp.Paired)
	}
	if cmp.Worse.Test != "signed-rank" || len(cmp.Top) == 0 {
		t.Errorf("eval compare: test %s, %d top pairs; want the paired test and pairs", cmp.Worse.Test, len(cmp.Top))
	}
	var erun RunJSON
	get(t, c, ts.URL+"/api/runs/"+eid, &erun)
	if len(erun.Checks) != 1 || erun.Checks[0].Version != f.final || len(erun.Summaries) != 2 {
		t.Fatalf("eval page: %d checks, %d summaries", len(erun.Checks), len(erun.Summaries))
	}
}

// TestSecurity: nothing outside the roots is reachable, nothing writes,
// and a token guards every request when set.
func TestSecurity(t *testing.T) {
	ts, f := newTestServer(t, "")
	c := ts.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	id := runID(f, f.run1.Dir)
	for _, path := range []string{
		"/files/" + id + "/../../../etc/passwd",
		"/files/" + id + "/..%2f..%2f..%2fetc%2fpasswd",
		"/files/" + id + "/plots/..%2fcheckpoint.json",
		"/files/" + id + "/checkpoint.json",
		"/files/" + id + "/plots/.hidden.svg",
		"/files/..~..~etc/passwd",
		"/api/runs/..~..~..~etc",
		"/api/runs/" + id + "/episodes/val/..%2f..%2fx/1",
		"/api/runs/" + id + "/versions/..%2f..%2fx",
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
		"report.html": true, "results.tex": true, "plots/val.svg": true, "plots/a.png": true,
		"checkpoint.json": false, "plots/../x.svg": false, "plots/": false, "plots/a/b.svg": false, "plots/.x.svg": false,
		"plots/x.txt": false, "../report.html": false, "episodes.parquet": false,
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
	writeJSON(rec, v)
	if got, want := strings.TrimSpace(rec.Body.String()), `[{"Inner":{"X":[1,null]},"Mean":null,"name":"a","p":null}]`; got != want {
		t.Fatalf("got %s, want %s", got, want)
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
