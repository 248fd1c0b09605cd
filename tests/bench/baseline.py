#!/usr/bin/env python3
"""Baseline for the trex benchmarks: what a Python user would write.

    baseline.py FILE

Loads a Kineto trace with json.load (gzip.open for .gz), sums `dur` per
kernel name over the events with cat "kernel", and prints the number of
events, of kernel events and of distinct kernel names.
"""
import gzip
import json
import sys
from collections import defaultdict


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return json.load(f)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: baseline.py FILE")
    trace = load(sys.argv[1])
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    total = defaultdict(float)
    count = defaultdict(int)
    for e in events:
        if e.get("cat") == "kernel":
            name = e.get("name", "")
            total[name] += e.get("dur", 0)
            count[name] += 1
    print("events %d kernels %d names %d" % (len(events), sum(count.values()), len(total)))


if __name__ == "__main__":
    main()
