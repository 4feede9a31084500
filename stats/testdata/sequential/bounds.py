#!/usr/bin/env python3
"""Reference values for stats.SequentialBounds (stats/sequential.go).

Computes one-sided Lan-DeMets group-sequential efficacy boundaries with
scipy's multivariate normal CDF (Genz's algorithm: an independent method
from the Go code's numerical integration of the score process), and
writes bounds.json beside this file. Run from the repository root:

    /usr/bin/python3 stats/testdata/sequential/bounds.py

Needs scipy (Debian: python3-scipy). Boundaries: b_k solves
P(Z_1 < b_1, ..., Z_k < b_k) = 1 - alpha*(t_k), with Corr(Z_i, Z_j) =
sqrt(t_i / t_j), i <= j (Jennison & Turnbull 2000, section 3.1);
alpha*(t) is O'Brien-Fleming type 2 - 2 Phi(z_{1-alpha/2} / sqrt(t)) or
Pocock type alpha ln(1 + (e - 1) t) (Lan & DeMets 1983).
"""
import json
import math
import os

import numpy as np
from scipy.optimize import brentq
from scipy.stats import multivariate_normal, norm


def spent(kind, alpha, t):
    if t >= 1:
        return alpha
    if kind == "pocock":
        return alpha * math.log(1 + (math.e - 1) * t)
    return 2 - 2 * norm.cdf(norm.ppf(1 - alpha / 2) / math.sqrt(t))


def below(bounds, t):
    k = len(bounds)
    if k == 1:
        return norm.cdf(bounds[0])
    cov = np.array([[math.sqrt(min(t[i], t[j]) / max(t[i], t[j])) for j in range(k)] for i in range(k)])
    return multivariate_normal.cdf(np.array(bounds), mean=np.zeros(k), cov=cov, abseps=1e-9, releps=1e-9, maxpts=1_000_000)


def design(kind, alpha, t):
    b = []
    for k in range(len(t)):
        target = 1 - spent(kind, alpha, t[k])
        b.append(brentq(lambda z: below(b + [z], t[: k + 1]) - target, -2, 10, xtol=1e-9))
    return b


def main():
    np.random.seed(1)  # Genz's algorithm is randomised quasi-Monte Carlo
    cases = []
    for kind in ("obrien-fleming", "pocock"):
        for alpha in (0.025, 0.05, 0.0304):
            for t in ([0.5, 1.0], [1 / 3, 2 / 3, 1.0], [0.25, 0.6, 1.0], [0.2, 0.4, 0.6, 0.8, 1.0]):
                cases.append({"spending": kind, "alpha": alpha, "t": t, "bounds": design(kind, alpha, t)})
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bounds.json")
    with open(out, "w") as f:
        json.dump({"source": "scipy.stats.multivariate_normal.cdf (Genz), brentq; stats/testdata/sequential/bounds.py",
                   "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
