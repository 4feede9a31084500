package power

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"evolve/results"
	"evolve/stats"
)

// Series is one design's power curve: the simulated power at each n.
type Series struct {
	Design string
	Points []stats.PowerEstimate
}

// colors are the lines' colours (the Tableau 10 palette).
var colors = []color.NRGBA{
	{R: 31, G: 119, B: 180, A: 255}, {R: 255, G: 127, B: 14, A: 255}, {R: 44, G: 160, B: 44, A: 255},
	{R: 214, G: 39, B: 40, A: 255}, {R: 148, G: 103, B: 189, A: 255}, {R: 140, G: 86, B: 75, A: 255},
}

// Figure draws the power of each series against n (log scale), with the
// 95% Clopper-Pearson band of each point and a dashed line at the target
// power: 7 by 4.5 inches, for results.Figure.Save (PNG, SVG or PDF;
// byte-identical output for the same series).
//
// Errors: a series without points, or plotting errors, naming the design.
func Figure(series []Series, target, alpha float64) (results.Figure, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Power against n per side (alpha %g, simulated, 95%% CI)", alpha)
	p.X.Label.Text = "n per side (seeds)"
	p.Y.Label.Text = "power"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Y.Min, p.Y.Max = 0, 1
	lo, hi := 0.0, 0.0
	for k, s := range series {
		if len(s.Points) == 0 {
			return results.Figure{}, fmt.Errorf("power plot: %s has no points", s.Design)
		}
		col := colors[k%len(colors)]
		line := make(plotter.XYs, len(s.Points))
		band := make(plotter.XYs, 0, 2*len(s.Points))
		for i, pt := range s.Points {
			line[i] = plotter.XY{X: float64(pt.N), Y: pt.Power}
			band = append(band, plotter.XY{X: float64(pt.N), Y: pt.Low})
			if lo == 0 || float64(pt.N) < lo {
				lo = float64(pt.N)
			}
			hi = max(hi, float64(pt.N))
		}
		for i := len(s.Points) - 1; i >= 0; i-- {
			band = append(band, plotter.XY{X: float64(s.Points[i].N), Y: s.Points[i].High})
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return results.Figure{}, fmt.Errorf("power plot: %s: %w", s.Design, err)
		}
		bc := col
		bc.A = 48
		poly.Color, poly.LineStyle.Width = bc, 0
		l, err := plotter.NewLine(line)
		if err != nil {
			return results.Figure{}, fmt.Errorf("power plot: %s: %w", s.Design, err)
		}
		l.Color, l.Width = col, vg.Points(1.5)
		p.Add(poly, l)
		p.Legend.Add(s.Design, l)
	}
	t, err := plotter.NewLine(plotter.XYs{{X: lo, Y: target}, {X: hi, Y: target}})
	if err == nil {
		t.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		t.Color = color.Gray{Y: 90}
		p.Add(t)
	}
	return results.Figure{Panels: [][]*plot.Plot{{p}}, Width: 7 * vg.Inch, Height: 4.5 * vg.Inch}, nil
}

// Grid returns about k values of n from lo to hi, geometrically spaced,
// distinct and increasing: the n of a power curve.
func Grid(lo, hi, k int) []int {
	if lo < 2 {
		lo = 2
	}
	if hi < lo {
		hi = lo
	}
	var ns []int
	r := 1.0
	if k > 1 {
		r = pow(float64(hi)/float64(lo), 1/float64(k-1))
	}
	v := float64(lo)
	for range k {
		n := int(v + 0.5)
		if len(ns) == 0 || n > ns[len(ns)-1] {
			ns = append(ns, min(n, hi))
		}
		v *= r
	}
	if ns[len(ns)-1] != hi {
		ns = append(ns, hi)
	}
	return ns
}
