package report

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"image/png"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"evolve/experiment"
	"evolve/gate"
	"evolve/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var fixedNow = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }

var (
	smallOnce sync.Once
	smallDir  string
	smallErr  error
)

// smallRun runs a small fixed experiment once (testdata/seeds: the first
// 60, 150 and 100 seeds of the embedded train, val and test splits; 3
// candidates; alpha 0.1; at most 3 generations) and returns its
// run directory, shared by the tests of this package.
func smallRun(t testing.TB) string {
	t.Helper()
	smallOnce.Do(func() {
		root, err := os.MkdirTemp("", "evolve-report-")
		if err != nil {
			smallErr = err
			return
		}
		// A relative seed path keeps the run ID, which hashes the
		// resolved config, the same on every machine.
		cfg, err := experiment.Parse("small.yaml", []byte(
			"name: small\nseeds: testdata/seeds\nmax_generations: 3\nmutation:\n  candidates: 3\nacceptance:\n  alpha: 0.1\n"))
		if err != nil {
			smallErr = err
			return
		}
		res, err := experiment.Run(context.Background(), cfg, experiment.Options{Out: filepath.Join(root, "runs"), Now: fixedNow})
		if err != nil {
			smallErr = err
			return
		}
		smallDir = res.Dir
	})
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	return smallDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if smallDir != "" {
		os.RemoveAll(filepath.Dir(filepath.Dir(smallDir)))
	}
	os.Exit(code)
}

// loadSmall loads the small run with the machine-dependent manifest fields
// fixed, so its renderings can be compared with golden files.
func loadSmall(t *testing.T) *Data {
	t.Helper()
	d, err := Load(smallRun(t))
	if err != nil {
		t.Fatal(err)
	}
	d.Manifest.Evolve, d.Manifest.Go, d.Manifest.Host = "v0.0.0-test", "go1.x", "host"
	d.Manifest.Started, d.Manifest.Finished = fixedNow(), fixedNow().Add(90*time.Second)
	return d
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs from the golden file at line %d (run go test -update if intended):\n got %q\nwant %q", path, i+1, g, w)
			}
		}
	}
}

func TestMarkdownGolden(t *testing.T) { golden(t, "small.report.md", loadSmall(t).Markdown()) }

func TestLaTeXGolden(t *testing.T) { golden(t, "small.results.tex", loadSmall(t).LaTeX()) }

// TestStatistics recomputes the report's test-split numbers from the
// episodes with the stats package and checks the report shows them.
func TestStatistics(t *testing.T) {
	d := loadSmall(t)
	if d.Manifest.FinalVersion == d.Manifest.BaseVersion {
		t.Fatalf("the small run accepted nothing (final %s); the golden run should show a comparison", d.Manifest.FinalVersion)
	}
	if len(d.Test) != 2 || d.Compare == nil {
		t.Fatalf("Test has %d versions, Compare %v; want 2 and a comparison", len(d.Test), d.Compare)
	}
	scores := map[string]map[uint64]float64{}
	for _, e := range d.Episodes {
		if e.Split == "test" {
			if scores[e.Version] == nil {
				scores[e.Version] = map[uint64]float64{}
			}
			scores[e.Version][e.Seed] = float64(e.Score)
		}
	}
	var x, y []float64 // final, base, paired by seed, in seed order
	for _, seed := range slices.Sorted(maps.Keys(scores[d.Manifest.BaseVersion])) {
		b := scores[d.Manifest.BaseVersion][seed]
		f, ok := scores[d.Manifest.FinalVersion][seed]
		if !ok {
			t.Fatalf("seed %d: no final test episode", seed)
		}
		x, y = append(x, f), append(y, b)
	}
	if len(x) != 100 {
		t.Fatalf("%d test pairs, want 100", len(x))
	}
	u, _ := stats.MannWhitneyU(x, y, stats.MWUOptions{})
	sr, _ := stats.WilcoxonSignedRank(x, y, stats.SignedRankOptions{})
	if len(d.Compare) != 2 {
		t.Fatalf("%d comparisons, want the U test and the signed-rank test", len(d.Compare))
	}
	c, p := d.Compare[0], d.Compare[1]
	if c.Test != stats.TestMWU || c.Hypothesis != gate.HypothesisTwoSided || c.Statistic != u.U || math.Abs(c.P-u.P) > 1e-12 || c.A12 != u.U/10000 ||
		c.Method != u.Method.String() || c.N != 100 || c.NBaseline != 100 {
		t.Errorf("MWU %+v, want U %v p %v A12 %v", c, u.U, u.P, u.U/10000)
	}
	if p.Test != stats.TestSignedRank || !p.Paired || p.Statistic != sr.TPlus || math.Abs(p.P-sr.P) > 1e-12 || p.N != sr.N || p.Method != sr.Method.String() {
		t.Errorf("signed-rank %+v, want V %v p %v n %d", p, sr.TPlus, sr.P, sr.N)
	}
	hl, _ := stats.HodgesLehmann(x, y, stats.ShiftOptions{})
	if c.HLShift != hl.Estimate || c.HLLow != hl.CILow || c.HLHigh != hl.CIHigh {
		t.Errorf("HL %v [%v, %v], want %v [%v, %v]", c.HLShift, c.HLLow, c.HLHigh, hl.Estimate, hl.CILow, hl.CIHigh)
	}
	fs, bs := stats.Summarize(x), stats.Summarize(y)
	if d.Test[1].Summary != fs || d.Test[0].Summary != bs {
		t.Errorf("summaries %+v %+v, want %+v %+v", d.Test[0].Summary, d.Test[1].Summary, bs, fs)
	}
	if math.Abs(c.MeanDiff-(fs.Mean-bs.Mean)) > 1e-9 {
		t.Errorf("MeanDiff %v, want %v", c.MeanDiff, fs.Mean-bs.Mean)
	}
	for _, v := range d.Test {
		if !(v.IQM.Low <= v.IQM.Point && v.IQM.Point <= v.IQM.High) || v.IQM.Point != v.Summary.IQM || v.IQM.Reps != BootstrapReps {
			t.Errorf("%s IQM interval %+v, want Low <= %v <= High from %d resamples", v.Version, v.IQM, v.Summary.IQM, BootstrapReps)
		}
	}
	// The bootstrap is seeded: loading twice gives the same interval.
	d2 := loadSmall(t)
	if d2.Test[1].IQM != d.Test[1].IQM {
		t.Errorf("IQM CI not reproducible: %+v then %+v", d.Test[1].IQM, d2.Test[1].IQM)
	}
	md := string(d.Markdown())
	for _, want := range []string{"U = " + num(u.U), "V = " + num(sr.TPlus), pval(u.P)} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md does not show %q", want)
		}
	}
}

// TestWrite writes the whole report into a copy of the small run and
// checks every file, that the HTML needs nothing from the network, and
// that writing twice gives identical bytes.
func TestWrite(t *testing.T) {
	dir := copyDir(t, smallRun(t))
	paths, err := Write(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %d bytes, %v", p, len(b), err)
		}
		first[p] = b
	}
	for _, name := range []string{"val_by_generation", "lineage", "failure_causes", "candidates"} {
		for _, ext := range []string{"png", "svg", "pdf"} {
			if _, ok := first[filepath.Join(dir, PlotsDir, name+"."+ext)]; !ok {
				t.Errorf("no %s.%s written", name, ext)
			}
		}
	}
	page := string(first[filepath.Join(dir, HTMLFile)])
	if n := strings.Count(page, "<svg"); n != 4 {
		t.Errorf("report.html inlines %d SVG figures, want 4", n)
	}
	if strings.Contains(page, "<?xml") || strings.Contains(page, "<script") {
		t.Error("report.html contains an XML prolog or a script")
	}
	// The only URLs are XML namespace names, which are never fetched.
	for _, m := range regexp.MustCompile(`(?:src|href)="[^"]*"|url\([^)]*\)|https?://[^"\s]*`).FindAllString(page, -1) {
		if m != "http://www.w3.org/2000/svg" && m != "http://www.w3.org/1999/xlink" {
			t.Errorf("report.html refers to %s: not self-contained", m)
		}
	}
	if _, err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	for p, b := range first {
		again, _ := os.ReadFile(p)
		if !bytes.Equal(again, b) {
			t.Errorf("%s differs when written twice", p)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	if _, err := Load(empty); !errors.Is(err, ErrNotRun) || !strings.Contains(err.Error(), "no manifest.yaml") {
		t.Errorf("empty dir: err = %v", err)
	}
	dir := copyDir(t, smallRun(t))
	os.Remove(filepath.Join(dir, "candidates.parquet"))
	if _, err := Load(dir); !errors.Is(err, ErrNotRun) || !strings.Contains(err.Error(), "no candidates.parquet") {
		t.Errorf("no candidates table: err = %v", err)
	}
	dir = copyDir(t, smallRun(t))
	os.WriteFile(filepath.Join(dir, "manifest.yaml"), []byte("run_id: [\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "manifest.yaml") {
		t.Errorf("bad manifest: err = %v", err)
	}
}

// TestHTMLRendersInChromium opens report.html in headless Chromium and
// checks the screenshot shows the figures (their green accepted-version
// marks). It skips when Chromium is not installed (.ci/run installs it).
func TestHTMLRendersInChromium(t *testing.T) {
	var browser string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no Chromium on PATH (apt-get install chromium)")
	}
	dir := copyDir(t, smallRun(t))
	if _, err := Write(dir, Options{Formats: []string{"svg"}}); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--user-data-dir="+t.TempDir(),
		"--screenshot="+shot, "--window-size=1400,6000", "file://"+filepath.Join(dir, HTMLFile))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// Count pixels of the figures' accepted-version green (#2CA02C) and
	// of any non-white colour.
	var green, ink int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r < 250 || g < 250 || bl < 250 {
				ink++
			}
			if absDiff(r, 44) < 30 && absDiff(g, 160) < 30 && absDiff(bl, 44) < 30 {
				green++
			}
		}
	}
	if ink < 10000 || green < 50 {
		t.Errorf("screenshot %dx%d: %d inked and %d green sampled pixels; want the tables and figures drawn (>= 10000, >= 50)",
			b.Dx(), b.Dy(), ink, green)
	}
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// copyDir copies a run directory's regular files (one level of
// subdirectories) to a temporary directory.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
