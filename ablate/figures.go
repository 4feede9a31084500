package ablate

import (
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"evolve/results"
	"evolve/stats"
)

// JSON returns the Summary as indented JSON, what --json prints.
func JSON(s *Summary) ([]byte, error) {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// palette colours the proposers in config order (matplotlib's tab10).
var palette = []color.NRGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255},
}

func colorOf(i int) color.NRGBA { return palette[i%len(palette)] }

func translucent(c color.NRGBA) color.NRGBA { c.A = 56; return c }

// Figures builds the report's figures (FigFinalTest, FigIQM,
// FigImprovement, FigProfile, FigAnytime).
func Figures(s *Summary, c *Config, outs []Outcome) ([]results.NamedFigure, error) {
	var figs []results.NamedFigure
	add := func(name string, build func() (results.Figure, error)) error {
		f, err := build()
		if err != nil {
			return fmt.Errorf("figure %s: %w", name, err)
		}
		figs = append(figs, results.NamedFigure{Name: name, Figure: f, Build: build})
		return nil
	}
	for _, f := range []struct {
		name  string
		build func() (results.Figure, error)
	}{
		{FigFinalTest, func() (results.Figure, error) { return finalTestFigure(s, outs) }},
		{FigIQM, func() (results.Figure, error) {
			return intervalFigure(s.Proposers, aggIQM(s), "IQM of normalised score (95% CI)")
		}},
		{FigImprovement, func() (results.Figure, error) { return improvementFigure(s) }},
		{FigProfile, func() (results.Figure, error) { return profileFigure(s) }},
		{FigAnytime, func() (results.Figure, error) { return anytimeFigure(s, c, outs) }},
	} {
		if err := add(f.name, f.build); err != nil {
			return nil, err
		}
	}
	return figs, nil
}

func aggIQM(s *Summary) []CI {
	out := make([]CI, len(s.Aggregate))
	for i, a := range s.Aggregate {
		out[i] = a.IQM
	}
	return out
}

// newPlot is a plot with the house style.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	return p
}

// labels is a ticker naming the integers 0..n-1.
type labels []string

func (l labels) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for i, s := range l {
		if float64(i) >= lo && float64(i) <= hi {
			t = append(t, plot.Tick{Value: float64(i), Label: s})
		}
	}
	return t
}

// interval draws a horizontal interval [lo, hi] at y with a point.
func interval(p *plot.Plot, y float64, c CI, col color.Color) error {
	lo, hi, pt := float64(c.Low), float64(c.High), float64(c.Point)
	if finite(lo) && finite(hi) {
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}})
		if err != nil {
			return err
		}
		l.Color, l.Width = col, vg.Points(3)
		p.Add(l)
	}
	if finite(pt) {
		sc, err := plotter.NewScatter(plotter.XYs{{X: pt, Y: y}})
		if err != nil {
			return err
		}
		sc.Color, sc.Shape, sc.Radius = color.Black, draw.CircleGlyph{}, vg.Points(3)
		p.Add(sc)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// intervalFigure draws one interval per proposer.
func intervalFigure(props []string, cis []CI, xlabel string) (results.Figure, error) {
	p := newPlot("", xlabel, "")
	for i, c := range cis {
		if err := interval(p, float64(len(props)-1-i), c, colorOf(i)); err != nil {
			return results.Figure{}, err
		}
	}
	rev := slices.Clone(props)
	slices.Reverse(rev)
	p.Y.Tick.Marker = labels(rev)
	p.Y.Min, p.Y.Max = -0.6, float64(len(props))-0.4
	return results.Figure{Panels: [][]*plot.Plot{{p}}, Width: 6 * vg.Inch, Height: vg.Length(1.2+0.45*float64(len(props))) * vg.Inch}, nil
}

// improvementFigure draws P(X > Y) per pair.
func improvementFigure(s *Summary) (results.Figure, error) {
	p := newPlot("", "P(X > Y) of normalised scores (95% CI)", "")
	var names []string
	n := len(s.Improvement)
	for i, pr := range s.Improvement {
		names = append(names, pr.X+" > "+pr.Y)
		if err := interval(p, float64(n-1-i), pr.P, colorOf(slices.Index(s.Proposers, pr.X))); err != nil {
			return results.Figure{}, err
		}
	}
	slices.Reverse(names)
	p.Y.Tick.Marker = labels(names)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	p.X.Min, p.X.Max = 0, 1
	half, _ := plotter.NewLine(plotter.XYs{{X: 0.5, Y: -0.6}, {X: 0.5, Y: float64(n) - 0.4}})
	half.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(half)
	return results.Figure{Panels: [][]*plot.Plot{{p}}, Width: 6 * vg.Inch, Height: vg.Length(1.2+0.35*float64(n)) * vg.Inch}, nil
}

// finalTestFigure draws, per environment, each proposer's final test
// means (dots) and their mean with its CI.
func finalTestFigure(s *Summary, outs []Outcome) (results.Figure, error) {
	var row []*plot.Plot
	for e, es := range s.Environments {
		p := newPlot(es.Name, "", "final test mean")
		for i, st := range es.Proposers {
			var pts plotter.XYs
			for _, o := range outs {
				if o.Job.Env == e && o.Job.Proposer == st.Proposer && finite(o.Row.FinalTestMean) {
					pts = append(pts, plotter.XY{X: float64(i) - 0.15, Y: o.Row.FinalTestMean})
				}
			}
			if len(pts) > 0 {
				sc, err := plotter.NewScatter(pts)
				if err != nil {
					return results.Figure{}, err
				}
				sc.Color, sc.Shape, sc.Radius = colorOf(i), draw.RingGlyph{}, vg.Points(2.5)
				p.Add(sc)
			}
			lo, hi, m := float64(st.FinalTest.Low), float64(st.FinalTest.High), float64(st.FinalTest.Point)
			if finite(lo) && finite(hi) {
				l, err := plotter.NewLine(plotter.XYs{{X: float64(i) + 0.15, Y: lo}, {X: float64(i) + 0.15, Y: hi}})
				if err != nil {
					return results.Figure{}, err
				}
				l.Color, l.Width = colorOf(i), vg.Points(2)
				p.Add(l)
			}
			if finite(m) {
				sc, err := plotter.NewScatter(plotter.XYs{{X: float64(i) + 0.15, Y: m}})
				if err != nil {
					return results.Figure{}, err
				}
				sc.Color, sc.Shape, sc.Radius = color.Black, draw.CircleGlyph{}, vg.Points(3)
				p.Add(sc)
			}
		}
		p.X.Tick.Marker = labels(s.Proposers)
		p.X.Min, p.X.Max = -0.5, float64(len(s.Proposers))-0.5
		row = append(row, p)
	}
	return results.Figure{Panels: [][]*plot.Plot{row}, Width: vg.Length(1+3*float64(len(row))) * vg.Inch, Height: 4 * vg.Inch}, nil
}

// profileFigure draws the performance profiles with their bands.
func profileFigure(s *Summary) (results.Figure, error) {
	p := newPlot("", "normalised score τ", "fraction of runs with score > τ")
	p.Legend.Left = false
	for i, cv := range s.Profile.Curves {
		var line, ring plotter.XYs
		for k, pt := range cv.Points {
			line = append(line, plotter.XY{X: float64(s.Profile.Taus[k]), Y: float64(pt.Point)})
			ring = append(ring, plotter.XY{X: float64(s.Profile.Taus[k]), Y: float64(pt.Low)})
		}
		for k := len(cv.Points) - 1; k >= 0; k-- {
			ring = append(ring, plotter.XY{X: float64(s.Profile.Taus[k]), Y: float64(cv.Points[k].High)})
		}
		if err := band(p, ring, colorOf(i)); err != nil {
			return results.Figure{}, err
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return results.Figure{}, err
		}
		l.Color, l.Width = colorOf(i), vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(cv.Proposer, l)
	}
	p.Y.Min, p.Y.Max = 0, 1.05
	return results.Figure{Panels: [][]*plot.Plot{{p}}, Width: 6 * vg.Inch, Height: 4 * vg.Inch}, nil
}

func band(p *plot.Plot, ring plotter.XYs, col color.NRGBA) error {
	if len(ring) < 3 {
		return nil
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return err
	}
	poly.Color = translucent(col)
	poly.LineStyle.Width = 0
	p.Add(poly)
	return nil
}

// AnytimeGrid is the number of points of the anytime curves' grid.
const AnytimeGrid = 60

// anytimeCurve is one proposer's anytime curve on one environment: at
// each x (episodes used), the mean over replicates of the incumbent's val
// mean at that point (the last incumbent chosen with at most x episodes
// used) and its Student t CI. Replicates that have not reached x are
// left out of the mean at x.
func anytimeCurve(outs []Outcome, e int, proposer string, xs []float64) (mean, lo, hi []float64) {
	for _, x := range xs {
		var vals []float64
		for _, o := range outs {
			if o.Job.Env != e || o.Job.Proposer != proposer || len(o.Anytime) == 0 {
				continue
			}
			v := math.NaN()
			for _, a := range o.Anytime {
				if float64(a.EpisodesUsed) <= x {
					v = a.ValMean
				}
			}
			if float64(o.Anytime[len(o.Anytime)-1].EpisodesUsed) < x {
				v = math.NaN() // the run ended before x
			}
			if finite(v) {
				vals = append(vals, v)
			}
		}
		sum := stats.Summarize(vals)
		mean, lo, hi = append(mean, sum.Mean), append(lo, sum.CILow), append(hi, sum.CIHigh)
	}
	return mean, lo, hi
}

// anytimeFigure draws the anytime curves, one panel per environment.
func anytimeFigure(s *Summary, c *Config, outs []Outcome) (results.Figure, error) {
	var row []*plot.Plot
	for e, es := range s.Environments {
		p := newPlot(es.Name, "train + val episodes used", "incumbent val mean")
		p.Legend.Left = false
		p.Legend.Top = false
		xmax := 0.0
		for _, o := range outs {
			if o.Job.Env == e && len(o.Anytime) > 0 {
				xmax = max(xmax, float64(o.Anytime[len(o.Anytime)-1].EpisodesUsed))
			}
		}
		// An even grid plus every run's points, so that the steps fall
		// where the incumbents changed.
		xs := make([]float64, AnytimeGrid+1)
		for k := range xs {
			xs[k] = xmax * float64(k) / AnytimeGrid
		}
		for _, o := range outs {
			if o.Job.Env == e {
				for _, a := range o.Anytime {
					xs = append(xs, float64(a.EpisodesUsed))
				}
			}
		}
		slices.Sort(xs)
		xs = slices.Compact(xs)
		for i, prop := range c.Proposers {
			m, lo, hi := anytimeCurve(outs, e, prop, xs)
			var line, lows, ring plotter.XYs
			for k, x := range xs {
				if finite(m[k]) {
					line = append(line, plotter.XY{X: x, Y: m[k]})
				}
				if finite(lo[k]) && finite(hi[k]) {
					lows = append(lows, plotter.XY{X: x, Y: lo[k]})
				}
			}
			var highs plotter.XYs
			for k := range xs {
				if finite(lo[k]) && finite(hi[k]) {
					highs = append(highs, plotter.XY{X: xs[k], Y: hi[k]})
				}
			}
			line, lows, highs = steps(line), steps(lows), steps(highs)
			ring = slices.Clone(lows)
			for k := len(highs) - 1; k >= 0; k-- {
				ring = append(ring, highs[k])
			}
			if err := band(p, ring, colorOf(i)); err != nil {
				return results.Figure{}, err
			}
			if len(line) > 0 {
				l, err := plotter.NewLine(line)
				if err != nil {
					return results.Figure{}, err
				}
				l.Color, l.Width = colorOf(i), vg.Points(1.5)
				p.Add(l)
				p.Legend.Add(prop, l)
			}
		}
		row = append(row, p)
	}
	return results.Figure{Panels: [][]*plot.Plot{row}, Width: vg.Length(1+3.5*float64(len(row))) * vg.Inch, Height: 4 * vg.Inch}, nil
}

// steps turns a polyline into a step function: each point holds its
// value until the next point's x.
func steps(xy plotter.XYs) plotter.XYs {
	var out plotter.XYs
	for i, p := range xy {
		if i > 0 && p.Y != xy[i-1].Y {
			out = append(out, plotter.XY{X: p.X, Y: xy[i-1].Y})
		}
		out = append(out, p)
	}
	return out
}
