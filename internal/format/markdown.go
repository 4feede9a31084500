package format

import "strings"

// cellEscaper escapes what would end or split a GitHub-flavoured Markdown
// table cell.
var cellEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "\r\n", " ", "\n", " ", "\r", " ")

// Cell escapes s for one cell of a GitHub-flavoured Markdown table: a
// backslash becomes "\\" (so that it cannot escape what follows), a pipe
// "\|" (so that it cannot end the cell), and each line break ("\r\n",
// "\n" or "\r") one space (so that the row stays one line). Nothing else
// changes: other Markdown (emphasis, code spans) keeps its meaning, and
// runs of spaces are kept.
func Cell(s string) string { return cellEscaper.Replace(s) }
