package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"evolve/gate"
	"evolve/results"
	"evolve/rundir"
	"evolve/stats"
)

// GateSettings is how an eval compares its versions with a baseline once its
// phases are done. It is recorded in the checkpoint when the eval starts,
// so that a resume gates exactly as the eval began.
type GateSettings struct {
	// Baseline is "" to compare with the eval's first version, or an
	// earlier eval: its directory or its episodes.parquet (recorded as an
	// absolute path).
	Baseline string `json:"baseline,omitempty"`
	// BaselineVersion is the baseline eval's version to compare with (""
	// for its first, or its only one for a bare episodes.parquet).
	BaselineVersion string `json:"baseline_version,omitempty"`
	// Config is the regression test (gate.Compare).
	Config gate.Config `json:"config"`
	// FailOnRegression makes a regression the eval's failure: the command
	// exits 3, also when a finished eval is resumed.
	FailOnRegression bool `json:"fail_on_regression"`
	// MaxFailureIncrease, when not nil, adds a failure-share check per
	// comparison (gate.CompareFailures): it fails on evidence that the
	// candidate's share of failed episodes exceeds the baseline's by more
	// than this share, in [0, 1).
	MaxFailureIncrease *float64 `json:"max_failure_increase,omitempty"`
}

// ErrGateChanged is returned (wrapped, naming both settings) by Resume
// when Options.GateGiven is set and Options.Gate differs from the gate
// the eval was started with.
var ErrGateChanged = errors.New("the gate differs from the one the eval was started with")

// VersionVerdict is the verdict on one candidate version in one variant: the
// regression test (gate.Compare) and the improvement test.
type VersionVerdict struct {
	// Check is the one-sided regression test: "the candidate is worse"
	// (by more than the margin).
	Check gate.Check `json:"check"`
	// PBetter is the one-sided p-value of "the candidate is better"
	// (the same test with the roles of candidate and baseline swapped,
	// no margin), PBetterAdj adjusted across the variant's versions by
	// the gate's correction; both in [0, 1] (1 when the test could not
	// run).
	PBetter    float64 `json:"p_better"`
	PBetterAdj float64 `json:"p_better_adj"`
	// Improvement reports PBetterAdj < alpha and no regression.
	Improvement bool `json:"improvement"`
}

// Verdict returns results.VerdictRegression (a loss shown, in the
// regression hypothesis), VerdictNotNonInferior (non-inferiority not
// shown, in the non-inferiority hypothesis), VerdictImprovement or
// VerdictNoDifference.
func (c VersionVerdict) Verdict() string {
	switch {
	case c.Check.Regression:
		return results.VerdictRegression
	case c.Check.Failed:
		return results.VerdictNotNonInferior
	case c.Improvement:
		return results.VerdictImprovement
	}
	return results.VerdictNoDifference
}

// Verdict is an eval's outcome against its baseline, stored in the
// checkpoint when the eval finishes.
type Verdict struct {
	// Baseline describes the baseline for reports ("" when nothing was
	// compared: one version and no --baseline).
	Baseline string `json:"baseline"`
	// Comparisons are one per candidate version and variant, variant by
	// variant in the eval's order.
	Comparisons []VersionVerdict `json:"comparisons"`
	// FailureChecks are the failure-share checks (Gate.MaxFailureIncrease;
	// gate.CompareFailures), in the order of Comparisons; nil without.
	FailureChecks []gate.Check `json:"failure_checks,omitempty"`
	// Health is each phase's share of error episodes and, for a
	// language-model agent, of fallback turns and unusable replies, in
	// the order of the summaries (variant by variant, versions in the
	// eval's order); nil for a scripted eval without error episodes.
	Health []Health `json:"health,omitempty"`
}

// Checks returns the regression checks, in order, then the failure-share
// checks.
func (v *Verdict) Checks() []gate.Check {
	if v == nil {
		return nil
	}
	var out []gate.Check
	for _, c := range v.Comparisons {
		out = append(out, c.Check)
	}
	return append(out, v.FailureChecks...)
}

// Regressions returns the messages of the failed checks (a regression, or
// non-inferiority not shown: gate.Check.Failed), in order.
func (v *Verdict) Regressions() []string {
	var bad []string
	for _, c := range v.Checks() {
		if c.Failed {
			bad = append(bad, c.Message)
		}
	}
	return bad
}

// baseline is the baseline's episodes, loaded and checked before anything
// is played.
type baseline struct {
	rows    []results.EpisodeRow
	version string
	desc    string
}

// readEvalManifest reads the manifest of the finished eval in dir.
func readEvalManifest(dir string) (*rundir.EvalManifest, error) {
	m, err := rundir.ReadEvalManifest(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("--baseline %s is not a finished eval directory (no %s): a baseline is the directory evolve eval wrote, or its %s", dir, rundir.ManifestFile, rundir.EpisodesFile)
	case err != nil:
		return nil, fmt.Errorf("--baseline %s: %s is not an eval's manifest (a run directory is not a baseline: evaluate its version with evolve eval RUN_DIR:VERSION)", dir, rundir.ManifestFile)
	}
	return m, nil
}

// CheckBaselinePath refuses a --baseline that is neither an episodes
// Parquet file nor a finished eval directory (cheap: for a command's flag
// checks; Run and Resume check everything else before playing).
func CheckBaselinePath(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	if !st.IsDir() {
		return nil
	}
	_, err = readEvalManifest(path)
	return err
}

// loadBaseline reads the gate's baseline and checks, before anything is
// played, that it is comparable with this eval: a baseline eval directory
// must have played every variant with the same environment
// configuration, the same split and seeds, the same repeats and the same
// agent; and every baseline (directory or episodes.parquet) must hold
// the baseline version's episode of every (seed, repeat) this eval plays
// on every variant. It returns nil for an eval compared with its first
// version. Errors name the baseline and what differs.
func (e *eval) loadBaseline() (*baseline, error) {
	g := e.gate
	if g == nil || g.Baseline == "" {
		return nil, nil
	}
	path, version := g.Baseline, g.BaselineVersion
	file := path
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	} else if st.IsDir() {
		m, err := readEvalManifest(path)
		if err != nil {
			return nil, err
		}
		for _, v := range e.variants {
			if theirs, ok := m.Variants[v.Name]; !ok {
				return nil, fmt.Errorf("--baseline %s has no variant %q (it has %s)", path, v.Name, variantNames(m.Variants))
			} else if theirs != v.Identity {
				return nil, fmt.Errorf("--baseline %s played variant %q with another environment configuration (%s, this eval %s): the comparison would not be fair", path, v.Name, theirs, v.Identity)
			}
		}
		if m.SeedsSHA != e.ck.SeedsSHA || m.Split != e.ck.Split {
			return nil, fmt.Errorf("--baseline %s played other seeds (split %s, seeds sha256 %.12s…; this eval: split %s, %.12s…)", path, m.Split, m.SeedsSHA, e.ck.Split, e.ck.SeedsSHA)
		}
		if m.Repeats != e.ck.Repeats {
			return nil, fmt.Errorf("--baseline %s played %d repeat(s) per seed, this eval %d: give the same --repeats", path, m.Repeats, e.ck.Repeats)
		}
		if m.Agent != e.agent {
			return nil, fmt.Errorf("--baseline %s played with another agent (%s; this eval %s)", path, orScripted(m.Agent), orScripted(e.agent))
		}
		if version == "" && len(m.Versions) > 0 {
			version = m.Versions[0].Label
		}
		file = filepath.Join(path, rundir.EpisodesFile)
	}
	rows, _, err := results.ReadEpisodes(file)
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	var versions []string
	for _, r := range rows {
		if !slices.Contains(versions, r.Version) {
			versions = append(versions, r.Version)
		}
	}
	if version == "" {
		if len(versions) != 1 {
			return nil, fmt.Errorf("--baseline %s holds versions %v: name one with --baseline-version", path, versions)
		}
		version = versions[0]
	}
	if !slices.Contains(versions, version) {
		return nil, fmt.Errorf("--baseline %s has no version %q (it has %v)", path, version, versions)
	}
	for _, v := range e.variants {
		_, s, r := Scores(rows, v.Name, version)
		if len(s) == 0 {
			return nil, fmt.Errorf("the baseline %s of %s has no episodes on %s", version, path, variantDesc(v.Name))
		}
		have := map[[2]uint64]bool{}
		for i := range s {
			have[[2]uint64{s[i], uint64(r[i])}] = true
		}
		for _, seed := range e.seeds {
			for rep := 0; rep < e.ck.Repeats; rep++ {
				if !have[[2]uint64{seed, uint64(rep)}] {
					return nil, fmt.Errorf("the baseline %s of %s did not play seed %d (repeat %d) on %s: evaluate both on the same seeds and repeats", version, path, seed, rep, variantDesc(v.Name))
				}
			}
		}
	}
	return &baseline{rows: rows, version: version, desc: fmt.Sprintf("%s of %s", version, path)}, nil
}

func orScripted(agent string) string {
	if agent == "" {
		return "the scripted agent"
	}
	return agent
}

func variantDesc(v string) string {
	if v == "" {
		return "the configured environment (no variants)"
	}
	return fmt.Sprintf("variant %q", v)
}

func variantNames(m map[string]string) string {
	var names []string
	for n := range m {
		if n == "" {
			n = "(none)"
		}
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// compare compares each candidate with the baseline, variant by variant:
// the regression test of gate.Compare, and the improvement test (the
// same test with the roles swapped and no margin, the baseline restricted
// to the candidate's (seed, repeat) pairs when they pair, adjusted across
// the variant's versions by the gate's correction).
func (e *eval) compare(base *baseline) (*Verdict, error) {
	g := GateSettings{}
	if e.gate != nil {
		g = *e.gate
	}
	version, rows := "", e.episodes
	cands := e.versions
	v := &Verdict{}
	if base == nil {
		if len(e.versions) < 2 {
			return v, nil
		}
		version, cands = e.versions[0].Label, e.versions[1:]
		v.Baseline = fmt.Sprintf("%s (%s), the first version of this eval", version, e.versions[0].Source)
	} else {
		version, rows, v.Baseline = base.version, base.rows, base.desc
	}
	var bases, cs []gate.Sample
	for _, variant := range e.variants {
		x, s, r := Scores(rows, variant.Name, version)
		bases = append(bases, gate.Sample{Version: version, Variant: variant.Name, Seeds: s, Repeats: r, Scores: x})
		for _, c := range cands {
			x, s, r := Scores(e.episodes, variant.Name, c.Label)
			cs = append(cs, gate.Sample{Version: c.Label, Variant: variant.Name, Seeds: s, Repeats: r, Scores: x})
		}
	}
	checks, err := gate.Compare(bases, cs, g.Config)
	if err != nil {
		return nil, err
	}
	if v.FailureChecks, err = e.compareFailures(g, rows, version, cands); err != nil {
		return nil, err
	}
	corr := stats.Holm
	if g.Config.Correction == gate.CorrectionNone {
		corr = stats.None
	}
	for i, variant := range e.variants {
		b := bases[i]
		var ps []float64
		first := len(v.Comparisons)
		for k := range cands {
			p := PBetter(b, cs[i*len(cands)+k], g.Config)
			ps = append(ps, p)
			v.Comparisons = append(v.Comparisons, VersionVerdict{Check: checks[i*len(cands)+k], PBetter: p})
		}
		adj, err := stats.Adjust(ps, corr)
		if err != nil {
			return nil, fmt.Errorf("adjusting the improvement p-values of %s: %w", variantDesc(variant.Name), err)
		}
		for k := range cands {
			c := &v.Comparisons[first+k]
			c.PBetterAdj = adj[k]
			c.Improvement = !c.Check.Failed && adj[k] < c.Check.Alpha
		}
	}
	return v, nil
}

// PBetter returns the unadjusted one-sided p-value of "cand is better
// than base", the eval's improvement test under the gate cfg: the
// regression test (gate.Compare) with the roles of candidate and
// baseline swapped, no margin and no correction, base restricted to
// cand's (seed, repeat) pairs when every one of them is in base (so
// that the test pairs them as the regression test does). It is in
// [0, 1], and 1 when the test cannot run (too few observations).
// Verdict adjusts these across a variant's versions (VersionVerdict).
func PBetter(base, cand gate.Sample, cfg gate.Config) float64 {
	better := gate.Config{Alpha: cfg.Alpha, Test: cfg.Test, Correction: gate.CorrectionNone,
		MarginOn: cfg.MarginOn, MaxUnmatched: gate.NoLimit}
	if ch, err := gate.Compare([]gate.Sample{cand}, []gate.Sample{restrict(base, cand)}, better); err == nil && !math.IsNaN(ch[0].P) {
		return ch[0].P
	}
	return 1
}

// restrict returns base with only the observations whose (seed, repeat)
// cand played, when every one of cand's is in base (so that the swapped
// test pairs them as the regression test does); else base unchanged.
func restrict(base, cand gate.Sample) gate.Sample {
	at := map[[2]uint64]int{}
	for i := range base.Scores {
		at[[2]uint64{base.Seeds[i], uint64(base.Repeats[i])}] = i
	}
	out := gate.Sample{Version: base.Version, Variant: base.Variant}
	for i := range cand.Scores {
		j, ok := at[[2]uint64{cand.Seeds[i], uint64(cand.Repeats[i])}]
		if !ok {
			return base
		}
		out.Seeds = append(out.Seeds, base.Seeds[j])
		out.Repeats = append(out.Repeats, base.Repeats[j])
		out.Scores = append(out.Scores, base.Scores[j])
	}
	return out
}

// sameGate reports whether two gates are the same settings.
func sameGate(a, b GateSettings) bool { return reflect.DeepEqual(a, b) }
