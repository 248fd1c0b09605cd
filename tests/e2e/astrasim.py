#!/usr/bin/env python3
"""Independent expectations for trex's ASTRA-sim inputs (no trex code), as
PASS/FAIL lines (tests/e2e/astrasim.sh).

    astrasim.py timeline TREX LOG GHZ   trex info of a simulator issue/callback log
                                        at an NPU clock of GHZ against this file's
                                        own reading of it
    astrasim.py text DUMP WORKLOAD NPUS the graph graph_dump (DUMP) reads from an
                                        ASTRA-sim 1.0 text workload for NPUS NPUs
                                        (0: trex's default) against this file's own
                                        conversion: every node and dependency
    astrasim.py info TREX WORKLOAD NPUS trex info --format json of the workload for NPUS
                                        NPUs (0: the default) against this file's own
                                        conversion: nodes per rank and type, per
                                        type, ns per type (compute cycles, the
                                        collectives' alpha-beta estimates)
    astrasim.py et DUMP WORKLOAD PREFIX NPUS
                                        the same graph against the .et files Chakra's
                                        text converter wrote (PREFIX.0.et ...), decoded
                                        with the schema's Python module (python3 with
                                        google.protobuf and ET_DEF_DIR naming et_def_pb2)

The log reading follows Chakra's timeline visualizer (lines with an issue or
callback column, split on commas, the text after '=' of columns 1-4), with
what ASTRA-sim itself prints: a log prefix before the kind, a node->type
column (the node name runs up to it, commas and all).
"""
import gzip
import json
import math
import os
import re
import subprocess
import sys

KIND = re.compile(r"(?:^|[ \t])(issue|callback),")
TYPE_COL = re.compile(r",[ \t]*node->type=(\d+)[ \t]*$")


def open_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace")


def value(col):
    return col.split("=", 1)[1].strip()


def parse(line):
    """(kind, npu, tick, node, name, type) or None (no record) or 'bad'."""
    m = KIND.search(line)
    if not m:
        return None
    rest = line[m.end():]
    node_type = None
    t = TYPE_COL.search(rest)
    if t:
        node_type = int(t.group(1))
        rest = rest[:t.start()]
    cols = rest.split(",", 3)
    try:
        npu, tick, node = (int(value(c)) for c in cols[:3])
        name = cols[3].split("=", 1)[1]
    except (ValueError, IndexError):
        return "bad"
    if node_type is None:
        name = name.split(",")[0]
    return m.group(1), npu, tick, node, name, node_type


def track_of(name, node_type):
    if node_type in (2, 3) or (node_type is None and ("MEM_LOAD_NODE" in name or "MEM_STORE_NODE" in name)):
        return "local memory" if "LOCAL_MEMORY" in name else "remote memory"
    if node_type == 4 or (node_type is None and "COMP_NODE" in name):
        return "compute"
    if node_type in (5, 6, 7) or (node_type is None and any(
            k in name for k in ("COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE"))):
        return "communication"
    return "other"


def ns(cycles, ghz):
    khz = round(ghz * 1e6)
    return (cycles * 1000000 + khz // 2) // khz


def expected_timeline(path, ghz):
    pending, slices, last = {}, [], 0
    exp = {"unmatched_begin": 0, "unmatched_end": 0, "syntax_errors": 0,
           "issue": 0, "callback": 0, "other": 0, "begin_lines": [], "end_lines": []}
    lines = open_text(path).split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    for number, line in enumerate(lines, 1):
        rec = parse(line.rstrip("\r"))
        if rec is None:
            exp["other"] += 1
            continue
        if rec == "bad":
            exp["syntax_errors"] += 1
            continue
        kind, npu, tick, node, name, node_type = rec
        exp[kind] += 1
        last = max(last, tick)
        if kind == "issue":
            pending[(npu, node)] = (tick, name, node_type, number)
        elif (npu, node) in pending:
            t0, name0, type0, _ = pending.pop((npu, node))
            slices.append((npu, track_of(name0, type0), t0, tick))
        else:
            exp["unmatched_end"] += 1
            exp["end_lines"].append(number)
    for (npu, node), (t0, name0, type0, number) in pending.items():
        exp["unmatched_begin"] += 1
        exp["begin_lines"].append(number)
        slices.append((npu, track_of(name0, type0), t0, last))
    exp["tracks"], exp["totals"] = {}, {}
    for npu, track, t0, t1 in slices:
        key = ("NPU %d (%d)" % (npu, npu), track)
        exp["tracks"][key] = exp["tracks"].get(key, 0) + 1
        exp["totals"][track] = exp["totals"].get(track, 0) + ns(t1, ghz) - ns(t0, ghz)
    exp["slices"] = len(slices)
    exp["end_ns"] = max((ns(s[3], ghz) for s in slices), default=0)
    return exp


def report(ok, what, got=None, want=None):
    if ok:
        print("PASS " + what)
    else:
        print("FAIL %s: trex says %r, expected %r" % (what, got, want))


def rows(info, table):
    return info[table]["rows"]


def check_timeline(trex, path, ghz):
    exp = expected_timeline(path, ghz)
    name = path.rsplit("/", 1)[-1] + " at %g GHz" % ghz
    run = subprocess.run([trex, "info", "--format", "json", "-q", "--npu-frequency", str(ghz), path],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if run.returncode != 0:
        print("FAIL %s: trex info exit %d: %s" % (name, run.returncode, run.stderr.strip()))
        return
    info = json.loads(run.stdout)
    report(info["slices"] == exp["slices"], name + ": slices", info["slices"], exp["slices"])
    tracks = {(r["process"], r["track"]): r["slices"] for r in rows(info, "tracks")}
    report(tracks == exp["tracks"], name + ": slices per NPU and kind track", tracks, exp["tracks"])
    totals = {r["category"]: r["total_ns"] for r in rows(info, "categories")}
    report(totals == exp["totals"], name + ": ns per kind", totals, exp["totals"])
    report(info["end_ns"] == exp["end_ns"], name + ": the last callback", info["end_ns"], exp["end_ns"])
    phases = {r["phase"]: r["events"] for r in rows(info, "phases")}
    want = {k: exp[k] for k in ("issue", "callback", "other")}
    report(phases == want, name + ": lines by kind", phases, want)
    integrity = {r["check"]: r["count"] for r in rows(info, "integrity")}
    for check in ("unmatched_begin", "unmatched_end", "syntax_errors"):
        report(integrity.get(check) == exp[check], "%s: %s" % (name, check),
               integrity.get(check), exp[check])
    lines = {r["check"]: r["line"] for r in rows(info, "examples")}
    for check, key in (("unmatched_begin", "begin_lines"), ("unmatched_end", "end_lines")):
        if exp[key]:
            report(lines.get(check) in exp[key], "%s: %s example at its line" % (name, check),
                   lines.get(check), exp[key])


# ---- text workloads: the converter's graph, written from the format notes ----

POLICIES = ("DATA", "MODEL", "HYBRID_DATA_MODEL", "HYBRID_MODEL_DATA", "HYBRID_CUSTOMIZED",
            "MICRO", "DISTRIBUTED_INFERENCE", "HYBRID_DLRM", "HYBRID_DLRM_ENHANCED",
            "HYBRID_TRANSFORMER", "HYBRID_TRANSFORMER_FWD_IN_BCKWD")
COLLECTIVES = {"ALLTOALL": "all-to-all", "ALLGATHER": "all-gather",
               "REDUCESCATTER": "reduce-scatter"}


def read_workload(path):
    """(policy, header numbers, layers) from the whitespace token stream."""
    toks = open_text(path).split()
    policy, at, header = toks[0], 1, {}
    if policy.startswith("HYBRID_DLRM"):
        header["bottom"], at = int(toks[1]), 2
    elif policy.startswith("HYBRID_TRANSFORMER"):
        header["group"], at = int(toks[2]), 3
        if policy.endswith("FWD_IN_BCKWD"):
            for _ in range(2):  # label, count, that many layer numbers
                at += 2 + int(toks[at + 1])
    count = int(toks[at])
    at += 1
    width = 13 if policy == "HYBRID_CUSTOMIZED" else 12
    layers = []
    for i in range(count):
        c = toks[at + i * width: at + (i + 1) * width]
        layers.append({"name": c[0], "FWD": (int(c[2]), c[3], int(c[4])),
                       "BWD_IG": (int(c[5]), c[6], int(c[7])),
                       "BWD_WG": (int(c[8]), c[9], int(c[10]))})
    return policy, header, layers


class Graph:
    def __init__(self):
        self.nodes, self.deps, self.next_id = [], [], 0

    def node(self, rank, kind, name, dur, size, coll):
        self.nodes.append((rank, self.next_id, kind, coll, dur, size, name))
        self.next_id += 1
        return self.next_id - 1

    def comp(self, rank, layer, phase):
        return self.node(rank, "compute", "COMP_NODE_%s_%s" % (layer["name"], phase),
                         layer[phase][0], -1, "none")

    def comm(self, rank, layer, phase, infix="", owner=None):
        _, kind, size = layer[phase]
        name = "COMM_COLL_NODE_%s%s_%s" % ((owner or layer)["name"], infix, kind)
        return self.node(rank, "collective", name, -1, size, COLLECTIVES.get(kind, "all-reduce"))

    def dep(self, child, parent):
        if parent is not None:
            self.deps.append((child, parent))


def npu_data(g, r, L):
    fwd, ig = {}, {}
    for i, l in enumerate(L):
        fwd[i] = g.comp(r, l, "FWD")
        g.dep(fwd[i], fwd.get(i - 1))
    for i in reversed(range(len(L))):
        wg = g.comp(r, L[i], "BWD_WG")
        g.dep(wg, fwd[i] if i == len(L) - 1 else ig[i + 1])
        g.dep(g.comm(r, L[i], "BWD_WG"), wg)
        if i:
            ig[i] = g.comp(r, L[i], "BWD_IG")
            g.dep(ig[i], wg)


def npu_model(g, r, L, wg_comm, ig_infix=""):
    fc, ig, igc, wg = {}, {}, {}, {}
    for i, l in enumerate(L):
        c = g.comp(r, l, "FWD")
        g.dep(c, fc.get(i - 1))
        fc[i] = g.comm(r, l, "FWD")
        g.dep(fc[i], c)
    for i in reversed(range(len(L))):
        ig[i] = g.comp(r, L[i], "BWD_IG")
        if i == len(L) - 1:
            g.dep(ig[i], fc[i])
        else:
            g.dep(ig[i], wg[i + 1])
            g.dep(ig[i], igc[i + 1])
        if i:
            igc[i] = g.comm(r, L[i], "BWD_IG", ig_infix)
            g.dep(igc[i], ig[i])
        wg[i] = g.comp(r, L[i], "BWD_WG")
        g.dep(wg[i], ig[i])
        if wg_comm:
            g.dep(g.comm(r, L[i], "BWD_WG"), wg[i])


def npu_dlrm(g, r, L, bottom):
    fc, fm, ig, igm = {}, {}, {}, {}
    for i, l in enumerate(L):
        fc[i] = g.comp(r, l, "FWD")
        g.dep(fc[i], fc.get(i - 1))
        if i == bottom:
            g.dep(fc[i], fm.get(0))
        if l["FWD"][1] == "ALLTOALL":
            fm[i] = g.comm(r, l, "FWD")
            g.dep(fm[i], fc[i])
    for i in reversed(range(len(L))):
        wg = g.comp(r, L[i], "BWD_WG")
        if i == len(L) - 1:
            g.dep(wg, fc[i])
        else:
            g.dep(wg, ig.get(i + 1))
            g.dep(wg, igm.get(i))
        if L[i]["BWD_WG"][1] != "NONE":
            g.dep(g.comm(r, L[i], "BWD_WG"), wg)
        if i:
            ig[i] = g.comp(r, L[i], "BWD_IG")
            g.dep(ig[i], wg)
        if i and i == bottom + 1:
            igm[0] = g.comm(r, L[0], "BWD_IG")
            g.dep(igm[0], ig[i])


def convert(path, npus):
    policy, header, L = read_workload(path)
    if npus == 0:
        group = header.get("group", 1)
        npus = 2 * group if group > 1 else 2
    g = Graph()
    for r in range(npus):
        if policy == "DATA":
            npu_data(g, r, L)
        elif policy == "MODEL":
            npu_model(g, r, L, False)
        elif policy == "HYBRID_DATA_MODEL":
            npu_model(g, r, L, True, "_IG_COMM_")
        elif policy.startswith("HYBRID_DLRM"):
            npu_dlrm(g, r, L, header["bottom"])
        elif policy == "MICRO":
            for l in L:
                g.comm(r, l, "BWD_WG")
        elif policy == "DISTRIBUTED_INFERENCE":
            fc = None
            for l in L:
                c = g.comp(r, l, "FWD")
                g.dep(c, fc)
                fc = g.comm(r, l, "FWD")
                g.dep(fc, c)
        else:
            npu_model(g, r, L, True)
    return g


NODE = re.compile(r"node rank=(\d+) id=(\d+) type=(.+?) coll=(.+?) dur=(-?\d+) bytes=(-?\d+) name=(.*)$")
DEP = re.compile(r"dep (\d+) <- (\d+) (\w+)$")


def read_dump(dump, path, npus):
    run = subprocess.run([dump, "astrasim-text", path, str(npus)], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True)
    nodes, deps = [], []
    for line in run.stdout.splitlines():
        m = NODE.match(line)
        if m:
            r, i, kind, coll, dur, size, name = m.groups()
            nodes.append((int(r), int(i), kind, coll, int(dur), int(size), name))
        m = DEP.match(line)
        if m:
            deps.append((int(m.group(1)), int(m.group(2))))
    return run, nodes, deps


def per_type(nodes):
    counts = {}
    for n in nodes:
        counts[(n[0], n[2])] = counts.get((n[0], n[2]), 0) + 1
    return counts


def first_difference(a, b):
    for x, y in zip(a, b):
        if x != y:
            return x, y
    return (a[len(b)] if len(a) > len(b) else None), (b[len(a)] if len(b) > len(a) else None)


def check_text(dump, path, npus):
    name = "%s for %s NPUs" % (path.rsplit("/", 1)[-1], npus or "the default")
    run, nodes, deps = read_dump(dump, path, npus)
    if run.returncode != 0:
        print("FAIL %s: graph_dump exit %d: %s" % (name, run.returncode, run.stderr.strip()))
        return
    g = convert(path, npus)
    want = per_type(g.nodes)
    report(per_type(nodes) == want, name + ": nodes per rank and type (%s)" % ", ".join(
        "%d %s" % (v, k[1]) for k, v in sorted(want.items()) if k[0] == 0) + " on rank 0",
           per_type(nodes), want)
    report(nodes == g.nodes, name + ": every node (rank, id, type, collective, cycles, bytes, name)",
           *first_difference(nodes, g.nodes))
    report(sorted(deps) == sorted(g.deps), name + ": every dependency",
           *first_difference(sorted(deps), sorted(g.deps)))


def read_et(path, et_def):
    """The Nodes of a .et file: record #0 as a Node too when it is one (2023 files)."""
    with open(path, "rb") as f:
        data = f.read()
    nodes, at = [], 0
    while at < len(data):
        n = shift = 0
        while True:
            b = data[at]
            at += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        rec = data[at:at + n]
        at += n
        node = et_def.Node()
        try:
            node.ParseFromString(rec)
        except Exception:
            continue  # the GlobalMetadata
        if node.type:
            nodes.append(node)
    return nodes


def check_et(dump, path, prefix, npus):
    sys.path.insert(0, os.environ.get("ET_DEF_DIR", "."))
    import et_def_pb2  # noqa: E402  (the schema module the tools kit generated)
    name = "%s against %s.*.et" % (path.rsplit("/", 1)[-1], prefix.rsplit("/", 1)[-1])
    run, nodes, deps = read_dump(dump, path, npus)
    want_nodes, want_deps = [], []
    for r in range(npus):
        for n in read_et("%s.%d.et" % (prefix, r), et_def_pb2):
            attrs = {a.name: a for a in n.attr}
            size = attrs["comm_size"].int64_val if "comm_size" in attrs else -1
            kind = "collective" if n.type == et_def_pb2.COMM_COLL_NODE else "compute"
            want_nodes.append((r, n.id, kind, n.name, n.duration_micros if kind == "compute" else -1, size))
            want_deps += [(n.id, p) for p in list(n.data_deps) + list(n.ctrl_deps)]
    got = [(n[0], n[1], n[2], n[6], n[4], n[5]) for n in nodes]
    report(run.returncode == 0 and got == want_nodes,
           name + ": every node (rank, id, type, name, cycles, bytes) as the converter wrote it",
           *first_difference(got, want_nodes))
    report(sorted(deps) == sorted(want_deps), name + ": every dependency as the converter wrote it",
           *first_difference(sorted(deps), sorted(want_deps)))


# ---- text workloads through trex info: counts per rank and type, durations ----

TRACK_OF = {"compute": "compute", "collective": "comm"}
LATENCY_NS, BANDWIDTH_GBPS = 500, 50.0  # the schedule's defaults (core/schedule.h)


def estimate_ns(coll, size, ranks):
    """The alpha-beta estimate of a collective without a duration, in the
    schedule's own double arithmetic (so the ns round up alike)."""
    m = (ranks - 1) / ranks
    factor = 2 * m if coll == "all-reduce" else m
    return LATENCY_NS + math.ceil(size * factor / BANDWIDTH_GBPS)


def check_info(trex, path, npus):
    name = "%s for %s NPUs" % (path.rsplit("/", 1)[-1], npus or "the default")
    g = convert(path, npus)
    ranks = 1 + max(n[0] for n in g.nodes)
    args = [trex, "info", "--format", "json", "-q"] + (["--npus", str(npus)] if npus else [])
    run = subprocess.run(args + [path], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if run.returncode != 0:
        print("FAIL %s: trex info exit %d: %s" % (name, run.returncode, run.stderr.strip()))
        return
    info = json.loads(run.stdout)
    want = {}
    for rank, _, kind, _, _, _, _ in g.nodes:
        key = ("rank %d (%d)" % (rank, rank), TRACK_OF[kind])
        want[key] = want.get(key, 0) + 1
    got = {(r["process"], r["track"]): r["slices"] for r in rows(info, "tracks")}
    report(got == want, name + ": trex info's nodes per rank and type (%d ranks)" % ranks, got, want)
    types = {}
    for n in g.nodes:
        types[n[2]] = types.get(n[2], 0) + 1
    phases = {r["phase"]: r["events"] for r in rows(info, "phases")}
    report(phases == types, name + ": nodes per type", phases, types)
    totals = {}
    for _, _, kind, coll, dur, size, _ in g.nodes:
        ns = dur if kind == "compute" else estimate_ns(coll, size, ranks)
        totals[kind] = totals.get(kind, 0) + ns
    got = {r["category"]: r["total_ns"] for r in rows(info, "categories")}
    report(got == totals, name + ": ns per type (cycles as ns, collectives estimated)", got, totals)
    estimated = sum(1 for n in g.nodes if n[2] == "collective")
    report(info["schedule"]["estimated_comm_nodes"] == estimated,
           name + ": %d collectives estimated" % estimated,
           info["schedule"]["estimated_comm_nodes"], estimated)


def main(argv):
    if len(argv) == 5 and argv[1] == "timeline":
        check_timeline(argv[2], argv[3], float(argv[4]))
        return 0
    if len(argv) == 5 and argv[1] == "text":
        check_text(argv[2], argv[3], int(argv[4]))
        return 0
    if len(argv) == 5 and argv[1] == "info":
        check_info(argv[2], argv[3], int(argv[4]))
        return 0
    if len(argv) == 6 and argv[1] == "et":
        check_et(argv[2], argv[3], argv[4], int(argv[5]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
