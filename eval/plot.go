package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"evolve/results"
)

// ScoresName is the file name (without extension) of an eval's figure.
const ScoresName = "scores"

// ScoresFigure is the eval's figure: one panel per variant, a box plot of
// each version's scores (every seed and repeat) in the order given, on one
// y scale; with markFirst the first version (the baseline) labelled with a
// '*'. Long labels get wider slots.
func ScoresFigure(res *Result, markFirst bool) (results.Figure, error) {
	var panels []*plot.Plot
	lo, hi := 1e308, -1e308
	for _, variant := range res.Variants {
		p := plot.New()
		p.Title.Text = variant
		if variant == "" {
			p.Title.Text = "scores"
		}
		p.Y.Label.Text = "score"
		p.Add(plotter.NewGrid())
		var names []string
		for i, v := range res.Versions {
			x, _, _ := Scores(res.Episodes, variant, v.Label)
			label := v.Label
			if i == 0 && markFirst {
				label += "*"
			}
			names = append(names, label)
			if len(x) == 0 {
				continue
			}
			vals := plotter.Values(x)
			s := append([]float64(nil), x...)
			sort.Float64s(s)
			lo, hi = min(lo, s[0]), max(hi, s[len(s)-1])
			b, err := plotter.NewBoxPlot(vg.Points(24), float64(i), vals)
			if err != nil {
				return results.Figure{}, fmt.Errorf("eval: box of %s: %w", v.Label, err)
			}
			b.GlyphStyle.Radius = vg.Points(1.5)
			p.Add(b)
		}
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.5, float64(len(res.Versions))-0.5
		panels = append(panels, p)
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	pad := max((hi-lo)*0.05, 1)
	for _, p := range panels {
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
	}
	longest := 0
	for _, v := range res.Versions {
		longest = max(longest, len(v.Label))
	}
	slot := max(0.9*vg.Inch, vg.Length(longest)*vg.Points(6.5))
	w := max(vg.Length(len(res.Versions))*slot+0.8*vg.Inch, 3*vg.Inch)
	title := "Scores per version"
	if markFirst {
		title += " (* the baseline)"
	}
	return results.Figure{
		Title:  title,
		Panels: [][]*plot.Plot{panels},
		Width:  max(vg.Length(len(panels))*w+0.4*vg.Inch, 4*vg.Inch),
		Height: 4 * vg.Inch,
	}, nil
}

// PlotScores saves ScoresFigure as dir/plots/scores.{png,svg,pdf} and
// returns the SVG's bytes (for an HTML report).
func PlotScores(dir string, res *Result, markFirst bool) ([]byte, error) {
	fig, err := ScoresFigure(res, markFirst)
	if err != nil {
		return nil, err
	}
	plots := filepath.Join(dir, "plots")
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return nil, err
	}
	for _, ext := range []string{".png", ".svg", ".pdf"} {
		if err := fig.Save(filepath.Join(plots, ScoresName+ext)); err != nil {
			return nil, err
		}
	}
	return os.ReadFile(filepath.Join(plots, ScoresName+".svg"))
}
