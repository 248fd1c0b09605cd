#!/usr/bin/env python3
"""Metrics checks, computed independently of trex with Python from the same
files, following doc/formats/unitrace.md (§2, §3, §5) and, for Kineto's
range profiler, doc/formats/chrome-trace.md §5.

Usage (from tests/e2e/metrics.sh; TREX is the program under test):
  metrics.py report FILE        unitrace -d/-h text report: every table row
                                (name and numbers) and every total, against the
                                reports of trex metrics --format json FILE
  metrics.py csv FILE...        unitrace -q/-k metric CSV (either header style):
                                kernels, instances, samples per instance, and
                                min/avg/max of every metric per kernel, against
                                trex metrics --summary --metric all
  metrics.py link TRACE CSV     metric instances matched to the trace's gpu_op
                                events by args.id and name: the matched count,
                                each instance's start and duration, and the
                                kernels table's metric column (mean over the
                                kernel's matched instances)
  metrics.py kineto TRACE       cuda_profiler_range events as per-kernel
                                metrics: instances and min/avg/max per counter

Prints one "PASS what" / "FAIL what" line per check (lib.sh turns them into
TAP). An instance's samples (sub-devices, -k time samples) make one value:
'%' and MHz metrics their mean, markers (SubDeviceId, QueryBeginTime,
ReportReason, StreamMarker) the first, everything else their sum.
"""
import collections
import gzip
import json
import math
import os
import subprocess
import sys

FIRST = {"SubDeviceId", "QueryBeginTime[ns]", "ReportReason", "StreamMarker"}


def report(ok, what, diag=()):
    print(("PASS " if ok else "FAIL ") + what)
    for line in ([] if ok else list(diag)[:12]):
        print("  " + str(line))
    return ok


def trex_json(*args):
    out = subprocess.run([os.environ["TREX"], *args, "--format", "json"], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return json.loads(out)


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def close(a, b):
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def short(path):
    return "/".join(path.split("/")[-2:])


# ---- -d/-h text reports -----------------------------------------------------------

def parse_report(path):
    """(totals {label: value}, rows [(name, [values])]) of a -d/-h report:
    a table row has as many fields after its name as its header; the name
    (quoted or not) may hold commas, so fields are split from the right."""
    totals, rows, ncols = {}, [], 0
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        if not s or s.startswith("="):
            ncols = 0 if s.startswith("=") else ncols
            continue
        if ncols == 0 and "," in s and s.split(",")[0].strip() in ("Kernel", "Function"):
            ncols = len(s.split(","))
            continue
        if ncols and s.count(",") >= ncols - 1:
            f = s.rsplit(",", ncols - 1)
            rows.append((f[0].strip().strip('"'), [x.strip() for x in f[1:]]))
        elif ":" in s and number(s.rsplit(":", 1)[1]) is not None:
            label, value = s.rsplit(":", 1)
            totals[label.strip()] = float(value)
    return totals, rows


def cmd_report(path):
    totals, rows = parse_report(path)
    doc = trex_json("metrics", path)
    got_totals, got_rows = {}, []
    for t in doc.get("reports", []):
        cols = t["columns"]
        for r in t["rows"]:
            if cols == ["value", "total"]:
                got_totals[r["total"]] = float(r["value"])
                continue
            got_rows.append((r[cols[-1]], [r[c] for c in cols[:-1]]))

    def same(want, got):
        return len(want) == len(got) and all(
            close(number(w), float(g)) if number(w) is not None else w == g
            for w, g in zip(want, got))

    missing = [w for w in rows if not any(w[0] == g[0] and same(w[1], g[1]) for g in got_rows)]
    ok = report(not missing and len(rows) == len(got_rows) and rows,
                "%s: %d report rows, names and numbers" % (short(path), len(rows)),
                ["want %d rows, got %d" % (len(rows), len(got_rows))] +
                ["missing %s %s" % (n[:60], v) for n, v in missing])
    return report(totals == got_totals and totals,
                  "%s: %d totals" % (short(path), len(totals)),
                  ["want %s" % totals, "got  %s" % got_totals]) and ok


# ---- -q/-k metric CSVs -------------------------------------------------------------

def split_csv(line):
    """Fields of a metric CSV row: a quoted name may hold commas."""
    line = line.rstrip("\r\n")
    if line.startswith('"'):
        end = line.index('"', 1)
        return [line[1:end]] + [x.strip() for x in line[end + 2:].split(",")]
    return [x.strip() for x in line.split(",")]


def parse_metric_csv(path):
    """[(device, kernel, id, [ {metric: value} per sample ])]: instances in
    file order. Current style: a (kernel, GlobalInstanceId) pair, samples
    until a blank line; older style (no instance id): one instance per
    header block. NoKernel idle samples are instances of their own
    "NoKernel(Before <kernel>)" name (idle(inst) tells)."""
    instances, header, device, prev = [], None, "Device #0", None
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        if not s:
            prev = None
            continue
        if s.startswith("=== Device #"):
            device = s.strip("= ").replace(" Metrics", "")
            continue
        if s.startswith("=") or s.startswith("Kernel,"):
            if s.startswith("Kernel,"):  # a metric CSV's, or a -d report's (not ours)
                header = [x.strip() for x in s.split(",")]
                header = header if header[1] in ("GlobalInstanceId", "Device") else None
                prev = None
            continue
        f = split_csv(s)
        if header is None or len(f) != len(header):
            continue
        row = dict(zip(header, f))
        key = (device, f[0], row.get("GlobalInstanceId"))
        sample = {k: number(v) for k, v in row.items()
                  if k not in ("Kernel", "GlobalInstanceId", "Device", "") and number(v) is not None}
        if prev == key and key[2] is not None:
            instances[-1][3].append(sample)
        else:
            instances.append((device, f[0], key[2], [sample]))
        prev = key
    return instances


def idle(inst):
    return inst[1].startswith("NoKernel(")


def combine(metric, values):
    if metric in FIRST:
        return values[0]
    if metric.endswith("[%]") or metric.endswith("[MHz]"):
        return sum(values) / len(values)
    return sum(values)


def instance_values(inst):
    metrics = collections.OrderedDict()
    for sample in inst[3]:
        for k, v in sample.items():
            metrics.setdefault(k, []).append(v)
    return {k: combine(k, v) for k, v in metrics.items()}


def cmd_csv(*paths):
    ok = True
    for path in paths:
        want = collections.defaultdict(lambda: collections.defaultdict(list))
        counts = collections.Counter()
        for inst in parse_metric_csv(path):
            counts[inst[1]] += 1  # the listing has the idle samples too
            if idle(inst):
                continue  # no kernel's metrics
            for k, v in instance_values(inst).items():
                want[inst[1]][k].append(v)
        doc = trex_json("metrics", "--summary", "--metric", "all", path)
        got = {(r["kernel"], r["metric"]): r for r in doc["summary"]["rows"]}
        bad = []
        for kernel, metrics in want.items():
            for metric, vals in metrics.items():
                r = got.get((kernel, metric))
                w = (len(vals), min(vals), sum(vals) / len(vals), max(vals))
                g = r and (r["instances"], r["min"], r["avg"], r["max"])
                if not g or g[0] != w[0] or not all(close(a, b) for a, b in zip(w[1:], g[1:])):
                    bad.append("%s %s: want %s got %s" % (kernel[:40], metric, w, g))
        n = sum(len(m) for m in want.values())
        ok = report(not bad and n == len(got) and n,
                    "%s: min/avg/max of %d kernel metrics over %d instances, idle ones apart"
                    % (short(path), n, sum(counts.values())),
                    bad + ["want %d rows, got %d" % (n, len(got))]) and ok
        kernels = {r["kernel"]: r["instances"] for r in trex_json("metrics", path)["kernels"]["rows"]}
        ok = report(kernels == dict(counts), "%s: instances per kernel" % short(path),
                    ["want %s" % dict(counts), "got  %s" % kernels]) and ok
    return ok


# ---- linking to a trace ------------------------------------------------------------

def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def cmd_link(trace, csv):
    events = load_json(trace)["traceEvents"]
    t0 = min(e["ts"] for e in events if e.get("ph") in ("X", "B", "i") and "ts" in e)
    ops = {str(e["args"]["id"]): e for e in events
           if e.get("cat") == "gpu_op" and "id" in e.get("args", {})}
    insts = parse_metric_csv(csv)
    matched = [i for i in insts if i[2] in ops and ops[i[2]]["name"] == i[1]]
    doc = trex_json("metrics", "--metric", "XVE_ACTIVE", trace, csv)
    rows = {(r["kernel"], str(r["id"])): r for r in doc["instances"]["rows"]}
    bad = []
    for i in matched:
        e, r = ops[i[2]], rows.get((i[1], i[2]))
        want = (round((e["ts"] - t0) * 1000), round(e["dur"] * 1000))
        if not r or r["match"] != "id" or (r["start_ns"], r["dur_ns"]) != want:
            bad.append("id %s: want %s got %s" % (i[2], want, r))
    unmatched = [r for r in rows.values() if r["match"] not in ("id", "time")]
    ok = report(not bad and len(unmatched) == len(insts) - len(matched),
                "%s: %d of %d instances matched by id, their start and duration"
                % (short(csv), len(matched), len(insts)),
                bad + ["unmatched %d" % len(unmatched)])
    mean = collections.defaultdict(list)
    for i in matched:
        mean[i[1]].append(instance_values(i)["XVE_ACTIVE[%]"])
    got = {r["name"]: r["XVE_ACTIVE[%]"]
           for r in trex_json("kernels", "--metric", "XVE_ACTIVE", trace, csv)["rows"]}
    want = {k: sum(v) / len(v) for k, v in mean.items()}
    return report(want.keys() == got.keys() and all(close(want[k], got[k]) for k in want),
                  "kernels --metric XVE_ACTIVE: the mean of each kernel's matched instances",
                  ["want %s" % want, "got  %s" % got]) and ok


# ---- Kineto cuda_profiler_range ----------------------------------------------------

def cmd_kineto(trace):
    ranges = [e for e in load_json(trace)["traceEvents"] if e.get("cat") == "cuda_profiler_range"]
    want = collections.defaultdict(list)
    for e in ranges:
        for k, v in e.get("args", {}).items():
            if isinstance(v, (int, float)):
                want[(e["name"], k)].append(float(v))
    rows = trex_json("metrics", "--summary", "--metric", "all", trace)["summary"]["rows"]
    got = {(r["kernel"], r["metric"]): r for r in rows}
    bad = []
    for key, vals in want.items():
        r = got.get(key)
        w = (len(vals), min(vals), sum(vals) / len(vals), max(vals))
        g = r and (r["instances"], r["min"], r["avg"], r["max"])
        if not g or g[0] != w[0] or not all(close(a, b) for a, b in zip(w[1:], g[1:])):
            bad.append("%s %s: want %s got %s" % (key[0][:40], key[1], w, g))
    return report(ranges and not bad and len(want) == len(got),
                  "%s: %d cuda_profiler_range events, min/avg/max of %d kernel counters"
                  % (short(trace), len(ranges), len(want)),
                  bad + ["want %d rows, got %d" % (len(want), len(got))])


def main(argv):
    cmds = {"report": cmd_report, "csv": cmd_csv, "link": cmd_link, "kineto": cmd_kineto}
    if len(argv) < 3 or argv[1] not in cmds:
        sys.exit(__doc__)
    return 0 if cmds[argv[1]](*argv[2:]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
