package results

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// PDF output is made reproducible the way reproducible-builds.org asks: the
// document's creation and modification dates are SOURCE_DATE_EPOCH (Unix
// seconds) when that is set, else the Unix epoch, and its catalogue is
// written in sorted order. gonum/plot's vgpdf draws through fpdf and does
// not expose its document, so the package defaults are set once here.
func init() {
	t := time.Unix(0, 0).UTC()
	if s, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		t = time.Unix(s, 0).UTC()
	}
	fpdf.SetDefaultCreationDate(t)
	fpdf.SetDefaultModificationDate(t)
	fpdf.SetDefaultCatalogSort(true)
}

// pdfCanvas is a vg.Canvas drawing a one-page PDF through fpdf, adapted
// from gonum/plot's vg/vgpdf (Copyright ©2015 The Gonum Authors,
// BSD-3-Clause) with one change: fonts are embedded as UTF-8 TrueType
// subsets (fpdf's AddUTF8FontFromBytes: Identity-H encoding with a
// ToUnicode map) instead of vgpdf's cp1252 single-byte encoding, which has
// no → or Δ and draws UTF-8 text byte by byte (`150 â†’ 200`). Text in the
// figures is thus drawn with the plot font's own glyphs and extracted
// correctly by pdftotext and screen readers.
type pdfCanvas struct {
	doc   *fpdf.Fpdf
	w, h  vg.Length
	stack []pdfContext
	fonts map[string]bool // registered font names
	imgs  int             // images drawn, to name them
}

type pdfContext struct {
	fill, line color.Color
	width      vg.Length
}

// pdfDPI is the nominal resolution of drawing in PDF, as vgpdf's.
const pdfDPI = 72

// newPDFCanvas returns a w × h single-page PDF canvas.
func newPDFCanvas(w, h vg.Length) *pdfCanvas {
	c := &pdfCanvas{
		doc:   fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w.Points(), Ht: h.Points()}}),
		w:     w,
		h:     h,
		stack: make([]pdfContext, 1),
		fonts: map[string]bool{},
	}
	c.doc.SetMargins(0, 0, 0)
	c.doc.AddPage()
	c.Push()
	c.Translate(vg.Point{X: 0, Y: c.h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

func (c *pdfCanvas) DPI() float64                 { return pdfDPI }
func (c *pdfCanvas) Size() (w, h vg.Length)       { return c.w, c.h }
func (c *pdfCanvas) context() *pdfContext         { return &c.stack[len(c.stack)-1] }
func (c *pdfCanvas) unit(l vg.Length) float64     { return l.Dots(pdfDPI) }
func (c *pdfCanvas) pt(p vg.Point) (x, y float64) { return c.unit(p.X), c.unit(p.Y) }

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.context().width = w
	c.doc.SetLineWidth(c.unit(w))
}

func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = c.unit(d)
	}
	c.doc.SetDashPattern(ds, c.unit(offs))
}

func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.context().line, c.context().fill = clr, clr
	r, g, b, a := clr.RGBA()
	c.doc.SetFillColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetDrawColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetTextColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetAlpha(float64(a)/math.MaxUint16, "Normal")
}

func (c *pdfCanvas) Rotate(r float64)           { c.doc.TransformRotate(-r*180/math.Pi, 0, 0) }
func (c *pdfCanvas) Translate(p vg.Point)       { x, y := c.pt(p); c.doc.TransformTranslate(x, y) }
func (c *pdfCanvas) Scale(x float64, y float64) { c.doc.TransformScale(x*100, y*100, 0, 0) }

func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, *c.context())
	c.doc.TransformBegin()
}

func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.context().width > 0 {
		c.path(p, "D")
	}
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// FillString draws str with its baseline's left end at pt, as vgpdf.
func (c *pdfCanvas) FillString(fnt font.Face, pt vg.Point, str string) {
	if fnt.Font.Size == 0 {
		return
	}
	name := fnt.Name()
	if !c.fonts[name] {
		var raw bytes.Buffer
		if _, err := fnt.Face.WriteSourceTo(nil, &raw); err != nil {
			panic(fmt.Sprintf("results: PDF font %q: %v", name, err))
		}
		c.doc.AddUTF8FontFromBytes(name, "", raw.Bytes())
		c.fonts[name] = true
	}
	c.doc.SetFont(name, "", c.unit(fnt.Font.Size))
	c.Push()
	defer c.Pop()
	c.Translate(pt)
	c.Scale(1, -1) // fpdf's origin is the top left corner
	_, h := c.doc.GetFontSize()
	d := c.doc.GetFontDesc(name, "")
	top := 0.81 * h // no metrics: vgpdf's average
	if d.Ascent != 0 {
		top = -float64(d.Ascent) * h / float64(d.Ascent-d.Descent)
	}
	c.doc.MoveTo(-c.doc.GetCellMargin(), top)
	c.doc.CellFormat(c.doc.GetStringWidth(str), h, str, "", 0, "BL", false, 0, "")
}

// DrawImage draws img (PNG-encoded) into rect.
func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(fmt.Sprintf("results: PDF image: %v", err))
	}
	opts := fpdf.ImageOptions{ImageType: "png", ReadDpi: true}
	c.imgs++
	name := fmt.Sprintf("image_%03d.png", c.imgs)
	c.doc.RegisterImageOptionsReader(name, opts, &buf)
	x, y := c.pt(rect.Min)
	w, h := c.pt(rect.Size())
	c.doc.ImageOptions(name, x, y, w, h, false, opts, 0, "")
}

func (c *pdfCanvas) path(p vg.Path, style string) {
	var x, y float64
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			x, y = c.pt(comp.Pos)
			c.doc.MoveTo(x, y)
		case vg.LineComp:
			c.doc.LineTo(c.pt(comp.Pos))
		case vg.ArcComp:
			c.arc(comp, style)
		case vg.CurveComp:
			px, py := c.pt(comp.Pos)
			switch len(comp.Control) {
			case 1:
				cx, cy := c.pt(comp.Control[0])
				c.doc.CurveTo(cx, cy, px, py)
			case 2:
				cx, cy := c.pt(comp.Control[0])
				dx, dy := c.pt(comp.Control[1])
				c.doc.CurveBezierCubicTo(cx, cy, dx, dy, px, py)
			default:
				panic("results: PDF path: invalid number of control points")
			}
		case vg.CloseComp:
			c.doc.LineTo(x, y)
			c.doc.ClosePath()
		default:
			panic(fmt.Sprintf("results: PDF path: unknown component type %d", comp.Type))
		}
	}
	c.doc.DrawPath(style)
}

func (c *pdfCanvas) arc(comp vg.PathComp, style string) {
	x0 := comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start))
	y0 := comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start))
	c.doc.LineTo(c.unit(x0), c.unit(y0))
	r := c.unit(comp.Radius)
	const deg = 180 / math.Pi
	beg := comp.Start * deg
	c.doc.Arc(c.unit(comp.Pos.X), c.unit(comp.Pos.Y), r, r, comp.Angle*deg, beg, beg+comp.Angle*deg, style)
	x1 := comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start+comp.Angle))
	y1 := comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start+comp.Angle))
	c.doc.MoveTo(c.unit(x1), c.unit(y1))
}

// WriteTo writes the document to w; the canvas cannot be drawn on after.
func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	c.Pop()
	c.doc.Close()
	cw := &countWriter{w: w}
	err := c.doc.Output(cw)
	return cw.n, err
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (cw *countWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	cw.n += int64(n)
	return n, err
}
