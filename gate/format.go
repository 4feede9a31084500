package gate

import "evolve/internal/format"

// The gate's number formats (package format): scores with about 4
// significant digits, p-values with 2, NaN and infinities as Go spells
// them.
var (
	num  = format.Plain.Score
	pfmt = format.Plain.P
)

// cell escapes s for a GitHub-flavoured Markdown table cell (format.Cell:
// pipes and backslashes escaped, line breaks as spaces).
var cell = format.Cell
