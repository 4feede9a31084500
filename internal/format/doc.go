// Package format writes evolve's numbers and text for people and for
// other programs, in one place, so that every table, report and JSON
// document spells a statistic the same way:
//
//   - numbers: scores with about four significant digits (Style.Score),
//     fixed decimals (Style.Fixed, Style.Signed, Style.Percent),
//     significant digits (Style.Sig), p-values (Style.P), the shortest
//     exact form (Style.Exact) and intervals (Style.Interval,
//     Style.WithInterval); a Style says how a missing value (NaN, ±Inf)
//     is written: as Go spells it (Plain), an en dash (Dash), "n/a" (NA)
//     or "--" (TeXDash);
//   - Markdown table cells (Cell) and LaTeX text, labels and numbers (TeX,
//     TeXLabel, TeXP, TeXPM);
//   - NaN-safe JSON: NaN and ±Inf become null (Finite, Float, Marshal,
//     WriteJSON);
//   - the HTML page of a run's or an eval's report: one template and one
//     stylesheet (WritePage).
//
// The package knows nothing of evolve's documents: it formats numbers and
// strings. It sits at floor 0 (docs/architecture.md).
package format
