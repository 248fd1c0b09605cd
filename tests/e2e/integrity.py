#!/usr/bin/env python3
"""`trex integrity` on damaged variants of real traces (issue 9 item 5).

  integrity.py TMPDIR FILE...

For each trace, Python lays out its events (damage.py's Layout) and writes
three variants whose damage it knows exactly:

  cut     the decoded trace cut in the middle of its middle event: that
          event lost, the bytes from its start to the cut ignored;
  flip    the ',' after the middle event turned into 'x': one damaged spot,
          from that byte to the next event, no event lost;
  values  ten X events given "dur":"x" (kept with duration 0), one a
          "ts":"abc" (dropped), one a "pid":1.5 (kept): 12 values not
          taken as written.

Each goes through `trex integrity --format json` (and text and CSV), and
Python checks every counter it can count (the other damage counters are
0), each damaged counter's first example (where: file name, line:col and
byte offset, counted here in the variant's bytes; what; the event's name;
its time from the trace start), how many examples are kept (at most 8),
that every counter of `trex info` is listed, and the text report's first
line in the words of the warning, sizes written out again here. The cut
and values variants are then loaded together: one row per file and
counter, each under its own run.
"""

import csv
import io
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import damage as dm  # noqa: E402  (the layout of a trace's events)
import expected as ex  # noqa: E402  (trex runs, reports)

EXAMPLES_KEPT = 8
VALUE_COUNTERS = ("missing_fields", "unknown_phase", "bad_values", "bad_ts", "bad_dur",
                  "bad_ids", "ts_out_of_range", "dur_out_of_range", "saturated_numbers",
                  "invalid_utf8")
SPAN_COUNTERS = ("syntax_errors", "bytes_skipped", "events_lost", "bytes_ignored")


# ---- what Python expects -------------------------------------------------------------------

def human(n):
    """A byte count as the report writes it: "95 bytes", "1.2 MB"."""
    if n < 1000:
        return "%d byte%s" % (n, "" if n == 1 else "s")
    units = ["kB", "MB", "GB", "TB", "PB", "EB"]
    v, u = n / 1000.0, 0
    while u + 1 < len(units) and v >= 1000:
        v, u = v / 1000.0, u + 1
    text = ("%.1f" % v).rstrip("0").rstrip(".")
    if u + 1 < len(units) and float(text) >= 1000:
        u += 1
        text = ("%.1f" % (v / 1000.0)).rstrip("0").rstrip(".")
    return "%s %s" % (text, units[u])


def exact(n):
    return human(n) + (" (%d bytes)" % n if n >= 1000 else "")


def plural(n, one, many):
    return "%d %s" % (n, one if n == 1 else many)


def where(data, name, off):
    """NAME:LINE:COL (byte OFF): line and column (of bytes) from 1."""
    line = data.count(b"\n", 0, off) + 1
    col = off - (data.rfind(b"\n", 0, off) + 1) + 1
    return "%s:%d:%d (byte %d)" % (name, line, col, off)


class Expect:
    """The counters a variant must show (the rest of the damage is 0), the
    first example of each, and the text report's first line after the run."""

    def __init__(self, name):
        self.name = name
        self.counts = {}
        self.first = {}   # counter -> {column: value}
        self.examples = {}
        self.loss = ""


def value_at(lay, k, key):
    """The span [v, end) of event k's value of key, or None."""
    a, b, _ = lay.events[k]
    m = re.search(rb'"%s"\s*:\s*' % key.encode(), lay.data[a:b])
    if not m:
        return None
    v = a + m.end()
    _, end = lay.dec.raw_decode(lay.s, v)
    return v, end


# ---- variants ------------------------------------------------------------------------------

def cut_variant(lay, name):
    k = len(lay.events) // 2
    a, b, _ = lay.events[k]
    cut = a + (b - a) // 2
    data = lay.data[:cut]
    e = Expect(name)
    e.counts = {"bytes_ignored": cut - a, "events_lost": 1}
    first = {"where": where(data, name, a)}
    e.first = {"bytes_ignored": first, "events_lost": first}
    e.examples = {"bytes_ignored": 1, "events_lost": 1}
    e.loss = "%s ignored after truncation at byte %d" % (exact(cut - a), a)
    return data, e


def flip_variant(lay, name):
    k = len(lay.seps) // 2
    i = lay.seps[k]
    nxt = min(a for a, _, _ in lay.events if a > i)
    data = dm.replace_at(lay.data, i, b"x")
    e = Expect(name)
    e.counts = {"syntax_errors": 1, "bytes_skipped": nxt - i}
    first = {"where": where(data, name, i), "what": "expected ',' or ']' between events"}
    e.first = {"syntax_errors": first, "bytes_skipped": first}
    e.examples = {"syntax_errors": 1, "bytes_skipped": 1}
    e.loss = "skipped %s at 1 damaged spot, no event lost" % exact(nxt - i)
    return data, e


def pick_values(lay):
    """Ten X events with a dur, one with a ts, one with a pid (distinct,
    spread over the file), or None when the trace has too few."""
    xs = [k for k, (_, _, row) in enumerate(lay.events) if row == "X"]
    if len(xs) < 12:
        return None
    step = len(xs) // 12
    chosen = [xs[j * step] for j in range(12)]
    edits = []
    for j, k in enumerate(chosen):
        key, new = ("dur", b'"x"') if j < 10 else ("ts", b'"abc"') if j == 10 else \
            ("pid", b"1.5")
        span = value_at(lay, k, key)
        if span is None:
            return None
        edits.append((span[0], span[1], new, k, key))
    return sorted(edits)


def base_ns(lay):
    """The file's baseTimeNanoseconds (added to every ts), 0 without one."""
    doc = ex.parse_doc(lay.data)
    base = doc.get("baseTimeNanoseconds", 0) if isinstance(doc, dict) else 0
    return base if isinstance(base, int) and not isinstance(base, bool) else 0


def values_variant(lay, name, start_ns):
    """start_ns: the trace start of the variant (trex info), for times."""
    edits = pick_values(lay)
    if edits is None:
        return None, None
    data, shift, at = lay.data[:0], 0, 0
    firsts = {}
    for v, end, new, k, key in edits:
        data += lay.data[at:v] + new
        at = end
        firsts.setdefault(key, (v + shift, k))
        shift += len(new) - (end - v)
    data += lay.data[at:]
    e = Expect(name)
    e.counts = {"bad_dur": 10, "bad_ts": 1, "bad_ids": 1}
    e.examples = {"bad_dur": EXAMPLES_KEPT, "bad_ts": 1, "bad_ids": 1}
    for key, counter in (("dur", "bad_dur"), ("ts", "bad_ts"), ("pid", "bad_ids")):
        off, k = firsts[key]
        ev = json.loads(lay.s[lay.events[k][0]:lay.events[k][1]], parse_float=ex.D)
        first = {"where": where(data, name, off)}
        if counter != "bad_ts":  # kept: its name and time; dropped: neither
            first["name"] = str(ev.get("name", ""))
            if start_ns is not None:
                first["time_ns"] = ex.to_ns(ev["ts"]) + base_ns(lay) - start_ns
        e.first[counter] = first
    e.loss = "12 values not taken as written"
    return data, e


# ---- checks --------------------------------------------------------------------------------

def rows_of(rep, what, path_args):
    r = ex.trex("integrity", "--format", "json", *path_args)
    if not rep.check(r.rc == 0 and not r.sanitizer_report(),
                     "%s: trex integrity exits 0" % what, r.describe()):
        return None
    try:
        return json.loads(r.out)["rows"]
    except (ValueError, KeyError) as err:
        rep.check(False, "%s: JSON parses" % what, [str(err)])
        return None


def check_counts(rep, what, rows, e, run=None):
    got = {r["check"]: r["count"] for r in rows
           if r["count"] and (run is None or r["run"] == run)}
    want = dict(e.counts)
    for k, n in got.items():  # structure notes are the build's business
        if k not in VALUE_COUNTERS + SPAN_COUNTERS:
            want[k] = n
    rep.check(got == want, "%s: the damage counters are %s" % (what, e.counts),
              ex.counter_diff(want, got))


def check_firsts(rep, what, rows, e, run=None):
    by = {r["check"]: r for r in rows if r["count"] and (run is None or r["run"] == run)}
    for counter, cols in sorted(e.first.items()):
        row = by.get(counter)
        if row is None:
            rep.check(False, "%s: %s has a row" % (what, counter))
            continue
        got = {c: row.get(c) for c in cols}
        rep.check(got == cols, "%s: %s's first example is %s" % (what, counter, cols),
                  ["trex: %s" % got])
        rep.check(row["examples"] == e.examples[counter],
                  "%s: %s keeps %d examples" % (what, counter, e.examples[counter]),
                  ["trex: %s" % row["examples"]])


def check_formats(rep, what, path, e, n_rows):
    text = ex.trex("integrity", path)
    first = text.out.decode("utf-8", "replace").split("\n", 1)[0]
    rep.check(first.endswith("(%s): %s" % (path, e.loss)),
              "%s: the text report begins with what was lost: %s" % (what, e.loss),
              ["trex: %s" % first])
    csv_run = ex.trex("integrity", "--format", "csv", path)
    rows = list(csv.DictReader(io.StringIO(csv_run.out.decode("utf-8", "replace"))))
    rep.check(len(rows) == n_rows and all("meaning" in r for r in rows),
              "%s: the CSV has the same %d rows" % (what, n_rows), ["csv rows: %d" % len(rows)])


def check_variant(rep, path, e, label):
    what = "%s %s" % (label, e.name)
    rows = rows_of(rep, what, [path])
    if rows is None:
        return
    checks = {r["check"] for r in rows}
    info = ex.trex("info", "--format", "json", path)
    listed = set(ex.integrity_of_info(json.loads(info.out)))
    rep.check(checks == listed and len(rows) == len(listed),
              "%s: every counter of trex info, once (one file)" % what,
              ["missing: %s" % sorted(listed - checks)])
    check_counts(rep, what, rows, e)
    check_firsts(rep, what, rows, e)
    check_formats(rep, what, path, e, len(rows))


def trace_start(path):
    r = ex.trex("info", "--format", "json", path)
    try:
        return json.loads(r.out)["start_ns"]
    except (ValueError, KeyError):
        return None


def check_together(rep, label, cut, values):
    """Both files at once: each counter under the run of its file."""
    (cut_path, ce), (values_path, ve) = cut, values
    rows = rows_of(rep, "%s cut+values" % label, [cut_path, values_path])
    if rows is None:
        return
    runs = {r["run"] for r in rows if r["count"] and r["check"] in ce.counts}
    runs_v = {r["run"] for r in rows if r["count"] and r["check"] in ve.counts}
    ok = len(runs) == 1 and len(runs_v) == 1 and runs != runs_v
    rep.check(ok, "%s cut+values: each file's damage under its own run" % label,
              ["cut: %s, values: %s" % (runs, runs_v)])
    if not ok:
        return
    check_counts(rep, "%s cut+values (cut)" % label, rows, ce, runs.pop())
    check_counts(rep, "%s cut+values (values)" % label, rows, ve, runs_v.pop())
    zero = [r for r in rows if not r["count"]]
    rep.check(zero and all(r["run"] == "all runs" for r in zero),
              "%s cut+values: counters zero in both are one row, all runs" % label)


def integrity_file(rep, src, tmpdir, n):
    data = ex.decoded_bytes(src)
    try:
        lay = dm.Layout(data)
    except (ValueError, IndexError) as err:
        rep.skip("%s: layout" % ex.short(src), "Python cannot lay it out: %s" % err)
        return
    if len(lay.events) < 4 or not lay.seps:
        rep.skip("%s: damaged variants" % ex.short(src), "too few events")
        return
    label = ex.short(src)
    made = {}
    for kind in ("cut", "flip", "values"):
        name = "t%d-%s.json" % (n, kind)
        path = os.path.join(tmpdir, name)
        if kind == "cut":
            out, e = cut_variant(lay, name)
        elif kind == "flip":
            out, e = flip_variant(lay, name)
        else:
            out, e = values_variant(lay, name, None)
            if out is None:
                rep.skip("%s values" % label, "fewer than 12 X events with ts, dur and pid")
                continue
            with open(path, "wb") as f:
                f.write(out)
            out, e = values_variant(lay, name, trace_start(path))
        with open(path, "wb") as f:
            f.write(out)
        check_variant(rep, path, e, label)
        made[kind] = (path, e)
    if "cut" in made and "values" in made:
        check_together(rep, label, made["cut"], made["values"])


def main(argv):
    if len(argv) < 3:
        print("usage: integrity.py TMPDIR FILE...", file=sys.stderr)
        return 2
    rep = ex.Report()
    files = argv[2:4] if ex.QUICK else argv[2:]
    for n, src in enumerate(files):
        integrity_file(rep, src, argv[1], n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
