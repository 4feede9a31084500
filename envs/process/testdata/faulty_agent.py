#!/usr/bin/env python3
"""A test agent (step mode) for examples/python/step_env.py that misbehaves
at the first act request of chosen seeds: seed 3 crashes (exit status 3),
seed 5 hangs, seed 7 prints non-protocol text on stdout, seed 11 answers
with an error message. Otherwise it always steps right."""
import json
import sys
import time

PARAMETERS = [
    {"name": "caution", "type": "number", "min": 0, "max": 1, "step": 0.1},
    {"name": "max_waits", "type": "integer", "min": 0, "max": 20, "step": 2},
]


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


seed = None
for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if t == "close":
        break
    if t == "hello":
        send({"id": msg["id"], "type": "hello", "protocol": 1, "name": "faulty-agent", "provides": ["agent"],
              "mode": "step", "parameters": PARAMETERS, "causes": [], "metrics": []})
    elif t == "begin":
        seed = msg["seed"]
        print(f"faulty agent: playing seed {seed}", file=sys.stderr, flush=True)
        send({"id": msg["id"], "type": "ok"})
    elif t == "act":
        if seed == 3:
            print("faulty agent: crashing on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        if seed == 5:
            print("faulty agent: hanging on purpose", file=sys.stderr, flush=True)
            time.sleep(1000)
        if seed == 7:
            print("Loading model weights... done", flush=True)
            continue
        if seed == 11:
            send({"id": msg["id"], "type": "error", "message": "seed 11 is not supported"})
            continue
        send({"id": msg["id"], "type": "action", "action": "right"})
