#!/usr/bin/env python3
"""A test environment (episode mode) whose descendants try to outlive it:
seed 13 starts a grandchild in a new session (setsid) that keeps stdout
open and sleeps, then crashes (exit status 4); seed 15 double-forks a
grandchild into a new session (its parent exits at once) and answers;
seed 17 starts a setsid grandchild holding stdout, then hangs. Other
seeds score seed * 10. Each grandchild's command line holds
"evolve-test-escape"."""
import json
import os
import subprocess
import sys
import time

HELLO = {"type": "hello", "protocol": 1, "name": "escape", "provides": ["environment", "agent"], "mode": "episode",
         "causes": [{"name": "bad"}], "metrics": [{"name": "n", "type": "int"}]}
SLEEPER = [sys.executable, "-c", "import time; time.sleep(1000)  # evolve-test-escape"]


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
    if seed in (13, 17):
        subprocess.Popen(SLEEPER, start_new_session=True)  # inherits stdout and stderr
        print(f"escape: setsid grandchild started for seed {seed}", file=sys.stderr, flush=True)
        if seed == 13:
            sys.exit(4)
        time.sleep(1000)
    if seed == 15:
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(SLEEPER[0], SLEEPER)
            os._exit(0)
        os.waitpid(pid, 0)
    send({"id": msg["id"], "type": "outcome",
          "outcome": {"score": seed * 10, "end_reason": "done", "cause": "none", "metrics": {"n": seed}}})
