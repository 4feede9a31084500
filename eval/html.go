package eval

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"evolve/internal/format"
	"evolve/results"
)

// markdown is the renderer of report.html: CommonMark with GitHub's pipe
// tables (goldmark, github.com/yuin/goldmark); raw HTML in the Markdown is
// escaped, not passed through.
var markdown = goldmark.New(goldmark.WithExtensions(extension.Table))

// figureImage is the paragraph goldmark renders for report.md's figure
// reference; report.html inlines the SVG in its place.
const figureImage = `<p><img src="plots/` + ScoresName + `.png" alt="Scores per version"></p>`

// HTML renders md, an eval report's Markdown (CommonMark and pipe
// tables), as a self-contained HTML page with title: the run report's
// page and stylesheet (format.WritePage, format.EvalPage). svgs are inlined as figures: the first in place of the report's
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
		figs.Write(format.InlineSVG(svg))
		figs.WriteString("\n</figure>\n")
	}
	if strings.Contains(s, figureImage) {
		s = strings.Replace(s, figureImage, figs.String(), 1)
	} else {
		s += figs.String()
	}
	var b bytes.Buffer
	format.WritePage(&b, format.Page{Kind: format.EvalPage, Title: title, Body: []byte(s)}) // a bytes.Buffer does not fail
	return b.Bytes(), nil
}
