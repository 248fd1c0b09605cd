#!/usr/bin/env python3
"""`trex diff` numbers, computed independently of trex from the traces' JSON.

Usage (from tests/e2e/diff.sh; TREX is the program under test):
  diff.py compare A B [--normalize RULES]
        the kernels, ops, steps and summary tables of `trex diff A B
        --format json` against sums, averages and P95s computed here
  diff.py pair DIR SEED [N]
        writes DIR/a.json and DIR/b.json, a Kineto-style run and the same run
        with kernels removed, added and slowed on two streams (and a kernel
        family renamed from gemm<128, 64> to gemm<256, 64>), and
        DIR/edits.json, what was done; then checks that `trex diff --by
        sequence` reports exactly those runs, in order, with their
        positions and times, and that --normalize template matches the
        renamed family
  diff.py mutate IN OUT SEED
        for the benchmark: OUT is the Kineto trace IN with a few kernels of
        its busiest stream removed, added and slowed (no checks)

Prints one "PASS what" / "FAIL what" line per check. Times are exact: JSON
decimals are parsed as decimal.Decimal and microseconds become integer
nanoseconds (expected.py).
"""
import collections
import decimal
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expected import decoded_bytes, device_tracks, events_of, id_text  # noqa: E402
from expected import parse_doc, run, work_kind  # noqa: E402
from expected import to_ns as ns  # noqa: E402

D = decimal.Decimal
TREX = os.environ.get("TREX", "trex")


class Report:
    def __init__(self):
        self.failed = False

    def check(self, cond, what, diag=()):
        print(("PASS " if cond else "FAIL ") + what)
        if not cond:
            self.failed = True
            for line in diag:
                print("# " + str(line))
        return cond


# ---- reading a run ------------------------------------------------------------------------

class Run:
    """One trace: its slices by kind, with exact integer-ns times."""

    def __init__(self, path):
        events = events_of(parse_doc(decoded_bytes(path)))
        slices = [e for e in events if isinstance(e, dict) and e.get("ph") == "X"]
        device = device_tracks(events, slices)
        self.kernels, self.copies, self.ops, self.steps = [], [], [], []
        self.start, self.end = None, None
        for e in slices:
            ts, dur = ns(e["ts"]), ns(e.get("dur", 0))
            self.start = ts if self.start is None else min(self.start, ts)
            self.end = ts + dur if self.end is None else max(self.end, ts + dur)
            kind = work_kind(e, device)
            s = {"name": e.get("name", ""), "ts": ts, "dur": dur,
                 "stream": (id_text(e.get("pid")), id_text(e.get("tid")))}
            if kind == "kernel":
                self.kernels.append(s)
            elif kind in ("memcpy", "memset"):
                self.copies.append(s)
            elif kind == "cpu op":
                self.ops.append(s)
            if kind in ("cpu op", "annotation") and str(s["name"]).startswith("ProfilerStep#"):
                self.steps.append(s)
        self.steps.sort(key=lambda s: s["ts"])


def normalize(name, rules):
    """The rules of trex diff --normalize (man trex), written again."""
    if rules == "all":
        rules = "hex,template,digits"
    if "hex" in rules:
        name = re.sub(r"(?<![0-9a-fA-F])0[xX][0-9a-fA-F]+", "0x?", name)
    if "digits" in rules:
        return re.sub(r"[0-9]+", "N", name)
    if "template" not in rules:
        return name
    out, depth, i = [], 0, 0
    while i < len(name):
        c = name[i]
        if c.isdigit() and depth:
            while i < len(name) and name[i].isdigit():
                i += 1
            out.append("N")
            continue
        if c == "<":
            op = name[max(0, i - 8):i] == "operator"
            pair = name[i + 1:i + 2] in ("<", "=") or name[i - 1:i] == "<"
            depth += 0 if op or pair else 1
        elif c == ">" and depth and name[i - 1:i] != "-":
            depth -= 1
        out.append(c)
        i += 1
    return "".join(out)


def stats(slices, rules):
    """{name: (count, total, p95)}, p95 by nearest rank."""
    by = collections.defaultdict(list)
    for s in slices:
        by[normalize(s["name"], rules)].append(s["dur"])
    out = {}
    for name, ds in by.items():
        ds.sort()
        n = len(ds)
        out[name] = (n, sum(ds), ds[-(-95 * n // 100) - 1])
    return out


def expected_rows(a, b):
    """The rows of a diff table: {name: dict of columns}."""
    rows = {}
    for name in set(a) | set(b):
        ca, ta, pa = a.get(name, (0, 0, None))
        cb, tb, pb = b.get(name, (0, 0, None))
        status = ("new" if not ca else "gone" if not cb
                  else "same" if (ca, ta) == (cb, tb) else "changed")
        rows[name] = {"status": status, "delta_ns": tb - ta, "a_total_ns": ta,
                      "b_total_ns": tb, "a_count": ca, "b_count": cb, "a_p95_ns": pa,
                      "b_p95_ns": pb,
                      "a_avg_ns": D(ta) / ca if ca else None,
                      "b_avg_ns": D(tb) / cb if cb else None,
                      "delta_pct": D(tb - ta) * 100 / ta if ta else None}
    return rows


def close(got, want):
    if want is None:
        return got is None
    if got is None:
        return False
    g, w = D(str(got)), D(want)
    return abs(g - w) <= max(D("1e-3"), abs(w) * D("1e-9"))  # JSON keeps 3 decimals


def compare_table(rep, what, rows, want, key):
    diag = []
    got = {r[key]: r for r in rows}
    if set(got) != set(want):
        diag.append("names: missing %s, unexpected %s" % (sorted(set(want) - set(got))[:4],
                                                         sorted(set(got) - set(want))[:4]))
    for name in sorted(set(got) & set(want)):
        for col, w in want[name].items():
            g = got[name].get(col)
            ok = g == w if isinstance(w, str) else close(g, w)
            if not ok:
                diag.append("%s of %r: expected %s, trex %s" % (col, name[:70], w, g))
    order = [abs(D(str(r["delta_ns"]))) for r in rows]
    if order != sorted(order, reverse=True):
        diag.append("rows not by largest change")
    return rep.check(not diag, what, diag[:12])


# ---- steps ----------------------------------------------------------------------------------

def union(intervals):
    total, end = 0, None
    for lo, hi in sorted(intervals):
        if end is None or lo > end:
            total += hi - lo
            end = hi
        elif hi > end:
            total += hi - end
            end = hi
    return total


def step_measures(run, step):
    lo, hi = step["ts"], step["ts"] + step["dur"]

    def clipped(slices):
        return [(max(lo, s["ts"]), min(hi, s["ts"] + s["dur"])) for s in slices
                if s["ts"] < hi and s["ts"] + s["dur"] > lo]
    busy = union(clipped(run.kernels + run.copies))
    return {"dur": step["dur"], "busy": busy, "compute": union(clipped(run.kernels)),
            "comm": 0, "idle": step["dur"] - busy}


def check_steps(rep, label, ra, rb, doc):
    rows = doc.get("steps", {}).get("rows", [])
    diag = []
    n = max(len(ra.steps), len(rb.steps))
    if len(rows) != n:
        diag.append("%d rows, expected %d" % (len(rows), n))
    for i, r in enumerate(rows[:n]):
        ma = step_measures(ra, ra.steps[i]) if i < len(ra.steps) else None
        mb = step_measures(rb, rb.steps[i]) if i < len(rb.steps) else None
        for m in ("dur", "busy", "compute", "comm", "idle"):
            wa, wb = (ma or {}).get(m), (mb or {}).get(m)
            if not close(r.get("a_%s_ns" % m), wa) or not close(r.get("b_%s_ns" % m), wb):
                diag.append("step %d %s: expected %s/%s, trex %s/%s" % (
                    i, m, wa, wb, r.get("a_%s_ns" % m), r.get("b_%s_ns" % m)))
            if ma and mb and not close(r.get("%s_delta_ns" % m), wb - wa):
                diag.append("step %d %s change" % (i, m))
    rep.check(not diag, "%s: steps paired by position, time/busy/compute/comm/idle" % label,
              diag[:12])


# ---- compare ----------------------------------------------------------------------------------

def trex_json(rep, what, *args):
    r = run([TREX] + list(args) + ["--format", "json", "-q"])
    if not rep.check(r.rc == 0, "%s: trex %s exits 0" % (what, " ".join(args[:3])),
                     r.describe()):
        return {}
    return r.json()


def gpu_busy(run):
    """The union of each device's (pid's) kernels and copies, summed."""
    by = collections.defaultdict(list)
    for s in run.kernels + run.copies:
        by[s["stream"][0]].append((s["ts"], s["ts"] + s["dur"]))
    return sum(union(v) for v in by.values())


def check_names_and_busy(rep, label, ra, rb, rows, rules):
    na = {normalize(s["name"], rules) for s in ra.kernels}
    nb = {normalize(s["name"], rules) for s in rb.kernels}
    want = {"kernel names": ("a_count", len(na), "b_count", len(nb)),
            "new kernel names": ("b_count", len(nb - na), None, None),
            "gone kernel names": ("a_count", len(na - nb), None, None),
            "GPU busy": ("a_ns", gpu_busy(ra), "b_ns", gpu_busy(rb))}
    diag = []
    for what, (ka, va, kb, vb) in want.items():
        r = rows.get(what, {})
        if not (close(r.get(ka), va) and (kb is None or close(r.get(kb), vb))):
            diag.append("%s: expected %s, trex %s" % (what, (va, vb), r))
    rep.check(not diag, "%s: summary GPU busy and kernel names" % label, diag)


def check_summary(rep, label, ra, rb, doc, rules=""):
    rows = {r["what"]: r for r in doc.get("summary", {}).get("rows", [])}
    check_names_and_busy(rep, label, ra, rb, rows, rules)
    want = {
        "kernels": (len(ra.kernels), len(rb.kernels), sum(s["dur"] for s in ra.kernels),
                    sum(s["dur"] for s in rb.kernels)),
        "memcpy/memset": (len(ra.copies), len(rb.copies), sum(s["dur"] for s in ra.copies),
                          sum(s["dur"] for s in rb.copies)),
        "steps": (len(ra.steps), len(rb.steps), sum(s["dur"] for s in ra.steps),
                  sum(s["dur"] for s in rb.steps)),
        "span": (None, None, ra.end - ra.start, rb.end - rb.start),
    }
    diag = []
    for what, (ca, cb, ta, tb) in want.items():
        r = rows.get(what, {})
        if not (close(r.get("a_count"), ca) and close(r.get("b_count"), cb) and
                close(r.get("a_ns"), ta) and close(r.get("b_ns"), tb) and
                close(r.get("delta_ns"), tb - ta)):
            diag.append("%s: expected %s, trex %s" % (what, (ca, cb, ta, tb), r))
    rep.check(not diag, "%s: summary kernels, copies, steps, span" % label, diag)


def cmd_compare(a, b, rules=""):
    rep = Report()
    ra, rb = Run(a), Run(b)
    label = "%s vs %s%s" % (os.path.basename(a), os.path.basename(b),
                            " --normalize " + rules if rules else "")
    extra = ["--normalize", rules] if rules else []
    doc = trex_json(rep, label, "diff", a, b, *extra)
    check_summary(rep, label, ra, rb, doc, rules)
    compare_table(rep, "%s: kernels (count, total, avg, p95, change, %%, status)" % label,
                  doc.get("kernels", {}).get("rows", []),
                  expected_rows(stats(ra.kernels, rules), stats(rb.kernels, rules)),
                  "name_normalized" if rules else "name")
    doc = trex_json(rep, label, "diff", "--by", "ops", a, b, *extra)
    compare_table(rep, "%s: CPU ops" % label, doc.get("ops", {}).get("rows", []),
                  expected_rows(stats(ra.ops, rules), stats(rb.ops, rules)),
                  "name_normalized" if rules else "name")
    doc = trex_json(rep, label, "diff", "--by", "steps", a, b)
    check_steps(rep, label, ra, rb, doc)
    return 1 if rep.failed else 0


# ---- generated pairs ---------------------------------------------------------------------------

LAYER = ["void gemm<128, 64>(float*)", "layernorm_fwd", "elementwise_add<4>", "softmax_fwd",
         "void gemm<128, 64>(float*)", "relu_kernel", "flash_attn_fwd", "dropout_kernel",
         "reduce_sum", "cast_fp16", "embedding_lookup", "copy_kernel"]


def us(v):
    """ns -> the JSON microseconds text, exact."""
    return D(v) / 1000


def layout(seq, t0):
    """[(name, dur)] -> slices laid end to end with 500 ns gaps."""
    out, t = [], t0
    for name, dur in seq:
        out.append((name, t, dur))
        t += dur + 500
    return out


def make_streams(rng, n):
    """A's two streams: the layer repeated, durations 2-40 us."""
    return {s: [(LAYER[i % len(LAYER)], rng.randrange(2000, 40000)) for i in range(n)]
            for s in ("7", "8")}


def edit_stream(rng, seq, plan):
    """B's sequence from A's under plan {pos: action}, and the true script:
    [(op, a_pos, b_pos, a_dur, b_dur)] with op M (matched), D or I."""
    out, script = [], []
    for i, (name, dur) in enumerate(seq):
        act = plan.get(i)
        if act == "remove":
            script.append(("D", i, len(out), dur, 0))
            continue
        if act and act.startswith("slow"):
            nd = dur * int(act[4:])
        else:
            nd = dur + rng.randrange(-dur // 50, dur // 50 + 1)  # jitter within 2 %
        script.append(("M", i, len(out), dur, nd))
        out.append((name, nd))
        if act and act.startswith("add"):
            for k in range(int(act[3:])):
                script.append(("I", i + 1, len(out), 0, 3000 + k))
                out.append(("inserted_kernel_%d" % k, 3000 + k))
    return out, script


def runs_of(script, stream):
    """The runs trex reports: removed, added, and changed (>= 10 %) matches."""
    rows = []
    for op, ia, ib, da, db in script:
        status = {"D": "removed", "I": "added"}.get(op)
        if op == "M":
            status = "changed" if abs(db - da) * 10 >= da else None
        prev = rows[-1] if rows else None
        if status and prev and prev["status"] == status and prev["end"] == (ia, ib):
            prev["kernels"] += 1
            prev["a_total_ns"] += da
            prev["b_total_ns"] += db
        elif status:
            rows.append({"status": status, "stream": stream, "a_pos": ia, "b_pos": ib,
                         "kernels": 1, "a_total_ns": da, "b_total_ns": db})
        if status:
            rows[-1]["end"] = (ia + (op != "I"), ib + (op != "D"))
        elif rows:
            rows[-1]["end"] = None
    for r in rows:
        del r["end"]
    return rows


def trace_json(streams, steps, rename=None):
    ev = [{"ph": "M", "name": "process_labels", "pid": 0, "args": {"labels": "GPU 0"}}]
    for step_no, (lo, hi) in steps:
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step_no,
                   "pid": 100, "tid": 100, "ts": str(us(lo)), "dur": str(us(hi - lo))})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100,
                   "ts": str(us(lo + 100)), "dur": str(us((hi - lo) // 3))})
    for stream, slices in streams.items():
        for name, ts, dur in slices:
            if rename and name in rename:
                name = rename[name]
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": int(stream),
                       "ts": str(us(ts)), "dur": str(us(dur))})
    # decimals as JSON numbers, not strings
    text = json.dumps({"traceEvents": ev})
    return re.sub(r'"(ts|dur)": "([0-9.]+)"', r'"\1": \2', text)


def steps_over(streams, nsteps, first_no):
    """nsteps equal steps from the first kernel's start past the last's end."""
    start = min(ts for s in streams.values() for _, ts, _ in s)
    end = max(ts + dur for s in streams.values() for _, ts, dur in s)
    width = (end - start) // nsteps + 1
    return [(first_no + k, (start + k * width, start + (k + 1) * width))
            for k in range(nsteps)]


def write_pair(dirname, seed, n):
    rng = random.Random(seed)
    a = make_streams(rng, n)
    plans = {"7": {n // 5 + 1: "remove", n // 5 + 40: "add1", n // 2: "slow3", n // 2 + 1: "slow3",
                   n // 2 + 60: "add3", (3 * n) // 4: "slow2"},
             "8": {n // 3: "remove", n // 3 + 1: "remove", (2 * n) // 3: "slow4"}}
    b, want = {}, []
    for s in ("7", "8"):
        b[s], script = edit_stream(rng, a[s], plans[s])
        want += runs_of(script, "GPU 0 stream %s" % s)
    la = {s: layout(a[s], 1000000) for s in a}
    lb = {s: layout(b[s], 2000000) for s in b}
    with open(os.path.join(dirname, "a.json"), "w") as f:
        f.write(trace_json(la, steps_over(la, 4, 10)))
    with open(os.path.join(dirname, "b.json"), "w") as f:
        f.write(trace_json(lb, steps_over(lb, 4, 50),
                           {"void gemm<128, 64>(float*)": "void gemm<256, 64>(float*)"}))
    return want, la, lb


def check_sequence(rep, dirname, want, la, lb):
    a, b = os.path.join(dirname, "a.json"), os.path.join(dirname, "b.json")
    doc = trex_json(rep, "pair", "diff", "--by", "sequence", "--normalize", "template", a, b)
    got = doc.get("sequence", {}).get("rows", [])
    keys = ("status", "stream", "a_pos", "b_pos", "kernels", "a_total_ns", "b_total_ns")
    g = [tuple(r.get(k) if k in ("status", "stream") else int(D(str(r.get(k)))) for k in keys)
         for r in got]
    w = [tuple(r[k] for k in keys) for r in want]
    diag = ["expected %s" % (x,) for x in w if x not in g][:6]
    diag += ["unexpected %s" % (x,) for x in g if x not in w][:6]
    rep.check(g == w, "pair: the sequence alignment reports exactly the edits made (%d runs)"
              % len(w), diag or ["order differs"])
    diag = []
    for r in got:
        s = r["stream"][-1]
        if r["status"] != "added":
            _, ts, _ = la[s][int(r["a_pos"])]
            if int(D(str(r["a_start_ns"]))) != ts - min(x[1] for v in la.values() for x in v):
                diag.append("a_start of %s" % r)
        if r["status"] != "removed":
            _, ts, _ = lb[s][int(r["b_pos"])]
            if int(D(str(r["b_start_ns"]))) != ts - min(x[1] for v in lb.values() for x in v):
                diag.append("b_start of %s" % r)
    rep.check(not diag, "pair: each run's start times on both sides", diag[:6])
    streams = doc.get("streams", {}).get("rows", [])
    rep.check([r.get("alignment") for r in streams] == ["shortest", "shortest"],
              "pair: both streams aligned shortest", [str(streams)[:300]])
    # without the rule the renamed family does not match: every gemm is removed and added
    doc = trex_json(rep, "pair exact", "diff", "--by", "sequence", a, b)
    rows = doc.get("streams", {}).get("rows", [])
    n_gemm = sum(1 for x in la["7"] if x[0].startswith("void gemm"))
    rep.check(rows and int(rows[0]["removed"]) == n_gemm + 1,
              "pair: exact names: the renamed gemm<128, 64> kernels are removed (%d + 1)"
              % n_gemm, [str(rows)[:300]])


def cmd_pair(dirname, seed, n=600):
    rep = Report()
    want, la, lb = write_pair(dirname, int(seed), int(n))
    check_sequence(rep, dirname, want, la, lb)
    return 1 if rep.failed else 0


def cmd_mutate(src, dst, seed):
    """Removes, adds and slows a few kernels of the busiest stream of src."""
    rng = random.Random(int(seed))
    doc = json.loads(decoded_bytes(src))
    ev = events_of(doc)
    kernels = collections.defaultdict(list)
    for i, e in enumerate(ev):
        if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") == "kernel":
            kernels[(e.get("pid"), e.get("tid"))].append(i)
    busiest = max(kernels.values(), key=len)
    picks = rng.sample(busiest, 30)
    drop = set(picks[:10])
    for i in picks[10:20]:
        ev[i]["dur"] = ev[i]["dur"] * 3
    for k, i in enumerate(picks[20:]):
        e = dict(ev[i])
        e["name"] = "inserted_kernel_%d" % k
        e["ts"] = ev[i]["ts"] + ev[i]["dur"] / 2
        e["dur"] = ev[i]["dur"] / 4
        e.pop("args", None)
        ev.append(e)
    doc["traceEvents"] = [e for i, e in enumerate(ev) if i not in drop]
    with open(dst, "w") as f:
        json.dump(doc, f)
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "compare":
        rules = argv[4] if len(argv) >= 5 and argv[3] == "--normalize" else ""
        return cmd_compare(argv[1], argv[2], rules)
    if len(argv) in (3, 4) and argv[0] == "pair":
        return cmd_pair(*argv[1:])
    if len(argv) == 4 and argv[0] == "mutate":
        return cmd_mutate(*argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
