"""Reference values for package stats from scipy 1.10.1.

Run from the repository root:  /usr/bin/python3 stats/testdata/gen_scipy.py
Writes stats/testdata/scipy_reference.json (committed; tests need no scipy).

Sections:
  brunner_munzel: scipy.stats.brunnermunzel(y, x, alternative) with x the
      candidate: its statistic, df and p at theta0 = 1/2 (scipy's
      "greater" = our Less, "less" = our Greater); and, for a margin
      theta0 != 1/2, T = (A12 - theta0)/SE from the same rank quantities as
      scipy's code (scipy.stats.rankdata) and scipy.stats.t; t_logit and
      p_logit_* are the logit-scale statistic of BrunnerMunzelLogit and its
      scipy.stats.norm p-values.
  bca: data, a bootstrap distribution theta_hat_b (numpy PCG64 resamples;
      the values are the input, not re-drawn by the Go test) and the BCa
      interval scipy.stats.bootstrap(method="BCa") computes from them
      (scipy.stats._resampling._bca_interval, then np.percentile).
  bm_permutation: the studentized permutation test of the relative effect on
      the logit scale (Pauly, Asendorf and Konietschke 2016) of
      stats.BrunnerMunzelPermutation, for samples small enough to enumerate
      every split: the null distribution is scipy.stats.permutation_test's
      (permutation_type="independent", n_resamples=inf: every split) of the
      logit statistic at theta0 = 1/2, written here from scipy.stats.rankdata;
      p_less = share of the null distribution <= the observed statistic at
      theta0 (ties within 1e-12 relative), p_greater likewise >=. At
      theta0 = 1/2 the script checks that these equal permutation_test's
      own p-values.
"""
import json

import numpy as np
from scipy import stats
from scipy.stats import _resampling

rng = np.random.default_rng(20261125)
out = {"brunner_munzel": [], "bca": []}


def gen(kind, n1, n2):
    if kind == "normal":
        return rng.normal(0.2, 1, n1), rng.normal(0, 1.5, n2)
    if kind == "integers":
        return rng.integers(0, 6, n1).astype(float), rng.integers(0, 5, n2).astype(float)
    if kind == "skewed":
        return rng.lognormal(0, 1, n1), rng.lognormal(0.3, 0.5, n2)
    raise ValueError(kind)


for kind in ["normal", "integers", "skewed"]:
    for n1, n2 in [(5, 7), (10, 10), (20, 35), (100, 80)]:
        x, y = gen(kind, n1, n2)
        nx, ny = len(x), len(y)
        rc = stats.rankdata(np.concatenate((x, y)))
        px = rc[:nx] - stats.rankdata(x)
        py = rc[nx:] - stats.rankdata(y)
        sx = np.sum((px - px.mean()) ** 2) / (nx - 1)
        sy = np.sum((py - py.mean()) ** 2) / (ny - 1)
        a12 = px.mean() / ny
        v = nx * sx + ny * sy
        se = np.sqrt(v) / (nx * ny)
        df = v * v / ((nx * sx) ** 2 / (nx - 1) + (ny * sy) ** 2 / (ny - 1))
        for theta0 in [0.5, 0.4, 0.35, 0.6]:
            case = {"kind": kind, "x": x.tolist(), "y": y.tolist(), "theta0": theta0, "a12": a12, "se": se, "df": df}
            if theta0 == 0.5:
                g = stats.brunnermunzel(y, x, alternative="greater")
                l = stats.brunnermunzel(y, x, alternative="less")
                two = stats.brunnermunzel(y, x, alternative="two-sided")
                case.update(t=float(g.statistic), p_less=float(g.pvalue), p_greater=float(l.pvalue), p_two_sided=float(two.pvalue))
            else:
                t = (a12 - theta0) / se
                case.update(t=t, p_less=float(stats.t.cdf(t, df)), p_greater=float(stats.t.sf(t, df)),
                            p_two_sided=float(min(1, 2 * min(stats.t.cdf(t, df), stats.t.sf(t, df)))))
            # The logit-scale statistic (delta method) of BrunnerMunzelLogit.
            tl = (np.log(a12 / (1 - a12)) - np.log(theta0 / (1 - theta0))) / (se / (a12 * (1 - a12)))
            case.update(t_logit=float(tl), p_logit_less=float(stats.norm.cdf(tl)), p_logit_greater=float(stats.norm.sf(tl)))
            out["brunner_munzel"].append(case)


def iqm(x, axis=-1):
    return stats.trim_mean(x, 0.25, axis=axis)


def mean(x, axis=-1):
    return np.mean(x, axis=axis)


for kind in ["normal", "skewed", "integers"]:
    for n in [5, 10, 30, 100]:
        x, _ = gen(kind, n, 2)
        for name, fn in [("mean", mean), ("iqm", iqm)]:
            for conf in [0.95, 0.9]:
                idx = rng.integers(0, n, size=(999, n))
                theta_b = fn(x[idx], axis=-1)
                alpha = (1 - conf) / 2
                a1, a2, ahat = _resampling._bca_interval((x,), fn, -1, alpha, theta_b[None, :], None)
                a1, a2 = float(np.squeeze(a1)), float(np.squeeze(a2))
                lo = float(np.percentile(theta_b, a1 * 100)) if np.isfinite(a1) else float("nan")
                hi = float(np.percentile(theta_b, a2 * 100)) if np.isfinite(a2) else float("nan")
                out["bca"].append({"kind": kind, "stat": name, "conf_level": conf, "x": x.tolist(), "theta_hat": float(fn(x)), "theta_b": theta_b.tolist(),
                                   "alpha_low": a1, "alpha_high": a2, "a_hat": float(np.squeeze(ahat)), "low": lo, "high": hi})



def logit_half(x, y, axis=-1):
    """Logit-scale Brunner-Munzel statistic at theta0 = 1/2 (+-inf, 0 when
    the placements are constant within each group)."""
    nx, ny = len(x), len(y)
    rc = stats.rankdata(np.concatenate((x, y)))
    px = rc[:nx] - stats.rankdata(x)
    py = rc[nx:] - stats.rankdata(y)
    a = px.mean() / ny
    if np.all(px == px[0]) and np.all(py == py[0]):
        return np.inf if a > 0.5 else (-np.inf if a < 0.5 else 0.0)
    v = nx * np.var(px, ddof=1) + ny * np.var(py, ddof=1)
    se = np.sqrt(v) / (nx * ny)
    return np.log(a / (1 - a)) * a * (1 - a) / se


def logit_obs(x, y, theta0):
    nx, ny = len(x), len(y)
    rc = stats.rankdata(np.concatenate((x, y)))
    px = rc[:nx] - stats.rankdata(x)
    py = rc[nx:] - stats.rankdata(y)
    a = px.mean() / ny
    v = nx * np.var(px, ddof=1) + ny * np.var(py, ddof=1)
    se = np.sqrt(v) / (nx * ny)
    return (np.log(a / (1 - a)) - np.log(theta0 / (1 - theta0))) / (se / (a * (1 - a)))


prng = np.random.default_rng(2016)
out["bm_permutation"] = []
for kind in ["normal", "integers", "skewed"]:
    for n1, n2 in [(5, 5), (4, 9), (6, 7), (8, 5), (7, 7)]:
        if kind == "normal":
            x, y = prng.normal(-0.3, 1, n1), prng.normal(0, 1.5, n2)
        elif kind == "integers":
            x, y = prng.integers(0, 5, n1).astype(float), prng.integers(0, 6, n2).astype(float)
        else:
            x, y = prng.lognormal(0, 1, n1), prng.lognormal(0.3, 0.5, n2)
        res = stats.permutation_test((x, y), logit_half, permutation_type="independent", vectorized=False,
                                     n_resamples=np.inf, alternative="less")
        null = res.null_distribution
        assert len(null) == int(round(__import__("math").comb(n1 + n2, n1)))
        for theta0 in [0.5, 0.4, 0.3, 0.65]:
            t = float(logit_obs(x, y, theta0))
            tol = 1e-12 * max(1.0, abs(t))
            pl = float(np.mean(null <= t + tol))
            pg = float(np.mean(null >= t - tol))
            if theta0 == 0.5:
                rg = stats.permutation_test((x, y), logit_half, permutation_type="independent", vectorized=False,
                                            n_resamples=np.inf, alternative="greater")
                assert abs(pl - res.pvalue) < 1e-12 and abs(pg - rg.pvalue) < 1e-12, (pl, res.pvalue, pg, rg.pvalue)
            out["bm_permutation"].append({"kind": kind, "x": x.tolist(), "y": y.tolist(), "theta0": theta0,
                                          "t": t, "splits": len(null), "p_less": pl, "p_greater": pg})

with open("stats/testdata/scipy_reference.json", "w") as f:
    json.dump(out, f, indent=0, allow_nan=True)
