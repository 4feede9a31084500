#!/usr/bin/env python3
"""The echo process of BenchmarkStepsPerSecond/floor_python: it writes back
each line it reads, with one readline, one write and one flush, and parses
nothing. Two of them, relayed to as a step relays to an agent and an
environment, are the floor of step mode with Python programs."""
import sys

readline = sys.stdin.buffer.readline
out = sys.stdout.buffer
write, flush = out.write, out.flush
while True:
    line = readline()
    if not line:
        break
    write(line)
    flush()
