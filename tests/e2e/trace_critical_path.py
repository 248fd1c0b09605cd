#!/usr/bin/env python3
"""Checks `trex critical-path` on traces without an execution graph.

  data DIR      each DIR/NAME.json against NAME.path: the CSV rows (computed
                by hand) and a "summary RANK PATH CPU GPU COMM LAUNCH IDLE" line
  walk FILE...  an independent Python walk of the model in
                doc/critical-path.md over the Kineto JSON, against trex's JSON:
                every segment, the path's total and its shares

Prints PASS/FAIL lines (tests/e2e/lib.sh turns them into TAP).
"""
import gzip
import json
import os
import subprocess
import sys
from decimal import Decimal

TREX = os.environ["TREX"]

CPU_CATS = {"cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver"}
DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}
SYNC_NAMES = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
              "cudaCtxSynchronize", "cuCtxSynchronize", "cuStreamSynchronize",
              "cuEventSynchronize", "hipDeviceSynchronize", "hipStreamSynchronize",
              "hipEventSynchronize"}


def report(ok, what):
    print(("PASS " if ok else "FAIL ") + what)


def trex_json(path):
    out = subprocess.run([TREX, "critical-path", "--format", "json", path],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def check_data(d):
    for name in sorted(os.listdir(d)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(d, name)
        with open(path[:-5] + ".path") as f:
            lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
        rows = [l for l in lines if not l.startswith("summary ")]
        csv = subprocess.run([TREX, "critical-path", "--format", "csv", path],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        report(csv == rows, f"{name}: path as computed by hand")
        if csv != rows:
            print("\n".join(f"# got {l}" for l in csv), file=sys.stderr)
        got = trex_json(path)["summary"]["rows"]
        for s in (l.split() for l in lines if l.startswith("summary ")):
            want = [int(x) for x in s[1:]]
            row = next((r for r in got if r["rank"] == want[0]), None)
            have = row and [row["rank"], row["path_ns"], row["cpu_ns"], row["gpu_ns"],
                            row["comm_ns"], row["launch_ns"], row["idle_ns"]]
            report(have == want, f"{name}: rank {want[0]} path and shares {want[1:]}")


# ---- the independent walk ---------------------------------------------------

class Ev:
    def __init__(self, e, i):
        self.i = i
        self.name = e["name"]
        self.cat = e.get("cat", "")
        self.pid, self.tid = str(e["pid"]), str(e["tid"])
        self.ts = int(Decimal(str(e["ts"])) * 1000)
        self.end = self.ts + int(Decimal(str(e.get("dur", 0))) * 1000)
        self.args = e.get("args", {})
        self.corr = self.args.get("correlation")
        self.depth = 0


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        d = json.load(f, parse_float=Decimal)
    return [Ev(e, i) for i, e in enumerate(d["traceEvents"]) if e.get("ph") == "X"]


class Model:
    def __init__(self, evs):
        self.cpu = [e for e in evs if e.cat in CPU_CATS]
        self.dev = [e for e in evs if e.cat in DEVICE_CATS]
        self.threads = {}
        for e in self.cpu:
            self.threads.setdefault((e.pid, e.tid), []).append(e)
        for lst in self.threads.values():
            lst.sort(key=lambda e: (e.ts, -e.end))
            stack = []
            for e in lst:
                while stack and stack[-1].end <= e.ts:
                    stack.pop()
                e.depth = len(stack)
                stack.append(e)
        self.streams = {}
        for e in sorted(self.dev, key=lambda e: (e.ts, e.i)):
            self.streams.setdefault((e.pid, e.tid), []).append(e)
        self.runtime = {e.corr: e for e in self.cpu
                        if e.cat in ("cuda_runtime", "cuda_driver") and e.corr is not None}
        # HTA's merge of autograd's thread into the forward thread
        fwd, bwd = self.thread_named(evs, "forward"), self.thread_named(evs, "autograd")
        self.partner = {fwd: bwd, bwd: fwd} if fwd and bwd and fwd != bwd else {}
        self.sync = {}
        self.wait = {}
        for s in (e for e in evs if e.cat == "cuda_sync"):
            self.add_sync(s)

    @staticmethod
    def thread_named(evs, word):
        keys = {(e.pid, e.tid) for e in evs
                if e.cat in ("cpu_op", "user_annotation") and word in e.name}
        return keys.pop() if len(keys) == 1 else None

    def launch(self, w):
        return self.runtime.get(w.corr)

    def launch_ts(self, w):
        c = self.launch(w)
        return c.ts if c else w.ts

    def event_work(self, pid, stream, record_corr):
        rec = self.runtime.get(record_corr)
        works = self.streams.get((pid, str(stream)), [])
        if rec is None:
            return None
        before = [w for w in works if self.launch_ts(w) < rec.ts]
        return before[-1] if before else None

    def add_sync(self, s):
        call = self.runtime.get(s.corr)
        if call is None:
            return
        a = s.args
        if s.name == "Stream Wait Event":
            src = self.event_work(s.pid, a.get("wait_on_stream"),
                                  a.get("wait_on_cuda_event_record_corr_id"))
            after = [w for w in self.streams.get((s.pid, str(a.get("stream"))), [])
                     if self.launch_ts(w) > call.ts]
            if src and after:
                self.wait[after[0].i] = src
        elif s.name in ("Context Sync", "Stream Sync", "Event Sync"):
            self.sync[call.i] = (s, call)

    def last_ended(self, call, t, keep):
        c = [w for w in self.dev if call.ts < w.end <= t and keep(w)
             and self.launch_ts(w) < call.ts]
        return max(c, key=lambda w: (w.end, w.i), default=None)

    def waited(self, c, t):
        own = [w for w in self.dev if w.corr == c.corr and c.corr is not None
               and c.ts < w.end <= t]
        if own:
            return own[0]
        if c.i in self.sync:
            s, _ = self.sync[c.i]
            if s.name == "Event Sync":
                w = self.event_work(s.pid, s.args.get("wait_on_stream"),
                                    s.args.get("wait_on_cuda_event_record_corr_id"))
                return w if w and c.ts < w.end <= t else None
            if s.name == "Stream Sync":
                return self.last_ended(c, t, lambda w: (w.pid, w.tid) ==
                                       (s.pid, str(s.args.get("stream"))))
            return self.last_ended(c, t, lambda w: True)
        if c.name in SYNC_NAMES:
            return self.last_ended(c, t, lambda w: True)
        return None


def walk(m):
    """Back from the last end; returns segments (name, kind, start, end, bound)."""
    # the end: device work, or CPU work of a thread that launched some
    launchers = {(c.pid, c.tid) for c in map(m.launch, m.dev) if c}
    ends = [e for e in m.cpu if not launchers or (e.pid, e.tid) in launchers]
    last = max(ends + m.dev, key=lambda e: (e.end, -e.i))
    segs = []

    def bind(b):
        if segs:
            segs[-1][4] = b

    def deepest(key, t):
        inside = [e for e in m.threads.get(key, []) if e.ts <= t - 1 < e.end]
        return max(inside, key=lambda e: e.depth) if inside else None

    def on_thread(key, t):
        while True:
            other = m.partner.get(key)
            mine, theirs = deepest(key, t), deepest(other, t) if other else None
            s = mine
            if theirs and (not mine or (theirs.ts, -theirs.end) > (mine.ts, -mine.end)):
                s = theirs
            if not s:
                ends = [e.end for k in (key, other) for e in m.threads.get(k, [])
                        if e.depth == 0 and e.end < t]
                if not ends:
                    return None
                bind("thread order")
                segs.append(["(idle)", "idle", max(ends), t, "start"])
                t = max(ends)
                continue
            key = (s.pid, s.tid)
            other = m.partner.get(key)
            bind("thread order")
            w = m.waited(s, t)
            if w:
                segs.append([s.name, "sync", w.end, t, "sync"])
                return w
            kids = [e.end for e in m.threads[key]
                    if e.depth == s.depth + 1 and e.ts >= s.ts and e.end < t]
            kids += [e.end for e in m.threads.get(other, [])
                     if e.depth == 0 and e.ts >= s.ts and e.end < t]
            start = max([s.ts] + kids)
            segs.append([s.name, "cpu", start, t, "start"])
            t = start

    def on_device(w, t):
        while True:
            segs.append([w.name, "device", w.ts, t, "start"])
            stream = m.streams[(w.pid, w.tid)]
            k = stream.index(w)
            cands = []
            call = m.launch(w)
            if call:
                cands.append((call.ts, 0, "launch", call))
            if k > 0:
                cands.append((stream[k - 1].end, 1, "stream order", stream[k - 1]))
            if w.i in m.wait:
                cands.append((m.wait[w.i].end, 2, "wait", m.wait[w.i]))
            if not cands:
                return None
            at, _, how, by = max(cands, key=lambda c: (c[0], c[1]))
            at = min(at, w.ts)
            bind(how)
            if how == "launch":
                segs.append([by.name, "launch", at, w.ts, "start"])
                return (by.pid, by.tid), at
            if at < w.ts:
                segs.append(["(idle)", "idle", at, w.ts, how])
            w, t = by, at

    state = ("dev", last, last.end) if last.cat in DEVICE_CATS else \
        ("thread", (last.pid, last.tid), last.end)
    while state:
        if state[0] == "dev":
            r = on_device(state[1], state[2])
            state = ("thread", r[0], r[1]) if r else None
        else:
            w = on_thread(state[1], state[2])
            state = ("dev", w, w.end) if w else None
    return segs[::-1]


def shares(segs):
    out = {"cpu": 0, "gpu": 0, "launch": 0, "idle": 0}
    for name, kind, a, b, _ in segs:
        key = {"cpu": "cpu", "sync": "cpu", "device": "gpu"}.get(kind, kind)
        out[key] += b - a
    return out


def check_walk(paths):
    for path in paths:
        label = os.path.basename(os.path.dirname(path))
        evs = load(path)
        want = walk(Model(evs))
        got = trex_json(path)
        rows = got["path"]["rows"]
        # trex's starts count from the trace's start, which events outside
        # the model (the profiler's span) may set: compare from the path's
        t0 = want[0][2] - (rows[0]["start_ns"] if rows else 0)
        same = len(rows) == len(want) and all(
            r["name"] == w[0] and r["start_ns"] == w[2] - t0 and r["duration_ns"] == w[3] - w[2]
            and r["bound"] == w[4] for r, w in zip(rows, want))
        report(same, f"{label}: {len(want)} segments as the Python walk finds them")
        if not same:
            for r, w in zip(rows, want):
                print(f"# trex {r['name']} {r['start_ns']} {r['duration_ns']} {r['bound']}"
                      f" | py {w[0]} {w[2] - t0} {w[3] - w[2]} {w[4]}", file=sys.stderr)
        sh = shares(want)
        s = got["summary"]["rows"][0]
        total = want[-1][3] - want[0][2]
        report(s["path_ns"] == total, f"{label}: path total {total} ns")
        for k in ("cpu", "gpu", "launch", "idle"):
            report(s[k + "_ns"] == sh[k], f"{label}: {k} share {sh[k]} ns")


if __name__ == "__main__":
    if sys.argv[1] == "data":
        check_data(sys.argv[2])
    else:
        check_walk(sys.argv[2:])
