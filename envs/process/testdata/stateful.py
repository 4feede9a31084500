#!/usr/bin/env python3
"""A test environment (episode mode) that breaks the determinism contract:
its score adds the number of episodes the process has played before."""
import json
import sys

played = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "close":
        break
    if msg["type"] == "hello":
        resp = {"type": "hello", "protocol": 1, "name": "stateful", "provides": ["environment", "agent"],
                "mode": "episode", "parameters": [], "causes": [], "metrics": []}
    else:
        resp = {"type": "outcome", "outcome": {"score": msg["seed"] % 100 + played, "end_reason": "done", "cause": "none"}}
        played += 1
    sys.stdout.write(json.dumps({"id": msg["id"], **resp}) + "\n")
    sys.stdout.flush()
