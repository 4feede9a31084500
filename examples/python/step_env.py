#!/usr/bin/env python3
"""A step-mode environment for evolve (docs/protocol.md): a corridor of
LENGTH cells whose cells flicker between safe and hazardous. The agent
(step_agent.py, a separate process) starts at cell 0 and must reach the
last cell within TURNS turns. Each turn it may "wait" or "right"; stepping
right onto a cell that is hazardous at that moment ends the episode.

Observation: {"position": int, "turn": int, "hazard_ahead": bool}.
Action: "right" or "wait" (declared as "actions" in the hello, so that a
language model can be the agent instead of step_agent.py).
Score: 100 - turns taken when the goal is reached, else 5 per cell gained.

The environment declares no parameters of its own; it declares the failure
causes and metrics, and remedies naming the agent's parameters. Randomness
comes only from random.Random(seed).random(), reset at every reset or run
request.

It also declares "direct": true and answers run requests: with direct: true
in the environment config it plays a whole episode with the agent process
itself, over the agent's stdin (our file descriptor 3) and stdout (our file
descriptor 4), and evolve reads only the outcome (docs/protocol.md,
section 2.7).
"""
import json
import random
import sys
import traceback

LENGTH, TURNS, FLICKER = 10, 15, 0.25

CAUSES = [
    {"name": "fell", "description": "stepped onto a hazardous cell"},
    {"name": "timeout", "description": f"did not reach the end within {TURNS} turns"},
]
METRICS = [
    {"name": "turns", "type": "int", "unit": "turns", "description": "turns taken"},
    {"name": "position", "type": "int", "unit": "cells", "description": "the last cell reached"},
    {"name": "waits", "type": "int", "unit": "turns", "description": "turns spent waiting"},
]
REMEDIES = {"fell": ["caution+"], "timeout": ["caution-", "max_waits-"]}
# The action vocabulary, for an agent that names its action in text (a
# language model: agent kind llm in the experiment config, no agent process).
ACTIONS = ["right", "wait"]


class Episode:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.pos, self.turn, self.waits = 0, 0, 0
        self.hazard = [False] * (LENGTH + 1)
        self.flicker()

    def flicker(self):
        self.hazard = [0 < i < LENGTH and self.rng.random() < FLICKER for i in range(LENGTH + 1)]

    def observe(self):
        return {"position": self.pos, "turn": self.turn, "hazard_ahead": self.hazard[self.pos + 1]}

    def step(self, action):
        if action not in ACTIONS:
            raise ValueError(f"action {action!r}: want \"right\" or \"wait\"")
        self.turn += 1
        if action == "wait":
            self.waits += 1
        elif self.hazard[self.pos + 1]:
            return self.end(False, "fell")
        else:
            self.pos += 1
        if self.pos == LENGTH:
            return self.end(True, "goal")
        if self.turn >= TURNS:
            return self.end(False, "timeout")
        self.flicker()
        return {"type": "step", "observation": self.observe(), "reward": 0, "done": False, "info": {}}

    def end(self, won, reason):
        score = 100 - self.turn if won else 5 * self.pos
        outcome = {"score": score, "end_reason": reason, "cause": "none" if won else reason,
                   "metrics": {"turns": self.turn, "position": self.pos, "waits": self.waits}}
        return {"type": "step", "observation": self.observe() if self.pos < LENGTH else None,
                "reward": score, "done": True, "info": {}, "outcome": outcome}


class DirectAgent:
    """The agent process over the direct channel: we write its act requests
    to file descriptor 3 (its stdin) and read its answers from file
    descriptor 4 (its stdout). Opened at the first run request: only a
    process that is sent run requests has them."""

    def __init__(self):
        self.requests = open(3, "w", encoding="utf-8", closefd=False)
        self.answers = open(4, "r", encoding="utf-8", closefd=False)

    def act(self, act_id, observation):
        self.requests.write(json.dumps({"id": act_id, "type": "act", "observation": observation},
                                       separators=(",", ":")) + "\n")
        self.requests.flush()
        line = self.answers.readline()
        while line and not line.strip():  # blank lines are ignored, as evolve does
            line = self.answers.readline()
        if not line:
            raise RuntimeError("agent: its stdout ended")
        msg = json.loads(line)
        if msg.get("id") != act_id:
            raise ValueError(f"agent: answer id {msg.get('id')!r}, want {act_id}")
        if msg.get("type") == "error":
            raise RuntimeError(f"agent: {msg.get('message')}")
        if msg.get("type") != "action" or "action" not in msg:
            raise ValueError(f"agent: want an action, got {line.strip()!r}")
        return msg["action"]


def run(agent, msg):
    """Plays the episode of a run request with the agent over the direct
    channel; the answer carries the outcome and the number of act requests
    sent (acts)."""
    episode, act_id, acts = Episode(msg["seed"]), msg["act_id"], 0
    observation = episode.observe()
    while True:
        action = agent.act(act_id + acts, observation)
        acts += 1
        resp = episode.step(action)
        if resp["done"]:
            return {"type": "outcome", "acts": acts, "outcome": resp["outcome"]}
        observation = resp["observation"]


def main():
    episode, agent = None, None
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        t = msg.get("type")
        if t == "close":
            break
        try:
            if t == "hello":
                resp = {"type": "hello", "protocol": 1, "name": "python-corridor", "provides": ["environment"],
                        "mode": "step", "parameters": [], "causes": CAUSES, "metrics": METRICS, "remedies": REMEDIES,
                        "actions": ACTIONS, "direct": True}
            elif t == "reset":
                episode = Episode(msg["seed"])
                resp = {"type": "observation", "observation": episode.observe()}
            elif t == "step":
                if episode is None:
                    raise ValueError("step before reset")
                resp = episode.step(msg["action"])
            elif t == "run":
                agent = agent or DirectAgent()
                resp = run(agent, msg)
            else:
                raise ValueError(f"unknown request type {t!r}")
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            resp = {"type": "error", "message": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps({"id": msg["id"], **resp}, separators=(",", ":"), allow_nan=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
