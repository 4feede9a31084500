#!/usr/bin/python3
"""Time `evolve compare` against scipy on 10^6 vs 10^6 scores (make bench-scipy).

The reference is what a researcher would otherwise run:
numpy.loadtxt of both files and scipy.stats.mannwhitneyu (two-sided,
asymptotic with tie and continuity correction: the same U test evolve
compare prints first). Both sides are timed as separate processes from
start to exit (interpreter start-up and imports included on scipy's side,
process start-up on evolve's), on the same two files, in ROUNDS
interleaved rounds whose order alternates (evolve first in odd rounds,
scipy first in even ones), so that the machine's load falls on both alike.
The table gives each round's wall and CPU (user + system) seconds and peak
RSS, then the medians and the ratios evolve/scipy; the target is a wall
ratio <= 0.8.

The scores are rounded normal integers (sd 150; baseline mean 500,
candidate 520), as the dungeon's, drawn from SplitMix64 with integer
arithmetic only (a sum of 12 uniforms, Irwin-Hall), so that the two files
are byte for byte the same on every machine and numpy version; their
SHA-256 is printed. Before timing, evolve compare --json runs once and its
U must equal scipy's statistic.

Usage: bench-scipy.py --evolve BIN [--rounds N] [--n N] [--dir DIR]
       bench-scipy.py --scipy BASELINE CANDIDATE   (the timed scipy side)
"""

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

MASK = (1 << 64) - 1


def scores(n, mean, origin, chunk=100_000):
    """n scores: mean + round(150 * (sum of 12 uniforms - 6)), integers.

    The uniforms are the top 24 bits of consecutive SplitMix64 outputs
    from origin; all arithmetic is on integers (numpy uint64 wraps modulo
    2^64). Generated in chunks of rows to keep memory small.
    """
    import numpy as np

    golden = np.uint64(0x9E3779B97F4A7C15)
    out = []
    for start in range(0, n, chunk):
        rows = min(chunk, n - start)
        i = np.arange(12 * start + 1, 12 * (start + rows) + 1, dtype=np.uint64)
        with np.errstate(over="ignore"):
            z = np.uint64(origin) + i * golden
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
        u = (z >> np.uint64(40)).astype(np.int64).reshape(rows, 12)  # 24-bit uniforms
        s = u.sum(axis=1) - 6 * (1 << 24)  # Irwin-Hall: sd 1 in units of 2^24
        out.append(mean + ((150 * s + (1 << 23)) >> 24))  # round(150 s / 2^24), halves up
    return np.concatenate(out)


def write_scores(path, n, mean, origin):
    x = scores(n, mean, origin)
    data = ("\n".join(map(str, x.tolist())) + "\n").encode()
    with open(path, "wb") as f:
        f.write(data)
    return hashlib.sha256(data).hexdigest()


def scipy_side(base, cand):
    """The timed reference: load both files, one U test, print U and p."""
    import numpy as np
    from scipy.stats import mannwhitneyu

    y = np.loadtxt(base)
    x = np.loadtxt(cand)
    r = mannwhitneyu(x, y)
    print(r.statistic, r.pvalue)


def timed(argv):
    """Runs argv to exit; returns wall s, CPU s (user + system), max RSS MB."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if p.returncode != 0:
        sys.exit(f"bench-scipy: {' '.join(argv)}: exit {p.returncode}: {err.strip()}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--evolve", help="the evolve binary (make build: bin/evolve)")
    ap.add_argument("--rounds", type=int, default=6, help="interleaved rounds (default 6)")
    ap.add_argument("--n", type=int, default=1_000_000, help="scores per file (default 10^6)")
    ap.add_argument("--dir", help="where to write the two score files (default: a temporary directory, removed after)")
    ap.add_argument("--scipy", nargs=2, metavar=("BASELINE", "CANDIDATE"), help="run the timed scipy side and exit")
    a = ap.parse_args()
    if a.scipy:
        scipy_side(*a.scipy)
        return
    if not a.evolve:
        ap.error("--evolve BIN is required")
    if a.rounds < 1 or a.n < 1:
        ap.error("--rounds and --n must be >= 1")
    with tempfile.TemporaryDirectory(prefix="evolve-bench-scipy-") as tmp:
        d = a.dir or tmp
        os.makedirs(d, exist_ok=True)
        base, cand = os.path.join(d, "base.txt"), os.path.join(d, "cand.txt")
        print(f"{base}  sha256 {write_scores(base, a.n, 500, 0x62617365)}")
        print(f"{cand}  sha256 {write_scores(cand, a.n, 520, 0x63616E64)}")
        evolve = [os.path.abspath(a.evolve), "compare", base, cand]
        ref = [sys.executable, os.path.abspath(__file__), "--scipy", base, cand]

        # Cross-check (untimed; also reads both files into the page cache).
        out = subprocess.run(evolve[:2] + ["--json"] + evolve[2:], check=True, capture_output=True, text=True).stdout
        u = json.loads(out)["u"]
        stat = float(subprocess.run(ref, check=True, capture_output=True, text=True).stdout.split()[0])
        if u != stat:
            sys.exit(f"bench-scipy: evolve's U {u} differs from scipy's {stat}")
        print(f"U = {u:.0f} (evolve and scipy agree)\n")

        print(f"{'round':>5}  {'side':6} {'wall s':>7} {'cpu s':>7} {'maxrss MB':>9}")
        res = {"evolve": [], "scipy": []}
        for r in range(1, a.rounds + 1):
            order = [("evolve", evolve), ("scipy", ref)]
            if r % 2 == 0:
                order.reverse()
            for side, argv in order:
                wall, cpu, rss = timed(argv)
                res[side].append((wall, cpu))
                print(f"{r:>5}  {side:6} {wall:7.2f} {cpu:7.2f} {rss:9.0f}")
        med = {s: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for s, v in res.items()}
        print()
        for s in ("evolve", "scipy"):
            print(f"median {s:6} wall {med[s][0]:.2f} s, cpu {med[s][1]:.2f} s")
        wall_ratio = med["evolve"][0] / med["scipy"][0]
        cpu_ratio = med["evolve"][1] / med["scipy"][1]
        verdict = "met" if wall_ratio <= 0.8 else "NOT met"
        print(f"ratio evolve/scipy: wall {wall_ratio:.2f}, cpu {cpu_ratio:.2f} (target: wall <= 0.8: {verdict})")


if __name__ == "__main__":
    main()
