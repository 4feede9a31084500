#!/usr/bin/env python3
"""The agent of step_env.py, a separate process in step mode
(docs/protocol.md). It declares the policy parameters:
  caution    number in [0, 1], step 0.1: chance of waiting when the next
             cell is hazardous (else it steps right anyway)
  max_waits  integer in [0, 20], step 2: waits allowed per episode; past
             them it always steps right
Randomness comes only from random.Random(seed), reset at every begin.
"""
import json
import random
import sys
import traceback

PARAMETERS = [
    {"name": "caution", "type": "number", "min": 0, "max": 1, "step": 0.1, "unit": "probability",
     "doc": "chance of waiting when the next cell is hazardous"},
    {"name": "max_waits", "type": "integer", "min": 0, "max": 20, "step": 2, "unit": "turns",
     "doc": "waits allowed per episode"},
]


def main():
    rng, params, waits = None, None, 0
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        t = msg.get("type")
        if t == "close":
            break
        try:
            if t == "hello":
                resp = {"type": "hello", "protocol": 1, "name": "python-corridor-agent", "provides": ["agent"],
                        "mode": "step", "parameters": PARAMETERS, "causes": [], "metrics": []}
            elif t == "begin":
                rng, params, waits = random.Random(msg["seed"]), msg["params"], 0
                resp = {"type": "ok"}
            elif t == "act":
                obs = msg["observation"]
                action = "right"
                if obs["hazard_ahead"] and waits < params["max_waits"] and rng.random() < params["caution"]:
                    action, waits = "wait", waits + 1
                resp = {"type": "action", "action": action}
            else:
                raise ValueError(f"unknown request type {t!r}")
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            resp = {"type": "error", "message": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps({"id": msg["id"], **resp}, separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
