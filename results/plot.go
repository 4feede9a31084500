package results

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sourcegraph/conc/iter"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot file base names, without extension, written under the plot
// directory.
const (
	ValByGenerationName = "val_by_generation"
	CandidatesName      = "candidates"
)

// PNGDPI is the resolution, in dots per inch, of PNG plots.
const PNGDPI = 144

// defaultPlotFormats are the formats the plot functions write when called
// without formats: PNG for viewing and SVG for the HTML report.
var defaultPlotFormats = []string{"png", "svg"}

// ErrNoData is wrapped by the errors of the plot functions when there is
// nothing to plot (no generation rows).
var ErrNoData = errors.New("results: no data to plot")

// ErrFormat is wrapped by the errors of the plot functions when asked for a
// file format other than png, svg or pdf.
var ErrFormat = errors.New("results: unknown plot format")

// Colours shared by the plots.
var (
	colorIncumbent     = color.NRGBA{R: 31, G: 119, B: 180, A: 255}  // blue
	colorIncumbentBand = color.NRGBA{R: 31, G: 119, B: 180, A: 56}   // translucent blue
	colorCandidate     = color.NRGBA{R: 255, G: 127, B: 14, A: 255}  // orange
	colorAccepted      = color.NRGBA{R: 44, G: 160, B: 44, A: 255}   // green
	colorBoxIncumbent  = color.NRGBA{R: 174, G: 199, B: 232, A: 255} // light blue
	colorBoxCandidate  = color.NRGBA{R: 255, G: 218, B: 185, A: 255} // light orange
	colorBoxAccepted   = color.NRGBA{R: 152, G: 223, B: 138, A: 255} // light green
)

// Figure is one or more plots laid out on one canvas, ready to be saved in
// several formats. A figure of a single plot has Panels [][]*plot.Plot{{p}}
// and usually no Title or Key, the plot carrying its own.
type Figure struct {
	// Title, if not "", is drawn centred above the panels.
	Title string
	// Key, if not empty, is drawn as one centred row of coloured squares
	// and labels between the title and the panels.
	Key []Swatch
	// Panels are the plots in rows of columns, drawn with plot.Align so
	// that their data areas line up; a nil panel leaves its tile empty.
	Panels [][]*plot.Plot
	// Width and Height are the canvas size (vg.Inch is one inch).
	Width, Height vg.Length
}

// Swatch is one entry of a Figure's key: a filled square and its label.
type Swatch struct {
	Label string      // the entry's text
	Color color.Color // the square's fill
}

// Draw draws the figure onto c.
func (f Figure) Draw(c draw.Canvas) {
	pad := vg.Points(6)
	top := c.Max.Y - pad
	if f.Title != "" {
		st := headerStyle(12)
		h := st.Height(f.Title)
		c.FillText(st, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top - h/2}, f.Title)
		top -= h + pad/2
	}
	if len(f.Key) > 0 {
		st := headerStyle(10)
		st.XAlign = draw.XLeft
		box := st.Height("M")
		gap := st.Width("  ")
		x := (c.Min.X+c.Max.X)/2 - keyWidth(f.Key)/2
		y := top - box
		for _, k := range f.Key {
			sq := []vg.Point{{X: x, Y: y}, {X: x, Y: y + box}, {X: x + box, Y: y + box}, {X: x + box, Y: y}}
			c.FillPolygon(k.Color, sq)
			c.StrokeLines(plotter.DefaultLineStyle, append(sq, sq[0]))
			x += box + gap/2
			c.FillText(st, vg.Point{X: x, Y: y + box/2}, k.Label)
			x += st.Width(k.Label) + 2*gap
		}
		top = y - pad
	}
	if len(f.Panels) == 0 {
		return
	}
	cols := 0
	for _, row := range f.Panels {
		cols = max(cols, len(row))
	}
	// Rows must have equal length for plot.Align; pad them with nil.
	panels := make([][]*plot.Plot, len(f.Panels))
	for i, row := range f.Panels {
		panels[i] = make([]*plot.Plot, cols)
		copy(panels[i], row)
	}
	area := c
	area.Max.Y = top
	tiles := draw.Tiles{Rows: len(panels), Cols: cols, PadX: vg.Points(4), PadY: vg.Points(8)}
	canvases := plot.Align(panels, tiles, area)
	for i, row := range panels {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
}

// keyWidth is the width of a figure's key drawn in one row.
func keyWidth(key []Swatch) vg.Length {
	st := headerStyle(10)
	box, gap := st.Height("M"), st.Width("  ")
	var w vg.Length
	for i, k := range key {
		if i > 0 {
			w += 2 * gap
		}
		w += box + gap/2 + st.Width(k.Label)
	}
	return w
}

// headerStyle is the style of figure titles and keys: the default plot font
// at size points, centred horizontally and vertically.
func headerStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, size),
		XAlign:  draw.XCenter,
		YAlign:  draw.YCenter,
		Handler: plot.DefaultTextHandler,
	}
}

// Save writes the figure to path atomically, in the format named by path's
// extension: ".png" (PNGDPI dots per inch), ".svg" or ".pdf" (the plot
// font embedded as a UTF-8 subset, so that text such as → and Δ is drawn
// and extractable; see pdfCanvas). Output is byte-identical for identical figures in every
// format (PDF dates are fixed, see SOURCE_DATE_EPOCH in the package docs). It returns an error wrapping
// [ErrFormat] for any other extension, and an error naming path if the file
// cannot be written.
func (f Figure) Save(path string) error {
	data, err := f.Encode(filepath.Ext(path))
	if err != nil {
		return fmt.Errorf("results: saving plot %s: %w", path, err)
	}
	return writePlot(path, data)
}

// Encode draws the figure and returns the file's bytes in format "png",
// "svg" or "pdf" (with or without a leading dot, any case), the bytes Save
// writes. It returns an error wrapping [ErrFormat] for any other format.
// Encode only reads f, so one figure may be encoded in several formats at
// once.
func (f Figure) Encode(format string) ([]byte, error) {
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch strings.ToLower(strings.TrimPrefix(format, ".")) {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(PNGDPI))}
	case "svg":
		canvas = vgsvg.New(f.Width, f.Height)
	case "pdf":
		canvas = newPDFCanvas(f.Width, f.Height)
	default:
		return nil, fmt.Errorf("%w %q (want .png, .svg or .pdf)", ErrFormat, format)
	}
	f.Draw(draw.New(canvas))
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writePlot writes a plot file's bytes to path atomically.
func writePlot(path string, data []byte) error {
	if err := writeAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return fmt.Errorf("results: saving plot %s: %w", path, err)
	}
	return nil
}

// NamedFigure is a figure and the base name of its files (without
// extension), as SaveFigures takes them.
type NamedFigure struct {
	Name   string
	Figure Figure
	// Build, if not nil, makes a fresh copy of Figure (its constructor,
	// e.g. a closure over CandidatesFigure). Drawing updates a plot's
	// axes, so one copy is drawn in one format at a time; with Build,
	// SaveFigures draws each format after the first from a copy of its
	// own, all at once.
	Build func() (Figure, error)
}

// SaveFigures saves each figure as dir/<name>.<format> for each of formats
// ("png", "svg" or "pdf", with or without a leading dot), or png and svg if
// formats is empty, and returns the paths written: figures in order, each
// in the order of formats. It draws the figures concurrently, at most
// GOMAXPROCS at a time (each figure's formats one after another, since
// drawing a plot updates its axes, unless NamedFigure.Build gives each
// format a copy of its own), and then writes the files one after
// another in that order, so that neither the bytes nor the order of the
// writes depend on the scheduling. dir must exist. It returns an error
// wrapping [ErrFormat] for an unknown format (before drawing anything), or
// one naming the file that could not be encoded or written (the files
// before it in order are written, none after).
func SaveFigures(dir string, figs []NamedFigure, formats []string) ([]string, error) {
	if len(formats) == 0 {
		formats = defaultPlotFormats
	}
	exts := make([]string, len(formats))
	for i, f := range formats {
		exts[i] = strings.TrimPrefix(f, ".")
		switch exts[i] {
		case "png", "svg", "pdf":
		default:
			name := ""
			if len(figs) > 0 {
				name = figs[0].Name
			}
			return nil, fmt.Errorf("results: plot %s: %w %q (want png, svg or pdf)", name, ErrFormat, f)
		}
	}
	// A task draws formats [from, to) of figure fig, one after another.
	type task struct{ fig, from, to int }
	var tasks []task
	for i, nf := range figs {
		if nf.Build == nil {
			tasks = append(tasks, task{i, 0, len(exts)})
			continue
		}
		for j := range exts {
			tasks = append(tasks, task{i, j, j + 1})
		}
	}
	data := make([][][]byte, len(figs)) // by figure, by format
	errs := make([][]error, len(figs))
	for i := range figs {
		data[i], errs[i] = make([][]byte, len(exts)), make([]error, len(exts))
	}
	iter.ForEach(tasks, func(t *task) {
		fig := figs[t.fig].Figure
		if t.from > 0 {
			var err error
			if fig, err = figs[t.fig].Build(); err != nil {
				errs[t.fig][t.from] = err
				return
			}
		}
		for j := t.from; j < t.to; j++ {
			if data[t.fig][j], errs[t.fig][j] = fig.Encode(exts[j]); errs[t.fig][j] != nil {
				return
			}
		}
	})
	var paths []string
	for i, nf := range figs {
		for j, ext := range exts {
			path := filepath.Join(dir, nf.Name+"."+ext)
			if errs[i][j] != nil {
				return paths, fmt.Errorf("results: saving plot %s: %w", path, errs[i][j])
			}
			if err := writePlot(path, data[i][j]); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// saveAll saves fig as dir/name.<format> for each format (SaveFigures).
func saveAll(fig Figure, dir, name string, formats []string) error {
	_, err := SaveFigures(dir, []NamedFigure{{Name: name, Figure: fig}}, formats)
	return err
}

// PlotValByGeneration draws the incumbent's val mean per generation as a
// line with its 95% CI as a translucent band, the best (highest mean)
// candidate of each generation as hollow points and the accepted candidate
// as filled points, and saves it as dir/val_by_generation.<format> for each
// of formats ("png", "svg" or "pdf", with or without a leading dot;
// default png and svg). dir must exist. gens and cands are the rows of one
// run, in any order; generations without candidates get no points, NaN
// statistics are left out. It returns an error wrapping [ErrNoData] if gens
// is empty, [ErrInvalidRow] if the rows belong to more than one run,
// [ErrFormat] for an unknown format (before writing anything), or an error
// naming the file that could not be written.
func PlotValByGeneration(dir string, gens []GenerationRow, cands []CandidateRow, formats ...string) error {
	fig, err := ValByGenerationFigure(gens, cands)
	if err != nil {
		return err
	}
	return saveAll(fig, dir, ValByGenerationName, formats)
}

// PlotCandidates draws, per generation, box plots of the val scores of the
// incumbent and of each candidate, and saves it as dir/candidates.<format>
// for each of formats ("png", "svg" or "pdf", with or without a leading
// dot; default png and svg). See [CandidatesFigure] for the layout and how
// the scores are chosen. dir must exist. episodes, cands and gens are the
// rows of one run, in any order. It returns an error wrapping [ErrNoData]
// if gens is empty, [ErrInvalidRow] if the rows belong to more than one
// run, [ErrFormat] for an unknown format (before writing anything), or an
// error naming the file that could not be written.
func PlotCandidates(dir string, episodes []EpisodeRow, cands []CandidateRow, gens []GenerationRow, formats ...string) error {
	fig, err := CandidatesFigure(episodes, cands, gens)
	if err != nil {
		return err
	}
	return saveAll(fig, dir, CandidatesName, formats)
}

// ValByGenerationFigure builds the figure [PlotValByGeneration] saves: 7 by
// 4.5 inches, x = generation, y = val score. It returns an error wrapping
// [ErrNoData] if gens is empty and [ErrInvalidRow] if the rows belong to
// more than one run.
func ValByGenerationFigure(gens []GenerationRow, cands []CandidateRow) (Figure, error) {
	if len(gens) == 0 {
		return Figure{}, fmt.Errorf("%w: no generation rows for %s", ErrNoData, ValByGenerationName)
	}
	if err := oneRun(ValByGenerationName, gens, cands, nil); err != nil {
		return Figure{}, err
	}
	gens = slices.Clone(gens)
	SortGenerations(gens)
	cands = slices.Clone(cands)
	SortCandidates(cands)

	p := plot.New()
	p.Title.Text = "Incumbent val score by generation"
	p.X.Label.Text = "generation"
	p.Y.Label.Text = "val score (mean, 95% CI)"
	p.X.Tick.Marker = niceTicks{n: 10, integer: true}
	p.Y.Tick.Marker = niceTicks{n: 8}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.ThumbnailWidth = vg.Points(18)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.XOffs = vg.Points(6)
	p.Legend.YOffs = -vg.Points(4)
	// Legend entries, to make room for them.
	entries, err := addIncumbentCurve(p, gens)
	if err != nil {
		return Figure{}, err
	}
	n, err := addBestCandidates(p, cands)
	if err != nil {
		return Figure{}, err
	}
	entries += n

	// Half a generation of room on each side, so end points are not cut.
	lo, hi := float64(gens[0].Generation), float64(gens[len(gens)-1].Generation)
	p.X.Min, p.X.Max = lo-0.5, hi+0.5
	// Room above the data for the legend: its entries are about 12 points
	// high in a data area of about 250 points.
	padY(p, 0.05, legendRoom(float64(entries)*12+10, 250))
	return Figure{Panels: [][]*plot.Plot{{p}}, Width: 7 * vg.Inch, Height: 4.5 * vg.Inch}, nil
}

// addIncumbentCurve adds to p the incumbent's val mean by generation and
// its 95% CI band (gens sorted by generation) and returns the number of
// legend entries it added.
func addIncumbentCurve(p *plot.Plot, gens []GenerationRow) (entries int, err error) {
	// The CI band: one polygon per stretch of consecutive generations
	// whose CI is finite.
	var band []plotter.XYs
	var cur plotter.XYs
	flush := func() {
		if len(cur) > 0 {
			band = append(band, cur)
			cur = nil
		}
	}
	var mean plotter.XYs
	for _, g := range gens {
		x := float64(g.Generation)
		if finite(g.ValMean) {
			mean = append(mean, plotter.XY{X: x, Y: g.ValMean})
		}
		if finite(g.ValCILow) && finite(g.ValCIHigh) {
			cur = append(cur, plotter.XY{X: x, Y: g.ValCILow})
		} else {
			flush()
		}
	}
	flush()
	var bandPlotted bool
	for _, lows := range band {
		// Walk the low bounds forward and the high bounds back.
		ring := slices.Clone(lows)
		for i := len(lows) - 1; i >= 0; i-- {
			ring = append(ring, plotter.XY{X: lows[i].X, Y: ciHighAt(gens, lows[i].X)})
		}
		if len(lows) == 1 { // a single generation: a thin vertical bar
			ring = plotter.XYs{{X: ring[0].X - 0.08, Y: ring[0].Y}, {X: ring[0].X + 0.08, Y: ring[0].Y},
				{X: ring[1].X + 0.08, Y: ring[1].Y}, {X: ring[1].X - 0.08, Y: ring[1].Y}}
		}
		poly, err := plotter.NewPolygon(ring)
		if err != nil {
			return 0, fmt.Errorf("results: %s: CI band: %w", ValByGenerationName, err)
		}
		poly.Color = colorIncumbentBand
		poly.LineStyle.Width = 0
		p.Add(poly)
		if !bandPlotted {
			p.Legend.Add("incumbent 95% CI", poly)
			entries++
			bandPlotted = true
		}
	}
	if len(mean) > 0 {
		line, points, err := plotter.NewLinePoints(mean)
		if err != nil {
			return 0, fmt.Errorf("results: %s: incumbent line: %w", ValByGenerationName, err)
		}
		line.Color = colorIncumbent
		line.Width = vg.Points(1.5)
		points.Color = colorIncumbent
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(2.5)
		p.Add(line, points)
		p.Legend.Add("incumbent val mean", line, points)
		entries++
	}
	return entries, nil
}

// addBestCandidates adds to p the best and the accepted candidate of each
// generation (cands sorted by run and generation) and returns the number
// of legend entries it added.
func addBestCandidates(p *plot.Plot, cands []CandidateRow) (entries int, err error) {
	// The best and the accepted candidate of each generation.
	var best, accepted plotter.XYs
	for i := 0; i < len(cands); {
		j := i
		for j < len(cands) && cands[j].Run == cands[i].Run && cands[j].Generation == cands[i].Generation {
			j++
		}
		bi := -1
		for k := i; k < j; k++ {
			if !finite(cands[k].Mean) {
				continue
			}
			if bi < 0 || cands[k].Mean > cands[bi].Mean {
				bi = k
			}
			if cands[k].Accepted {
				accepted = append(accepted, plotter.XY{X: float64(cands[k].Generation), Y: cands[k].Mean})
			}
		}
		if bi >= 0 {
			best = append(best, plotter.XY{X: float64(cands[bi].Generation), Y: cands[bi].Mean})
		}
		i = j
	}
	if len(best) > 0 {
		s, err := plotter.NewScatter(best)
		if err != nil {
			return 0, fmt.Errorf("results: %s: best candidates: %w", ValByGenerationName, err)
		}
		s.Color = colorCandidate
		s.Shape = draw.RingGlyph{}
		s.Radius = vg.Points(4)
		p.Add(s)
		p.Legend.Add("best candidate val mean", s)
		entries++
	}
	if len(accepted) > 0 {
		s, err := plotter.NewScatter(accepted)
		if err != nil {
			return 0, fmt.Errorf("results: %s: accepted candidates: %w", ValByGenerationName, err)
		}
		s.Color = colorAccepted
		s.Shape = draw.TriangleGlyph{}
		s.Radius = vg.Points(3.5)
		p.Add(s)
		p.Legend.Add("accepted candidate val mean", s)
		entries++
	}
	return entries, nil
}

// legendRoom is the fraction of the data range to add above the data so
// that a legend of height h points fits into the top of a data area of
// height area points, with 5% padding below the data.
func legendRoom(h, area float64) float64 {
	r := min(h/area, 0.5)
	return max(0.05, r*1.05/(1-r))
}

// ciHighAt returns the ValCIHigh of the generation at x in gens.
func ciHighAt(gens []GenerationRow, x float64) float64 {
	for _, g := range gens {
		if float64(g.Generation) == x {
			return g.ValCIHigh
		}
	}
	return math.NaN()
}

// Layout of the candidates figure.
const (
	boxSlot     = 0.52 * vg.Inch // horizontal room per box in a panel
	boxWidth    = 0.28 * vg.Inch // width of a box
	panelMargin = 0.5 * vg.Inch  // room for a panel's y axis
	panelHeight = 2.6 * vg.Inch  // height of a row of panels
	headerRoom  = 0.6 * vg.Inch  // room for the title and key
	maxFigWidth = 14 * vg.Inch   // panels per row are chosen to stay below this
)

// CandidatesFigure builds the figure [PlotCandidates] saves: one panel per
// generation (ascending, left to right, then top to bottom), all on the
// same y scale, each with one box of val scores for the incumbent and one
// per candidate (ascending version), taken from the episodes with split
// "val". Tick labels read "g<generation>" over "<version>", with the suffix
// "*" for the incumbent and "+" for the accepted candidate; boxes are blue
// for the incumbent, green for the accepted candidate and orange for the
// others. The incumbent's val scores are those of the same generation if
// episodes has any, else those of its latest earlier generation with val
// episodes (a run may reuse an incumbent's val episodes instead of
// replaying them). A version without val episodes gets a label but no box.
//
// Each box takes 0.52 inch and each row of panels 2.6 inches; as many
// panels go in a row as fit in 14 inches, so 10 generations of 5 boxes make
// a figure of 3 rows of 4 panels, about 12.8 by 8.4 inches. It returns an
// error wrapping [ErrNoData] if gens is empty and [ErrInvalidRow] if the
// rows belong to more than one run.
func CandidatesFigure(episodes []EpisodeRow, cands []CandidateRow, gens []GenerationRow) (Figure, error) {
	if len(gens) == 0 {
		return Figure{}, fmt.Errorf("%w: no generation rows for %s", ErrNoData, CandidatesName)
	}
	if err := oneRun(CandidatesName, gens, cands, episodes); err != nil {
		return Figure{}, err
	}
	gens = slices.Clone(gens)
	SortGenerations(gens)
	cands = slices.Clone(cands)
	SortCandidates(cands)

	scores := newValScores(episodes)
	lo, hi := math.Inf(1), math.Inf(-1)

	// One panel per generation.
	var panels []*plot.Plot
	maxBoxes := 1
	ci := 0
	for _, g := range gens {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("generation %d", g.Generation)
		p.Title.TextStyle.Font.Size = vg.Points(10)
		p.Title.Padding = vg.Points(2)
		p.Y.Tick.Label.Font.Size = vg.Points(8)
		p.Y.Tick.Marker = niceTicks{n: 6}
		p.Y.Label.TextStyle.Font.Size = vg.Points(10)
		p.X.Tick.Label.Font.Size = vg.Points(8)
		p.Add(plotter.NewGrid())
		var names []string
		addBox := func(vals plotter.Values, fill color.Color, label string) error {
			x := float64(len(names))
			names = append(names, label)
			if len(vals) == 0 {
				return nil
			}
			lo, hi = min(lo, vals[0]), max(hi, vals[len(vals)-1])
			b, err := plotter.NewBoxPlot(boxWidth, x, vals)
			if err != nil {
				return fmt.Errorf("results: %s: box %q: %w", CandidatesName, label, err)
			}
			b.FillColor = fill
			b.GlyphStyle.Radius = vg.Points(1.5)
			p.Add(b)
			return nil
		}
		label := fmt.Sprintf("g%d\n%s*", g.Generation, g.Incumbent)
		if err := addBox(scores.incumbent(g.Generation, g.Incumbent), colorBoxIncumbent, label); err != nil {
			return Figure{}, err
		}
		for ci < len(cands) && (cands[ci].Run < g.Run || cands[ci].Run == g.Run && cands[ci].Generation < g.Generation) {
			ci++ // candidates of generations without a row are not drawn
		}
		for ; ci < len(cands) && cands[ci].Run == g.Run && cands[ci].Generation == g.Generation; ci++ {
			c := cands[ci]
			fill, label := color.Color(colorBoxCandidate), fmt.Sprintf("g%d\n%s", c.Generation, c.Version)
			if c.Accepted || (g.Accepted != "" && c.Version == g.Accepted) {
				fill, label = colorBoxAccepted, label+"+"
			}
			if err := addBox(scores[genVersion{c.Generation, c.Version}], fill, label); err != nil {
				return Figure{}, err
			}
		}
		p.NominalX(names...)
		maxBoxes = max(maxBoxes, len(names))
		panels = append(panels, p)
	}

	// Lay the panels out in rows, on one x and y scale.
	panelW := panelMargin + vg.Length(maxBoxes)*boxSlot
	cols := max(1, min(len(panels), int(maxFigWidth/panelW)))
	if lo > hi { // no val episodes at all
		lo, hi = 0, 1
	}
	pad := max((hi-lo)*0.05, 1)
	var rows [][]*plot.Plot
	for i, p := range panels {
		if i%cols == 0 {
			rows = append(rows, nil)
			p.Y.Label.Text = "val score"
		}
		p.X.Min, p.X.Max = -0.5, float64(maxBoxes)-0.5
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
		rows[len(rows)-1] = append(rows[len(rows)-1], p)
	}
	title := "Val scores of the incumbent and the candidates, per generation"
	key := []Swatch{
		{Label: "incumbent (*)", Color: colorBoxIncumbent},
		{Label: "candidate", Color: colorBoxCandidate},
		{Label: "accepted candidate (+)", Color: colorBoxAccepted},
	}
	return Figure{
		Title:  title,
		Key:    key,
		Panels: rows,
		Width:  max(vg.Length(cols)*panelW, headerStyle(12).Width(title), keyWidth(key)) + 0.4*vg.Inch,
		Height: headerRoom + vg.Length(len(rows))*panelHeight,
	}, nil
}

// oneRun returns an error wrapping ErrInvalidRow unless all rows carry the
// run of gens[0].
func oneRun(plotName string, gens []GenerationRow, cands []CandidateRow, episodes []EpisodeRow) error {
	run := gens[0].Run
	other := func(table, r string) error {
		return fmt.Errorf("%w: plot %s takes the rows of one run, got %s rows of runs %q and %q", ErrInvalidRow, plotName, table, run, r)
	}
	for _, g := range gens {
		if g.Run != run {
			return other("generation", g.Run)
		}
	}
	for _, c := range cands {
		if c.Run != run {
			return other("candidate", c.Run)
		}
	}
	for _, e := range episodes {
		if e.Run != run {
			return other("episode", e.Run)
		}
	}
	return nil
}

// genVersion identifies the val episodes of one version in one generation.
type genVersion struct {
	gen     int32
	version string
}

// valScores holds the val scores of each version in each generation, sorted
// ascending so that nothing depends on the order of the episodes.
type valScores map[genVersion]plotter.Values

func newValScores(episodes []EpisodeRow) valScores {
	s := make(valScores)
	for _, e := range episodes {
		if e.Split == SplitVal {
			k := genVersion{e.Generation, e.Version}
			s[k] = append(s[k], float64(e.Score))
		}
	}
	for _, v := range s {
		slices.Sort(v)
	}
	return s
}

// incumbent returns the val scores of version as incumbent of generation g:
// those of generation g, else those of the latest earlier generation that
// has any, else nil.
func (s valScores) incumbent(g int32, version string) plotter.Values {
	if v, ok := s[genVersion{g, version}]; ok {
		return v
	}
	var latest genVersion
	for k := range s {
		if k.version == version && k.gen < g && (latest.version == "" || k.gen > latest.gen) {
			latest = k
		}
	}
	return s[latest]
}

// padY widens the y range by the fractions below and above of its span
// (at least 1 score point each) so that points and whiskers do not touch
// the frame and the legend has room.
func padY(p *plot.Plot, below, above float64) {
	if p.Y.Min > p.Y.Max {
		return // nothing was added
	}
	span := max(p.Y.Max-p.Y.Min, 1)
	p.Y.Min -= max(span*below, 1)
	p.Y.Max += max(span*above, 1)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// niceTicks labels about n ticks at a step of 1, 2 or 5 times a power of
// ten, with unlabelled minor ticks halfway between them; integer axes
// (generations) use a step of at least 1 and no fractional minor ticks.
type niceTicks struct {
	n       int
	integer bool
}

// Ticks implements plot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || !finite(lo) || !finite(hi) {
		return nil
	}
	raw := (hi - lo) / float64(max(t.n, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if t.integer {
		step = max(step, 1)
	}
	decimals := max(0, -int(math.Floor(math.Log10(step))))
	minor := step / 2
	if t.integer && minor != math.Trunc(minor) {
		minor = 0
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi; i++ {
		v := i * step
		if v == 0 {
			v = 0 // not -0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
		if m := v + minor; minor > 0 && m <= hi {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	if m := math.Ceil(lo/step)*step - minor; minor > 0 && m >= lo {
		ticks = append(ticks, plot.Tick{Value: m})
	}
	return ticks
}
