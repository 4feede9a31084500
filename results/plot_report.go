package results

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"evolve/envs"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Base names, without extension, of the report's further figures.
const (
	FailureCausesName = "failure_causes"
	LineageName       = "lineage"
)

// causePalette colours the failure causes by their declared position: the
// colour-blind-safe Okabe-Ito palette without black, in an order that gives
// the dungeon's causes (injury, combat_loss, starvation, entrapment) the
// colours they always had. Causes beyond it get [causeColor]'s generated
// colours.
var causePalette = []color.Color{
	color.NRGBA{R: 213, G: 94, B: 0, A: 255},    // vermillion
	color.NRGBA{R: 204, G: 121, B: 167, A: 255}, // reddish purple
	color.NRGBA{R: 230, G: 159, B: 0, A: 255},   // orange
	color.NRGBA{R: 86, G: 180, B: 233, A: 255},  // sky blue
	color.NRGBA{R: 0, G: 158, B: 115, A: 255},   // bluish green
	color.NRGBA{R: 0, G: 114, B: 178, A: 255},   // blue
	color.NRGBA{R: 240, G: 228, B: 66, A: 255},  // yellow
}

// colorOther is the colour of failures of no declared cause.
var colorOther = color.Gray{Y: 160}

// causeColor returns the colour of the k-th declared cause (from 0): the
// palette's, then hues 137.5° (the golden angle) apart at 65% saturation
// and 55% lightness, which stay distinct for any number of causes and
// depend on k alone.
func causeColor(k int) color.Color {
	if k < len(causePalette) {
		return causePalette[k]
	}
	h := math.Mod(float64(k-len(causePalette))*137.50776405003785+15, 360) / 60
	const s, l = 0.65, 0.55
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(h, 2)-1))
	var r, g, b float64
	switch int(h) {
	case 0:
		r, g = c, x
	case 1:
		r, g = x, c
	case 2:
		g, b = c, x
	case 3:
		g, b = x, c
	case 4:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := l - c/2
	u8 := func(v float64) uint8 { return uint8(math.Round((v + m) * 255)) }
	return color.NRGBA{R: u8(r), G: u8(g), B: u8(b), A: 255}
}

// FailureCausesFigure builds the figure PlotFailureCauses saves: one
// stacked bar per generation (ascending, labelled "g<generation>" over the
// incumbent version) of the incumbent's train failures split by cause, in
// episodes. causes are the environment's declared failure causes (as
// [ReadGenerations] returns them), stacked bottom first in their order and
// named in the legend; each row's CauseCounts is indexed like causes (nil
// counts as zeros). Failures not attributed to a declared cause
// (GenerationRow.Failures minus the sum of CauseCounts) are stacked on top
// as "other", in grey, if any generation has some. The figure is 1.6 + 0.6
// inch per generation wide (at least 6 inches) and 4.5 inches high.
//
// It returns an error wrapping ErrNoData if gens is empty, and
// ErrInvalidRow if the rows belong to more than one run or a row's
// CauseCounts is neither nil nor of len(causes) entries.
func FailureCausesFigure(gens []GenerationRow, causes []envs.Cause) (Figure, error) {
	if len(gens) == 0 {
		return Figure{}, fmt.Errorf("%w: no generation rows for %s", ErrNoData, FailureCausesName)
	}
	if err := oneRun(FailureCausesName, gens, nil, nil); err != nil {
		return Figure{}, err
	}
	for _, g := range gens {
		if g.CauseCounts != nil && len(g.CauseCounts) != len(causes) {
			return Figure{}, fmt.Errorf("%w: plot %s: generation %d has %d cause counts, %d causes declared",
				ErrInvalidRow, FailureCausesName, g.Generation, len(g.CauseCounts), len(causes))
		}
	}
	gens = slices.Clone(gens)
	SortGenerations(gens)

	p := plot.New()
	p.Title.Text = "Incumbent train failures by cause"
	p.Y.Label.Text = "failed train episodes"
	p.Y.Tick.Marker = niceTicks{n: 8}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.ThumbnailWidth = vg.Points(12)

	labels := make([]string, len(gens))
	for i, g := range gens {
		labels[i] = fmt.Sprintf("g%d\n%s", g.Generation, g.Incumbent)
	}
	names, counts, maxTotal := failureSeries(gens, causes)
	var below *plotter.BarChart
	var bars []*plotter.BarChart
	for k, vals := range counts {
		b, err := plotter.NewBarChart(vals, vg.Points(28))
		if err != nil {
			return Figure{}, fmt.Errorf("results: %s: %s bars: %w", FailureCausesName, names[k], err)
		}
		b.Color = colorOther
		if k < len(causes) {
			b.Color = causeColor(k)
		}
		b.LineStyle.Width = vg.Points(0.5)
		if below != nil {
			b.StackOn(below)
		}
		below = b
		bars = append(bars, b)
		p.Add(b)
	}
	// Legend from the top of the stack down, as the bars read.
	for k := len(bars) - 1; k >= 0; k-- {
		p.Legend.Add(names[k], bars[k])
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.6, float64(len(gens))-0.4
	p.Y.Min, p.Y.Max = 0, max(maxTotal, 1)
	padY(p, 0, legendRoom(float64(len(bars))*12+10, 250))
	p.Y.Min = 0
	w := max(6*vg.Inch, 1.6*vg.Inch+vg.Length(len(gens))*0.6*vg.Inch)
	return Figure{Panels: [][]*plot.Plot{{p}}, Width: w, Height: 4.5 * vg.Inch}, nil
}

// failureSeries returns the series of the failure causes plot of gens: the
// names and, per generation, counts of the causes, then "other" (the
// failures of no declared cause) if any generation has some; and the
// largest total of a generation.
func failureSeries(gens []GenerationRow, causes []envs.Cause) (names []string, counts []plotter.Values, maxTotal float64) {
	counts = make([]plotter.Values, len(causes)+1)
	for k := range counts {
		counts[k] = make(plotter.Values, len(gens))
	}
	others := false
	for i, g := range gens {
		total := 0.0
		for k, n := range g.CauseCounts {
			counts[k][i] = float64(n)
			total += float64(n)
		}
		if rest := float64(g.Failures) - total; rest > 0 {
			counts[len(causes)][i], others = rest, true
			total += rest
		}
		maxTotal = max(maxTotal, total)
	}
	names = append(causeNames(causes), "other")
	if !others {
		return names[:len(causes)], counts[:len(causes)], maxTotal
	}
	return names, counts, maxTotal
}

// causeNames returns the causes' names in order.
func causeNames(causes []envs.Cause) []string {
	return (&envs.Info{Causes: causes}).CauseNames()
}

// PlotFailureCauses saves FailureCausesFigure(gens, causes) as
// dir/failure_causes.<format> for each of formats ("png", "svg" or "pdf",
// with or without a leading dot; default png and svg). dir must exist. It
// returns the errors of FailureCausesFigure, an error wrapping ErrFormat for
// an unknown format (before writing anything), or an error naming the file
// that could not be written.
func PlotFailureCauses(dir string, gens []GenerationRow, causes []envs.Cause, formats ...string) error {
	fig, err := FailureCausesFigure(gens, causes)
	if err != nil {
		return err
	}
	return saveAll(fig, dir, FailureCausesName, formats)
}

// LineageStep is one version of the chain of accepted versions of a run:
// the base version, then the candidate accepted in each generation that
// accepted one.
type LineageStep struct {
	// Version is the version, e.g. "v1.0.1".
	Version string
	// Parent is the version it was mutated from; "" for the base.
	Parent string
	// Generation is the generation whose val evaluation this step's
	// statistics come from: the generation that accepted it, or 0 for the
	// base (evaluated as the first incumbent).
	Generation int32
	// Mutation describes the accepted mutation; "" for the base.
	Mutation string
	// N, Mean, CILow and CIHigh are the val statistics of Version in
	// Generation: episodes, mean score and its 95% CI, in score points.
	N                   int32
	Mean, CILow, CIHigh float64
	// PAdj and A12 are the accepting test's adjusted p-value and effect
	// size; NaN for the base.
	PAdj, A12 float64
}

// Lineage returns the chain of accepted versions of one run, base first,
// from its generation and candidate rows in any order. It returns an error
// wrapping ErrNoData if gens is empty and ErrInvalidRow if the rows belong
// to more than one run or a generation's accepted version has no candidate
// row.
func Lineage(gens []GenerationRow, cands []CandidateRow) ([]LineageStep, error) {
	if len(gens) == 0 {
		return nil, fmt.Errorf("%w: no generation rows for the lineage", ErrNoData)
	}
	if err := oneRun(LineageName, gens, cands, nil); err != nil {
		return nil, err
	}
	gens = slices.Clone(gens)
	SortGenerations(gens)
	g0 := gens[0]
	nan := nanValue()
	steps := []LineageStep{{Version: g0.Incumbent, Generation: g0.Generation, N: g0.NVal,
		Mean: g0.ValMean, CILow: g0.ValCILow, CIHigh: g0.ValCIHigh, PAdj: nan, A12: nan}}
	for _, g := range gens {
		if g.Accepted == "" {
			continue
		}
		i := slices.IndexFunc(cands, func(c CandidateRow) bool {
			return c.Generation == g.Generation && c.Version == g.Accepted
		})
		if i < 0 {
			return nil, fmt.Errorf("%w: generation %d accepted %s, which has no candidate row", ErrInvalidRow, g.Generation, g.Accepted)
		}
		c := cands[i]
		steps = append(steps, LineageStep{Version: c.Version, Parent: c.Parent, Generation: c.Generation,
			Mutation: c.Mutation, N: c.N, Mean: c.Mean, CILow: c.CILow, CIHigh: c.CIHigh, PAdj: c.PAdj, A12: c.A12})
	}
	return steps, nil
}

// LineageFigure builds the figure PlotLineage saves: x is the number of
// accepted mutations (0 for the base), y the val score. The accepted
// versions are joined by a line, each with its 95% CI as an error bar and
// labelled with its version and mutation; the rejected candidates of each
// generation are grey rings at the step they failed to take. 3 + 1.6 inch
// per step (after the last accepted version, one more for its rejected
// successors) wide, at most 16 inches, and 5 inches high. It returns the errors
// of Lineage.
func LineageFigure(gens []GenerationRow, cands []CandidateRow) (Figure, error) {
	steps, err := Lineage(gens, cands)
	if err != nil {
		return Figure{}, err
	}
	p := plot.New()
	p.Title.Text = "Lineage of accepted versions"
	p.X.Label.Text = "accepted mutations"
	p.Y.Label.Text = "val score (mean, 95% CI)"
	p.X.Tick.Marker = niceTicks{n: 10, integer: true}
	p.Y.Tick.Marker = niceTicks{n: 8}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.XOffs = vg.Points(6)
	p.Legend.YOffs = -vg.Points(4)

	// Rejected candidates: a generation's candidates try to take the step
	// after the number of versions accepted before it.
	var rejected plotter.XYs
	sorted := slices.Clone(gens)
	SortGenerations(sorted)
	stepOf := map[int32]int{}
	n := 0
	for _, g := range sorted {
		stepOf[g.Generation] = n + 1
		if g.Accepted != "" {
			n++
		}
	}
	for _, c := range cands {
		if !c.Accepted && finite(c.Mean) {
			rejected = append(rejected, plotter.XY{X: float64(stepOf[c.Generation]), Y: c.Mean})
		}
	}
	slices.SortFunc(rejected, func(a, b plotter.XY) int {
		if a.X != b.X {
			return compareFloat(a.X, b.X)
		}
		return compareFloat(a.Y, b.Y)
	})
	if len(rejected) > 0 {
		s, err := plotter.NewScatter(rejected)
		if err != nil {
			return Figure{}, fmt.Errorf("results: %s: rejected candidates: %w", LineageName, err)
		}
		s.Color = color.Gray{Y: 150}
		s.Shape = draw.RingGlyph{}
		s.Radius = vg.Points(3)
		p.Add(s)
		p.Legend.Add("rejected candidate val mean", s)
	}

	var chain plotter.XYs
	var errs plotter.YErrors
	var labels []string
	for i, s := range steps {
		if !finite(s.Mean) {
			continue
		}
		chain = append(chain, plotter.XY{X: float64(i), Y: s.Mean})
		lo, hi := 0.0, 0.0
		if finite(s.CILow) && finite(s.CIHigh) {
			lo, hi = s.Mean-s.CILow, s.CIHigh-s.Mean
		}
		errs = append(errs, struct{ Low, High float64 }{lo, hi})
		label := s.Version
		if s.Mutation != "" {
			label += "\n" + strings.TrimPrefix(s.Mutation, "Adjusted ")
		}
		labels = append(labels, label)
	}
	if len(chain) > 0 {
		line, points, err := plotter.NewLinePoints(chain)
		if err != nil {
			return Figure{}, fmt.Errorf("results: %s: chain: %w", LineageName, err)
		}
		line.Color, line.Width = colorAccepted, vg.Points(1.5)
		points.Color, points.Shape, points.Radius = colorAccepted, draw.CircleGlyph{}, vg.Points(3)
		bars := &plotter.YErrorBars{XYs: copyXYs(chain), YErrors: errs,
			LineStyle: draw.LineStyle{Color: colorAccepted, Width: vg.Points(1)}, CapWidth: vg.Points(6)}
		p.Add(line, bars, points)
		p.Legend.Add("accepted version val mean", line, points)
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: copyXYs(chain), Labels: labels})
		if err != nil {
			return Figure{}, fmt.Errorf("results: %s: labels: %w", LineageName, err)
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].Font.Size = vg.Points(8)
			lab.TextStyle[i].YAlign = draw.YTop
			lab.TextStyle[i].XAlign = draw.XLeft
		}
		lab.Offset = vg.Point{X: vg.Points(8), Y: -vg.Points(3)}
		p.Add(lab)
	}
	last := len(steps) - 1
	for _, r := range rejected {
		last = max(last, int(r.X))
	}
	p.X.Min, p.X.Max = -0.4, float64(last)+0.9
	padY(p, 0.05, legendRoom(2*12+10+24, 300))
	w := min(16*vg.Inch, 3*vg.Inch+vg.Length(last+1)*1.6*vg.Inch)
	return Figure{Panels: [][]*plot.Plot{{p}}, Width: w, Height: 5 * vg.Inch}, nil
}

// PlotLineage saves LineageFigure as dir/lineage.<format> for each of
// formats ("png", "svg" or "pdf", with or without a leading dot; default png
// and svg). dir must exist. It returns the errors of LineageFigure, an error
// wrapping ErrFormat for an unknown format (before writing anything), or an
// error naming the file that could not be written.
func PlotLineage(dir string, gens []GenerationRow, cands []CandidateRow, formats ...string) error {
	fig, err := LineageFigure(gens, cands)
	if err != nil {
		return err
	}
	return saveAll(fig, dir, LineageName, formats)
}

func copyXYs(xy plotter.XYs) plotter.XYs { return slices.Clone(xy) }

func nanValue() float64 { return math.NaN() }
