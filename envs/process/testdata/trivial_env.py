#!/usr/bin/env python3
"""The trivial step-mode environment of BenchmarkStepsPerSecond/python: an
episode is STEPS steps of a counter; any action is accepted. It measures
the protocol, not an environment: one line read, one JSON value parsed and
one written per request. It also answers run requests (docs/protocol.md,
section 2.7): a whole episode played with the agent over file descriptors 3
and 4, an act request written and its action read and parsed per step."""
import json
import sys

STEPS = 1000
# --drift (a test of evolve env check): run scores one more than reset and
# step do, a direct channel that plays otherwise than evolve's relay.
DRIFT = 1 if "--drift" in sys.argv[1:] else 0
# --extra-act: run answers acts one more than it sent.
EXTRA_ACT = 1 if "--extra-act" in sys.argv[1:] else 0
# --leave-unread: run sends one more act after the last step and does not
# read its answer.
LEAVE_UNREAD = "--leave-unread" in sys.argv[1:]


def run(msg, agent):
    """Plays a run request's episode with the agent over the direct channel."""
    requests, answers = agent
    act_id = msg["act_id"]
    for t in range(STEPS):
        requests.write('{"id":%d,"type":"act","observation":%d}\n' % (act_id + t, t))
        requests.flush()
        a = json.loads(answers.readline())
        if a["type"] != "action" or a["id"] != act_id + t:
            return '{"id":%d,"type":"error","message":"agent: want action %d"}\n' % (msg["id"], act_id + t)
    if LEAVE_UNREAD:
        requests.write('{"id":%d,"type":"act","observation":0}\n' % (act_id + STEPS))
        requests.flush()
    return ('{"id":%d,"type":"outcome","acts":%d,'
            '"outcome":{"score":%d,"end_reason":"done","cause":"none","metrics":{"steps":%d}}}\n'
            % (msg["id"], STEPS + EXTRA_ACT, STEPS + DRIFT, STEPS))


def main():
    t = 0
    agent = None
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        typ = msg["type"]
        if typ == "step":
            t += 1
            if t < STEPS:
                out.write('{"id":%d,"type":"step","observation":%d,"reward":0,"done":false}\n' % (msg["id"], t))
            else:
                out.write('{"id":%d,"type":"step","observation":%d,"reward":1,"done":true,'
                          '"outcome":{"score":%d,"end_reason":"done","cause":"none","metrics":{"steps":%d}}}\n'
                          % (msg["id"], t, t, t))
        elif typ == "run":
            agent = agent or (open(3, "w", closefd=False), open(4, "r", closefd=False))
            out.write(run(msg, agent))
        elif typ == "reset":
            t = 0
            out.write('{"id":%d,"type":"observation","observation":0}\n' % msg["id"])
        elif typ == "hello":
            out.write(json.dumps({"id": msg["id"], "type": "hello", "protocol": 1, "name": "trivial",
                                  "provides": ["environment"], "mode": "step", "parameters": [], "causes": [],
                                  "metrics": [{"name": "steps", "type": "int"}], "direct": True}) + "\n")
        elif typ == "close":
            break
        out.flush()


main()
