# Reference values for package stats from R (base R only: stats).
# Run from the repository root:  Rscript stats/testdata/gen_R.R
# Writes stats/testdata/r_reference.json. R 4.2.2 was used for the committed file.
#
# Sections:
#   hl_onesample:  wilcox.test(x, y, paired = TRUE, conf.int = TRUE, ...)
#                  estimate, CI, conf.level attribute (paired Hodges-Lehmann)
#   shift_margin:  wilcox.test(x, y, mu = -D, alternative, paired) p-values:
#                  the rank tests of a non-inferiority margin D as R computes mu
#   t_margin:      t.test(x, y, mu = -D, alternative, paired, var.equal = FALSE)
#   power_t:       power.t.test(n, delta, sd = 1, type, alternative = "one.sided")
options(warn = -1)
num <- function(v) {
  if (length(v) == 0) return("[]")
  s <- ifelse(is.nan(v), "null", ifelse(is.infinite(v), ifelse(v > 0, "\"+Inf\"", "\"-Inf\""), sprintf("%.17g", v)))
  paste0("[", paste(s, collapse = ", "), "]")
}
one <- function(v) {
  if (is.nan(v) || is.na(v)) return("null")
  if (is.infinite(v)) return(if (v > 0) "\"+Inf\"" else "\"-Inf\"")
  sprintf("%.17g", v)
}
set.seed(20261125)
gen <- function(kind, n) {
  switch(kind,
    normal = { x <- rnorm(n, 0.3); y <- rnorm(n); list(x = x, y = y) },
    decimals = { y <- round(runif(n, 0, 100), 1); x <- round(y + rnorm(n, -1, 3), 1); list(x = x, y = y) },
    integers = { y <- sample(0:20, n, TRUE); x <- y + sample(-3:3, n, TRUE); list(x = x, y = y) },
    skewed = { y <- rlnorm(n); x <- rlnorm(n, 0.2); list(x = x, y = y) })
}
out <- c()
cases <- c()
for (kind in c("normal", "decimals", "integers", "skewed")) {
  for (n in c(6, 12, 25, 49, 60, 150)) {
    d <- gen(kind, n)
    for (alt in c("two.sided", "greater", "less")) {
      for (cl in c(0.95, 0.8)) {
        for (correct in c(TRUE, FALSE)) {
          r <- wilcox.test(d$x, d$y, paired = TRUE, conf.int = TRUE, conf.level = cl, alternative = alt, correct = correct)
          cases <- c(cases, sprintf('{"kind": "%s", "x": %s, "y": %s, "alternative": "%s", "conf_level": %s, "correct": %s, "estimate": %s, "ci": %s, "achieved_conf_level": %s, "p": %s, "V": %s}',
            kind, num(d$x), num(d$y), alt, one(cl), tolower(correct), one(unname(r$estimate)), num(as.numeric(r$conf.int)), one(attr(r$conf.int, "conf.level")), one(r$p.value), one(unname(r$statistic))))
        }
      }
    }
  }
}
out <- c(out, paste0('"hl_onesample": [\n', paste(cases, collapse = ",\n"), "\n]"))
cases <- c()
for (kind in c("normal", "decimals", "integers", "skewed")) {
  for (n in c(8, 30, 70)) {
    d <- gen(kind, n)
    for (D in c(0.5, 1.3, 2)) {
      for (alt in c("greater", "less")) {
        for (paired in c(TRUE, FALSE)) {
          r <- wilcox.test(d$x, d$y, paired = paired, mu = -D, alternative = alt)
          tt <- t.test(d$x, d$y, paired = paired, mu = -D, alternative = alt, var.equal = FALSE)
          cases <- c(cases, sprintf('{"kind": "%s", "x": %s, "y": %s, "margin": %s, "alternative": "%s", "paired": %s, "wilcox_p": %s, "wilcox_stat": %s, "t_p": %s, "t_stat": %s, "t_df": %s}',
            kind, num(d$x), num(d$y), one(D), alt, tolower(paired), one(r$p.value), one(unname(r$statistic)), one(tt$p.value), one(unname(tt$statistic)), one(unname(tt$parameter))))
        }
      }
    }
  }
}
out <- c(out, paste0('"shift_margin": [\n', paste(cases, collapse = ",\n"), "\n]"))
cat("{\n", paste(out, collapse = ",\n"), "\n}\n", file = "stats/testdata/r_reference.json", sep = "")
# power.t.test: one-sided power of the two-sample and paired t tests, the
# reference of package power's simulated mean-test power.
cases <- c()
for (n in c(10, 30, 80)) for (delta in c(0.3, 0.6)) for (type in c("two.sample", "paired")) {
  r <- power.t.test(n = n, delta = delta, sd = 1, sig.level = 0.05, type = type, alternative = "one.sided")
  cases <- c(cases, sprintf('{"n": %d, "delta": %s, "type": "%s", "power": %s}', n, one(delta), type, one(r$power)))
}
extra <- paste0('"power_t": [\n', paste(cases, collapse = ",\n"), "\n]")
txt <- readLines("stats/testdata/r_reference.json")
txt[length(txt)] <- ""
txt[length(txt) - 1] <- paste0(txt[length(txt) - 1], ",")
cat(paste(c(txt, extra, "}"), collapse = "\n"), "\n", file = "stats/testdata/r_reference.json", sep = "")
