#!/usr/bin/env python3
"""Independent expectations for trex's PyTorch host execution traces (no
trex code), as PASS/FAIL lines (tests/e2e/pytorch_et.sh).

    pytorch_et.py graph DUMP FILE      the graph graph_dump (DUMP) reads with the
                                       pytorch-et loader against this file's reading
                                       of FILE with Python's json: every node (id,
                                       type, name), every parent dependency, the
                                       counts per type, the roots
    pytorch_et.py info TREX FILE       trex info --format json: the file's format,
                                       dialect (schema), nodes per type, one host
                                       track holding every node, the makespan (the
                                       sum of the nodes' durations: one host resource)
    pytorch_et.py cut TREX FILE AT     FILE cut after AT bytes: the nodes whose
                                       objects end before the cut are kept, the cut
                                       one is counted lost, the file truncated
    pytorch_et.py damage TREX FILE K   node K's first ':' made a '!': every other
                                       node is kept, one syntax error at that byte's
                                       line and column

The node types follow Chakra's PyTorch converter as the format notes give
it: metadata for "## process_group:init ##", communication for NCCL kernels
(ops with a "cat", which a host trace has none of), compute for the rest.
"""
import json
import os
import subprocess
import sys

PG_INIT = "## process_group:init ##"


def node_type(node):
    if node["name"] == PG_INIT:
        return "metadata"
    if "cat" in node and ("ncclKernel" in node["name"] or "ncclDevKernel" in node["name"]):
        return "collective"
    return "compute"


def duration_ns(node):
    for key in ("exclusive_dur", "dur"):
        if key in node:
            return round(node[key] * 1000)
    return 0


def report(ok, what, got=None, want=None):
    if ok:
        print("PASS " + what)
    else:
        print("FAIL %s: trex says %r, expected %r" % (what, got, want))


def counts(types):
    out = {}
    for t in types:
        out[t] = out.get(t, 0) + 1
    return out


def read_dump(dump, path):
    run = subprocess.run([dump, "pytorch-et", path], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True)
    nodes, deps, problems = [], [], {}
    for line in run.stdout.splitlines():
        if line.startswith("node "):
            fields = dict(f.split("=", 1) for f in line[5:].split(" name=")[0].split())
            nodes.append((int(fields["id"]), fields["type"], line.split(" name=", 1)[1]))
        elif line.startswith("dep "):
            _, child, _, parent, kind = line.split()
            deps.append((int(child), int(parent), kind))
        elif line.startswith("problem "):
            _, kind, count = line.split()
            problems[int(kind)] = int(count)
    return run, nodes, deps, problems


def check_graph(dump, path):
    name = path.rsplit("/", 1)[-1]
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    run, nodes, deps, problems = read_dump(dump, path)
    if run.returncode != 0:
        print("FAIL %s: graph_dump exit %d: %s" % (name, run.returncode, run.stderr.strip()))
        return
    want_nodes = [(n["id"], node_type(n), n["name"]) for n in trace["nodes"]]
    want_deps = sorted((n["id"], n["ctrl_deps"], "ctrl") for n in trace["nodes"]
                       if n["ctrl_deps"] != n["id"])
    want_types = counts(t for _, t, _ in want_nodes)
    report(len(nodes) == len(want_nodes), name + ": %d nodes" % len(want_nodes),
           len(nodes), len(want_nodes))
    report(counts(t for _, t, _ in nodes) == want_types, name + ": nodes per type %s" % want_types,
           counts(t for _, t, _ in nodes), want_types)
    report(nodes == want_nodes, name + ": every node (id, type, name) in file order",
           nodes[:3], want_nodes[:3])
    report(sorted(deps) == want_deps, name + ": %d parent ops as control dependencies" %
           len(want_deps), len(deps), len(want_deps))
    children = {d[0] for d in want_deps}
    roots = [n[0] for n in want_nodes if n[0] not in children]
    got_roots = [n[0] for n in nodes if n[0] not in {d[0] for d in deps}]
    report(got_roots == roots, name + ": roots %s" % roots, got_roots, roots)
    report(all(v == 0 for v in problems.values()) and len(problems) == 4,
           name + ": no dangling dependency, duplicate id, cycle or unmatched collective",
           problems, "all 0")


def trex_info(trex, path):
    run = subprocess.run([trex, "info", "--format", "json", "-q", path],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if run.returncode != 0:
        print("FAIL %s: trex info exit %d: %s" % (path, run.returncode, run.stderr.strip()))
        return None
    return json.loads(run.stdout)


def rows(info, table):
    return info[table]["rows"]


def check_info(trex, path):
    name = path.rsplit("/", 1)[-1]
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    info = trex_info(trex, path)
    if info is None:
        return
    files = rows(info, "files")
    report([(r["format"], r["dialect"], r["events"]) for r in files] ==
           [("pytorch-et", trace["schema"], len(trace["nodes"]))],
           name + ": format, dialect (schema) and node count", files, trace["schema"])
    want = counts(node_type(n) for n in trace["nodes"])
    phases = {r["phase"]: r["events"] for r in rows(info, "phases")}
    report(phases == want, name + ": nodes per type", phases, want)
    tracks = {(r["process"], r["track"]): r["slices"] for r in rows(info, "tracks")}
    want_tracks = {("rank 0 (0)", "host"): len(trace["nodes"])}
    report(tracks == want_tracks, name + ": every op on rank 0's host track", tracks, want_tracks)
    makespan = sum(duration_ns(n) for n in trace["nodes"])
    report(info["schedule"]["makespan_ns"] == makespan,
           name + ": makespan %d ns (the ops' durations, one after another)" % makespan,
           info["schedule"]["makespan_ns"], makespan)


def node_spans(text):
    """(start, end) of every node object, by Python's own decoder."""
    decoder = json.JSONDecoder()
    at = text.index("[", text.index('"nodes"')) + 1
    spans = []
    while True:
        while text[at] in " \t\r\n,":
            at += 1
        if text[at] == "]":
            return spans
        _, end = decoder.raw_decode(text, at)
        spans.append((at, end))
        at = end


def integrity(info):
    return {r["check"]: r["count"] for r in rows(info, "integrity")}


def check_cut(trex, path, at):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    spans = node_spans(text)
    kept = sum(1 for _, end in spans if end <= at)
    cut = text[:at]
    copy = "%s/cut-%d.json" % (os.environ["TEST_TMP"], at)
    with open(copy, "w", encoding="utf-8") as f:
        f.write(cut)
    name = "cut after %d bytes" % at
    info = trex_info(trex, copy)
    if info is None:
        return
    report(rows(info, "files")[0]["events"] == kept, name + ": the %d whole nodes kept" % kept,
           rows(info, "files")[0]["events"], kept)
    report(rows(info, "files")[0]["truncated"] == "yes", name + ": truncated",
           rows(info, "files")[0]["truncated"], "yes")
    got = integrity(info)
    report(got["events_lost"] == 1, name + ": one node lost", got["events_lost"], 1)


def check_damage(trex, path, k):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start, _ = node_spans(text)[k]
    at = text.index(":", start)
    copy = "%s/damage-%d.json" % (os.environ["TEST_TMP"], k)
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text[:at] + "!" + text[at + 1:])
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    name = "node %d damaged" % k
    info = trex_info(trex, copy)
    if info is None:
        return
    total = len(node_spans(text))
    report(rows(info, "files")[0]["events"] == total - 1, name + ": the other %d nodes kept" %
           (total - 1), rows(info, "files")[0]["events"], total - 1)
    got = integrity(info)
    report((got["syntax_errors"], got["events_lost"]) == (1, 1),
           name + ": one syntax error, one node lost", got, (1, 1))
    where = [r["problem"] for r in rows(info, "problems")]
    want = "%s:%d:%d: (byte %d) a damaged node" % (copy, line, col, at)
    report(len(where) == 1 and where[0].startswith(want), name + ": said at %d:%d" % (line, col),
           where, want)


def main():
    cmd = sys.argv[1]
    if cmd == "graph":
        check_graph(sys.argv[2], sys.argv[3])
    elif cmd == "info":
        check_info(sys.argv[2], sys.argv[3])
    elif cmd == "cut":
        check_cut(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "damage":
        check_damage(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
