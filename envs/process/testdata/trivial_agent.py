#!/usr/bin/env python3
"""The trivial step-mode agent of BenchmarkStepsPerSecond/python: it always
answers the action "a"."""
import json
import sys


def main():
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        typ = msg["type"]
        if typ == "act":
            out.write('{"id":%d,"type":"action","action":"a"}\n' % msg["id"])
        elif typ == "begin":
            out.write('{"id":%d,"type":"ok"}\n' % msg["id"])
        elif typ == "hello":
            out.write(json.dumps({"id": msg["id"], "type": "hello", "protocol": 1, "name": "trivial-agent",
                                  "provides": ["agent"], "mode": "step", "parameters": [], "causes": [],
                                  "metrics": []}) + "\n")
        elif typ == "close":
            break
        out.flush()


main()
