"""Reference values for stats.FailureIncrease and FailureIncreasePaired.

Run from the repository root:  /usr/bin/python3 stats/testdata/gen_failinc.py
Writes stats/testdata/failinc_reference.json (committed; tests need no scipy).
Made with scipy 1.10.1 / numpy 1.24 (Debian 12).

Sections:
  unpaired_scipy: margin 0; scipy.stats.barnard_exact([[x1, x0], [n1 - x1,
      n0 - x0]], alternative="greater", pooled=True, n=256): Barnard's exact
      unconditional test with the pooled score statistic (= Chan 1998 at
      margin 0).
  paired_scipy: margin 0; scipy.stats.binomtest(n10, n10 + n01, 0.5,
      alternative="greater"): the exact (McNemar) test of discordant pairs.
  unpaired_margin: margin > 0 (and 0, cross-checked against scipy above);
      Chan's (1998) exact unconditional test with the Farrington-Manning
      score, computed here independently of the Go code: the restricted
      MLE by its closed form, asserted below against numerical
      maximisation of the likelihood (scipy.optimize.minimize_scalar),
      the tail by full enumeration of the tables with scipy.stats.binom,
      the supremum over the nuisance on a 2001-point grid refined by
      scipy.optimize.minimize_scalar (bounded, xatol 1e-13).
  paired_margin: margin > 0; the exact unconditional test of Hsueh, Liu &
      Chen (2001) with Tango's (1998) score (its restricted MLE asserted
      against numerical maximisation too), computed the same way over
      every trinomial table with scipy.stats.multinomial.
"""
import json

import numpy as np
from scipy import optimize, stats

rng = np.random.default_rng(20261125)
out = {"unpaired_scipy": [], "paired_scipy": [], "unpaired_margin": [], "paired_margin": []}


def restricted_mle(x1, n1, x0, n0, d):
    """argmax of the two-binomial likelihood with p1 = p0 + d (numerical)."""
    def nll(p0):
        p1 = p0 + d
        s = 0.0
        for x, n, p in ((x1, n1, p1), (x0, n0, p0)):
            if x > 0:
                s -= x * np.log(p)
            if n - x > 0:
                s -= (n - x) * np.log1p(-p)
        return s
    eps = 1e-15
    r = optimize.minimize_scalar(nll, bounds=(eps, 1 - d - eps), method="bounded", options={"xatol": 1e-14})
    p0 = r.x
    return p0 + d, p0


def fm_closed(x1, n1, x0, n0, d):
    p1, p0 = x1 / n1, x0 / n0
    th = n0 / n1
    a = 1 + th
    b = -(1 + th + p1 + th * p0 + d * (th + 2))
    c = d * d + d * (2 * p1 + th + 1) + p1 + th * p0
    e = -p1 * d * (1 + d)
    v = b ** 3 / (3 * a) ** 3 - b * c / (6 * a * a) + e / (2 * a)
    u = np.sign(v) * np.sqrt(max(b * b / (3 * a) ** 2 - c / (3 * a), 0))
    w = (np.pi + np.arccos(np.clip(v / u ** 3, -1, 1))) / 3 if u != 0 else np.pi / 3
    r1 = 2 * u * np.cos(w) - b / (3 * a)
    return r1, r1 - d


def fm_z(x1, n1, x0, n0, d):
    p1, p0 = x1 / n1, x0 / n0
    if d == 0:
        if p1 == p0:
            return 0.0
        p = (x1 + x0) / (n1 + n0)
        v = p * (1 - p) * (1 / n1 + 1 / n0)
    else:
        r1, r0 = fm_closed(x1, n1, x0, n0, d)
        v = r1 * (1 - r1) / n1 + r0 * (1 - r0) / n0
    return (p1 - p0 - d) / np.sqrt(v) if v > 0 else 0.0


def sup(f, lo, hi):
    xs = np.linspace(lo, hi, 2001)
    ys = np.array([f(x) for x in xs])
    best, arg = ys.max(), xs[ys.argmax()]
    for i in range(len(xs)):
        if (i > 0 and ys[i] < ys[i - 1]) or (i < len(xs) - 1 and ys[i] < ys[i + 1]):
            continue
        a, b = xs[max(i - 1, 0)], xs[min(i + 1, len(xs) - 1)]
        r = optimize.minimize_scalar(lambda x: -f(x), bounds=(a, b), method="bounded", options={"xatol": 1e-13})
        if -r.fun > best:
            best, arg = -r.fun, r.x
    return float(best), float(arg)


def unpaired(x1, n1, x0, n0, d):
    """Statistic, p, nuisance at the supremum, and whether a table whose
    statistic equals the observed one only up to rounding (|dz| < 1e-10)
    lies outside the strict region z >= z_obs (scipy's barnard_exact then
    leaves it out of the tail; here it is in, as the test defines it)."""
    z = np.array([[fm_z(a, n1, b, n0, d) for b in range(n0 + 1)] for a in range(n1 + 1)])
    obs = z[x1, x0]
    region = z >= obs - 1e-10 * max(1, abs(obs))
    rounding_tie = bool((region & ~(z >= obs)).any())
    k1, k0 = np.arange(n1 + 1), np.arange(n0 + 1)

    def tail_sum(p0):
        m = stats.binom.pmf(k1, n1, min(p0 + d, 1))[:, None] * stats.binom.pmf(k0, n0, p0)[None, :]
        return float(m[region].sum())
    p, nu = sup(tail_sum, 0, 1 - d)
    return float(obs), min(p, 1.0), nu, rounding_tie


def tango_z(b, c, n, d):
    A = 2 * n
    B = -b - c + (2 * n - b + c) * d
    C = -c * d * (1 - d)
    q = (-B + np.sqrt(max(B * B - 4 * A * C, 0))) / (2 * A)
    v = n * (2 * q + d * (1 - d))
    return (b - c - n * d) / np.sqrt(v) if v > 0 else 0.0


def tango_restricted(b, c, n, d):
    def nll(q):
        s = 0.0
        for k, p in ((b, q + d), (c, q), (n - b - c, 1 - 2 * q - d)):
            if k > 0:
                s -= k * np.log(p)
        return s
    r = optimize.minimize_scalar(nll, bounds=(1e-15, (1 - d) / 2 - 1e-15), method="bounded", options={"xatol": 1e-14})
    return r.x


def paired(n10, n01, n, d):
    tabs = [(b, c) for b in range(n + 1) for c in range(n - b + 1)]
    z = np.array([tango_z(b, c, n, d) for b, c in tabs])
    obs = tango_z(n10, n01, n, d)
    sel = np.array(tabs)[z >= obs - 1e-10 * max(1, abs(obs))]

    def tail(q):
        probs = [q + d, q, max(1 - 2 * q - d, 0.0)]
        s = probs[0] + probs[1] + probs[2]
        probs = [x / s for x in probs]
        return float(sum(stats.multinomial.pmf([b, c, n - b - c], n, probs) for b, c in sel))
    p, nu = sup(tail, 0, (1 - d) / 2)
    return float(obs), min(p, 1.0), nu


# Check the closed forms against numerical maximisation of the likelihood.
for n1, n0 in [(10, 10), (20, 35), (50, 30)]:
    for _ in range(10):
        x1, x0 = int(rng.integers(0, n1 + 1)), int(rng.integers(0, n0 + 1))
        for d in [0.05, 0.1, 0.3]:
            r1, r0 = fm_closed(x1, n1, x0, n0, d)
            s1, s0 = restricted_mle(x1, n1, x0, n0, d)
            assert abs(r1 - s1) < 1e-6 and abs(r0 - s0) < 1e-6, (x1, n1, x0, n0, d, r1, s1)
for n in [10, 30, 60]:
    for _ in range(10):
        b = int(rng.integers(0, n // 2 + 1))
        c = int(rng.integers(0, n - b + 1))
        for d in [0.05, 0.1, 0.3]:
            A = 2 * n
            B = -b - c + (2 * n - b + c) * d
            C = -c * d * (1 - d)
            q = (-B + np.sqrt(B * B - 4 * A * C)) / (2 * A)
            assert abs(q - tango_restricted(b, c, n, d)) < 1e-6, (b, c, n, d)

for n1, n0 in [(5, 7), (10, 10), (20, 15), (30, 30), (60, 45)]:
    for _ in range(4):
        x0 = int(rng.binomial(n0, 0.2))
        x1 = int(rng.binomial(n1, rng.choice([0.2, 0.4, 0.6])))
        r = stats.barnard_exact([[x1, x0], [n1 - x1, n0 - x0]], alternative="greater", pooled=True, n=256)
        tie = unpaired(x1, n1, x0, n0, 0.0)[3]
        out["unpaired_scipy"].append({"failed": x1, "n": n1, "failed_base": x0, "n_base": n0,
                                      "statistic": float(r.statistic), "p": float(r.pvalue), "rounding_tie": tie})
        for d in [0.0, 0.05, 0.2]:
            z, p, nu, tie = unpaired(x1, n1, x0, n0, d)
            if d == 0 and not tie:
                assert abs(p - r.pvalue) < 1e-9, (x1, n1, x0, n0, p, r.pvalue)
            out["unpaired_margin"].append({"failed": x1, "n": n1, "failed_base": x0, "n_base": n0, "margin": d,
                                           "statistic": z, "p": p, "nuisance": nu})
for n in [1, 5, 12, 30, 100, 1000]:
    for _ in range(4):
        m = int(rng.integers(0, n + 1))
        n10 = int(rng.integers(0, m + 1))
        r = stats.binomtest(n10, m, 0.5, alternative="greater") if m > 0 else None
        out["paired_scipy"].append({"n10": n10, "n01": m - n10, "n": n, "p": float(r.pvalue) if r else 1.0})
for n in [6, 15, 30, 50]:
    for _ in range(3):
        b = int(rng.binomial(n, 0.25))
        c = int(rng.binomial(n - b, 0.1))
        for d in [0.05, 0.15]:
            z, p, nu = paired(b, c, n, d)
            out["paired_margin"].append({"n10": b, "n01": c, "n": n, "margin": d, "statistic": z, "p": p, "nuisance": nu})

with open("stats/testdata/failinc_reference.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
