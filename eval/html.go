package eval

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"evolve/results"
)

// htmlStyle is the style sheet of report.html: the run report's
// (report.Data.HTML), with verdict marks drawn by CSS rather than by
// glyphs, which would depend on the fonts installed.
const htmlStyle = `body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
th { border-bottom: 2px solid #888; }
td[style*="right"], th[style*="right"] { font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font-size: 0.85rem; }
figure { margin: 1.5rem 0; }
figure svg { max-width: 100%; height: auto; }
.mark { display: inline-block; width: 0.7em; height: 0.7em; border-radius: 50%; margin-right: 0.3em; vertical-align: baseline; }
.mark.ok { background: #2ca02c; }
.mark.bad { background: #d62728; }
td:has(.mark) { white-space: nowrap; }
`

// markdown is the renderer of report.html: CommonMark with GitHub's pipe
// tables (goldmark, github.com/yuin/goldmark); raw HTML in the Markdown is
// escaped, not passed through.
var markdown = goldmark.New(goldmark.WithExtensions(extension.Table))

// figureImage is the paragraph goldmark renders for report.md's figure
// reference; report.html inlines the SVG in its place.
const figureImage = `<p><img src="plots/` + ScoresName + `.png" alt="Scores per version"></p>`

// HTML renders md, an eval report's Markdown (CommonMark and pipe
// tables), as a self-contained HTML page with title, in the run report's
// style. svgs are inlined as figures: the first in place of the report's
// reference to plots/scores.png, the others after it (or all at the end
// when md has no such reference). The emoji ✅ and ❌ become marks drawn
// by CSS (red for a regression, green for ok), and so do the table cells
// "regression" and "improvement", so that nothing depends on the fonts installed; no scripts,
// nothing fetched. An error means the Markdown renderer failed.
func HTML(title, md string, svgs ...[]byte) ([]byte, error) {
	var body bytes.Buffer
	if err := markdown.Convert([]byte(md), &body); err != nil {
		return nil, fmt.Errorf("eval: rendering the report's Markdown: %w", err)
	}
	s := body.String()
	s = strings.ReplaceAll(s, "✅", `<span class="mark ok" role="img" aria-label="ok"></span>`)
	s = strings.ReplaceAll(s, "❌", `<span class="mark bad" role="img" aria-label="failed"></span>`)
	// report.md's verdict cells get the same marks.
	s = strings.ReplaceAll(s, "<td>"+results.VerdictRegression+"</td>", `<td><span class="mark bad"></span>`+results.VerdictRegression+"</td>")
	s = strings.ReplaceAll(s, "<td>"+results.VerdictImprovement+"</td>", `<td><span class="mark ok"></span>`+results.VerdictImprovement+"</td>")
	var figs strings.Builder
	for _, svg := range svgs {
		figs.WriteString("<figure>\n")
		figs.Write(stripProlog(svg))
		figs.WriteString("\n</figure>\n")
	}
	if strings.Contains(s, figureImage) {
		s = strings.Replace(s, figureImage, figs.String(), 1)
	} else {
		s += figs.String()
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n",
		html.EscapeString(title), htmlStyle)
	b.WriteString(s)
	b.WriteString("</body>\n</html>\n")
	return b.Bytes(), nil
}

// stripProlog drops an XML prolog (<?xml ...?>) and a DOCTYPE before an
// SVG's root element, which HTML does not allow inline.
func stripProlog(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		return svg[i:]
	}
	return svg
}
