#!/usr/bin/env python3
"""Independent expectations for trex's ASTRA-sim inputs (no trex code), as
PASS/FAIL lines (tests/e2e/astrasim.sh).

    astrasim.py timeline TREX LOG GHZ   trex info of a simulator issue/callback log
                                        at an NPU clock of GHZ against this file's
                                        own reading of it

The log reading follows Chakra's timeline visualizer (lines with an issue or
callback column, split on commas, the text after '=' of columns 1-4), with
what ASTRA-sim itself prints: a log prefix before the kind, a node->type
column (the node name runs up to it, commas and all).
"""
import gzip
import json
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


def main(argv):
    if len(argv) == 5 and argv[1] == "timeline":
        check_timeline(argv[2], argv[3], float(argv[4]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
