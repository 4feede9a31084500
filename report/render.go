package report

import (
	"bytes"
	"cmp"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"

	"evolve/envs"
	"evolve/gate"
	"evolve/internal/format"
	"evolve/results"
	"evolve/rundir"
	"evolve/stats"
)

// The report is built once as a small document model and rendered to
// Markdown and HTML, so the two always say the same thing.

type blockKind int

const (
	heading blockKind = iota
	para
	table
	list
	figureBlock
)

type block struct {
	kind  blockKind
	text  string     // heading, para; figure: title
	level int        // heading
	head  []string   // table
	right []bool     // table: right-aligned columns
	rows  [][]string // table
	items []string   // list
	name  string     // figure: base name under plots/
	note  string     // figure: caption
}

// document builds the report's blocks: the settings, the result on the
// test split, the lineage, the generations, the candidates, the model
// usage, the methods and the files.
func (d *Data) document() []block {
	b := []block{{kind: heading, level: 1, text: "Evolution run " + d.Manifest.RunID}, d.settings()}
	b = append(b, block{kind: heading, level: 2, text: "Result on the test split"}, block{kind: para, text: d.verdict()})
	b = append(b, d.testBlocks()...)
	b = append(b, block{kind: heading, level: 2, text: "Lineage"}, d.lineage(), d.figure(results.LineageName))
	b = append(b, block{kind: heading, level: 2, text: "Generations"}, d.generations(),
		d.figure(results.ValByGenerationName), d.figure(results.FailureCausesName))
	b = append(b, block{kind: heading, level: 2, text: "Candidates"}, d.candidates(), d.figure(results.CandidatesName))
	if u := d.modelUsage(); u != nil {
		b = append(b, block{kind: heading, level: 2, text: "Model usage"},
			block{kind: para, text: "Per version, over all its episodes (train, val and test): the completions the language-model agent needed (corrections included) and the tokens the server reported; a rerun from the response cache reproduces them."},
			*u)
	}
	return append(b, block{kind: heading, level: 2, text: "Methods"}, block{kind: para, text: d.methods()},
		block{kind: heading, level: 2, text: "Files"}, d.files())
}

// settings is the table of the run's settings, stop reason, software and
// times.
func (d *Data) settings() block {
	m, s := d.Manifest, d.Settings
	t := block{kind: table, head: []string{"", ""}, rows: [][]string{
		{"environment", s.Environment},
		{"seed sets", fmt.Sprintf("train %d, val %d, test %d (sha256 %s, %s, %s)",
			m.SeedCounts["train"], m.SeedCounts["val"], m.SeedCounts["test"],
			short(m.Seeds["train"]), short(m.Seeds["val"]), short(m.Seeds["test"]))},
		{"acceptance", fmt.Sprintf("one-sided %s test, candidate > incumbent on val, %s correction, α = %s%s; %d candidates per generation%s",
			testLong(s.Test), s.correctionName(), num(s.Alpha), s.spendingNote(), s.Candidates, s.sequentialNote())},
		{"generations", fmt.Sprintf("%d (at most %d, patience %d)", m.Generations, s.MaxGenerations, s.Patience)},
		{"versions", fmt.Sprintf("base %s, final %s", m.BaseVersion, m.FinalVersion)},
	}}
	if m.StopReason != "" {
		stop := rundir.StopText(m.StopReason, s.Patience, s.MaxGenerations)
		if m.StopHint != "" {
			stop += " (" + m.StopHint + ")"
		}
		t.rows = append(t.rows, []string{"stopped", stop})
	}
	t.rows = append(t.rows, [][]string{
		{"software", fmt.Sprintf("evolve %s, %s", m.Evolve, m.Go)},
		{"started", stamp(m.Started)},
		{"finished", stamp(m.Finished)},
	}...)
	return t
}

// testBlocks are the test split's table of versions, its warnings, and
// the comparison of final with base.
func (d *Data) testBlocks() []block {
	var b []block
	if len(d.Test) > 0 {
		t := block{kind: table, head: []string{"version", "role", "n", "mean [95% t CI]", "mean 95% BCa CI", "median", "IQM [95% BCa CI]"},
			right: []bool{false, false, true, true, true, true, true}}
		for _, v := range d.Test {
			t.rows = append(t.rows, []string{v.Version, v.Role, strconv.Itoa(v.Summary.N),
				withCI(v.Summary.Mean, v.Summary.CILow, v.Summary.CIHigh), cmp.Or(ci(v.MeanBCa.Low, v.MeanBCa.High), format.Dash.Missing),
				f1(v.Summary.Median), withCI(v.IQM.Point, v.IQM.Low, v.IQM.High)})
		}
		b = append(b, t)
		for _, v := range d.Test {
			if v.Errors > 0 {
				b = append(b, block{kind: para, text: fmt.Sprintf("Errors: %d test episodes of %s ended in an error (on_episode_panic: record); they are left out of its n, mean, intervals and tests (episode_errors.jsonl has each error).", v.Errors, v.Version)})
			}
			if v.Summary.N < 10 {
				b = append(b, block{kind: para, text: fmt.Sprintf("Warning: %s has %d test scores; with fewer than 10 no interval reaches its confidence level reliably (with skewed scores a 95%% interval covers 75-90%%; see docs/statistics.md).", v.Version, v.Summary.N)})
			}
		}
	}
	if len(d.Compare) == 0 {
		return b
	}
	c := d.Compare[0]
	t := block{kind: table, head: []string{"final vs base (two-sided)", "statistic", "p"}, right: []bool{false, true, true}}
	t.rows = append(t.rows, []string{"Mann-Whitney U (" + c.Method + ")", "U = " + num(c.Statistic), pval(c.P)})
	for _, sr := range d.Compare[1:] {
		t.rows = append(t.rows, []string{fmt.Sprintf("Wilcoxon signed-rank, paired by seed (%s, %d pairs)", sr.Method, sr.N),
			"V = " + num(sr.Statistic), pval(sr.P)})
	}
	t.rows = append(t.rows,
		[]string{"A12 (P(final > base))", f3(c.A12), ""},
		[]string{"Hodges-Lehmann shift [95% CI]", withCI(c.HLShift, c.HLLow, c.HLHigh), ""},
		[]string{"difference of means", signed(c.MeanDiff) + fmt.Sprintf(" (%+.1f%%)", 100*relDiff(c)), ""})
	return append(b, t)
}

// lineage is the list of accepted versions, base first.
func (d *Data) lineage() block {
	var items []string
	for _, st := range d.Lineage {
		if st.Parent == "" {
			items = append(items, fmt.Sprintf("%s (base): val mean %s, n = %d", st.Version, withCI(st.Mean, st.CILow, st.CIHigh), st.N))
			continue
		}
		items = append(items, fmt.Sprintf("%s, accepted in generation %d: %s; val mean %s, n = %d; p (adj.) = %s, A12 = %s",
			st.Version, st.Generation, st.Mutation, withCI(st.Mean, st.CILow, st.CIHigh), st.N, pval(st.PAdj), f3(st.A12)))
	}
	return block{kind: list, items: items}
}

// figure is the figure block of the figure named name (a results.*Name).
func (d *Data) figure(name string) block {
	for _, f := range d.figures() {
		if f.name == name {
			return block{kind: figureBlock, name: f.name, text: f.title, note: f.caption}
		}
	}
	return block{kind: figureBlock, name: name}
}

// generations is the table of generations: the incumbent's val
// statistics, its train failures by cause (and errors), the decision.
func (d *Data) generations() block {
	g := block{kind: table,
		head:  []string{"gen", "incumbent", "n val", "val mean [95% CI]", "val IQM", "train failures"},
		right: []bool{true, false, true, true, true, true}}
	for _, c := range d.Causes {
		g.head = append(g.head, strings.ReplaceAll(c.Name, "_", " "))
		g.right = append(g.right, true)
	}
	errCol := d.errorEpisodes() > 0
	if errCol {
		g.head = append(g.head, "errors")
		g.right = append(g.right, true)
	}
	g.head = append(g.head, "accepted", "p (adj.)")
	g.right = append(g.right, false, true)
	for _, r := range d.Generations {
		acc, p := "–", "–"
		if r.Accepted != "" {
			acc = r.Accepted
		}
		if r.AcceptedP != nil {
			p = pval(*r.AcceptedP)
		}
		row := []string{strconv.Itoa(int(r.Generation)), r.Incumbent, strconv.Itoa(int(r.NVal)),
			withCI(r.ValMean, r.ValCILow, r.ValCIHigh), f1(r.ValIQM),
			fmt.Sprintf("%d / %d", r.Failures, r.NTrain)}
		declared := int32(0)
		for i := range d.Causes {
			n := "–"
			if i < len(r.CauseCounts) {
				n = strconv.Itoa(int(r.CauseCounts[i]))
				declared += r.CauseCounts[i]
			}
			row = append(row, n)
		}
		if errCol {
			// Failures counts the error episodes too (they did not succeed).
			row = append(row, strconv.Itoa(int(r.Failures-declared)))
		}
		g.rows = append(g.rows, append(row, acc, p))
	}
	return g
}

// candidates is the table of every candidate's val statistics and test;
// the V column only under the signed-rank test.
func (d *Data) candidates() block {
	signedRank := d.Settings.Test == stats.TestSignedRank // only the signed-rank test has a V column
	c := block{kind: table,
		head:  []string{"gen", "version", "parent", "mutation", "n", "val mean [95% CI]", "IQM", "U", "V", "p", "p (adj.)", "A12", "accepted"},
		right: []bool{true, false, false, false, true, true, true, true, true, true, true, true, false}}
	for _, r := range d.Candidates {
		acc := ""
		if r.Accepted {
			acc = "yes"
		}
		v := "–"
		if r.V != nil && r.Test == string(stats.TestSignedRank) {
			v = num(*r.V)
		}
		row := []string{strconv.Itoa(int(r.Generation)), r.Version, r.Parent, r.Mutation, strconv.Itoa(int(r.N)),
			withCI(r.Mean, r.CILow, r.CIHigh), f1(r.IQM), num(r.U), v, pval(r.P), pval(r.PAdj), f3(r.A12), acc}
		if !signedRank { // only the signed-rank test has a V column
			row = append(row[:8], row[9:]...)
		}
		c.rows = append(c.rows, row)
	}
	if !signedRank {
		c.head = append(c.head[:8], c.head[9:]...)
		c.right = append(c.right[:8], c.right[9:]...)
	}
	return c
}

// files is the list of the files of the run directory.
func (d *Data) files() block {
	metrics := "no metrics"
	if len(d.Metrics) > 0 {
		var names []string
		for _, m := range d.Metrics {
			names = append(names, m.Name)
		}
		metrics = "the environment's metrics " + strings.Join(names, ", ")
	}
	files := []string{
		"manifest.yaml: the resolved config, seed hashes, software versions and timestamps",
		"episodes.parquet: one row per episode (generation, version, split, seed, score, cause, end_reason; " + metrics + ")",
		"candidates.parquet: one row per candidate (val statistics, U, V, p, adjusted p, A12, accepted)",
		"generations.parquet: one row per generation (incumbent, val statistics, train failures by cause, decision)",
		"prompts/: every version written, as immutable YAML with its mutation history and evidence",
		"results.tex: the tables of this report for LaTeX (booktabs)",
		"plots/: the figures of this report in PNG, SVG and PDF",
	}
	if d.errorEpisodes() > 0 {
		files = append(files, "episode_errors.jsonl: each episode that could not be played (cause error), with its seed and message")
	}
	return block{kind: list, items: files}
}

// verdict is the report's one-paragraph answer.
func (d *Data) verdict() string {
	m := d.Manifest
	accepted := len(d.Lineage) - 1
	if len(d.Test) == 0 && d.TestErrors > 0 {
		return fmt.Sprintf("The run accepted %d mutation(s) from %s to %s; all %d of its test episodes ended in an error, so no test score is stated (episode_errors.jsonl has each error).", max(accepted, 0), m.BaseVersion, m.FinalVersion, d.TestErrors)
	}
	if len(d.Test) == 0 {
		return fmt.Sprintf("The run accepted %d mutation(s) from %s to %s; it has no test episodes.", max(accepted, 0), m.BaseVersion, m.FinalVersion)
	}
	if len(d.Compare) == 0 {
		v := d.Test[0]
		return fmt.Sprintf("No candidate was accepted: the base version %s stays, with a mean test score of %s (95%% CI %s to %s) over %d episodes.",
			v.Version, f1(v.Summary.Mean), f1(v.Summary.CILow), f1(v.Summary.CIHigh), v.Summary.N)
	}
	b, f, c := d.Test[0], d.Test[1], d.Compare[0]
	return fmt.Sprintf("After %d accepted mutation(s), the final version %s has a mean test score of %s (95%% CI %s to %s) over %d episodes, "+
		"against %s (%s to %s) for the base version %s: %s points (%+.1f%%), "+
		"Hodges-Lehmann shift %s (95%% CI %s to %s), A12 = %s, two-sided Mann-Whitney p = %s.",
		accepted, f.Version, f1(f.Summary.Mean), f1(f.Summary.CILow), f1(f.Summary.CIHigh), f.Summary.N,
		f1(b.Summary.Mean), f1(b.Summary.CILow), f1(b.Summary.CIHigh), b.Version, signed(c.MeanDiff), 100*relDiff(c),
		f1(c.HLShift), f1(c.HLLow), f1(c.HLHigh), f3(c.A12), pval(c.P))
}

// methods states how every number was computed.
func (d *Data) methods() string {
	s := d.Settings
	gate := acceptanceTest(s.Test).Methods
	return "Each generation evaluates the incumbent and its candidates on the same frozen val seeds and accepts the candidate with the best val mean among those significant under " +
		gate + ", with the p-values of a generation's candidates adjusted by the " + titleCase(s.Correction) + " correction at family-wise α = " + num(s.Alpha) +
		s.methodsSpending() +
		". Means carry Student t 95% confidence intervals. IQM is the interquartile mean (25% trimmed mean, scipy.stats.trim_mean); its 95% CI is the BCa (bias-corrected and accelerated; Efron 1987) interval of " +
		strconv.Itoa(BootstrapReps) + " bootstrap resamples (PCG seed " + strconv.Itoa(BootstrapSeed) + "). " +
		"A12 is the Vargha-Delaney effect size U/(n1·n2), the probability that a random episode of the first version outscores one of the second (ties count half). " +
		"The Hodges-Lehmann shift is the median of pairwise differences with its 95% CI as R's wilcox.test(conf.int = TRUE). " +
		"U is the first version's statistic, R's W for wilcox.test(first, second); V is R's V of the paired test."
}

// Markdown renders the report as GitHub-flavoured Markdown; figures link
// to plots/<name>.svg.
func (d *Data) Markdown() []byte {
	var w bytes.Buffer
	for i, b := range d.document() {
		if i > 0 {
			w.WriteString("\n")
		}
		switch b.kind {
		case heading:
			fmt.Fprintf(&w, "%s %s\n", strings.Repeat("#", b.level), b.text)
		case para:
			fmt.Fprintf(&w, "%s\n", b.text)
		case list:
			for _, it := range b.items {
				fmt.Fprintf(&w, "- %s\n", it)
			}
		case figureBlock:
			fmt.Fprintf(&w, "![%s](%s/%s.svg)\n\n*%s* %s\n", b.text, PlotsDir, b.name, b.text+".", b.note)
		case table:
			w.WriteString("|")
			for _, h := range b.head {
				fmt.Fprintf(&w, " %s |", format.Cell(h))
			}
			w.WriteString("\n|")
			for j := range b.head {
				if j < len(b.right) && b.right[j] {
					w.WriteString(" ---: |")
				} else {
					w.WriteString(" --- |")
				}
			}
			w.WriteString("\n")
			for _, r := range b.rows {
				w.WriteString("|")
				for _, c := range r {
					fmt.Fprintf(&w, " %s |", format.Cell(c))
				}
				w.WriteString("\n")
			}
		}
	}
	return w.Bytes()
}

// HTML renders the report as one self-contained HTML page (the page and
// stylesheet of format.WritePage, format.RunPage): no scripts, no
// external resources; svgs maps a figure's base name to its SVG file,
// inlined (without its XML prolog). A figure missing from svgs is left
// out with a note.
func (d *Data) HTML(svgs map[string][]byte) []byte {
	var w bytes.Buffer
	esc := html.EscapeString
	for _, b := range d.document() {
		switch b.kind {
		case heading:
			fmt.Fprintf(&w, "<h%d>%s</h%d>\n", b.level, esc(b.text), b.level)
		case para:
			fmt.Fprintf(&w, "<p>%s</p>\n", esc(b.text))
		case list:
			w.WriteString("<ul>\n")
			for _, it := range b.items {
				fmt.Fprintf(&w, "<li>%s</li>\n", esc(it))
			}
			w.WriteString("</ul>\n")
		case figureBlock:
			fmt.Fprintf(&w, "<figure id=\"%s\">\n", esc(b.name))
			if svg, ok := svgs[b.name]; ok {
				w.Write(bytes.TrimSpace(format.InlineSVG(svg)))
				w.WriteString("\n")
			} else {
				fmt.Fprintf(&w, "<p>(figure %s.svg not available)</p>\n", esc(b.name))
			}
			fmt.Fprintf(&w, "<figcaption><b>%s.</b> %s</figcaption>\n</figure>\n", esc(b.text), esc(b.note))
		case table:
			class := func(j int) string {
				if j < len(b.right) && b.right[j] {
					return ` class="r"`
				}
				return ""
			}
			w.WriteString("<table>\n<thead><tr>")
			for j, h := range b.head {
				fmt.Fprintf(&w, "<th%s>%s</th>", class(j), esc(h))
			}
			w.WriteString("</tr></thead>\n<tbody>\n")
			for _, r := range b.rows {
				w.WriteString("<tr>")
				for j, c := range r {
					fmt.Fprintf(&w, "<td%s>%s</td>", class(j), esc(c))
				}
				w.WriteString("</tr>\n")
			}
			w.WriteString("</tbody>\n</table>\n")
		}
	}
	var page bytes.Buffer
	format.WritePage(&page, format.Page{Kind: format.RunPage, Title: "Evolution run " + d.Manifest.RunID, Body: w.Bytes()}) // a bytes.Buffer does not fail
	return page.Bytes()
}

// acceptanceTest is the registration of a run's acceptance test t, that
// of stats.TestMWU for a name that is not an acceptance test (a run from
// before the setting existed).
func acceptanceTest(t stats.TestName) stats.TestSpec {
	if spec, ok := stats.LookupTest(t); ok && spec.Uses&stats.UseAcceptance != 0 {
		return spec
	}
	spec, _ := stats.LookupTest(stats.TestMWU)
	return spec
}

// testLong is the report's name of the acceptance test t.
func testLong(t stats.TestName) string { return acceptanceTest(t).Title }

// relDiff is c's difference of means relative to the baseline's mean
// (±Inf, or NaN for no difference, when that mean is 0).
func relDiff(c gate.Check) float64 { return c.MeanDiff / c.BaselineMean }

func short(h string) string {
	if len(h) > 8 {
		return h[:8] + "…"
	}
	return h
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format(time.RFC3339)
}

// The report's number formats (package format, missing values as "–"):
// scores with one decimal (f1), effect sizes with three (f3), differences
// with a sign and one decimal (signed), p-values with two significant
// digits (pval), statistics and levels in their shortest exact form (num,
// NaN as Go spells it), and intervals of scores (withCI: "x [lo, hi]", ci:
// "[lo, hi]" or "" when undefined).
func f1(x float64) string             { return format.Dash.Fixed(x, 1) }
func f3(x float64) string             { return format.Dash.Fixed(x, 3) }
func signed(x float64) string         { return format.Dash.Signed(x, 1) }
func pval(p float64) string           { return format.Dash.P(p) }
func num(x float64) string            { return format.Plain.Exact(x) }
func withCI(x, lo, hi float64) string { return format.Dash.WithInterval(x, lo, hi, 1) }
func ci(lo, hi float64) string        { return format.Dash.Interval(lo, hi, 1) }

// errorEpisodes counts the episodes that could not be played (cause
// "error"), recorded with on_episode_panic: record.
func (d *Data) errorEpisodes() int {
	n := 0
	for i := range d.Episodes {
		if d.Episodes[i].Cause == envs.CauseError {
			n++
		}
	}
	return n
}

// modelUsage is the table of model calls, tokens, fallback turns (and
// their rate, of turns: calls less corrections), corrections and
// unusable replies per version, or nil if the episodes have no
// model_calls metric (no language-model agent).
func (d *Data) modelUsage() *block {
	col := map[string]int{}
	for i, m := range d.Metrics {
		col[m.Name] = i
	}
	calls, ok := col["model_calls"]
	if !ok {
		return nil
	}
	type usage struct{ episodes, calls, prompt, completion, fallbacks, corrections, unusable float64 }
	by := map[string]*usage{}
	var versions []string
	for _, e := range d.Episodes {
		u := by[e.Version]
		if u == nil {
			u = &usage{}
			by[e.Version] = u
			versions = append(versions, e.Version)
		}
		u.episodes++
		get := func(name string) float64 {
			if i, ok := col[name]; ok && i < len(e.Metrics) && !e.Metrics[i].Null {
				return e.Metrics[i].Num
			}
			return 0
		}
		u.calls += e.Metrics[calls].Num
		u.prompt += get("prompt_tokens")
		u.completion += get("completion_tokens")
		u.fallbacks += get("fallbacks")
		u.corrections += get("corrections")
		u.unusable += get("unusable_replies")
	}
	slices.SortFunc(versions, results.CompareVersions)
	b := block{kind: table, head: []string{"version", "episodes", "model calls", "calls per episode", "prompt tokens", "completion tokens",
		"fallback turns", "fallback rate", "corrections", "unusable replies"},
		right: []bool{false, true, true, true, true, true, true, true, true, true}}
	for _, v := range versions {
		u := by[v]
		// The fallback rate is of turns: model calls less corrections.
		rate := "–"
		if turns := u.calls - u.corrections; turns > 0 {
			rate = fmt.Sprintf("%.2f%%", 100*u.fallbacks/turns)
		}
		b.rows = append(b.rows, []string{v, fmt.Sprintf("%.0f", u.episodes), fmt.Sprintf("%.0f", u.calls),
			fmt.Sprintf("%.1f", u.calls/u.episodes), fmt.Sprintf("%.0f", u.prompt), fmt.Sprintf("%.0f", u.completion),
			fmt.Sprintf("%.0f", u.fallbacks), rate, fmt.Sprintf("%.0f", u.corrections), fmt.Sprintf("%.0f", u.unusable)})
	}
	return &b
}
