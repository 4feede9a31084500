package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"gopkg.in/yaml.v3"

	"evolve/cache"
	"evolve/cmd/evolve/internal/progress"
	"evolve/eval"
	"evolve/experiment"
	"evolve/gate"
	"evolve/internal/atomicfile"
	"evolve/results"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func init() {
	register(&command{
		name:     "eval",
		synopsis: "play fixed prompt versions on a seed split and gate on regressions (CI)",
		usage:    "[flags] PROMPT...",
		help: `
Play each PROMPT on a split of the config's seed sets (--split test by
default) or on a seed file (--seeds), --repeats times per seed, with the
parallel deterministic runner of 'evolve run', and write an eval directory
<out>/<name>-eval-<hash>/ (or --dir DIR): manifest.yaml, checkpoint.json,
prompts/ (each version's file), episodes.parquet (the schema of a run's,
with variant and repeat), summary.parquet (n, mean, std, median, IQM and
95% CIs per version and variant), report.md, report.html and plots/ (a box
plot of the scores, PNG, SVG and PDF). A seed file (--seeds) is recorded
as split test, with its path and hash in the manifest.

A PROMPT is a prompt YAML file ("embedded" for the embedded base prompt),
RUN_DIR:VERSION (a version of a run's prompt store), or, with --store DIR,
SLUG, SLUG@BRANCH or SLUG@vX.Y.Z.

Each version is compared, within each environment variant, with the
baseline: the first PROMPT, or with --baseline PATH an earlier eval
(its directory or episodes.parquet; --baseline-version picks its version,
by default its first). A baseline eval directory must have played the same
environment configuration per variant and the same seeds, and the
baseline every (seed, repeat) a candidate plays; anything else is refused,
not compared. The test is one-sided, candidate
worse (the Wilcoxon signed-rank test paired by seed and repeat when every
pair is there, else Mann-Whitney U; --test), Holm-adjusted across the
variant's versions; with --margin D it is the non-inferiority test "worse
by more than D score units" (the candidate's scores shifted by +D; Hollander,
Wolfe & Chicken 2014; Wellek 2010 ch. 6), with --margin-a12 M "P(candidate
> baseline) below 0.5 - M" (Wellek's asymptotic Mann-Whitney test). A
version is a regression when its adjusted p < --alpha.

Variants: a config's variants: list ({name, params} overriding
environment.params), or --set environment.params.KEY=V1,V2 (repeatable;
every combination is a variant).

Outcomes are cached by (environment and its config, seed, prompt content
hash, evolve's episode semantics) as each is played: a rerun, a resume
after Ctrl-C, or main's baseline in CI plays nothing it has played before
(--cache DIR, default the user cache dir's evolve/episodes; --no-cache).
Error episodes are never cached.

With a language model as the agent (the config's agent: {kind: llm, ...};
see docs/llm.md) every variant plays through one client, with
agent.llm.concurrency episodes at once unless --workers is given. The
outcome cache keys on the agent's settings too, and the model's replies
are kept in its response cache (agent.cache_dir), so an eval of the same
versions with --no-cache replays every reply and makes no request.
--llm-cache off|read|readwrite overrides agent.cache for this process
(read: replay only, nothing is sent, a missing reply is an error), as
'evolve run --cache' does. --resume DIR continues with the eval's
own prompts, seeds and variants; give the gate, cache and output flags
again (the interrupt message prints the whole command).

Exit status: 0 ok; 1 failure; 2 bad command line; 3 --fail-on-regression
and a version regressed; 130/143 interrupted (resume with --resume DIR).

Outputs CI systems read: --junit FILE (a test case per version and variant,
failed on regression, with the numbers), --json (the comparisons), and a
Markdown summary appended to $GITHUB_STEP_SUMMARY when it is set.

Examples:

	evolve eval --split test embedded
	evolve eval runs/default-651436c4dc:v1.0.0 runs/default-651436c4dc:v1.0.5
	evolve eval --config exp.yaml --repeats 3 --set environment.params.max_turns=1000,3000 a.yaml b.yaml
	evolve eval --baseline main-eval/ --fail-on-regression --margin 25 --junit junit.xml pr.yaml
	evolve eval --resume evals/default-eval-1a2b3c4d5e`,
		flags: func(fs *flag.FlagSet) func(context.Context, *cmdEnv, []string) error {
			config := fs.String("config", "", "experiment config `FILE`: environment, variants, seed sets, workers (default: the embedded default)")
			split := fs.String("split", "test", "the seed split to play: `test`, val or train")
			seedsFile := fs.String("seeds", "", "play the seeds of `FILE` (one per line) instead of a split")
			repeats := fs.Int("repeats", 1, "play each seed `N` times, repeat r from a seed derived from (seed, r)")
			var sets listFlag
			fs.Var(&sets, "set", "a variant parameter `environment.params.KEY=V1,V2,...` (repeatable; every combination is a variant)")
			store := fs.String("store", "", "prompt store `DIR` for SLUG@REF arguments")
			out := fs.String("out", "evals", "create the eval directory under `DIR`")
			dir := fs.String("dir", "", "write the eval directory exactly at `DIR` (new or empty; for CI scripts)")
			resume := fs.String("resume", "", "continue the interrupted eval in `DIR`")
			workers := fs.Int("workers", 0, "play at most `N` episodes at once (default: the config's)")
			baseline := fs.String("baseline", "", "compare with the eval in `PATH` (its directory or episodes.parquet) instead of the first PROMPT")
			baselineVersion := fs.String("baseline-version", "", "the `VERSION` of --baseline to compare with (default: its first)")
			failOn := fs.Bool("fail-on-regression", false, "exit 3 when a version is significantly worse than the baseline")
			margin := fs.Float64("margin", 0, "non-inferiority margin `D` in score units: a regression is worse by more than D")
			marginA12 := fs.Float64("margin-a12", 0, "non-inferiority margin `M` in A12 units, in [0, 0.5)")
			alpha := fs.Float64("alpha", 0.05, "family-wise significance level `A`")
			test := fs.String("test", "auto", "`auto` (signed-rank when paired by seed, else mwu), mwu or signed-rank")
			junit := fs.String("junit", "", "write JUnit XML to `FILE`")
			jsonOut := fs.Bool("json", false, "print the comparisons as JSON on stdout")
			cacheDir := fs.String("cache", "", "outcome cache `DIR` (default: the user cache dir's evolve/episodes)")
			noCache := fs.Bool("no-cache", false, "play every episode; read and write no outcome cache")
			llmCache := fs.String("llm-cache", "", "the language-model agent's response cache: `off`, read (replay only, no requests) or readwrite (default: the config's agent.cache)")
			quiet := fs.Bool("quiet", false, "no live bars and no per-phase lines")
			logFormat := fs.String("log-format", "text", "format of the progress log on stderr: `text` or json")
			return func(ctx context.Context, env *cmdEnv, args []string) error {
				given := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
				if *resume == "" && len(args) == 0 {
					return usagef("no PROMPT to evaluate")
				}
				if *resume != "" {
					if len(args) > 0 {
						return usagef("--resume continues an eval with its own prompts; give no PROMPT")
					}
					for _, f := range []string{"config", "split", "seeds", "repeats", "set", "store", "out", "dir"} {
						if given[f] {
							return usagef("--%s cannot be used with --resume (the eval continues with its own settings; give only the gate, cache and output flags)", f)
						}
					}
				}
				switch {
				case *repeats < 1:
					return usagef("--repeats must be >= 1, got %d", *repeats)
				case *workers < 0:
					return usagef("--workers must be >= 0 (0 = the config's), got %d", *workers)
				case *margin < 0:
					return usagef("--margin must be >= 0, got %v", *margin)
				case *marginA12 < 0 || *marginA12 >= 0.5:
					return usagef("--margin-a12 must be in [0, 0.5), got %v", *marginA12)
				case *margin > 0 && *marginA12 > 0:
					return usagef("--margin and --margin-a12 cannot both be given: a regression is measured in score units or in A12, not both")
				case !(*alpha > 0 && *alpha < 1):
					return usagef("--alpha must be in (0, 1), got %v", *alpha)
				case given["seeds"] && given["split"]:
					return usagef("--seeds plays a seed file (recorded as split test); --split cannot be used with it")
				case given["dir"] && given["out"]:
					return usagef("--dir names the eval directory itself; --out cannot be used with it")
				case given["cache"] && *noCache:
					return usagef("--cache and --no-cache cannot both be given")
				case *llmCache != "" && *llmCache != "off" && *llmCache != "read" && *llmCache != "readwrite":
					return usagef("--llm-cache must be off, read or readwrite, got %q", *llmCache)
				case given["baseline-version"] && *baseline == "":
					return usagef("--baseline-version picks a version of --baseline; give --baseline too")
				}
				gcfg := gate.Config{Alpha: *alpha, Test: *test, Margin: *margin, MarginA12: *marginA12}
				if err := gcfg.Validate(); err != nil {
					return usagef("%v", err)
				}
				if *baseline != "" {
					if err := checkBaselinePath(*baseline); err != nil {
						return err
					}
				}
				for _, p := range []struct{ flag, path string }{{"--junit", *junit}, {"$GITHUB_STEP_SUMMARY", os.Getenv("GITHUB_STEP_SUMMARY")}} {
					if p.path == "" {
						continue
					}
					if st, err := os.Stat(filepath.Dir(p.path)); err != nil || !st.IsDir() {
						return fmt.Errorf("%s %s: its directory does not exist", p.flag, p.path)
					}
				}
				resumeHint := func(dir string) string {
					cmd := []string{"evolve eval --resume " + dir}
					fs.Visit(func(f *flag.Flag) {
						switch f.Name {
						case "config", "split", "seeds", "repeats", "set", "store", "out", "dir", "resume":
						default:
							cmd = append(cmd, "--"+f.Name+"="+f.Value.String())
						}
					})
					return strings.Join(cmd, " ")
				}
				disp, err := progress.New(env.stderr, progress.Options{Quiet: *quiet, Format: *logFormat})
				if err != nil {
					return usagef("%v", err)
				}
				opt := eval.Options{Split: *split, SeedsFile: *seedsFile, Repeats: *repeats, Sets: sets, Out: *out, Dir: *dir,
					Workers: *workers, Observer: disp, Version: Version(), LLMCache: *llmCache}
				if !*noCache {
					dir := *cacheDir
					if dir == "" {
						if dir, err = cache.DefaultDir(); err != nil {
							return err
						}
					}
					if opt.Cache, err = cache.Open(dir); err != nil {
						return err
					}
				}
				var res *eval.Result
				if *resume != "" {
					res, err = eval.Resume(ctx, *resume, opt)
				} else {
					cfg := experiment.DefaultConfig()
					if *config != "" {
						if cfg, err = experiment.Load(*config); err != nil {
							disp.Close()
							return err
						}
					}
					opt.Config = cfg
					var versions []eval.Version
					for _, a := range args {
						v, err := eval.ResolvePrompt(a, *store)
						if err != nil {
							disp.Close()
							return err
						}
						versions = append(versions, *v)
					}
					labelVersions(versions)
					res, err = eval.Run(ctx, versions, opt)
				}
				disp.Close()
				if errors.Is(err, eval.ErrFinished) {
					fmt.Fprintln(env.stdout, err)
					return nil
				}
				var ie *eval.InterruptedError
				if errors.As(err, &ie) {
					return &exitError{code: interruptCode(ctx), err: fmt.Errorf("%v; the episodes played are in the cache; resume with: %s", err, resumeHint(ie.Dir))}
				}
				if err != nil {
					return err
				}
				if opt.Cache != nil {
					st := opt.Cache.Stats()
					disp.Logger().Info("eval done", "dir", res.Dir, "played", res.Played, "cached", res.Cached, "cache_corrupt", st.Corrupt)
				}
				if res.LLM != nil {
					disp.Logger().Info("model calls", "calls", res.LLM.Calls, "requests", res.LLM.Requests, "cache_hits", res.LLM.CacheHits,
						"prompt_tokens", res.LLM.PromptTokens, "completion_tokens", res.LLM.CompletionTokens)
				}
				checks, baseDesc, err := compareEval(res, *baseline, *baselineVersion, gcfg)
				if err != nil {
					return err
				}
				md := evalMarkdown(res, checks, baseDesc)
				if err := atomicfile.WriteFile(filepath.Join(res.Dir, "report.md"), []byte(md), 0o644); err != nil {
					return err
				}
				svg, err := eval.PlotScores(res.Dir, res, *baseline == "")
				if err != nil {
					return err
				}
				if err := atomicfile.WriteFile(filepath.Join(res.Dir, "report.html"), []byte(eval.HTML("Evaluation "+res.ID, md, svg)), 0o644); err != nil {
					return err
				}
				if err := gate.AppendStepSummary(gate.Markdown(checks, "evolve eval "+res.ID)); err != nil {
					return err
				}
				if *junit != "" {
					err := atomicfile.Write(*junit, 0o644, func(f *os.File) error { return gate.WriteJUnit(f, "evolve eval "+res.ID, checks) })
					if err != nil {
						return err
					}
				}
				if *jsonOut {
					data, err := gate.JSON(checks)
					if err != nil {
						return err
					}
					env.stdout.Write(append(data, '\n'))
				} else {
					printEval(env, res, checks)
				}
				if *failOn {
					var bad []string
					for _, c := range checks {
						if c.Regression {
							bad = append(bad, c.Message)
						}
					}
					if len(bad) > 0 {
						return &exitError{code: exitRegression, err: fmt.Errorf("regression: %s", strings.Join(bad, "; "))}
					}
				}
				return nil
			}
		},
	})
}

// labelVersions makes labels unique: a version shared by two arguments is
// labelled SLUG@VERSION, and if that is shared too, by its argument.
func labelVersions(vs []eval.Version) {
	count := map[string]int{}
	for _, v := range vs {
		count[v.Label]++
	}
	for i := range vs {
		if count[vs[i].Label] > 1 {
			vs[i].Label = vs[i].Prompt.SlugOrDefault() + "@" + vs[i].Label
		}
	}
	count = map[string]int{}
	for _, v := range vs {
		count[v.Label]++
	}
	for i := range vs {
		if count[vs[i].Label] > 1 {
			vs[i].Label = fmt.Sprintf("%s (%s)", vs[i].Label, vs[i].Source)
		}
	}
}

// checkBaselinePath refuses, before anything is played, a --baseline that
// is neither an episodes Parquet file nor a finished eval directory.
func checkBaselinePath(path string) error {
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

// readEvalManifest reads the manifest of the finished eval in dir.
func readEvalManifest(dir string) (*eval.Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, eval.ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("--baseline %s is not a finished eval directory (no %s): a baseline is the directory evolve eval wrote, or its %s", dir, eval.ManifestFile, eval.EpisodesFile)
	}
	var m eval.Manifest
	if err := yaml.Unmarshal(data, &m); err != nil || !strings.Contains(m.ID, "-eval-") {
		return nil, fmt.Errorf("--baseline %s: %s is not an eval's manifest (a run directory is not a baseline: evaluate its version with evolve eval RUN_DIR:VERSION)", dir, eval.ManifestFile)
	}
	return &m, nil
}

// compareEval compares the eval's versions with the baseline: its first
// version, or the version of the eval at path. A baseline eval must be
// comparable: the same environment configuration per variant, the same
// seeds and split, and every (seed, repeat) a candidate played. It returns
// the checks and a description of the baseline for the report.
func compareEval(res *eval.Result, path, version string, cfg gate.Config) ([]gate.Check, string, error) {
	var baseRows []results.EpisodeRow
	cands := res.Versions
	desc := ""
	if path == "" {
		if len(res.Versions) < 2 {
			return nil, "", nil
		}
		version = res.Versions[0].Label
		baseRows = res.Episodes
		cands = res.Versions[1:]
		desc = fmt.Sprintf("%s (%s), the first version of this eval", version, res.Versions[0].Source)
	} else {
		file := path
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			m, err := readEvalManifest(path)
			if err != nil {
				return nil, "", err
			}
			mine, err := readEvalManifest(res.Dir)
			if err != nil {
				return nil, "", err
			}
			for name, id := range mine.Variants {
				if theirs, ok := m.Variants[name]; !ok {
					return nil, "", fmt.Errorf("--baseline %s has no variant %q (it has %s)", path, name, variantNames(m.Variants))
				} else if theirs != id {
					return nil, "", fmt.Errorf("--baseline %s played variant %q with another environment configuration (%s, this eval %s): the comparison would not be fair", path, name, theirs, id)
				}
			}
			if m.SeedsSHA != mine.SeedsSHA || m.Split != mine.Split {
				return nil, "", fmt.Errorf("--baseline %s played other seeds (split %s, seeds sha256 %.12s…; this eval: split %s, %.12s…)", path, m.Split, m.SeedsSHA, mine.Split, mine.SeedsSHA)
			}
			if version == "" && len(m.Versions) > 0 {
				version = m.Versions[0].Label
			}
			file = filepath.Join(path, eval.EpisodesFile)
		}
		rows, _, err := results.ReadEpisodes(file)
		if err != nil {
			return nil, "", fmt.Errorf("--baseline: %w", err)
		}
		var versions []string
		for _, r := range rows {
			if !slices.Contains(versions, r.Version) {
				versions = append(versions, r.Version)
			}
		}
		if version == "" {
			if len(versions) != 1 {
				return nil, "", fmt.Errorf("--baseline %s holds versions %v: name one with --baseline-version", path, versions)
			}
			version = versions[0]
		}
		if !slices.Contains(versions, version) {
			return nil, "", fmt.Errorf("--baseline %s has no version %q (it has %v)", path, version, versions)
		}
		baseRows = rows
		desc = fmt.Sprintf("%s of %s", version, path)
	}
	var base, cand []gate.Sample
	for _, variant := range res.Variants {
		x, s, r := eval.Scores(baseRows, variant, version)
		if len(x) == 0 {
			return nil, "", fmt.Errorf("the baseline %s has no episodes on %s", version, variantDesc(variant))
		}
		have := map[[2]uint64]bool{}
		for i := range s {
			have[[2]uint64{s[i], uint64(r[i])}] = true
		}
		base = append(base, gate.Sample{Version: version, Variant: variant, Seeds: s, Repeats: r, Scores: x})
		for _, v := range cands {
			x, s, r := eval.Scores(res.Episodes, variant, v.Label)
			for i := range s {
				if !have[[2]uint64{s[i], uint64(r[i])}] {
					return nil, "", fmt.Errorf("the baseline %s did not play seed %d (repeat %d) on %s: evaluate both on the same seeds and repeats", version, s[i], r[i], variantDesc(variant))
				}
			}
			cand = append(cand, gate.Sample{Version: v.Label, Variant: variant, Seeds: s, Repeats: r, Scores: x})
		}
	}
	checks, err := gate.Compare(base, cand, cfg)
	return checks, desc, err
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

// evalMarkdown is report.md: the settings, the summary per version and
// variant, and the comparisons.
func evalMarkdown(res *eval.Result, checks []gate.Check, baseline string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Evaluation %s\n\n", res.ID)
	fmt.Fprintf(&b, "%d version(s) on %d variant(s); %d episodes played, %d replayed from the cache.\n\n", len(res.Versions), len(res.Variants), res.Played, res.Cached)
	b.WriteString("| variant | version | n | mean [95% CI] | median | IQM [95% CI] | std |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range res.Summaries {
		variant := s.Variant
		if variant == "" {
			variant = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.1f [%.1f, %.1f] | %.1f | %.1f [%.1f, %.1f] | %.1f |\n", variant, s.Version, s.N, s.Mean, s.CILow, s.CIHigh, s.Median, s.IQM, s.IQMCILow, s.IQMCIHigh, s.Std)
	}
	if len(checks) > 0 {
		b.WriteString("\nBaseline: " + baseline + ".\n\n")
		b.WriteString(gate.Markdown(checks, "Comparisons with the baseline"))
	}
	b.WriteString("\n![Scores per version](plots/scores.png)\n\n## Versions\n\n")
	for _, v := range res.Versions {
		fmt.Fprintf(&b, "- %s: %s (content_sha256 %s)\n", v.Label, v.Source, v.Prompt.ContentSHA256)
	}
	return b.String()
}

// printEval prints the summary table and the comparisons.
func printEval(env *cmdEnv, res *eval.Result, checks []gate.Check) {
	w := tabwriter.NewWriter(env.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(w, "variant\tversion\tn\tmean\t95% CI\tIQM")
	for _, s := range res.Summaries {
		fmt.Fprintf(w, "%s\t%s\t%d\t%.1f\t[%.1f, %.1f]\t%.1f\n", orDash(s.Variant), s.Version, s.N, s.Mean, s.CILow, s.CIHigh, s.IQM)
	}
	w.Flush()
	if len(checks) > 0 {
		fmt.Fprintln(env.stdout)
		for _, c := range checks {
			fmt.Fprintln(env.stdout, c.Message)
		}
	}
	fmt.Fprintf(env.stdout, "\neval directory: %s (%d played, %d from the cache)\n", res.Dir, res.Played, res.Cached)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
