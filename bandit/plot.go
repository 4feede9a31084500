package bandit

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"evolve/results"
	"evolve/stats"
)

// plotPoints is the most points a policy's line has: the curves are
// smooth, and fewer points keep the SVG small.
const plotPoints = 200

// policyColors are the lines' colours, by index in Policies() (the
// Tableau 10 palette of matplotlib).
var policyColors = []color.NRGBA{
	{R: 214, G: 39, B: 40, A: 255},   // seed: red
	{R: 255, G: 127, B: 14, A: 255},  // epsilon-greedy per context: orange
	{R: 31, G: 119, B: 180, A: 255},  // UCB1: blue
	{R: 44, G: 160, B: 44, A: 255},   // Thompson: green
	{R: 127, G: 127, B: 127, A: 255}, // uniform: grey
	{R: 0, G: 0, B: 0, A: 255},       // oracle: black
}

// Curve is one policy's cumulative regret by request: at each request
// T[i] (1-based) the mean over the repeats and its 95% Student-t CI.
type Curve struct {
	Policy              string
	T                   []int
	Mean, CILow, CIHigh []float64
}

// Curves returns each policy's Curve at about plotPoints requests (every
// ceil(N / plotPoints)-th request and the last), in the order of
// Config.Policies.
func Curves(res *Result) []Curve {
	n, nr := res.Config.Requests, res.Config.Repeats
	step := max(1, (n+plotPoints-1)/plotPoints)
	var ts []int
	for t := step; t < n; t += step {
		ts = append(ts, t)
	}
	ts = append(ts, n)
	out := make([]Curve, len(res.Config.Policies))
	for p, name := range res.Config.Policies {
		cum := make([][]float64, nr) // [repeat][i] at ts[i]
		for r := range nr {
			tr := &res.Traces[p*nr+r]
			s, j := 0.0, 0
			cum[r] = make([]float64, len(ts))
			for t, g := range tr.Regret {
				s += g
				if j < len(ts) && t+1 == ts[j] {
					cum[r][j] = s
					j++
				}
			}
		}
		c := Curve{Policy: name, T: ts, Mean: make([]float64, len(ts)), CILow: make([]float64, len(ts)), CIHigh: make([]float64, len(ts))}
		x := make([]float64, nr)
		for i := range ts {
			for r := range nr {
				x[r] = cum[r][i]
			}
			s := stats.Summarize(x)
			c.Mean[i], c.CILow[i], c.CIHigh[i] = s.Mean, s.CILow, s.CIHigh
		}
		out[p] = c
	}
	return out
}

// RegretFigure draws each policy's mean cumulative regret by request as a
// line with its 95% CI as a translucent band: 7 by 4.5 inches, for
// results.Figure.Save (byte-identical output for the same result).
func RegretFigure(res *Result) (results.Figure, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Cumulative regret on the dungeon (mean of %d streams, 95%% CI)", res.Config.Repeats)
	p.X.Label.Text = "request"
	p.Y.Label.Text = "cumulative regret (normalised reward)"
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.ThumbnailWidth = vg.Points(18)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.XOffs = vg.Points(6)
	p.Legend.YOffs = -vg.Points(4)
	for _, c := range Curves(res) {
		col := policyColors[slices.Index(Policies(), c.Policy)]
		band := make(plotter.XYs, 0, 2*len(c.T))
		for i, t := range c.T {
			band = append(band, plotter.XY{X: float64(t), Y: c.CILow[i]})
		}
		for i := len(c.T) - 1; i >= 0; i-- {
			band = append(band, plotter.XY{X: float64(c.T[i]), Y: c.CIHigh[i]})
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return results.Figure{}, fmt.Errorf("regret plot: %s band: %w", c.Policy, err)
		}
		bc := col
		bc.A = 56
		poly.Color = bc
		poly.LineStyle.Width = 0
		line := make(plotter.XYs, len(c.T))
		for i, t := range c.T {
			line[i] = plotter.XY{X: float64(t), Y: c.Mean[i]}
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return results.Figure{}, fmt.Errorf("regret plot: %s line: %w", c.Policy, err)
		}
		l.Color = col
		l.Width = vg.Points(1.5)
		p.Add(poly, l)
		p.Legend.Add(c.Policy, l)
	}
	p.X.Min = 0
	p.Y.Min = 0
	return results.Figure{Panels: [][]*plot.Plot{{p}}, Width: 7 * vg.Inch, Height: 4.5 * vg.Inch}, nil
}
