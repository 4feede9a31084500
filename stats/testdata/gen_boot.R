# Reference values of the BCa interval (stats.BootstrapBCa) from R's boot
# package (Canty and Ripley; Debian r-cran-boot 1.3-28.1, R 4.2.2 for the
# committed file). Run from the repository root:
#   Rscript stats/testdata/gen_boot.R
# Writes stats/testdata/boot_reference.json (tests need no R).
#
# For each case: the data x, R's bootstrap replicates t (boot(x, stat,
# R = 999); the Go test uses these replicates, not its own), t0 = stat(x),
# the jackknife empirical influence values L = empinf(b, type = "jack"),
# and for conf = 0.95 and 0.9 (levels)
# boot.ci(b, conf, type = "bca", L = L)$bca: the order-statistic
# positions and the limits (boot interpolates between neighbouring
# replicates on the normal scale, norm.inter; numpy and Go linearly, so
# the limits agree only to the gap between neighbouring replicates). The
# script also writes boot's bias correction w = qnorm(sum(t < t0)/R),
# acceleration a = sum(L^3)/(6 sum(L^2)^1.5) and adjusted levels
# pnorm(w + (w + z)/(1 - a (w + z))), computed as boot:::bca.ci computes
# them (it does not return them), and n_tied = sum(t == t0) (boot counts
# t < t0, scipy and Go (t < t0) + (t <= t0) halved: equal when n_tied = 0).
suppressMessages(library(boot))
options(warn = -1)
num <- function(v) paste0("[", paste(sprintf("%.17g", v), collapse = ", "), "]")
one <- function(v) sprintf("%.17g", v)
set.seed(1987)
stats <- list(mean = function(d, i) mean(d[i]), iqm = function(d, i) mean(d[i], trim = 0.25))
cases <- c()
for (kind in c("normal", "lognormal")) {
  for (n in c(10, 30, 100)) {
    x <- if (kind == "normal") rnorm(n, 50, 10) else rlnorm(n, 0, 1)
    for (sname in names(stats)) {
      b <- boot(x, stats[[sname]], R = 999)
      t <- b$t[, 1]
      t0 <- b$t0
      L <- empinf(b, type = "jack")
      levels <- c()
      for (conf in c(0.95, 0.9)) {
        ci <- boot.ci(b, conf = conf, type = "bca", L = L)$bca
        w <- qnorm(sum(t < t0) / length(t))
        a <- sum(L^3) / (6 * sum(L^2)^1.5)
        z <- qnorm((1 + c(-conf, conf)) / 2)
        adj <- pnorm(w + (w + z) / (1 - a * (w + z)))
        levels <- c(levels, sprintf('{"conf_level": %s, "w": %s, "a": %s, "adj_alpha": %s, "index": %s, "limits": %s}',
          one(conf), one(w), one(a), num(adj), num(ci[2:3]), num(ci[4:5])))
      }
      cases <- c(cases, sprintf('{"kind": "%s", "stat": "%s", "x": %s, "t0": %s, "t": %s, "L": %s, "n_tied": %d, "levels": [%s]}',
        kind, sname, num(x), one(t0), num(t), num(L), sum(t == t0), paste(levels, collapse = ", ")))
    }
  }
}
cat('{"bca_boot": [\n', paste(cases, collapse = ",\n"), "\n]}\n", file = "stats/testdata/boot_reference.json", sep = "")
