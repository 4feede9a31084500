#!/usr/bin/env python3
"""A foraging task for evolve, in episode mode (environment and agent in one
process), speaking the process protocol of docs/protocol.md.

Each episode is one forager's day of TURNS turns. Every turn costs one unit
of energy; foraging a patch yields energy while the patch depletes. Moving
to a new patch costs MOVE_COST energy; the forager sees whether a patch is
rich but risky (predators) or poor but safe. When a predator shows up in a
risky patch the forager does the first of its `priority` reactions.

The policy parameters (the mutable part of the prompt) are
  risk      number in [0, 1], step 0.1: the chance of choosing a risky patch
  patience  integer in [1, 50], step 5: poor turns tolerated before moving on
  strategy  enum: cautious, balanced, greedy (how much energy is kept back)
  priority  ordering of flee, hide, forage: the reaction to a predator

The score is the energy gathered over the day, plus 50 if the forager
survives. An episode fails by predation (killed), starvation (energy ran
out) or idleness (survived but gathered less than IDLE_FOOD).

Everything random comes from random.Random(seed), and only from its
random() method, whose sequence Python keeps stable across versions: an
outcome depends only on the seed and the parameters. Standard library only.
Run `python3 env.py --selftest` to play a few seeds without evolve.
"""
import json
import random
import sys
import traceback

TURNS = 200
START_ENERGY = 30.0
MOVE_COST = 3.0
IDLE_FOOD = 150

PARAMETERS = [
    {"name": "risk", "type": "number", "min": 0, "max": 1, "step": 0.1,
     "unit": "probability", "doc": "chance of moving to a rich, risky patch rather than a poor, safe one"},
    {"name": "patience", "type": "integer", "min": 1, "max": 50, "step": 5,
     "unit": "turns", "doc": "poor turns (yield below 1) tolerated in a patch before moving on"},
    {"name": "strategy", "type": "enum", "items": ["cautious", "balanced", "greedy"],
     "doc": "cautious moves on early, greedy stays while anything is left"},
    {"name": "priority", "type": "ordering", "items": ["flee", "hide", "forage"],
     "doc": "reactions to a predator, most preferred first"},
]
CAUSES = [
    {"name": "predation", "description": "killed by a predator in a risky patch"},
    {"name": "starvation", "description": "energy ran out before the day ended"},
    {"name": "idleness", "description": f"survived the day but gathered less than {IDLE_FOOD} energy"},
]
METRICS = [
    {"name": "food", "type": "int", "unit": "energy", "description": "energy gathered over the day"},
    {"name": "energy_left", "type": "float", "unit": "energy", "description": "energy at the end"},
    {"name": "patches", "type": "int", "unit": "patches", "description": "patches visited"},
    {"name": "survived", "type": "bool", "description": "whether the forager lived to the end of the day"},
    {"name": "last_reaction", "type": "string", "description": "the last reaction to a predator, or none"},
]
REMEDIES = {
    "predation": ["risk-", "prioritize priority flee"],
    "starvation": ["patience-", "strategy-", "risk+"],
    "idleness": ["patience-", "risk+"],
}
FILL = ["strategy+", "rotate priority"]

# Per strategy: a poor turn is one whose yield is below this.
POOR_YIELD = {"cautious": 2.0, "balanced": 1.0, "greedy": 0.3}
# Per reaction to a predator: chance of being killed this turn, and
# whether the forager forages anyway or leaves the patch.
ATTACK = {"flee": 0.01, "hide": 0.05, "forage": 0.12}


def play(seed, p):
    """Plays one day; returns the outcome object of the protocol."""
    rng = random.Random(seed)
    risk, patience = float(p["risk"]), int(p["patience"])
    strategy, priority = p["strategy"], list(p["priority"])
    energy, food, patches = START_ENERGY, 0.0, 0
    last_reaction = "none"

    def new_patch():
        risky = rng.random() < risk
        richness = (12 + 18 * rng.random()) if risky else (4 + 8 * rng.random())
        return risky, richness

    risky, richness = new_patch()
    patches, poor, died = 1, 0, None
    # The trajectory: what happened, for people (evolve view shows it;
    # evolve stores it as given and never reads it).
    events = [{"turn": 0, "event": "patch", "risky": risky, "energy": round(energy, 1)}]
    for turn in range(TURNS):
        energy -= 1
        if risky and rng.random() < 0.06:  # a predator shows up
            reaction = priority[0]
            last_reaction = reaction
            events.append({"turn": turn, "event": "predator", "reaction": reaction})
            if rng.random() < ATTACK[reaction]:
                died = "predation"
                break
            if reaction == "flee":
                energy -= MOVE_COST
                risky, richness = new_patch()
                events.append({"turn": turn, "event": "patch", "risky": risky, "energy": round(energy, 1)})
                patches += 1
                poor = 0
                continue
            if reaction == "hide":
                continue
        gain = richness * (0.15 + 0.1 * rng.random())
        richness = max(0.0, richness - gain * 0.6)
        energy += gain
        food += gain
        poor = poor + 1 if gain < POOR_YIELD[strategy] else 0
        if poor >= patience:
            energy -= MOVE_COST
            risky, richness = new_patch()
            events.append({"turn": turn, "event": "patch", "risky": risky, "energy": round(energy, 1)})
            patches += 1
            poor = 0
        if energy <= 0:
            died = "starvation"
            break
    survived = died is None
    score = round(food + (50 if survived else 0), 3)
    if died:
        cause, end = died, died
    elif food < IDLE_FOOD:
        cause, end = "idleness", "day_over"
    else:
        cause, end = "none", "day_over"
    return {
        "score": score,
        "end_reason": end,
        "cause": cause,
        "metrics": {
            "food": int(food),
            "energy_left": round(max(energy, 0.0), 3),
            "patches": patches,
            "survived": survived,
            "last_reaction": last_reaction,
        },
        "trajectory": events,
    }


def hello():
    return {"type": "hello", "protocol": 1, "name": "python-forager",
            "provides": ["environment", "agent"], "mode": "episode",
            "parameters": PARAMETERS, "causes": CAUSES, "metrics": METRICS,
            "remedies": REMEDIES, "fill": FILL}


def handle(msg):
    """Returns the response to one request (without its id), or None."""
    t = msg.get("type")
    if t == "hello":
        if msg.get("protocol") != 1:
            raise ValueError(f"protocol {msg.get('protocol')} is not supported; this environment speaks 1")
        return hello()
    if t == "play":
        return {"type": "outcome", "outcome": play(msg["seed"], msg["params"])}
    raise ValueError(f"unknown request type {t!r}")


def main():
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if msg.get("type") == "close":
            break
        try:
            resp = handle(msg)
        except Exception as e:  # answer with an error; evolve records the episode as an error
            traceback.print_exc(file=sys.stderr)
            resp = {"type": "error", "message": f"{type(e).__name__}: {e}"}
        resp = {"id": msg["id"], **resp}
        out.write(json.dumps(resp, separators=(",", ":"), allow_nan=False) + "\n")
        out.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--selftest"]:
        base = {"risk": 0.9, "patience": 46, "strategy": "greedy", "priority": ["forage", "hide", "flee"]}
        for s in range(5):
            print(s, play(s, base))
    else:
        main()
