#!/usr/bin/env python3
"""The gaps, steps, ops and api tables and the bytes of copies, computed
independently of trex from the trace JSON (for tests/e2e/views.sh).

Usage (TREX is the program under test): views.py CHECK[,CHECK...] TRACE...,
or views.py all TRACE... for every check, each trace read once:
  views.py gaps TRACE...    each GPU's idle gaps: start, length, the launching
                            thread, the runtime call and CPU op running then;
                            --min and --top
  views.py steps TRACE...   per ProfilerStep: time, GPU busy, idle, compute, comm,
                            overlap, memory, kernels
  views.py ops TRACE...     per CPU op: calls, total, self, P95, max, GPU time
  views.py api TRACE...     per runtime call: calls, total, avg, med, min, max,
                            stddev, P95
  views.py bytes TRACE...   kernels --memory: bytes and GB/s of copies and sets,
                            against the trace's own "memory bandwidth (GB/s)"
  views.py ranks TRACE...   the TRACEs (one rank each) loaded together: gaps per
                            rank and device, steps per rank

Prints one "PASS what" / "FAIL what" / "SKIP what -- why" line per check (lib.sh
turns them into TAP). Times are exact integer nanoseconds (triage.py's reading).
The rules are the man page's: what is GPU work and what is communication as
gpu-time has them (triage.py's mirror of them), nesting on a thread as trex
nests (by start, longer first, then file order), a kernel's launch the first
runtime call of its file with its correlation id.
"""
import bisect
import collections
import decimal
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expected import NotExact, decoded_bytes, events_of, parse_doc, to_ns  # noqa: E402
from triage import (KERNEL_CATS, MEMORY_CATS, Comm, Report, diff,  # noqa: E402
                    intersection, length, median, nearest_rank, short, trex_table, union,
                    x_kinds)

D = decimal.Decimal
CPU_OP_CATS = {"cpu_op", "Operator"}
ANNOTATION_CATS = {"user_annotation"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "xpu_runtime", "xpu_driver",
                "mtia_runtime", "privateuse1_runtime", "privateuse1_driver"}
WORK_KINDS = KERNEL_CATS | MEMORY_CATS  # triage's kinds: kernel, memcpy, memset
NOTHING_RUNNING = "(nothing running)"
LAUNCH_UNKNOWN = "(launch unknown)"


def correlation(ev):
    c = ev["args"].get("correlation")
    return c if isinstance(c, int) and not isinstance(c, bool) else None


class Trace:
    """One file: its X events with their nesting, launches, start and rank."""

    def __init__(self, path, position=0):
        doc = parse_doc(decoded_bytes(path))
        events = [e for e in events_of(doc) if isinstance(e, dict)]
        info = doc.get("distributedInfo") if isinstance(doc, dict) else None
        rank = info.get("rank") if isinstance(info, dict) else None
        base = doc.get("baseTimeNanoseconds", 0) if isinstance(doc, dict) else 0
        self.rank = rank if isinstance(rank, int) and not isinstance(rank, bool) else position
        self.base = base if isinstance(base, int) and not isinstance(base, bool) else 0
        # times below are the file's own (without base); origin is absolute
        self.origin = min(to_ns(e["ts"]) for e in events if e.get("ph") != "M" and "ts" in e) \
            + self.base
        self.labels = {}
        for e in events:
            if e.get("ph") == "M" and e.get("name") == "process_labels" and \
                    isinstance(e.get("args"), dict):
                self.labels[str(e.get("pid"))] = str(e["args"].get("labels", ""))
        # kinds and communication rules as triage.py decides them (trex's rules)
        comm = Comm(events)
        self.x = []
        for e, kind in x_kinds(events):
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            ts, dur = to_ns(e.get("ts", 0)), max(to_ns(e.get("dur", 0)), 0)
            self.x.append({"i": len(self.x), "name": str(e.get("name", "")),
                           "cat": e.get("cat"), "kind": kind, "comm": comm.rule(e),
                           "pid": str(e.get("pid")),
                           "tid": str(e.get("tid")), "ts": ts, "dur": dur, "end": ts + dur,
                           "args": args, "parent": None, "depth": 0, "kids": []})
        self.nfiles = 1
        self.threads = collections.defaultdict(list)
        for ev in self.x:
            self.threads[(ev["pid"], ev["tid"])].append(ev)
        for evs in self.threads.values():
            self._nest(evs)
        self.thread_ts = {k: [ev["ts"] for ev in evs] for k, evs in self.threads.items()}
        self.launch = {}
        for ev in self.x:
            if ev["cat"] in RUNTIME_CATS and correlation(ev) is not None:
                self.launch.setdefault(correlation(ev), ev)
        self.work = [ev for ev in self.x if ev["kind"] in WORK_KINDS]

    @staticmethod
    def _nest(evs):
        """A stack of open ends, as trex's builder: a slice nests in the
        open slices it starts inside."""
        evs.sort(key=lambda ev: (ev["ts"], -ev["dur"], ev["i"]))
        stack = []
        for ev in evs:
            while stack and stack[-1]["end"] <= ev["ts"]:
                stack.pop()
            ev["parent"] = stack[-1] if stack else None
            ev["depth"] = len(stack)
            if stack:
                stack[-1]["kids"].append(ev)
            stack.append(ev)

    def device(self, pid):
        """The device label trex gives pid (man page, RANKS AND DEVICES):
        its process_labels "GPU 0", else "GPU <pid>"; "rank R GPU 0" when
        several files are loaded."""
        lab = self.labels.get(pid, "")
        if re.fullmatch(r"[A-Za-z]+ [0-9]+", lab) and not lab.startswith("CPU "):
            name = lab
        else:
            name = "GPU " + pid
        return name if self.nfiles == 1 else "rank %d %s" % (self.rank, name)

    def launch_of(self, ev):
        c = correlation(ev)
        return self.launch.get(c) if c is not None else None

    def rel(self, t):
        """t (the file's own ns) from the trace's start (the earliest of all files)."""
        return t + self.base - self.origin


def traces(rep, paths, what):
    for path in paths:
        try:
            yield path, Trace(path)
        except NotExact as e:
            rep.skip("%s: %s" % (short(path), what), str(e))


# ---- gaps -------------------------------------------------------------------------

def cpu_at(tr, thread, t):
    """(call, op) running on thread at t: the innermost runtime call below the
    innermost cpu_op or user_annotation, both "" / NOTHING_RUNNING if none.
    The last event starting at or before t lies inside the innermost one
    running at t (nesting), so that one is up its parent chain."""
    evs = tr.threads[thread]
    k = bisect.bisect_right(tr.thread_ts[thread], t)
    ev = evs[k - 1] if k else None
    while ev is not None and not (t < ev["end"] or (ev["dur"] == 0 and ev["ts"] == t)):
        ev = ev["parent"]
    call = ""
    while ev is not None:
        if ev["cat"] in RUNTIME_CATS and not call:
            call = ev["name"]
        if ev["cat"] in CPU_OP_CATS | ANNOTATION_CATS:
            return call, ev["name"]
        ev = ev["parent"]
    return call, NOTHING_RUNNING


def gap_thread(tr, starting, ending):
    """The launch of the work starting at the gap's end that started first,
    else the one of the work ending at its start that started last."""
    after = [rt for rt in map(tr.launch_of, starting) if rt]
    if after:
        return min(after, key=lambda rt: rt["ts"])
    before = [rt for rt in map(tr.launch_of, ending) if rt]
    return max(before, key=lambda rt: rt["ts"]) if before else None


def expected_gaps(tr):
    devices = collections.defaultdict(list)
    for w in tr.work:
        devices[w["pid"]].append(w)
    rows = []
    for pid, items in devices.items():
        spans = union([(w["ts"], w["end"]) for w in items])
        starting, ending = collections.defaultdict(list), collections.defaultdict(list)
        for w in items:
            starting[w["ts"]].append(w)
            ending[w["end"]].append(w)
        for (_, g0), (g1, _) in zip(spans, spans[1:]):
            rt = gap_thread(tr, starting[g1], ending[g0])
            if rt is None:
                call, op, tid = "", LAUNCH_UNKNOWN, ""
            else:
                (call, op), tid = cpu_at(tr, (rt["pid"], rt["tid"]), g0), rt["tid"]
            rows.append((tr.rank, tr.device(pid), tr.rel(g0), g1 - g0, tid, call, op))
    rows.sort(key=lambda r: (-r[3], r[2]))
    return rows


def thread_tid(label):
    m = re.match(r"thread (\S+)", label)
    return m.group(1) if m else label


def gap_rows(*args):
    return [(r["rank"], r["device"], int(r["start_ns"]), int(r["length_ns"]),
             thread_tid(r["thread"]), r["call"], r["cpu_op"]) for r in trex_table("gaps", *args)]


LENGTH = 3  # of a gap row (rank, device label, start, length, thread tid, call, op)


def compare_gaps(rep, label, want, paths):
    got = gap_rows(*paths)
    # equal lengths at equal starts (two devices) may come in either order
    rep.check(sorted(want) == sorted(got) and [r[LENGTH] for r in want] == [r[LENGTH] for r in got],
              "%s: %d gaps, longest first: start, length, thread, call, CPU op"
              % (label, len(want)),
              ["want %s / got %s" % (w, g) for w, g in zip(want, got) if w != g][:8]
              + ["%d rows wanted, %d got" % (len(want), len(got))])
    if not want:
        return
    mid = want[len(want) // 2][LENGTH]
    got_min = gap_rows("--min", str(mid), *paths)
    rep.check(sorted(got_min) == sorted(r for r in want if r[LENGTH] >= mid),
              "%s: --min %d ns keeps the %d gaps at least that long"
              % (label, mid, sum(r[LENGTH] >= mid for r in want)))
    got_top = gap_rows("--top", "1", *paths)
    rep.check(len(got_top) == 1 and got_top[0][LENGTH] == want[0][LENGTH],
              "%s: --top 1 is the longest gap (%d ns)" % (label, want[0][LENGTH]),
              ["got %s" % got_top])
    per_dev = collections.Counter()
    for r in want:
        per_dev[r[:2]] += r[LENGTH]
    idle = {(r["rank"], r["device"]): int(r["idle_ns"])
            for r in trex_table("gpu-time", *paths)}
    rep.check(all(idle.get(k, 0) == per_dev.get(k, 0) for k in set(idle) | set(per_dev)),
              "%s: each device's gaps add up to its gpu-time idle" % label,
              ["gaps %s, idle %s" % (dict(per_dev), idle)])


def check_gaps(rep, path, tr):
    compare_gaps(rep, short(path), expected_gaps(tr), [path])


# ---- steps ------------------------------------------------------------------------

STEP_RE = re.compile(r"^ProfilerStep#")


def expected_steps(tr, rank=None):
    steps = [ev for ev in tr.x if ev["cat"] in CPU_OP_CATS | ANNOTATION_CATS
             and STEP_RE.search(ev["name"])]
    steps.sort(key=lambda ev: (ev["ts"], ev["i"]))
    rows = []
    for st in steps:
        t0, t1 = st["ts"], st["end"]
        cls = {"busy": [], "compute": [], "comm": [], "memory": []}
        kernels = 0
        for w in tr.work:
            if w["kind"] == "kernel" and t0 <= w["ts"] < t1:
                kernels += 1
            a, b = max(w["ts"], t0), min(w["end"], t1)
            if b <= a:
                continue
            kind = "comm" if w["comm"] else "memory" if w["kind"] in MEMORY_CATS else "compute"
            cls["busy"].append((a, b))
            cls[kind].append((a, b))
        busy = length(union(cls["busy"]))
        rows.append({"rank": tr.rank if rank is None else rank, "step": st["name"], "start_ns": tr.rel(t0), "dur_ns": t1 - t0,
                     "busy_ns": busy, "idle_ns": t1 - t0 - busy,
                     "compute_ns": length(union(cls["compute"])),
                     "comm_ns": length(union(cls["comm"])),
                     "overlap_ns": intersection(union(cls["compute"]), union(cls["comm"])),
                     "memory_ns": length(union(cls["memory"])), "kernels": kernels})
    return rows


STEP_KEYS = ("rank", "step", "start_ns", "dur_ns", "busy_ns", "idle_ns", "compute_ns", "comm_ns",
             "overlap_ns", "memory_ns", "kernels")


def step_rows(*args):
    return [{k: (r[k] if k in ("rank", "step", "kernels") else int(r[k])) for k in STEP_KEYS}
            for r in trex_table("steps", *args)]


def check_steps(rep, path, tr):
    want, got = expected_steps(tr), step_rows(path)
    rep.check(want == got, "%s: %d steps: time, GPU busy, idle, compute, comm, overlap, "
              "memory, kernels" % (short(path), len(want)),
              ["want %s" % w for w in want[:3]] + ["got  %s" % g for g in got[:3]])


# ---- ops and api ------------------------------------------------------------------

def self_time(tr, ev):
    kids = [(max(k["ts"], ev["ts"]), min(k["end"], ev["end"])) for k in ev["kids"]]
    return ev["dur"] - length(union([k for k in kids if k[1] > k[0]]))


def gpu_launched(tr):
    """GPU time per CPU event index: the work each runtime call launched,
    added to the call and to every cpu_op enclosing it."""
    gpu = collections.Counter()
    for w in tr.work:
        rt = tr.launch_of(w)
        if rt is None:
            continue
        gpu[rt["i"]] += w["dur"]
        ev = rt["parent"]
        while ev is not None:
            if ev["cat"] in CPU_OP_CATS:
                gpu[ev["i"]] += w["dur"]
            ev = ev["parent"]
    return gpu


def expected_ops(tr):
    gpu = gpu_launched(tr)
    by = collections.defaultdict(list)
    for ev in tr.x:
        if ev["cat"] in CPU_OP_CATS:
            by[ev["name"]].append(ev)
    rows = {}
    for name, evs in by.items():
        durs = sorted(ev["dur"] for ev in evs)
        rows[name] = (len(evs), sum(durs), sum(self_time(tr, ev) for ev in evs),
                      nearest_rank(durs, 95), durs[-1], sum(gpu[ev["i"]] for ev in evs))
    return rows


def check_ops(rep, path, tr):
    want = expected_ops(tr)
    rows = trex_table("ops", path)
    got = {r["name"]: (r["calls"], int(r["total_ns"]), int(r["self_ns"]), int(r["p95_ns"]),
                       int(r["max_ns"]), int(r["gpu_ns"])) for r in rows}
    rep.check(want == got, "%s: %d CPU ops: calls, total, self, P95, max, GPU time launched"
              % (short(path), len(want)), diff(want, got))
    selfs = [int(r["self_ns"]) for r in rows]
    rep.check(selfs == sorted(selfs, reverse=True) and
              abs(sum(D(r["self_pct"]) for r in rows) - (100 if rows else 0)) < D("0.0001"),
              "%s: ops sorted by self time, self %% adding up to 100" % short(path))


def expected_api(tr):
    by = collections.defaultdict(list)
    for ev in tr.x:
        if ev["cat"] in RUNTIME_CATS:
            by[ev["name"]].append(ev["dur"])
    rows = {}
    for name, durs in by.items():
        durs.sort()
        n = len(durs)
        mean = D(sum(durs)) / n
        sd = (sum((D(d) - mean) ** 2 for d in durs) / (n - 1)).sqrt() if n > 1 else D(0)
        rows[name] = (n, sum(durs), durs[0], durs[-1], median(durs), nearest_rank(durs, 95),
                      mean, sd)
    return rows


def near(a, b):
    """Means and deviations: trex's are doubles, printed with 3 decimals."""
    return abs(a - b) <= D("0.002") + abs(b) / 10**9


def check_api(rep, path, tr):
    want = expected_api(tr)
    got = {}
    for r in trex_table("api", path):
        g = (r["calls"], int(r["total_ns"]), int(r["min_ns"]), int(r["max_ns"]),
             D(r["med_ns"]), int(r["p95_ns"]), D(r["avg_ns"]), D(r["stddev_ns"]))
        w = want.get(r["name"])
        if w and g[:6] == w[:6] and near(g[6], w[6]) and near(g[7], w[7]):
            g = w  # equal within the printed precision
        got[r["name"]] = g
    rep.check(want == got, "%s: %d runtime calls: calls, total, min, max, med, P95, avg, "
              "stddev" % (short(path), len(want)), diff(want, got))


# ---- bytes of copies and sets -------------------------------------------------------

def count(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.isdigit() and value.isascii():
        return int(value)
    return None


def copy_bytes(tr, w):
    b = count(w["args"].get("bytes"))
    if b is None:
        rt = tr.launch_of(w)
        for key in ("bytes", "size"):
            if b is None and rt is not None:
                b = count(rt["args"].get(key))
    return b


def bandwidth_arg(w):
    bw = w["args"].get("memory bandwidth (GB/s)")
    return D(bw) if isinstance(bw, (int, D)) and not isinstance(bw, bool) and bw > 0 else None


def check_bandwidth_args(rep, path, tr, copies, got):
    """Kineto's "memory bandwidth (GB/s)" is bytes over the exact duration,
    so bytes / bw is that duration: it must agree with the event's dur, to
    the nanosecond where durations are exact, and within the microsecond
    the dur was cut to in whole-microsecond traces. Where all are exact,
    each row's GB/s is the args' too: sum(bw * dur) / sum(dur)."""
    exact, bad = True, []
    for w in copies:
        b, bw = copy_bytes(tr, w), bandwidth_arg(w)
        if b is None or bw is None:
            continue
        implied = D(b) / bw
        exact = exact and abs(implied - w["dur"]) <= 1
        if not (w["dur"] - 1 <= implied < w["dur"] + 1000):
            bad.append("%s: %d bytes in %d ns, but %s GB/s" % (w["name"], b, w["dur"], bw))
    rep.check(not bad, "%s: every copy's bytes / dur agree with its bandwidth arg (%s durations)"
              % (short(path), "exact" if exact else "whole-microsecond"), bad)
    if not exact or not any(bandwidth_arg(w) for w in copies):
        return
    per = collections.defaultdict(lambda: [D(0), 0])
    for w in copies:
        if copy_bytes(tr, w) is not None and bandwidth_arg(w) is not None:
            per[w["name"]][0] += bandwidth_arg(w) * w["dur"]
            per[w["name"]][1] += w["dur"]
    bad = ["%s: args %s, trex %s" % (n, a / t, got.get(n, (0, None))[1])
           for n, (a, t) in per.items() if t and (got.get(n, (0, None))[1] is None or
                                                  abs(a / t - got[n][1]) > a / t / 1000)]
    rep.check(not bad, "%s: each row's GB/s is its copies' bandwidth args (%d rows)"
              % (short(path), len(per)), bad)


def check_bytes(rep, path, tr):
    copies = [w for w in tr.work if w["kind"] in MEMORY_CATS]
    sized = collections.defaultdict(lambda: [0, 0])
    for w in copies:
        b = copy_bytes(tr, w)
        if b is not None:
            sized[w["name"]][0] += b
            sized[w["name"]][1] += w["dur"]
    rows = trex_table("kernels", "--memory", path)
    if not sized:
        rep.check(all("bytes" not in r for r in rows),
                  "%s: no copy carries a size: no bytes columns" % short(path))
        return
    want = {n: (a[0], D(a[0]) / a[1] if a[1] else None) for n, a in sized.items()}
    got = {r["name"]: (int(r["bytes"]), D(r["gbps"]) if r["gbps"] is not None else None)
           for r in rows if r.get("bytes") is not None}
    close = {n: (g[0], want[n][1] if n in want and g[1] is not None and want[n][1] is not None
                 and abs(g[1] - want[n][1]) <= want[n][1] / 10**6 + D("0.000001") else g[1])
             for n, g in got.items()}
    rep.check(want == close, "%s: bytes and GB/s of %d kinds of copies and sets (%d sized)"
              % (short(path), len(want), sum(copy_bytes(tr, w) is not None for w in copies)),
              diff(want, close))
    check_bandwidth_args(rep, path, tr, copies, got)


def cmd_ranks(paths):
    """Several files, one rank each, loaded together: gaps per (rank, device)
    and steps per rank, times from the earliest file's start."""
    rep = Report()
    trs = [Trace(p, pos) for pos, p in enumerate(paths)]
    origin = min(tr.origin for tr in trs)
    for tr in trs:
        tr.origin = origin
        tr.nfiles = len(trs)
    label = "%d files (%s)" % (len(paths), short(os.path.dirname(paths[0])))
    want = [r for tr in trs for r in expected_gaps(tr)]
    want.sort(key=lambda r: (-r[LENGTH], r[2]))
    compare_gaps(rep, label, want, paths)
    want = sorted((r for tr in trs for r in expected_steps(tr)),
                  key=lambda r: (r["rank"], r["start_ns"]))
    got = step_rows(*paths)
    rep.check(want == got, "%s: %d steps of %d ranks: time, GPU busy, idle, compute, comm, "
              "overlap, memory, kernels" % (label, len(want), len(trs)),
              ["want %s" % w for w in want[:3]] + ["got  %s" % g for g in got[:3]])
    return rep


CHECKS = {"gaps": check_gaps, "steps": check_steps, "ops": check_ops, "api": check_api,
          "bytes": check_bytes}


def main(argv):
    """views.py CHECK[,CHECK...]|all TRACE...: each trace read once for all."""
    if len(argv) > 1 and argv[1] == "ranks":
        try:
            return 1 if cmd_ranks(argv[2:]).failed else 0
        except (RuntimeError, OSError, ValueError, TypeError, KeyError, NotExact) as e:
            print("FAIL views.py ranks: %s" % e)
            return 1
    names = list(CHECKS) if len(argv) > 1 and argv[1] == "all" else \
        argv[1].split(",") if len(argv) > 1 else []
    if not names or any(n not in CHECKS for n in names):
        sys.stderr.write(__doc__)
        return 2
    rep = Report()
    try:
        for path, tr in traces(rep, argv[2:], "/".join(names)):
            for n in names:
                CHECKS[n](rep, path, tr)
    except (RuntimeError, OSError, ValueError, TypeError, KeyError) as e:
        print("FAIL views.py %s: %s" % (argv[1], e))
        return 1
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
