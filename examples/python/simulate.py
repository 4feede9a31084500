#!/usr/bin/env python3
"""Checks that env.py's declared remedies improve base_prompt.yaml's
parameters, as evolve's first generation would see it: plays the val seeds
under the base parameters and under each single-remedy mutation (one step,
as evolve's mutation operators take it) and prints each mutation's mean
and the one-sided Mann-Whitney U test of "mutation better than base"
(normal approximation with tie correction, no continuity correction).
Standard library only: python3 simulate.py [SEEDS_FILE]
"""
import math
import sys

import env

BASE = {"risk": 0.8, "patience": 31, "strategy": "greedy", "priority": ["forage", "hide", "flee"]}


def read_seeds(path):
    with open(path) as f:
        return [int(l) for l in f if l.strip() and not l.startswith("#")]


def mutate(p, remedy):
    q = {k: (list(v) if isinstance(v, list) else v) for k, v in p.items()}
    fields = {f["name"]: f for f in env.PARAMETERS}
    words = remedy.split()
    if words[0] in ("prioritize", "deprioritize"):
        name, item = words[1], words[2]
        q[name].remove(item)
        q[name] = [item] + q[name] if words[0] == "prioritize" else q[name] + [item]
    elif words[0] == "rotate":
        q[words[1]] = q[words[1]][1:] + q[words[1]][:1]
    else:
        name, sign = remedy[:-1], 1 if remedy[-1] == "+" else -1
        f = fields[name]
        if f["type"] == "enum":
            i = f["items"].index(q[name]) + sign
            q[name] = f["items"][min(max(i, 0), len(f["items"]) - 1)]
        else:
            x = min(max(q[name] + sign * f["step"], f["min"]), f["max"])
            q[name] = round(x, 3) if f["type"] == "number" else int(x)
    return q


def mann_whitney_greater(x, y):
    """One-sided p of x > y, normal approximation with tie correction."""
    allv = sorted((v, i) for i, v in enumerate(x + y))
    ranks = [0.0] * len(allv)
    i, ties = 0, 0.0
    while i < len(allv):
        j = i
        while j + 1 < len(allv) and allv[j + 1][0] == allv[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[allv[k][1]] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t ** 3 - t
        i = j + 1
    n1, n2 = len(x), len(y)
    u = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    n = n1 + n2
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))))
    z = (u - n1 * n2 / 2) / sigma
    return u, 0.5 * math.erfc(z / math.sqrt(2))


def main():
    seeds = read_seeds(sys.argv[1] if len(sys.argv) > 1 else "seeds/val.txt")
    base = [env.play(s, BASE)["score"] for s in seeds]
    print(f"base {BASE}: n={len(seeds)} mean {sum(base) / len(base):.1f}")
    remedies = sorted({r for rs in env.REMEDIES.values() for r in rs} | set(env.FILL))
    for r in remedies:
        q = mutate(BASE, r)
        xs = [env.play(s, q)["score"] for s in seeds]
        u, p = mann_whitney_greater(xs, base)
        print(f"{r:28s} mean {sum(xs) / len(xs):7.1f}  U {u:8.0f}  p {p:.2g}")


if __name__ == "__main__":
    main()
