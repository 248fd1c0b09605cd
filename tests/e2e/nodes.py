#!/usr/bin/env python3
"""Independent checks of `trex nodes` and the schedule it shows (no trex
code), as PASS/FAIL lines (tests/e2e/nodes.sh).

    nodes.py workload TREX WORKLOAD   an ASTRA-sim 1.0 text workload: the nodes
                                      of astrasim.py's own conversion (default
                                      NPUs), their parents, and a schedule that
                                      keeps every dependency and never runs two
                                      nodes of one rank's resource at once

The schedule check does not recompute trex's schedule: it checks what any
valid one must hold, from the dependencies this file derives itself.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import astrasim  # noqa: E402  (the independent ASTRA-sim text conversion)


def report(ok, what):
    print("%s %s" % ("PASS" if ok else "FAIL", what))


def trex_nodes(trex, path):
    run = subprocess.run([trex, "-q", "nodes", "--format", "json", path],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if run.returncode != 0:
        report(False, "trex nodes %s ran (exit %d: %s)" % (path, run.returncode,
                                                           run.stderr.strip()[:200]))
        return None
    return json.loads(run.stdout)["rows"]


def check_workload(trex, path):
    base = os.path.basename(path)
    rows = trex_nodes(trex, path)
    if rows is None:
        return
    g = astrasim.convert(path, 0)
    want = {(n[0], n[1]): n for n in g.nodes}
    got = {(r["rank"], r["id"]): r for r in rows}
    report(set(got) == set(want), "%s: %d nodes with the converter's ranks and ids (got %d)" %
           (base, len(want), len(got)))
    same = all(got[k]["name"] == want[k][6] and got[k]["type"] == want[k][2] and
               got[k]["bytes"] == max(want[k][5], 0) for k in want if k in got)
    report(same, "%s: every node's name, type and bytes as converted" % base)
    by_id = {n[1]: n for n in g.nodes}
    parents = {}
    for child, parent in set(g.deps):
        parents.setdefault(child, set()).add(parent)
    report(all(got[k]["parents"] == len(parents.get(k[1], ())) for k in want if k in got),
           "%s: every node's parent count as converted (%d dependencies)" %
           (base, sum(len(p) for p in parents.values())))
    comp_ok = all(got[k]["dur_ns"] == want[k][4] for k in want
                  if k in got and want[k][2] == "compute")
    report(comp_ok, "%s: compute durations are the file's cycles, as ns" % base)
    start = {r["id"]: r["start_ns"] for r in rows}
    end = {r["id"]: r["start_ns"] + r["dur_ns"] for r in rows}
    late = [(c, p) for c, ps in parents.items() for p in ps if start.get(c, 0) < end.get(p, 0)]
    report(not late, "%s: no node starts before a parent ends (first violation: %s)" %
           (base, late[:1]))
    overlap = None
    lanes = {}
    for r in rows:
        lanes.setdefault((r["rank"], r["type"] == "compute"), []).append(
            (r["start_ns"], r["start_ns"] + r["dur_ns"], r["id"]))
    for lane in lanes.values():
        lane.sort()
        for a, b in zip(lane, lane[1:]):
            if b[0] < a[1] and overlap is None:
                overlap = (a[2], b[2])
    report(overlap is None, "%s: one node at a time per rank and resource (first overlap: %s)" %
           (base, overlap))
    makespan = max(end.values()) if end else 0
    critical = [r for r in rows if r["critical"].startswith("yes")]
    report(bool(critical) and max(r["start_ns"] + r["dur_ns"] for r in critical) == makespan and
           min(r["start_ns"] for r in critical) == 0,
           "%s: the critical path runs from 0 to the makespan %d ns" % (base, makespan))
    del by_id


def main(argv):
    if len(argv) == 4 and argv[1] == "workload":
        check_workload(argv[2], argv[3])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
