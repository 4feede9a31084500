#!/usr/bin/env python3
"""A test environment (episode mode) that misbehaves on chosen seeds:
seed 3 crashes (exit status 3), seed 5 hangs after starting a grandchild
that also hangs, seed 7 prints non-protocol text on stdout, seed 9
allocates 1 GiB (a MemoryError under max_memory_mb), seed 11 answers with
an error message. Other seeds score seed * 10."""
import json
import subprocess
import sys
import time

HELLO = {"type": "hello", "protocol": 1, "name": "faulty", "provides": ["environment", "agent"], "mode": "episode",
         "parameters": [{"name": "x", "type": "number", "min": 0, "max": 1, "step": 0.1}],
         "causes": [{"name": "bad", "description": "a bad seed"}],
         "metrics": [{"name": "n", "type": "int"}]}


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if t == "close":
        break
    if t == "hello":
        send({"id": msg["id"], **HELLO})
        continue
    seed = msg["seed"]
    print(f"faulty: playing seed {seed}", file=sys.stderr, flush=True)
    if seed == 3:
        print("faulty: crashing on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
    if seed == 5:
        print("faulty: hanging on purpose", file=sys.stderr, flush=True)
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)  # evolve-test-grandchild"])
        time.sleep(1000)
    if seed == 7:
        print("Loading model weights... done", flush=True)
        continue
    if seed == 9:
        hog = bytearray(1 << 30)
    if seed == 11:
        send({"id": msg["id"], "type": "error", "message": "seed 11 is not supported"})
        continue
    send({"id": msg["id"], "type": "outcome",
          "outcome": {"score": seed * 10, "end_reason": "done", "cause": "bad" if seed % 2 else "none", "metrics": {"n": seed}}})
