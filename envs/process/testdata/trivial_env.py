#!/usr/bin/env python3
"""The trivial step-mode environment of BenchmarkStepsPerSecond/python: an
episode is STEPS steps of a counter; any action is accepted. It measures
the protocol, not an environment: one line read, one JSON value parsed and
one written per request."""
import json
import sys

STEPS = 1000


def main():
    t = 0
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
        elif typ == "reset":
            t = 0
            out.write('{"id":%d,"type":"observation","observation":0}\n' % msg["id"])
        elif typ == "hello":
            out.write(json.dumps({"id": msg["id"], "type": "hello", "protocol": 1, "name": "trivial",
                                  "provides": ["environment"], "mode": "step", "parameters": [], "causes": [],
                                  "metrics": [{"name": "steps", "type": "int"}]}) + "\n")
        elif typ == "close":
            break
        out.flush()


main()
