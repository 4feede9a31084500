package report

import (
	"strings"
	"testing"
)

// TestMarkdownCellEscape checks that a mutation text with a pipe, a
// backslash and a line break stays one cell of one table row in
// report.md: the pipe and the backslash escaped, the line break a space.
func TestMarkdownCellEscape(t *testing.T) {
	d := loadSmall(t)
	if len(d.Candidates) == 0 {
		t.Fatal("the small run has no candidates")
	}
	d.Candidates[0].Mutation = "set a|b to C:\\x\nthen stop"
	var head, row string
	for _, line := range strings.Split(string(d.Markdown()), "\n") {
		switch {
		case strings.HasPrefix(line, "| gen | version | parent | mutation |"):
			head = line
		case strings.Contains(line, "then stop"):
			if row != "" {
				t.Fatalf("the mutation spans more than one line:\n%s\n%s", row, line)
			}
			row = line
		}
	}
	if want := `| set a\|b to C:\\x then stop |`; !strings.Contains(row, want) {
		t.Errorf("candidate row = %q, want it to hold %q", row, want)
	}
	if got, want := cellBorders(row), cellBorders(head); got != want {
		t.Errorf("candidate row has %d cell borders, the head %d:\n%s\n%s", got, want, head, row)
	}
}

// cellBorders counts the pipes of a Markdown table row that are not
// escaped (not preceded by an odd run of backslashes).
func cellBorders(line string) int {
	n, backslashes := 0, 0
	for _, r := range line {
		switch {
		case r == '\\':
			backslashes++
			continue
		case r == '|' && backslashes%2 == 0:
			n++
		}
		backslashes = 0
	}
	return n
}
