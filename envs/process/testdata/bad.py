#!/usr/bin/env python3
"""A test program that breaks the process protocol in the way its argument
names (see TestBadPrograms):

  nan-score       an outcome whose score is NaN (json.dumps writes NaN)
  inf-metric      an outcome with a metric of -Infinity
  no-flush        a hello that is printed but never flushed
  no-id           a hello without an id
  step-no-outcome a step-mode environment whose last step says done but
                  has no outcome
  always-error    answers every play with an error message
  agent           a step-mode agent that always waits (for step-no-outcome)

Anything else plays well: score 1.
"""
import json
import sys
import time

mode = sys.argv[1]
HELLO = {"type": "hello", "protocol": 1, "name": "bad-" + mode, "provides": ["environment", "agent"],
         "mode": "episode", "parameters": [{"name": "x", "type": "number", "min": 0, "max": 1, "step": 0.1}],
         "causes": [{"name": "lost", "description": "lost"}],
         "metrics": [{"name": "gain", "type": "float"}]}
if mode == "step-no-outcome":
    HELLO.update(mode="step", provides=["environment"])
if mode == "agent":
    HELLO = {"type": "hello", "protocol": 1, "name": "bad-agent", "provides": ["agent"], "mode": "step"}


def send(obj):
    print(json.dumps(obj), flush=True)


def outcome(score, gain):
    return {"score": score, "end_reason": "done", "cause": "none", "metrics": {"gain": gain}}


for line in sys.stdin:
    msg = json.loads(line)
    t, rid = msg["type"], msg["id"]
    if t == "close":
        break
    if t == "hello":
        h = {"id": rid, **HELLO}
        if mode == "no-id":
            del h["id"]
        if mode == "no-flush":
            # A block-buffered stdout (as a pipe's is, unless
            # PYTHONUNBUFFERED is set): evolve never sees the hello.
            out = open(sys.stdout.fileno(), "w", buffering=1 << 16, closefd=False)
            out.write(json.dumps(h) + "\n")
            time.sleep(60)
        send(h)
    elif mode == "always-error":
        print(f"bad: refusing seed {msg.get('seed')}", file=sys.stderr, flush=True)
        send({"id": rid, "type": "error", "message": "ValueError: this program plays nothing"})
    elif t == "play":
        if mode == "nan-score":
            send({"id": rid, "type": "outcome", "outcome": outcome(float("nan"), 1.0)})
        elif mode == "inf-metric":
            send({"id": rid, "type": "outcome", "outcome": outcome(1, float("-inf"))})
        else:
            send({"id": rid, "type": "outcome", "outcome": outcome(1, 1.0)})
    elif t == "reset":
        send({"id": rid, "type": "observation", "observation": 0})
    elif t == "step":
        send({"id": rid, "type": "step", "observation": 1, "reward": 1, "done": True})
    elif t == "begin":
        send({"id": rid, "type": "ok"})
    elif t == "act":
        send({"id": rid, "type": "action", "action": "wait"})
    else:
        send({"id": rid, "type": "error", "message": f"unknown request {t!r}"})
