package format

import (
	"bytes"
	"html"
	"io"
	"text/template"
)

// PageKind selects the rules of the stylesheet a report page needs beyond
// the common ones.
type PageKind int

const (
	// RunPage is a run's report.html, built from the report's own blocks:
	// right-aligned columns carry class "r", figures have a figcaption.
	RunPage PageKind = iota
	// EvalPage is an eval's report.html, rendered from its Markdown by
	// goldmark: right-aligned columns carry style="text-align:right",
	// code spans appear, and verdicts are marks drawn by CSS (class
	// "mark ok" or "mark bad"), not glyphs, which would depend on the
	// fonts installed.
	EvalPage
)

// A Page is one self-contained HTML report: no scripts, no external
// resources.
type Page struct {
	Kind  PageKind
	Title string // plain text; WritePage escapes it
	Body  []byte // the HTML inside <body>, ending in a newline
}

// pageTemplate is the one page template of evolve's reports, with its one
// stylesheet; the rules that only one kind of page uses are chosen by Kind.
var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"esc": html.EscapeString}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{esc .Title}}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
th { border-bottom: 2px solid #888; }
{{if .Eval -}}
td[style*="right"], th[style*="right"] { font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font-size: 0.85rem; }
{{else -}}
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
td.r { white-space: nowrap; }
{{end -}}
figure { margin: 1.5rem 0; }
figure svg { max-width: 100%; height: auto; }
{{if .Eval -}}
.mark { display: inline-block; width: 0.7em; height: 0.7em; border-radius: 50%; margin-right: 0.3em; vertical-align: baseline; }
.mark.ok { background: #2ca02c; }
.mark.bad { background: #d62728; }
td:has(.mark) { white-space: nowrap; }
{{else -}}
figcaption { font-size: 0.9rem; color: #444; }
{{end -}}
</style>
</head>
<body>
{{.Body}}</body>
</html>
`))

// WritePage writes p as an HTML document to w. Errors: w's.
func WritePage(w io.Writer, p Page) error {
	return pageTemplate.Execute(w, struct {
		Title string
		Eval  bool
		Body  string
	}{p.Title, p.Kind == EvalPage, string(p.Body)})
}

// InlineSVG returns an SVG file's bytes from its root element on,
// dropping the XML declaration, comments and DOCTYPE before it, which
// HTML does not allow inline; svg unchanged when it has no "<svg".
func InlineSVG(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		return svg[i:]
	}
	return svg
}
