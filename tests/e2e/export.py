#!/usr/bin/env python3
"""Checks for tests/e2e/export.sh (trex export), computed apart from trex.

  export.py roundtrip TRACE FMT...  export TRACE to each FMT (chrome,
                                  chrome-gz, perfetto) and load it back: the same
                                  `trex info` counts and `trex kernels`
  export.py range TRACE           a range export against Python over the
                                  original file: which X slices are kept
                                  and how they are cut and flagged
  export.py gen N OUT             a Kineto-like trace of N kernels (for the
                                  Ctrl-C test)
  export.py faithful FMT TRACE... export the traces (several: merged into
                                  one) to FMT (chrome, chrome-gz): the
                                  top-level members byte for byte (one file:
                                  all of them in place; several: the lowest
                                  rank's without distributedInfo), the flows
                                  with their ids, and for several files the
                                  same counts and kernels as loading them all

Prints PASS/FAIL lines (run_checker turns them into TAP)."""
import decimal
import gzip
import json
import os
import subprocess
import sys

TREX = os.environ.get("TREX", "trex")
TMP = os.environ.get("TEST_TMP", "/tmp")


def report(ok, what, detail=""):
    print(("PASS " if ok else "FAIL ") + what)
    if not ok and detail:
        for line in str(detail).splitlines()[:20]:
            print("# " + line)


def trex(*args):
    p = subprocess.run([TREX, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def info(path):
    rc, out, err = trex("info", "--format", "json", path)
    if rc != 0:
        return None, err
    d = json.loads(out)
    return d, ""


COUNTS = ("slices", "instants", "samples", "flows", "start_ns", "end_ns")


def roundtrip(trace, fmts):
    a, _ = info(trace)
    ka = trex("kernels", "--format", "json", trace)[1]
    for fmt in fmts:
        roundtrip_one(trace, fmt, a, ka)


def roundtrip_one(trace, fmt, a, ka):
    ext = {"chrome": ".json", "chrome-gz": ".json.gz", "perfetto": ".pftrace"}[fmt]
    out = os.path.join(TMP, "rt" + ext)
    name = os.path.basename(trace)
    rc, _, err = trex("export", "-q", "--force", "-o", out, trace)
    if rc != 0:
        report(False, f"{name}: export to {fmt}", err)
        return
    b, err = info(out)
    if b is None:
        report(False, f"{name}: {fmt} export loads", err)
        return
    diff = {k: (a[k], b[k]) for k in COUNTS if a[k] != b[k]}
    report(not diff, f"{name}: {fmt} export has the same slices, instants, samples, flows, span",
           diff)
    if fmt != "perfetto":
        for table in ("categories", "tracks"):
            report(a[table]["rows"] == b[table]["rows"],
                   f"{name}: {fmt} export has the same {table} table",
                   json.dumps([a[table]["rows"], b[table]["rows"]])[:2000])
    kb = trex("kernels", "--format", "json", out)[1]
    report(ka == kb and ka != "", f"{name}: {fmt} export has the same kernels table",
           kb[:1000])


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=decimal.Decimal)


def ns(v):
    return int(decimal.Decimal(v) * 1000)


def range_check(trace):
    d = load_json(trace)
    xs = [e for e in d["traceEvents"] if e.get("ph") == "X"]
    t0 = min(ns(e["ts"]) for e in xs)
    t1 = max(ns(e["ts"]) + ns(e.get("dur", 0)) for e in xs)
    a, b = t0 + (t1 - t0) // 3, t0 + 2 * (t1 - t0) // 3
    want = []
    for e in xs:
        ts, dur = ns(e["ts"]), max(ns(e.get("dur", 0)), 0)
        end = ts + dur
        keep = a <= ts <= b if dur == 0 else ts < b and end > a
        if not keep:
            continue
        clip = ("start" if ts < a else "") + ("end" if end > b else "")
        clip = "both" if clip == "startend" else clip
        want.append((e["name"], max(ts, a), min(end, b) - max(ts, a), clip))
    out = os.path.join(TMP, "range.json")
    rc, _, err = trex("export", "-q", "--force", "--range", f"{a}:{b}", "-o", out, trace)
    if rc != 0:
        report(False, "range export", err)
        return
    got = []
    for e in load_json(out)["traceEvents"]:
        if e.get("ph") == "X":
            args = e.get("args", {})
            got.append((e["name"], ns(e["ts"]), ns(e["dur"]), args.get("trex_clipped", "")))
    want.sort()
    got.sort()
    missing = [w for w in want if w not in got][:5]
    extra = [g for g in got if g not in want][:5]
    report(want == got, f"range {a}:{b}: {len(want)} slices kept, "
           f"{sum(1 for w in want if w[3])} cut and flagged",
           f"missing {missing}\nextra {extra}")
    report(any(w[3] for w in want), "the range cuts some slices (the check means something)")


def gen(n, out):
    """n kernels on one stream, each launched by a runtime call."""
    with open(out, "w") as f:
        f.write('{"traceEvents": [\n')
        f.write('{"ph":"M","name":"process_labels","pid":0,"args":{"labels":"GPU 0"}}')
        for i in range(n):
            t = 1000 + i * 10
            f.write(f',\n{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,'
                    f'"tid":1,"ts":{t},"dur":2,"args":{{"correlation":{i + 1}}}}}')
            f.write(f',\n{{"ph":"X","cat":"kernel","name":"k{i % 50}","pid":0,"tid":7,'
                    f'"ts":{t + 3},"dur":5,"args":{{"correlation":{i + 1},"stream":7}}}}')
        f.write("\n]}\n")


def load_pairs(path):
    """The top-level members in file order (repeats kept), numbers as text."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=decimal.Decimal, object_pairs_hook=list)


def top_members(pairs):
    """(key, value as canonical JSON) of every top-level member; the events
    array is named only by its place."""
    return [(k, "[events]" if k == "traceEvents" else json.dumps(v, default=str))
            for k, v in pairs]


def flow_points(pairs):
    events = dict(pairs)["traceEvents"]
    return [(dict(e)["id"], dict(e).get("cat"), dict(e)["ph"], ns(dict(e)["ts"]))
            for e in events if dict(e).get("ph") in ("s", "t", "f")]


def flow_hops(points):
    """The points trex chains into hops: per (cat, id), in time order (ties:
    s, t, f, then file order), an s starts a chain, t and f continue an
    open one; points of no hop (orphans) are dropped."""
    role = {"s": 0, "t": 1, "f": 2}
    keyed = sorted(enumerate(points), key=lambda x: (
        str(x[1][1]), isinstance(x[1][0], str), str(x[1][0]), x[1][3], role[x[1][2]], x[0]))
    kept, key, last = [], None, None
    for _, p in keyed:
        if (p[1], type(p[0]), p[0]) != key:
            key, last = (p[1], type(p[0]), p[0]), None
        if p[2] == "s":
            last = p
        elif last is not None:
            kept += [last, p] if last[2] == "s" else [p]
            last = p if p[2] == "t" else None
    return kept


def rank_of(pairs):
    info = dict(pairs).get("distributedInfo")
    return dict(info).get("rank", 0) if info else 0


def faithful(fmt, traces):
    out = os.path.join(TMP, "faithful" + (".json.gz" if fmt == "chrome-gz" else ".json"))
    names = os.path.basename(traces[0])
    if len(traces) > 1:
        names = f"{len(traces)} files from {names}"
    rc, _, err = trex("export", "-q", "--force", "-o", out, *traces)
    if rc != 0:
        report(False, f"{names}: export to {fmt}", err)
        return
    ins = sorted((load_pairs(t) for t in traces), key=rank_of)
    got = load_pairs(out)
    want = top_members(ins[0])
    if len(ins) > 1:
        want = [m for m in want if m[0] != "distributedInfo"]
    report(top_members(got) == want, f"{names}: {fmt} export keeps the top-level members "
           "byte for byte, in place", f"want {want}\ngot {top_members(got)}"[:3000])
    hops = [flow_hops(flow_points(p)) for p in ins]
    out_points = flow_points(got)
    if len(ins) == 1:
        report(sorted(map(str, out_points)) == sorted(map(str, hops[0])),
               f"{names}: {fmt} export has the same {len(out_points)} flow points "
               "(id, cat, ph, ts)",
               f"{len(out_points)} written, {len(hops[0])} expected")
        return
    timeless = sorted(str(p[1:]) for h in hops for p in h)
    report(sorted(str(p[1:]) for p in out_points) == timeless,
           f"{names}: the merged export has every file's flow points (cat, ph, ts)")
    first = set(map(str, hops[0]))
    report(first <= set(map(str, out_points)),
           f"{names}: the lowest rank's flows keep their ids in the merged export")
    a, _ = info_of(traces)
    b, err = info(out)
    diff = {k: (a[k], b[k]) for k in COUNTS if b is None or a[k] != b[k]}
    report(not diff, f"{names}: the merged export loads with the same counts", diff or err)
    ka = trex("kernels", "--format", "json", *traces)[1]
    report(ka == trex("kernels", "--format", "json", out)[1] and ka,
           f"{names}: the merged export has the same kernels table")


def info_of(traces):
    rc, out, err = trex("info", "--format", "json", *traces)
    return (json.loads(out), "") if rc == 0 else (None, err)


def main():
    cmd = sys.argv[1]
    if cmd == "roundtrip":
        roundtrip(sys.argv[2], sys.argv[3:])
    elif cmd == "range":
        range_check(sys.argv[2])
    elif cmd == "faithful":
        faithful(sys.argv[2], sys.argv[3:])
    elif cmd == "gen":
        gen(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
