package bandit

import (
	"fmt"
	"math"
	"strings"

	"evolve/agent"
)

// Markdown returns the study's summary as Markdown: the settings, the
// contexts with their signals, each version's mean reward per context,
// the policies' final cumulative regret with 95% CIs and paired
// differences to the seed's, the regret by context, the rollback study,
// and the methods with their sources. It is a pure function of res.
func Markdown(res *Result) string {
	var b strings.Builder
	cfg, t := &res.Config, res.Table
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Bandit simulation on the dungeon\n\n")
	p("%d requests per stream, %d streams (repeats), epsilon %g, EMA alpha %g, seed %d; "+
		"each request's context uniform over %d contexts and its episode seed uniform over the first %d seeds of the embedded test split.\n\n",
		cfg.Requests, cfg.Repeats, cfg.Epsilon, cfg.Alpha, cfg.Seed, len(cfg.Contexts), len(t.Seeds))

	p("## Contexts\n\n| context | dungeon | %s | %s | %s | score scale |\n| --- | --- | ---: | ---: | ---: | ---: |\n",
		SignalTimePressure, SignalGoalNear, SignalStallRisk)
	for c, cx := range t.Contexts {
		s := cx.Signals()
		p("| %s | %s | %.2f | %.2f | %.2f | %.0f |\n", cx.Name, cx.Description, s[SignalTimePressure], s[SignalGoalNear], s[SignalStallRisk], t.Scale[c])
	}

	p("\n## Versions: mean reward per context\n\n")
	p("Reward = the episode's score / the context's score scale (its highest score), in [0, 1]; the best version of each context in bold.\n\n")
	p("| version | parameters (vs the base prompt) | context weights |")
	for _, cx := range t.Contexts {
		p(" %s |", cx.Name)
	}
	p("\n| --- | --- | --- |%s\n", strings.Repeat(" ---: |", len(t.Contexts)))
	base := agent.BaseParameters()
	for v, ver := range t.Versions {
		p("| %s | %s | %s |", ver.Name, paramDiff(ver.Params, base), weightsText(ver.ContextWeights))
		for c := range t.Contexts {
			if t.Best[c] == v {
				p(" **%.3f** |", t.Mean[c][v])
			} else {
				p(" %.3f |", t.Mean[c][v])
			}
		}
		p("\n")
	}

	p("\n## Cumulative regret after %d requests\n\n", cfg.Requests)
	p("Mean over %d streams with its 95%% CI; \"vs seed\" is the mean paired difference to %s on the same streams with its 95%% CI (negative: less regret).\n\n", cfg.Repeats, PolicySeed)
	p("| policy | regret | 95%% CI | vs seed | 95%% CI | best version chosen | mean reward |\n| --- | ---: | --- | ---: | --- | ---: | ---: |\n")
	for _, s := range res.Summaries {
		vs, vsci := "-", "-"
		if s.VsSeed.N > 0 && s.Policy != PolicySeed {
			vs, vsci = fmt.Sprintf("%+.1f", s.VsSeed.Mean), ci(s.VsSeed.CILow, s.VsSeed.CIHigh, "%+.1f")
		}
		p("| %s | %.1f | %s | %s | %s | %.1f%% | %.3f |\n", s.Policy, s.Final.Mean, ci(s.Final.CILow, s.Final.CIHigh, "%.1f"), vs, vsci, 100*s.OptimalShare, s.MeanReward)
	}
	p("\n")
	for _, s := range res.Summaries {
		p("- %s: %s\n", s.Policy, policyDescriptions[s.Policy])
	}

	p("\n## Regret by context\n\nMean regret accrued in each context over a stream.\n\n| policy |")
	for _, cx := range t.Contexts {
		p(" %s |", cx.Name)
	}
	p("\n| --- |%s\n", strings.Repeat(" ---: |", len(t.Contexts)))
	for _, s := range res.Summaries {
		p("| %s |", s.Policy)
		for _, x := range s.ByContext {
			p(" %.1f |", x)
		}
		p("\n")
	}

	rb := &res.Rollback
	rc := &rb.Config
	p("\n## Auto-rollback\n\n")
	p("Version %s's observation scores are its rewards in the stream (mean %.3f, sigma %.3f; a mixture over the contexts, not normal); from a score on, each is lowered by shift x sigma. "+
		"Rule: baseline %d scores, windows of %d, K %g (online.RollbackRule). %d seeded trials per shift, %d scores watched after the baseline, the drop after %d + (trial mod %d) of them. "+
		"A false rollback is an alarm before the drop (any alarm at shift 0); detected = an alarm within %d scores of the drop. Rates with 95%% Wilson CIs; delays are scores of the degraded version to the alarm.\n\n",
		rc.Version, rb.Mean, rb.SD, rc.Rule.Baseline, rc.Rule.Window, rc.Rule.K, rc.Trials, rc.Horizon, rc.ChangeAt, rc.Rule.Window, rc.Rule.DetectionWindow())
	p("| shift | false rollbacks | 95%% CI | detected within %d | 95%% CI | delay median | delay p95 |\n| ---: | ---: | --- | ---: | --- | ---: | ---: |\n", rc.Rule.DetectionWindow())
	for _, sc := range rb.Scenarios {
		r := sc.Result
		det, detCI, med, p95 := "-", "-", "-", "-"
		if sc.Shift > 0 {
			det = fmt.Sprintf("%d/%d = %.1f%%", r.InWindow, r.Trials, 100*r.DetectionRate())
			detCI = ci(100*sc.DetectionCI[0], 100*sc.DetectionCI[1], "%.1f%%")
			if len(r.Delays) > 0 {
				med, p95 = fmt.Sprint(r.DelayQuantile(0.5)), fmt.Sprint(r.DelayQuantile(0.95))
			}
		}
		p("| %g sigma | %d/%d = %.2f%% | %s | %s | %s | %s | %s |\n", sc.Shift, r.Early, r.Trials, 100*r.FalseRate(), ci(100*sc.FalseCI[0], 100*sc.FalseCI[1], "%.2f%%"), det, detCI, med, p95)
	}

	p("\n## Methods\n\n")
	p("- Episodes: every version is played once in every context on every pool seed (play.Runner, the scripted agent); a request's reward is looked up, so all policies see the same episodes for the same requests (common random numbers), and the streams are the same for every policy.\n")
	p("- Regret: pseudo-regret, the context's best mean reward minus the chosen version's mean reward, summed over requests (Lattimore & Szepesvári, Bandit Algorithms, 2020, ch. 4); the oracle's is 0 by construction.\n")
	p("- CIs: Student t intervals over the independent streams, mean ± t(0.975, R-1) s/√R (stats.Summarize); the paired differences use the same interval on per-stream differences.\n")
	p("- Policies: UCB1 (Auer, Cesa-Bianchi & Fischer, Machine Learning 47, 2002); Thompson sampling (Thompson 1933) with Beta(1,1) priors and the Bernoulli trick for rewards in [0, 1] (Agrawal & Goyal, COLT 2012); epsilon-greedy (Sutton & Barto, 2018, sec. 2.2). " +
		"The learners run per context (four contexts, each with about a quarter of the requests); the seed keeps one EMA weight per version across contexts and meets the context only through its hand-set context weights (online.TotalScore).\n")
	p("- Rollback: online.RollbackStudy with the version's rewards as its score model; the false rollback rate and detection rate with Wilson score intervals (Wilson 1927).\n")
	return b.String()
}

// ci formats an interval with format, "-" if it is undefined.
func ci(lo, hi float64, format string) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	return "[" + fmt.Sprintf(format, lo) + ", " + fmt.Sprintf(format, hi) + "]"
}
