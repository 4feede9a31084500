#!/usr/bin/python3
"""Reference values for package stats' rliable functions, written with
numpy alone, independently of the Go code (rliable itself cannot be
installed here).

Usage (from the repository root; Debian's python3 with python3-numpy):

    /usr/bin/python3 scripts/rliable_reference.py > stats/testdata/rliable_numpy_reference.json

It computes, following rliable (Agarwal et al., "Deep Reinforcement
Learning at the Edge of the Statistical Precipice", NeurIPS 2021;
rliable/metrics.py and rliable/library.py):

- "cases": for seeded matrices of scores (runs x tasks), the aggregate
  IQM (scipy.stats.trim_mean(scores, 0.25, axis=None), written here as a
  sort and a slice), the aggregate mean (mean over tasks of the per-task
  mean), the probability of improvement P(X > Y) (per task the mean over
  all pairs of [x > y] + 0.5 [x == y], then the mean over tasks) and the
  run-score performance profile (np.mean(scores > tau)) at taus;
- "ideal": the ideal stratified bootstrap distributions (every resample
  enumerated, each equally likely): of the IQM and the mean of a 4 x 2
  matrix, of P(X > Y) of two 3 x 2 matrices resampled independently
  (StratifiedIndependentBootstrap), and of the run-score profile of a
  3 x 2 matrix at one tau; for each its distinct values ("atoms") and its
  inverse-CDF quantiles at 0.025 and 0.975 (the k-th smallest of N with
  k = ceil(q N)).

The output is deterministic (numpy's PCG64 with fixed seeds).
"""
import itertools
import json
import math

import numpy as np


def iqm(scores):
    flat = np.sort(np.asarray(scores, dtype=float).ravel())
    n = flat.size
    k = int(0.25 * n)
    return float(np.mean(flat[k:n - k]))


def agg_mean(scores):
    return float(np.mean(np.mean(np.asarray(scores, dtype=float), axis=0)))


def poi(x, y):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    per_task = []
    for j in range(x.shape[1]):
        a, b = x[:, j][:, None], y[:, j][None, :]
        per_task.append(np.mean((a > b) + 0.5 * (a == b)))
    return float(np.mean(per_task))


def run_score_profile(scores, taus):
    s = np.asarray(scores, dtype=float)
    return [float(np.mean(s > t)) for t in taus]


def quantiles(vals):
    v = np.sort(np.asarray(vals, dtype=float))
    n = v.size
    q = lambda p: float(v[max(int(math.ceil(p * n)) - 1, 0)])
    atoms = []
    for a in v:
        if not atoms or a - atoms[-1] > 1e-12:
            atoms.append(float(a))
    return {"n_resamples": int(n), "q025": q(0.025), "q975": q(0.975), "atoms": atoms}


def column_resamples(col):
    """Every ordered resample (with replacement) of one task's runs."""
    n = len(col)
    idx = np.array(list(itertools.product(range(n), repeat=n)))
    return np.asarray(col, dtype=float)[idx]  # (n^n, n)


def ideal_pooled(scores, stat):
    """stat over every stratified resample of scores (runs x tasks)."""
    s = np.asarray(scores, dtype=float)
    per_task = [column_resamples(s[:, j]) for j in range(s.shape[1])]
    out = []
    for combo in itertools.product(*[range(len(p)) for p in per_task]):
        m = np.stack([per_task[j][c] for j, c in enumerate(combo)], axis=1)
        out.append(stat(m))
    return out


def ideal_poi(x, y):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    tasks = x.shape[1]
    per_task = []
    for j in range(tasks):
        rx, ry = column_resamples(x[:, j]), column_resamples(y[:, j])
        a, b = rx[:, None, :, None], ry[None, :, None, :]
        p = np.mean((a > b) + 0.5 * (a == b), axis=(2, 3)).ravel()  # every (x, y) resample pair
        per_task.append(p)
    total = per_task[0]
    for p in per_task[1:]:
        total = (total[:, None] + p[None, :]).ravel()
    return total / tasks


def main():
    rng = np.random.Generator(np.random.PCG64(20261128))
    cases = []
    shapes = [
        ("normal_5x3", lambda: np.round(rng.normal(0.5, 0.3, size=(5, 3)), 2), lambda: np.round(rng.normal(0.4, 0.3, size=(5, 3)), 2)),
        ("integer_ties_6x2", lambda: rng.integers(0, 5, size=(6, 2)).astype(float), lambda: rng.integers(0, 5, size=(6, 2)).astype(float)),
        ("unequal_runs_4v7x1", lambda: np.round(rng.lognormal(0, 1, size=(4, 1)), 3), lambda: np.round(rng.lognormal(0, 1, size=(7, 1)), 3)),
        ("dungeon_like_10x1", lambda: np.round(rng.normal(800, 60, size=(10, 1)), 1), lambda: np.round(rng.normal(760, 80, size=(10, 1)), 1)),
    ]
    for name, gx, gy in shapes:
        x, y = gx(), gy()
        lo, hi = float(min(x.min(), y.min())), float(max(x.max(), y.max()))
        taus = [float(t) for t in np.round(np.linspace(lo, hi, 11), 6)]
        cases.append({
            "name": name, "x": x.tolist(), "y": y.tolist(),
            "iqm_x": iqm(x), "iqm_y": iqm(y), "mean_x": agg_mean(x),
            "poi_x_over_y": poi(x, y), "poi_y_over_x": poi(y, x),
            "taus": taus, "run_score_profile_x": run_score_profile(x, taus),
        })
    bx = [[0.1, 1.0], [0.4, 0.2], [0.9, 0.7], [0.3, 0.5]]
    px = [[0.2, 3.0], [0.5, 1.0], [0.9, 2.0]]
    py = [[0.4, 1.5], [0.1, 2.5], [0.5, 0.5]]
    tau = 0.6
    ideal = {
        "scores": bx,
        "iqm": quantiles(ideal_pooled(bx, iqm)),
        "mean": quantiles(ideal_pooled(bx, agg_mean)),
        "poi_x": px, "poi_y": py,
        "poi": quantiles(ideal_poi(px, py)),
        "profile_scores": px, "profile_tau": tau,
        "profile": quantiles(ideal_pooled(px, lambda m: float(np.mean(m > tau)))),
    }
    json.dump({"generator": "scripts/rliable_reference.py", "numpy": np.__version__, "cases": cases, "ideal": ideal},
              fp=__import__("sys").stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
