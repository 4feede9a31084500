package eval

import (
	"html"
	"strings"
)

// HTML renders the Markdown of an eval report (headings, pipe tables,
// bullet lists and paragraphs, as the report writes them) as a
// self-contained HTML page with title, and the SVG figures inline after
// it: no scripts, nothing fetched.
func HTML(title, md string, svgs ...[]byte) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html.EscapeString(title) + "</title>\n")
	b.WriteString("<style>body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em}td.r{text-align:right}</style></head><body>\n")
	lines := strings.Split(md, "\n")
	inList := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if inList && !strings.HasPrefix(l, "- ") {
			b.WriteString("</ul>\n")
			inList = false
		}
		switch {
		case strings.HasPrefix(l, "#"):
			level := len(l) - len(strings.TrimLeft(l, "#"))
			tag := "h" + string(rune('0'+min(level, 6)))
			b.WriteString("<" + tag + ">" + html.EscapeString(strings.TrimSpace(l[level:])) + "</" + tag + ">\n")
		case strings.HasPrefix(l, "|"):
			b.WriteString("<table>\n")
			header := cells(l)
			right := []bool{}
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|") {
				for _, c := range cells(lines[i+1]) {
					right = append(right, strings.HasSuffix(c, ":"))
				}
				i++
			}
			b.WriteString("<tr>")
			for _, c := range header {
				b.WriteString("<th>" + html.EscapeString(c) + "</th>")
			}
			b.WriteString("</tr>\n")
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|") {
				i++
				b.WriteString("<tr>")
				for k, c := range cells(lines[i]) {
					class := ""
					if k < len(right) && right[k] {
						class = ` class="r"`
					}
					b.WriteString("<td" + class + ">" + html.EscapeString(c) + "</td>")
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</table>\n")
		case strings.HasPrefix(l, "- "):
			if !inList {
				b.WriteString("<ul>\n")
				inList = true
			}
			b.WriteString("<li>" + html.EscapeString(l[2:]) + "</li>\n")
		case strings.TrimSpace(l) != "":
			b.WriteString("<p>" + html.EscapeString(l) + "</p>\n")
		}
	}
	if inList {
		b.WriteString("</ul>\n")
	}
	for _, svg := range svgs {
		b.WriteString("<figure>\n")
		b.Write(svg)
		b.WriteString("</figure>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// cells splits a Markdown table row into its trimmed cells.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(strings.TrimSuffix(row, "|"), "|")
	parts := strings.Split(row, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}
