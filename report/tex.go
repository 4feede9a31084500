package report

// TexEscape escapes LaTeX's special characters (\ & % $ # _ { } ~ ^) in
// text, for a table cell or a caption.
func TexEscape(s string) string { return texEscape(s) }

// TexP formats a p-value with two significant digits in math mode, as
// results.tex does: "$0.031$", "$6.9{\times}10^{-7}$"; "--" for NaN.
func TexP(p float64) string { return texP(p) }

// TexPM formats "$mean \pm half$", half the half-width of the CI [lo,
// hi] (a symmetric Student t CI), one decimal; the mean alone when the CI
// is NaN.
func TexPM(mean, lo, hi float64) string { return pm(mean, lo, hi) }

// TexNum formats a score with one decimal; "--" for NaN or ±Inf.
func TexNum(x float64) string { return texNum(x) }

// TexF3 formats an effect size with three decimals; "--" for NaN or ±Inf.
func TexF3(x float64) string { return texF3(x) }
