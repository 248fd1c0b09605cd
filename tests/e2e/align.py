#!/usr/bin/env python3
"""Rank alignment and stragglers, checked against numbers computed here from
the trace JSON, independently of trex.

Usage (from tests/e2e/align.sh; TREX is the program under test):
  align.py shift OUT_DIR TRACE...   copies of the traces with a known offset in
                                    µs added to every ts of rank r (OFFSETS_US[r])
  align.py offsets ORIG_DIR SHIFTED_DIR
                                    trex align on both sets: the offsets found
                                    move by exactly the injected ones (within
                                    1 µs), and equal the closed-form least
                                    squares of the collective ends
  align.py stragglers DIR           trex stragglers against last arrivals,
                                    lateness and waits computed here

Prints one "PASS what" / "FAIL what" line per check. Times are exact: JSON
decimals become integer nanoseconds (expected.to_ns).
"""
import decimal
import fractions
import glob
import gzip
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expected import Report  # noqa: E402
from expected import to_ns as ns  # noqa: E402

TREX = os.environ.get("TREX", "trex")
D = decimal.Decimal
# per rank (distributedInfo.rank), µs: large, negative, fractional
OFFSETS_US = [D(0), D("1500"), D("-2750.5"), D("12345"), D("500000"), D("-33.25"), D("7"),
              D("99999.125")]


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=D)


def shift(out_dir, traces):
    for path in traces:
        doc = load(path)
        off = OFFSETS_US[doc["distributedInfo"]["rank"]]
        for ev in doc["traceEvents"]:
            if "ts" in ev:
                ev["ts"] = D(str(ev["ts"])) + off
        name = os.path.basename(path)
        if name.endswith(".gz"):
            name = name[:-3]
        text = json.dumps(doc, default=lambda d: "\x00%s\x00" % d)
        # exact decimals, unquoted: json writes them as marked strings first
        text = re.sub(r'"\\u0000([-0-9.Ee+]+)\\u0000"', r"\1", text)
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(text)
    return 0


def ranks_of(directory):
    """Per rank: its collective kernels (start, end, name) by start, and its
    ProfilerStep slices (name, start, end)."""
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.json*"))):
        if path.endswith(".trex"):
            continue
        doc = load(path)
        rank = doc["distributedInfo"]["rank"]
        coll, steps = [], []
        for ev in doc["traceEvents"]:
            if ev.get("ph") != "X":
                continue
            ts, dur = ns(D(str(ev["ts"]))), ns(D(str(ev.get("dur", 0))))
            if ev.get("cat") == "kernel" and "nccl" in ev["name"].lower():
                coll.append((ts, ts + dur, ev["name"]))
            if ev.get("cat") == "user_annotation" and ev["name"].startswith("ProfilerStep#"):
                steps.append((ev["name"], ts, ts + dur))
        coll.sort()
        out[rank] = (coll, steps)
    return out


def ls_offsets(ranks):
    """Offsets only, every rank in every collective: the joint least squares
    puts rank r at mean(end_0 - end_r) against rank 0, in whole ns."""
    n = len(ranks[0][0])
    off = {}
    for r, (coll, _) in ranks.items():
        assert len(coll) == n
        q = fractions.Fraction(sum(ranks[0][0][k][1] - coll[k][1] for k in range(n)), n)
        # whole nanoseconds, halves away from zero (as trex rounds)
        off[r] = math.floor(q + fractions.Fraction(1, 2)) if q >= 0 else \
            -math.floor(-q + fractions.Fraction(1, 2))
    return off


def trex_json(*args):
    out = subprocess.run([TREX, *args, "--format", "json", "-q"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def offsets(orig_dir, shifted_dir):
    rep = Report()
    files = lambda d: sorted(p for p in glob.glob(os.path.join(d, "*.json*"))  # noqa: E731
                             if not p.endswith(".trex"))
    a = {row["rank"]: row for row in trex_json("align", *files(orig_dir))["ranks"]["rows"]}
    b = {row["rank"]: row for row in trex_json("align", *files(shifted_dir))["ranks"]["rows"]}
    worst = D(0)
    diag = []
    for r in sorted(a):
        want = -(OFFSETS_US[r] - OFFSETS_US[0]) * 1000  # ns
        got = D(b[r]["offset_ns"]) - D(a[r]["offset_ns"])
        worst = max(worst, abs(got - want))
        diag.append("rank %d: injected %s ns, found %s ns" % (r, want, got))
    rep.check(worst <= 1000, "align recovers the offsets injected into the 8 ranks to "
              "within 1 us (worst %s ns)" % worst, diag)
    for name, rows, d in (("original", a, orig_dir), ("shifted", b, shifted_dir)):
        want = ls_offsets(ranks_of(d))
        bad = ["rank %d: trex %s, least squares %s" % (r, rows[r]["offset_ns"], want[r])
               for r in rows if abs(D(rows[r]["offset_ns"]) - D(want[r])) > 1]
        rep.check(not bad, "align offsets of the %s set are the least squares of the "
                  "collective ends" % name, bad)
    same = all(abs(D(a[r]["rms_ns"]) - D(b[r]["rms_ns"])) < D("0.01") for r in a)
    rep.check(same, "the residuals do not change with the injected offsets")
    rep.check(a[0]["note"] == "reference clock" and all(a[r]["anchors"] == 8 for r in a),
              "rank 0 is the reference, every rank has the 8 collectives as anchors")
    return 1 if rep.failed else 0


def expected_stragglers(ranks):
    off = ls_offsets(ranks)
    events = []
    n = len(ranks[0][0])

    def judge(kind, event, arrivals):
        order = sorted(arrivals, key=lambda ra: (-ra[1], ra[0]))
        last_rank, last = order[0]
        waits = [last - t for r, t in arrivals if r != last_rank]
        events.append({"kind": kind, "event": event, "last_rank": last_rank,
                       "late_ns": last - order[1][1], "wait_sum_ns": sum(waits),
                       "wait_max_ns": max(waits), "ranks": len(arrivals)})

    for k in range(n):
        name = ranks[0][0][k][2]
        judge("collective", "#%d %s" % (k + 1, name),
              [(r, c[k][0] + off[r]) for r, (c, _) in ranks.items()])
    names = sorted({s[0] for _, st in ranks.values() for s in st})
    for name in names:
        judge("step", name, [(r, next(e for nm, _, e in st if nm == name) + off[r])
                             for r, (_, st) in ranks.items()])
    events.sort(key=lambda e: -e["wait_sum_ns"])
    return events


def stragglers(directory):
    rep = Report()
    files = sorted(p for p in glob.glob(os.path.join(directory, "*.json*"))
                   if not p.endswith(".trex"))
    got = trex_json("stragglers", *files)
    want = expected_stragglers(ranks_of(directory))
    rows = got["events"]["rows"]
    keys = ("kind", "event", "last_rank", "late_ns", "wait_sum_ns", "wait_max_ns", "ranks")
    bad = []
    for i, (g, w) in enumerate(zip(rows, want)):
        for k in keys:
            if D(str(g[k])) != D(str(w[k])) if k.endswith("_ns") else g[k] != w[k]:
                bad.append("row %d %s: trex %s, expected %s" % (i, k, g[k], w[k]))
    rep.check(len(rows) == len(want) and not bad,
              "stragglers: %d events, last rank, lateness and waits as computed here" %
              len(want), bad)
    caused = {}
    for w in want:
        caused[w["last_rank"]] = caused.get(w["last_rank"], 0) + w["wait_sum_ns"]
    top = max(caused, key=lambda r: (caused[r], -r))
    first = got["ranks"]["rows"][0]
    rep.check(first["rank"] == top and D(str(first["wait_caused_ns"])) == caused[top],
              "stragglers: rank %d caused the most wait (%s ns)" % (top, caused[top]),
              ["trex: %s" % first])
    return 1 if rep.failed else 0


def main(argv):
    if argv[1] == "shift":
        return shift(argv[2], argv[3:])
    if argv[1] == "offsets":
        return offsets(argv[2], argv[3])
    if argv[1] == "stragglers":
        return stragglers(argv[2])
    print("unknown subcommand " + argv[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
