package prompt

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteDiff writes changes, the differences from a to b (Diff(a, b)), as
// text: a header naming both versions and their branches
//
//	--- coding-agent@v1.0.0 (branch main)
//	+++ coding-agent@v1.0.1 (branch main)
//
// then one line per change in the order given: "FIELD: + NEW" (added),
// "FIELD: - OLD" (removed), "FIELD: OLD → NEW" (changed), or for a text
// field "FIELD: KIND" followed by its line diff (TextDiff) indented by four
// spaces; "no differences" when changes is empty. The only error is w's.
func WriteDiff(w io.Writer, a, b *Prompt, changes []Change) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "--- %s (branch %s)\n+++ %s (branch %s)\n", a.Ref(), a.BranchOrMain(), b.Ref(), b.BranchOrMain())
	if len(changes) == 0 {
		fmt.Fprintln(bw, "no differences")
	}
	for _, c := range changes {
		switch {
		case c.Text:
			fmt.Fprintf(bw, "%s: %s\n", c.Field, c.Kind)
			for _, l := range strings.SplitAfter(TextDiff(c.Old, c.New), "\n") {
				if l != "" {
					fmt.Fprintf(bw, "    %s", l)
				}
			}
		case c.Kind == Added:
			fmt.Fprintf(bw, "%s: + %s\n", c.Field, c.New)
		case c.Kind == Removed:
			fmt.Fprintf(bw, "%s: - %s\n", c.Field, c.Old)
		default:
			fmt.Fprintf(bw, "%s: %s → %s\n", c.Field, c.Old, c.New)
		}
	}
	return bw.Flush()
}

// Encode returns the resolved prompt's canonical YAML (Encode) after a
// comment line naming the chain merged, the resolved prompt first:
//
//	# resolved: coding-agent@v1.0.1 ← base-agent@v1.0.0
//
// It sets r.Prompt.ContentSHA256 as Encode does. Errors are Encode's.
func (r *Resolution) Encode() ([]byte, error) {
	data, err := Encode(r.Prompt)
	if err != nil {
		return nil, err
	}
	chain := make([]string, len(r.Chain))
	for i, ref := range r.Chain {
		chain[i] = ref.String()
	}
	return append([]byte("# resolved: "+strings.Join(chain, " ← ")+"\n"), data...), nil
}
