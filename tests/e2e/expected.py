#!/usr/bin/env python3
"""Independent expectations for trex's end-to-end tests.

Everything trex is compared against is computed here from the trace files
themselves with Python's json module (floats parsed as decimal.Decimal, so
times are exact: ns = us * 1000 in integer arithmetic), never copied from
trex's output. The subcommands run trex ($TREX) and trex_dump ($TREX_DUMP),
compare, and print one "PASS what" / "FAIL what" line per check followed by
indented diagnostics; tests/e2e/lib.sh turns those into TAP.

  expected.py corpus FILE...             per-file phases, kernels, slices, rank
  expected.py multi LABEL ARG FILE...    trex run on ARG (comma list, glob) vs FILEs
  expected.py data EXPECT...             tests/data/*.expect hand-checked numbers
  expected.py malformed FILE...          cuts and byte flips of each file
  expected.py special DIR                empty, junk, deep nesting, huge string, cut gzip
  expected.py csv CSV JSON NAME          CSV parses and matches JSON; NAME round-trips
  expected.py shape BYNAME BYSHAPE       --by shape: >= rows, same grand total
  expected.py json FILE                  FILE parses as JSON

Conventions shared with trex (include/trex/core/index.h):
  * pid/tid are compared as text: integers in decimal, strings as written;
  * a slice's ts includes the file's baseTimeNanoseconds; dur < 0 is clamped
    to 0; E closes the most recent open B of its (pid, tid) in file order;
  * a kernel is a slice (X, or B/E pair) of kind kernel as trex(1) GPU WORK
    says: category "kernel" or "Kernel" (Kineto), "gpu_op" (unitrace) unless
    a zeCommandListAppend* or clEnqueue* memory command, "mtia_ccp_events"
    except dma_* and event_*, no category and a name ending in " Cmpt Exec"
    (acelyzer FLEX), or an unknown category on a device track (see
    device_tracks);
  * phases are counted as trex's phase table: X B E i/I C M s t f b e n
    other.
"""

import bisect
import collections
import csv
import decimal
import gzip
import io
import json
import os
import random
import re
import subprocess
import sys
import zlib

D = decimal.Decimal
decimal.getcontext().prec = 80

TREX = os.environ.get("TREX", "trex")
TREX_DUMP = os.environ.get("TREX_DUMP", "trex_dump")
TIMEOUT = int(os.environ.get("TREX_TEST_TIMEOUT", "600"))
QUICK = os.environ.get("TREX_E2E_QUICK", "") not in ("", "0")

PHASE_ROW = {"X": "X", "B": "B", "E": "E", "i": "i/I", "I": "i/I", "C": "C",
             "M": "M", "s": "s", "t": "t", "f": "f", "b": "b", "e": "e", "n": "n"}
SLICE_FROM_BE, SLICE_UNTERMINATED, SLICE_ASYNC = 1, 2, 16
KERNEL_CATS = ("kernel", "Kernel")


# ---- output ------------------------------------------------------------------

class Report:
    """Collects PASS/FAIL lines; diagnostics are indented under a failure."""

    def __init__(self):
        self.failed = 0

    def check(self, ok, what, diag=()):
        print(("PASS " if ok else "FAIL ") + what)
        if not ok:
            self.failed += 1
            for line in diag:
                print("  " + str(line))
        sys.stdout.flush()
        return ok

    def skip(self, what, why):
        print("SKIP %s -- %s" % (what, why))


def short(path):
    """A readable name for a corpus/test file."""
    parts = path.split(os.sep)
    return os.sep.join(parts[-2:]) if len(parts) >= 2 else path


# ---- reading traces ------------------------------------------------------------

def decoded_bytes(path):
    """The file's bytes, gunzipped when it starts with the gzip magic."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def parse_doc(data):
    return json.loads(data.decode("utf-8", "replace"), parse_float=D)


def events_of(doc):
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        ev = doc.get("traceEvents", [])
        return ev if isinstance(ev, list) else []
    return []


class NotExact(Exception):
    pass


def to_ns(value):
    """Microseconds (JSON int or decimal) -> integer nanoseconds, exactly."""
    if isinstance(value, bool) or not isinstance(value, (int, D)):
        raise NotExact("not a number: %r" % (value,))
    ns = D(value) * 1000
    if ns != ns.to_integral_value():
        raise NotExact("sub-nanosecond time %s us" % value)
    return int(ns)


def id_text(value):
    """pid/tid as trex keeps them: integers in decimal, strings as written."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return str(value)


class Trace:
    """What Python derives from one trace file."""

    def __init__(self, path):
        self.path = path
        self.data = decoded_bytes(path)
        self.doc = parse_doc(self.data)
        self.events = events_of(self.doc)
        head = self.doc if isinstance(self.doc, dict) else {}
        base = head.get("baseTimeNanoseconds", 0)
        self.base_ns = base if isinstance(base, int) and not isinstance(base, bool) else 0
        info = head.get("distributedInfo")
        self.rank = info.get("rank") if isinstance(info, dict) else None

    def phases(self):
        c = collections.Counter()
        for e in self.events:
            if isinstance(e, dict):
                c[PHASE_ROW.get(e.get("ph"), "other")] += 1
        return c

    def key(self, e):
        return id_text(e.get("pid")), id_text(e.get("tid"))

    def x_slices(self):
        """Multiset of (pid, tid, ts_ns, dur_ns, name) of the X events."""
        out = collections.Counter()
        for e in self.events:
            if isinstance(e, dict) and e.get("ph") == "X":
                pid, tid = self.key(e)
                out[(pid, tid, to_ns(e.get("ts", 0)) + self.base_ns,
                     max(to_ns(e.get("dur", 0)), 0), str(e.get("name", "")))] += 1
        return out

    def be_slices(self):
        """B/E pairs -> (multiset of closed slices, unterminated count)."""
        stacks = collections.defaultdict(list)
        out = collections.Counter()
        for e in self.events:
            if not isinstance(e, dict) or e.get("ph") not in ("B", "E"):
                continue
            key = self.key(e)
            if e["ph"] == "B":
                stacks[key].append(e)
            elif stacks[key]:
                b = stacks[key].pop()
                ts = to_ns(b.get("ts", 0))
                out[key + (ts + self.base_ns, max(to_ns(e.get("ts", 0)) - ts, 0),
                           str(b.get("name", "")))] += 1
        return out, sum(len(s) for s in stacks.values())

    def slice_events(self):
        """[(event, dur_ns)] of every slice: X events, and B events closed
        by their E (the B holds the name and category)."""
        stacks = collections.defaultdict(list)
        out = []
        for e in self.events:
            if not isinstance(e, dict):
                continue
            if e.get("ph") == "X":
                out.append((e, max(to_ns(e.get("dur", 0)), 0)))
            elif e.get("ph") == "B":
                stacks[self.key(e)].append(e)
            elif e.get("ph") == "E" and stacks[self.key(e)]:
                b = stacks[self.key(e)].pop()
                out.append((b, max(to_ns(e.get("ts", 0)) - to_ns(b.get("ts", 0)), 0)))
        return out

    def kernel_durations(self):
        """{kernel name: [dur_ns, ...]} over the kernel slices."""
        out = collections.defaultdict(list)
        slices = self.slice_events()
        device = device_tracks(self.events, [e for e, _ in slices])
        for e, dur in slices:
            if work_kind(e, device) == "kernel":
                out[str(e.get("name", ""))].append(dur)
        return out


# ---- what an event is (trex(1) GPU WORK, written out again) -------------------

CATEGORY_KIND = {
    "kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
    "gpu_memset": "memset", "Memset": "memset", "gpu_user_annotation": "gpu annotation",
    "cuda_sync": "gpu sync", "cuda_profiler_range": "gpu other", "cpu_op": "cpu op",
    "Operator": "cpu op", "user_annotation": "annotation", "cuda_runtime": "runtime",
    "cuda_driver": "runtime", "Runtime": "runtime", "xpu_runtime": "runtime",
    "xpu_driver": "runtime", "mtia_runtime": "runtime", "privateuse1_runtime": "runtime",
    "privateuse1_driver": "runtime", "python_function": "python",
    "cpu_instant_event": "cpu instant", "overhead": "overhead"}
GPU_KINDS = ("kernel", "memcpy", "memset", "gpu annotation", "gpu sync", "gpu other")
DEVICE_WORDS = ("GPU", "AIU", "MTIA", "XPU", "HPU", "NPU", "TPU")


def category_kind(cat, name):
    """The kind of an event by its category and, for the three categories
    that need it, its name."""
    name = name if isinstance(name, str) else ""
    if cat == "gpu_op":
        if name.startswith("Tile #") and ": " in name:
            name = name[name.index(": ") + 2:]
        for prefix, kind in (("zeCommandListAppendMemoryCopy", "memcpy"),
                             ("zeCommandListAppendMemoryFill", "memset"),
                             ("zeCommandListAppend", "gpu other"),
                             ("clEnqueueReadBuffer", "memcpy"), ("clEnqueueWriteBuffer", "memcpy"),
                             ("clEnqueueCopyBuffer", "memcpy"), ("clEnqueueSVMMemcpy", "memcpy"),
                             ("clEnqueueFillBuffer", "memset"), ("clEnqueueSVMMemFill", "memset")):
            if name.startswith(prefix):
                return kind
        return "kernel"
    if cat == "mtia_ccp_events":
        if name.startswith("dma_"):
            return "memcpy"
        if name == "event_wait":
            return "gpu sync"
        return "gpu other" if name.startswith("event_") else "kernel"
    if cat in (None, ""):
        for suffix, kind in ((" Cmpt Exec", "kernel"), (" Cmpt Prep", "gpu other"),
                             (" DmaI", "memcpy"), (" DmaO", "memcpy")):
            if name.endswith(suffix):
                return kind
        return "other"
    return CATEGORY_KIND.get(cat, "other") if isinstance(cat, str) else "other"


def device_tracks(events, slices):
    """(pid, tid) keys of the device tracks: those holding a slice of a GPU
    kind, those of a process labelled "GPU...", and every track of a process
    whose name or labels start with a device word."""
    names = collections.defaultdict(list)
    for e in events:
        if isinstance(e, dict) and e.get("ph") == "M" and isinstance(e.get("args"), dict):
            if e.get("name") in ("process_name", "process_labels"):
                v = e["args"].get("name" if e["name"] == "process_name" else "labels")
                if isinstance(v, str):
                    names[id_text(e.get("pid"))].append((e["name"], v))

    def device_pid(pid):
        for key, v in names.get(pid, ()):
            if key == "process_labels" and v.startswith("GPU"):
                return True
            for w in DEVICE_WORDS:
                if v.startswith(w) and not v[len(w):len(w) + 1].isalpha():
                    return True
        return False

    out = set()
    for e in slices:
        key = (id_text(e.get("pid")), id_text(e.get("tid")))
        if category_kind(e.get("cat"), e.get("name")) in GPU_KINDS or device_pid(key[0]):
            out.add(key)
    return out


def work_kind(e, device):
    """The kind of a slice event; device: device_tracks()."""
    kind = category_kind(e.get("cat"), e.get("name"))
    key = (id_text(e.get("pid")), id_text(e.get("tid")))
    if kind == "other" and e.get("cat") not in (None, "") and key in device:
        return "kernel"
    return kind


def is_kernel(e):
    """Is the event a kernel by its category and name (without the device
    track rule, which needs the whole trace: device_tracks)?"""
    return category_kind(e.get("cat"), e.get("name")) == "kernel"


# ---- running trex ----------------------------------------------------------------

class Run:
    def __init__(self, argv, proc):
        self.argv = argv
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr.decode("utf-8", "replace")

    def describe(self):
        lines = ["command: " + " ".join(self.argv), "exit: %s" % self.rc]
        lines += ["stderr: " + l for l in self.err.splitlines()[:12]]
        return lines

    def sanitizer_report(self):
        return re.search(r"(Address|Leak|Undefined|Thread|Memory)Sanitizer|runtime error:",
                         self.err) is not None

    def json(self):
        return json.loads(self.out.decode("utf-8"), parse_float=D)


def run(argv):
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT)
    return Run(argv, p)


def trex(*args):
    return run([TREX] + list(args))


def find_table(obj, name):
    """The rows of the table called name anywhere in a trex JSON document."""
    if isinstance(obj, dict):
        if obj.get("table") == name and isinstance(obj.get("rows"), list):
            return obj["rows"]
        if name in obj and isinstance(obj[name], dict) and "rows" in obj[name]:
            return obj[name]["rows"]
        children = obj.values()
    elif isinstance(obj, list):
        children = obj
    else:
        return None
    for child in children:
        rows = find_table(child, name)
        if rows is not None:
            return rows
    return None


def row_text(row, *keys):
    for k in keys:
        if k in row:
            return str(row[k])
    raise KeyError("none of %s in row %s" % (keys, sorted(row)))


def phases_of_info(doc):
    rows = find_table(doc, "phases")
    if rows is None:
        raise KeyError("no phases table in trex info --format json")
    out = collections.Counter()
    for r in rows:
        n = int(r.get("events", r.get("count", 0)))
        if n:
            out[row_text(r, "phase", "ph")] += n
    return out


def integrity_of_info(doc):
    rows = find_table(doc, "integrity") or []
    out = {}
    for r in rows:
        out[row_text(r, "check", "field", "name")] = int(r.get("count", 0))
    return out


def counter_diff(want, got, limit=8):
    lines = []
    for k in sorted(set(want) | set(got), key=repr):
        if want.get(k, 0) != got.get(k, 0):
            lines.append("%r: expected %d, trex %d" % (k, want.get(k, 0), got.get(k, 0)))
            if len(lines) >= limit:
                lines.append("...")
                break
    return lines


# ---- trex_dump ---------------------------------------------------------------------

def unescape(text):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "x" and i + 3 < len(text):
                out.append(chr(int(text[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


class Dump:
    """trex_dump's records, split into fields (see tests/unit/trex_dump.c)."""

    def __init__(self, run_result):
        self.records = collections.defaultdict(list)
        for raw in run_result.out.decode("utf-8", "surrogateescape").splitlines():
            fields = [unescape(f) for f in raw.split("\t")]
            self.records[fields[0]].append(fields[1:])

    def slices(self, want, unwant=0):
        """Multiset of (pid, tid, ts, dur, name) of slices whose flags have
        every bit of want and none of unwant."""
        out = collections.Counter()
        for f in self.records["slice"]:
            flags = int(f[6])
            if flags & want == want and not flags & unwant:
                out[(f[1], f[2], int(f[3]), int(f[4]), f[8])] += 1
        return out

    def count_slices(self, want):
        return sum(1 for f in self.records["slice"] if int(f[6]) & want)


def dump(*paths):
    return run([TREX_DUMP] + list(paths))


# ---- kernels -----------------------------------------------------------------------

def kernel_stats(durations):
    """{name: dict of the kernels table columns} with exact sums."""
    grand = sum(sum(d) for d in durations.values())
    out = {}
    for name, ds in durations.items():
        ds = sorted(ds)
        n, total = len(ds), sum(ds)
        mid = n // 2
        med = D(ds[mid]) if n % 2 else (D(ds[mid - 1]) + D(ds[mid])) / 2
        mean = D(total) / n
        var = sum((D(x) - mean) ** 2 for x in ds) / (n - 1) if n > 1 else D(0)
        # nearest rank: the ceil(p * n / 100)-th smallest
        p95, p99 = ds[max(-(-95 * n // 100), 1) - 1], ds[max(-(-99 * n // 100), 1) - 1]
        out[name] = {"instances": n, "total_ns": total, "min_ns": ds[0], "max_ns": ds[-1],
                     "p95_ns": p95, "p99_ns": p99,
                     "avg_ns": mean, "med_ns": med, "stddev_ns": var.sqrt(),
                     "time_pct": D(total) * 100 / grand if grand else D(0)}
    return out


def close(a, b, rel=D("1e-9"), abs_=D("1e-6")):
    a, b = D(str(a)), D(str(b))
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def compare_kernels(rep, what, rows, expected):
    """rows: trex kernels JSON rows; expected: kernel_stats()."""
    got = {}
    diag = []
    for r in rows:
        got[str(r.get("name"))] = r
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    if missing or extra:
        diag += ["missing: %r" % k[:120] for k in missing[:5]]
        diag += ["unexpected: %r" % k[:120] for k in extra[:5]]
        diag.append("%d kernels expected, trex has %d" % (len(expected), len(got)))
    exact = ("instances", "total_ns", "min_ns", "max_ns", "p95_ns", "p99_ns")
    approx = {"avg_ns": (D("1e-9"), D("1e-3")), "med_ns": (D("1e-9"), D("1e-3")),
              "stddev_ns": (D("1e-6"), D("1e-2")), "time_pct": (D("1e-6"), D("1e-6"))}
    for name in sorted(set(expected) & set(got)):
        e, g = expected[name], got[name]
        for col in exact:
            if col not in g or D(str(g[col])) != e[col]:
                diag.append("%s of %r: expected %s, trex %s" % (col, name[:80], e[col], g.get(col)))
        for col, (rel, abs_) in approx.items():
            if col not in g or not close(g[col], e[col], rel, abs_):
                diag.append("%s of %r: expected %.6f, trex %s" % (col, name[:80], e[col], g.get(col)))
        if len(diag) > 12:
            break
    order = [str(r.get("name")) for r in rows]
    want_order = sorted(got, key=lambda k: (-D(str(got[k].get("total_ns", 0))), k))
    if not diag and order != want_order:
        diag.append("rows not sorted by total descending, then name")
    return rep.check(not diag, what, diag[:14])


# ---- subcommand: corpus --------------------------------------------------------------

def check_trace(rep, path):
    name = short(path)
    try:
        tr = Trace(path)
    except (ValueError, OSError) as exc:
        rep.check(False, "python parses %s" % name, [exc])
        return
    info = trex("info", "--format", "json", path)
    if not rep.check(info.rc == 0 and not info.sanitizer_report(),
                     "trex info exits 0: %s" % name, info.describe()):
        return
    try:
        got = phases_of_info(info.json())
        rep.check(got == tr.phases(), "events by phase: %s" % name,
                  counter_diff(tr.phases(), got) or ["expected %s, trex %s" % (dict(tr.phases()), dict(got))])
        if tr.rank is not None:
            rows = find_table(info.json(), "files") or []
            ranks = [int(r.get("rank", -1)) for r in rows]
            rep.check(ranks == [tr.rank], "rank from distributedInfo: %s" % name,
                      ["expected [%s], trex %s" % (tr.rank, ranks)])
    except (ValueError, KeyError) as exc:
        rep.check(False, "trex info --format json is readable: %s" % name, [exc])

    kern = trex("kernels", "--format", "json", path)
    if rep.check(kern.rc == 0 and not kern.sanitizer_report(),
                 "trex kernels exits 0: %s" % name, kern.describe()):
        try:
            compare_kernels(rep, "kernels (instances, totals ns, stats): %s" % name,
                            find_table(kern.json(), "kernels") or [],
                            kernel_stats(tr.kernel_durations()))
        except (ValueError, KeyError) as exc:
            rep.check(False, "trex kernels --format json is readable: %s" % name, [exc])

    d = dump(path)
    if not rep.check(d.rc == 0 and not d.sanitizer_report(), "trex_dump exits 0: %s" % name,
                     d.describe()):
        return
    dd = Dump(d)
    want = tr.x_slices()
    got = dd.slices(0, SLICE_FROM_BE | SLICE_ASYNC)
    rep.check(got == want, "X slices (pid, tid, ts ns, dur ns, name): %s" % name,
              ["%d expected, trex %d" % (sum(want.values()), sum(got.values()))]
              + counter_diff(want, got))
    if any(isinstance(e, dict) and e.get("ph") in ("B", "E") for e in tr.events):
        want_be, unterminated = tr.be_slices()
        got_be = dd.slices(SLICE_FROM_BE, SLICE_UNTERMINATED | SLICE_ASYNC)
        got_unterm = dd.count_slices(SLICE_UNTERMINATED)
        rep.check(got_be == want_be and got_unterm == unterminated,
                  "B/E slices paired in file order: %s" % name,
                  ["unterminated: expected %d, trex %d" % (unterminated, got_unterm)]
                  + counter_diff(want_be, got_be))


def cmd_corpus(paths):
    rep = Report()
    for p in paths:
        check_trace(rep, p)
    return rep


# ---- subcommand: multi -----------------------------------------------------------------

def cmd_multi(label, arg, paths):
    """trex loads ARG (comma list or glob; "--files": PATHS as separate
    arguments) as the files PATHS, one rank each."""
    rep = Report()
    traces = [Trace(p) for p in paths]
    inputs = list(paths) if arg == "--files" else [arg]
    info = trex("info", "--format", "json", *inputs)
    if rep.check(info.rc == 0 and not info.sanitizer_report(), "%s: trex info exits 0" % label,
                 info.describe()):
        doc = info.json()
        want = collections.Counter()
        for t in traces:
            want.update(t.phases())
        got = phases_of_info(doc)
        rep.check(got == want, "%s: events by phase summed over %d files" % (label, len(paths)),
                  counter_diff(want, got))
        rows = find_table(doc, "files") or []
        ranks = sorted(int(r.get("rank", -1)) for r in rows)
        want_ranks = sorted(t.rank for t in traces if t.rank is not None)
        rep.check(len(rows) == len(paths) and ranks == want_ranks,
                  "%s: %d files with ranks %s" % (label, len(paths), want_ranks),
                  ["trex: %d files, ranks %s" % (len(rows), ranks)])
    kern = trex("kernels", "--format", "json", *inputs)
    if rep.check(kern.rc == 0 and not kern.sanitizer_report(),
                 "%s: trex kernels exits 0" % label, kern.describe()):
        durations = collections.defaultdict(list)
        for t in traces:
            for k, v in t.kernel_durations().items():
                durations[k] += v
        compare_kernels(rep, "%s: kernels summed over all files" % label,
                        find_table(kern.json(), "kernels") or [], kernel_stats(durations))
    return rep


# ---- subcommand: data (hand-checked expectations) ---------------------------------------

def match_field(pattern, field):
    """'*' matches anything, '&N' an integer with every bit of N set."""
    if pattern == "*" or pattern == field:
        return True
    if pattern.startswith("&"):
        try:
            return int(field) & int(pattern[1:]) == int(pattern[1:])
        except ValueError:
            return False
    return False


def match_fields(pattern, fields):
    return len(pattern) == len(fields) and all(match_field(p, f) for p, f in zip(pattern, fields))


def cmd_data(expect_files):
    rep = Report()
    for ef in expect_files:
        check_expect_file(rep, ef)
    return rep


def parse_expect(ef):
    """-> (trace path, [(lineno, keyword, rest)])"""
    trace = None
    lines = []
    with open(ef, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            kw, _, rest = line.strip().partition(" ")
            if kw == "trace":
                trace = os.path.join(os.path.dirname(ef), rest.strip())
            else:
                lines.append((no, kw, rest.strip()))
    return trace, lines


def compare_value(want, got):
    """want: 'N', '>=N' or '<=N' (integers) or text."""
    for op, fn in ((">=", lambda a, b: a >= b), ("<=", lambda a, b: a <= b)):
        if want.startswith(op):
            return fn(int(got), int(want[len(op):]))
    return str(got) == want


def check_expect_file(rep, ef):
    trace, lines = parse_expect(ef)
    name = os.path.basename(trace or ef)
    want_rc = 0
    for _, kw, rest in lines:
        if kw == "exit":
            want_rc = int(rest)
    info = trex("info", "--format", "json", trace)
    if not rep.check(info.rc == want_rc and not info.sanitizer_report(),
                     "trex info exits %d: %s" % (want_rc, name), info.describe()):
        return
    if want_rc != 0:
        return
    kern = trex("kernels", "--format", "json", trace)
    d = dump(trace)
    if not rep.check(kern.rc == 0 and d.rc == 0 and not d.sanitizer_report()
                     and not kern.sanitizer_report(),
                     "trex kernels and trex_dump exit 0: %s" % name,
                     kern.describe() + d.describe()):
        return
    info_doc, kern_rows, dd = info.json(), find_table(kern.json(), "kernels") or [], Dump(d)
    phases = phases_of_info(info_doc)
    pool = {k: list(v) for k, v in dd.records.items()}
    diag = []
    for no, kw, rest in lines:
        where = "%s:%d: %s %s" % (os.path.basename(ef), no, kw, rest)
        if kw in ("exit", "compare"):
            continue
        elif kw == "phase":
            ph, n = rest.split()
            if phases.get(ph, 0) != int(n):
                diag.append("%s -> trex %d" % (where, phases.get(ph, 0)))
        elif kw == "kernels":
            if len(kern_rows) != int(rest):
                diag.append("%s -> trex %d rows" % (where, len(kern_rows)))
        elif kw == "kernel":
            inst, total, kname = rest.split(" ", 2)
            row = [r for r in kern_rows if r.get("name") == kname]
            if not row or int(row[0].get("instances", -1)) != int(inst) \
                    or D(str(row[0].get("total_ns", -1))) != int(total):
                diag.append("%s -> trex %s" % (where, row[0] if row else "no such kernel"))
        elif kw in ("slice", "instant", "flow"):
            # the last field (a name) may contain spaces; the file id is left out
            nf = {"slice": 8, "instant": 6, "flow": 10}[kw]
            pattern = rest.split(" ", nf - 1)
            hit = [i for i, f in enumerate(pool.get(kw, [])) if match_fields(pattern, f[1:])]
            if hit:
                pool[kw].pop(hit[0])
            else:
                diag.append("%s -> not in trex_dump (%d %s records)"
                            % (where, len(pool.get(kw, [])), kw))
        elif kw == "sample":
            # PID TS VALUE SERIES; SERIES is the counter track's tid text or name
            pid, ts, value, series = rest.split(" ", 3)
            hit = [i for i, f in enumerate(pool.get(kw, []))
                   if match_fields([pid, ts], [f[1], f[3]]) and float(f[4]) == float(value)
                   and series in (f[2], track_name(dd, f[0], f[1], f[2]))]
            if hit:
                pool[kw].pop(hit[0])
            else:
                diag.append("%s -> not in trex_dump (%d sample records)"
                            % (where, len(pool.get(kw, []))))
        elif kw == "total":
            what, n = rest.split()
            got = [f[1] for f in dd.records["total"] if f[0] == what]
            if not got or not compare_value(n, got[0]):
                diag.append("%s -> trex %s" % (where, got))
        elif kw == "integrity":
            field, n = rest.split()
            got = sum(int(f[2]) for f in dd.records["integrity"] if f[1] == field)
            if not compare_value(n, got):
                diag.append("%s -> trex %d" % (where, got))
        elif kw == "file":
            field, value = rest.split(" ", 1)
            cols = ["id", "rank", "has_rank", "format", "dialect", "gzip", "truncated",
                    "base_time_ns", "bytes_decoded", "events", "path"]
            got = dd.records["file"][0][cols.index(field)] if dd.records["file"] else None
            if got is None or not compare_value(value, got):
                diag.append("%s -> trex %s" % (where, got))
        elif kw == "stderr":
            if not re.search(rest, info.err):
                diag.append("%s -> stderr: %r" % (where, info.err[:300]))
        else:
            diag.append("%s: unknown keyword" % where)
    rep.check(not diag, "hand-checked numbers of %s" % name, diag)
    if any(kw == "compare" for _, kw, _ in lines):
        check_trace(rep, trace)


def track_name(dd, file_id, pid, tid):
    for f in dd.records["track"]:
        if f[0] == file_id and f[1] == pid and f[2] == tid:
            return f[5]
    return None


# ---- subcommand: malformed ----------------------------------------------------------------

WS = " \t\r\n"


class Layout:
    """Where the events of a (valid) trace lie: the byte offset just past
    each complete event, its phase row, and the events array's extent."""

    def __init__(self, data):
        s = data.decode("utf-8", "surrogateescape")
        dec = json.JSONDecoder(parse_float=D)
        self.ends, self.rows = [], []
        self.array_start = self.array_end = None
        i = skip_ws(s, 0)
        if s[i] == "[":
            i = self._array(s, i, dec)
        elif s[i] == "{":
            i = skip_ws(s, i + 1)
            while s[i] != "}":
                key, i = dec.raw_decode(s, i)
                i = skip_ws(s, i)
                assert s[i] == ":"
                i = skip_ws(s, i + 1)
                if key == "traceEvents" and s[i] == "[":
                    i = self._array(s, i, dec)
                else:
                    _, i = dec.raw_decode(s, i)
                i = skip_ws(s, i)
                if s[i] == ",":
                    i = skip_ws(s, i + 1)
        if not s.isascii():   # char offsets -> byte offsets
            marks = sorted(set(self.ends + [self.array_start or 0, self.array_end or 0]))
            pos, last, conv = 0, 0, {}
            for m in marks:
                pos += len(s[last:m].encode("utf-8", "surrogateescape"))
                conv[m], last = pos, m
            self.ends = [conv[e] for e in self.ends]
            self.array_start = conv.get(self.array_start, self.array_start)
            self.array_end = conv.get(self.array_end, self.array_end)

    def _array(self, s, i, dec):
        self.array_start = i + 1
        i = skip_ws(s, i + 1)
        while s[i] != "]":
            ev, i = dec.raw_decode(s, i)
            if isinstance(ev, dict):
                self.ends.append(i)
                self.rows.append(PHASE_ROW.get(ev.get("ph"), "other"))
            i = skip_ws(s, i)
            if s[i] == ",":
                i = skip_ws(s, i + 1)
        self.array_end = i + 1
        return i + 1

    def complete_before(self, cut):
        """Phase counts of the events wholly inside data[:cut]."""
        n = bisect.bisect_right(self.ends, cut)
        return collections.Counter(self.rows[:n]), n


def skip_ws(s, i):
    while i < len(s) and s[i] in WS:
        i += 1
    return i


def line_col(data, offset):
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


def check_messages(run_result, path, data, diag):
    """stderr: one-line messages naming the file; an exit-2 error names a
    byte offset and the matching line:col."""
    lines = [l for l in run_result.err.splitlines() if l.strip()]
    base = os.path.basename(path)
    for l in lines:
        if base not in l:
            diag.append("stderr line does not name the file: %r" % l[:200])
    if run_result.rc == 2:
        found = False
        for l in lines:
            m = re.search(re.escape(base) + r":(\d+):(\d+): .*\(byte (\d+)\)", l)
            if m:
                found = True
                line, col, off = int(m.group(1)), int(m.group(2)), int(m.group(3))
                if off > len(data):
                    diag.append("byte %d beyond the end (%d bytes): %r" % (off, len(data), l[:200]))
                elif (line, col) != line_col(data, off):
                    diag.append("byte %d is at %d:%d, message says %d:%d"
                                % (off, *line_col(data, off), line, col))
        if not found:
            diag.append("exit 2 without 'FILE:LINE:COL: ... (byte N)' on stderr: %r"
                        % run_result.err[:300])


def check_run_sane(run_result, diag, label):
    if run_result.rc < 0 or run_result.rc >= 128:
        diag.append("%s: killed by a signal (exit %s)" % (label, run_result.rc))
    elif run_result.rc not in (0, 2):
        diag.append("%s: exit %s (expected 0 or 2)" % (label, run_result.rc))
    if run_result.sanitizer_report():
        diag.append("%s: sanitizer report: %s" % (label, run_result.err[:400]))


def malformed_file(rep, path, tmpdir):
    name = short(path)
    data = decoded_bytes(path)
    try:
        layout = Layout(data)
    except (ValueError, AssertionError, IndexError) as exc:
        rep.check(False, "python lays out %s" % name, [exc])
        return
    work = os.path.join(tmpdir, "cut-" + os.path.basename(path).replace(".gz", ""))
    n = len(data)
    ncuts = 3 if QUICK else 10
    cuts = sorted(set([n * k // (ncuts + 1) for k in range(1, ncuts + 1)] + [max(n - 1, 0)]))

    diag, loaded = [], []
    for cut in cuts:
        with open(work, "wb") as f:
            f.write(data[:cut])
        r = trex("info", "--format", "json", work)
        label = "cut at %d/%d" % (cut, n)
        check_run_sane(r, diag, label)
        check_messages(r, work, data[:cut], diag)
        if r.rc != 0:
            continue
        try:
            doc = r.json()
            got = phases_of_info(doc)
            ignored = integrity_of_info(doc).get("bytes_ignored")
        except (ValueError, KeyError) as exc:
            diag.append("%s: unreadable JSON: %s" % (label, exc))
            continue
        want, complete = layout.complete_before(cut)
        if got != want:
            diag.append("%s: events expected %s, trex %s" % (label, dict(want), dict(got)))
        loaded.append((cut, sum(got.values())))
        # bytes after the last complete event of the events array are ignored
        if layout.array_start is not None and layout.array_start <= cut < layout.array_end:
            last = layout.ends[complete - 1] if complete else layout.array_start
            tail = data[last:cut]
            lo, hi = len(tail.lstrip(b" \t\r\n,")), len(tail)
            if ignored is None or not lo <= ignored <= hi:
                diag.append("%s: bytes_ignored expected %d..%d, trex %s" % (label, lo, hi, ignored))
            elif ignored and str(ignored) not in r.err:
                diag.append("%s: stderr does not report the %d ignored bytes: %r"
                            % (label, ignored, r.err[:300]))
    # with --strict, lost input is an error with a position
    mid = cuts[len(cuts) // 2]
    with open(work, "wb") as f:
        f.write(data[:mid])
    r = trex("info", "--strict", "--format", "json", work)
    label = "--strict, cut at %d/%d" % (mid, n)
    check_run_sane(r, diag, label)
    if r.rc != 2:
        diag.append("%s: exit %s, expected 2" % (label, r.rc))
    check_messages(r, work, data[:mid], diag)
    for (c1, e1), (c2, e2) in zip(loaded, loaded[1:]):
        if e2 < e1:
            diag.append("events loaded decrease: %d at cut %d, %d at cut %d" % (e1, c1, e2, c2))
    rep.check(not diag, "%d cuts of %s: exit 0/2, messages, complete events loaded, "
              "--strict exits 2" % (len(cuts), name), diag[:14])

    # single-byte flips; big files are flipped within their first 4 MiB
    flips = 3 if QUICK else 20
    body = data[:4 << 20]
    rng = random.Random(zlib.crc32(os.path.basename(path).encode()))
    diag = []
    for _ in range(flips):
        pos = rng.randrange(len(body)) if body else 0
        flipped = bytearray(body)
        if flipped:
            flipped[pos] ^= rng.randrange(1, 256)
        with open(work, "wb") as f:
            f.write(flipped)
        r = trex("info", "--format", "json", work)
        label = "flip at byte %d" % pos
        check_run_sane(r, diag, label)
        check_messages(r, work, bytes(flipped), diag)
    rep.check(not diag, "%d byte flips of %s: exit 0/2, one-line messages" % (flips, name),
              diag[:14])
    os.unlink(work)


def cmd_malformed(paths):
    rep = Report()
    tmpdir = os.environ.get("TEST_TMP") or os.environ.get("TMPDIR", "/tmp")
    for p in paths:
        malformed_file(rep, p, tmpdir)
    return rep


# ---- subcommand: special -------------------------------------------------------------------

def special_case(rep, what, path, data=None, want_events=None):
    """trex info on path: exit 0 or 2, no signal or sanitizer report, sane
    messages (checked against data, the decoded bytes, when given), and
    with want_events the number of events loaded when it exits 0."""
    r = trex("info", "--format", "json", path)
    diag = []
    check_run_sane(r, diag, what)
    if data is not None:
        check_messages(r, path, data, diag)
    if r.rc == 0 and want_events is not None:
        try:
            got = sum(phases_of_info(r.json()).values())
            if got != want_events:
                diag.append("events loaded: expected %d, trex %d" % (want_events, got))
        except (ValueError, KeyError) as exc:
            diag.append("unreadable JSON: %s" % exc)
    rep.check(not diag, "%s: exit %s, no crash" % (what, r.rc),
              diag + r.describe() if diag else [])
    return r


def cmd_special(tmpdir, gz_source):
    rep = Report()
    p = os.path.join(tmpdir, "empty.json")
    open(p, "wb").close()
    special_case(rep, "empty file", p, b"")

    p = os.path.join(tmpdir, "junk.bin")
    rng = random.Random(20240611)
    junk = bytes(rng.getrandbits(8) for _ in range(1 << 20))
    with open(p, "wb") as f:
        f.write(junk)
    special_case(rep, "1 MiB of random bytes", p, junk)

    p = os.path.join(tmpdir, "deep-array.json")
    with open(p, "wb") as f:
        f.write(b"[" * 10000)
    special_case(rep, "10000 nested arrays, unclosed", p, b"[" * 10000)

    p = os.path.join(tmpdir, "deep-object.json")
    deep = (b'{"traceEvents":[{"ph":"X","name":"deep","pid":1,"tid":1,"ts":1,"dur":1,"args":'
            + b'{"a":' * 10000 + b"1" + b"}" * 10000 + b"}]}")
    with open(p, "wb") as f:
        f.write(deep)
    special_case(rep, "args nested 10000 objects deep", p, deep, want_events=1)

    p = os.path.join(tmpdir, "deep-object-cut.json")
    with open(p, "wb") as f:
        f.write(deep[:len(deep) // 2])
    special_case(rep, "args nested 10000 deep, cut in the middle", p, deep[:len(deep) // 2],
                 want_events=0)

    p = os.path.join(tmpdir, "huge-string.json")
    with open(p, "wb") as f:
        f.write(b'{"traceEvents":[{"ph":"X","cat":"kernel","pid":1,"tid":1,"ts":1,"dur":2,"name":"')
        chunk = b"A" * (1 << 20)
        for _ in range(100):
            f.write(chunk)
        f.write(b'"},{"ph":"X","cat":"kernel","name":"small","pid":1,"tid":1,"ts":5,"dur":1}]}')
    special_case(rep, "one 100 MiB string", p, None, want_events=2)
    os.unlink(p)

    if gz_source:
        raw = open(gz_source, "rb").read()
        p = os.path.join(tmpdir, "cut.json.gz")
        with open(p, "wb") as f:
            f.write(raw[:len(raw) // 2])
        # what zlib can still decode from the first half is complete input
        part = zlib.decompressobj(wbits=31).decompress(raw[:len(raw) // 2])
        try:
            full = decoded_bytes(gz_source)
            _, complete = Layout(full).complete_before(len(part))
        except (ValueError, AssertionError, IndexError):
            complete = None
        r = special_case(rep, "gzip cut mid-stream (%s)" % short(gz_source), p, part, complete)
        rep.check(r.rc == 2 or "trunc" in r.err.lower() or "end" in r.err.lower(),
                  "gzip cut mid-stream is reported on stderr",
                  ["stderr: %r" % r.err[:300]])
    return rep


# ---- subcommands: csv, shape, json -------------------------------------------------------------

def cmd_csv(csv_path, json_path, name):
    rep = Report()
    with open(csv_path, newline="", encoding="utf-8") as f:
        text = f.read()
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline=""), strict=True))
        ok = True
    except csv.Error as exc:
        rows, ok = [], False
        rep.check(False, "CSV parses with Python's csv module", [exc])
    if ok:
        rep.check(bool(rows) and "name" in rows[0], "CSV parses with a header row",
                  [text[:300]])
    jrows = find_table(json.load(open(json_path), parse_float=D), "kernels") or []
    diag = []
    if len(rows) != len(jrows):
        diag.append("CSV %d rows, JSON %d rows" % (len(rows), len(jrows)))
    for c, j in zip(rows, jrows):
        for k, v in j.items():
            cv = c.get(k)
            if isinstance(v, str):
                same = cv == v
            else:
                try:
                    same = close(cv, v, D("1e-9"), D("1e-3"))
                except (decimal.InvalidOperation, TypeError):
                    same = False
            if not same:
                diag.append("%s: CSV %r, JSON %r" % (k, cv, v))
    rep.check(not diag, "CSV rows equal the JSON rows", diag[:10])
    rep.check(any(r.get("name") == name for r in rows),
              "kernel name with a comma and quotes round-trips through CSV: %r" % name,
              [r.get("name") for r in rows][:10])
    return rep


def cmd_shape(by_name, by_shape):
    rep = Report()
    a = find_table(json.load(open(by_name), parse_float=D), "kernels") or []
    b = find_table(json.load(open(by_shape), parse_float=D), "kernels") or []
    ta = sum(D(str(r["total_ns"])) for r in a)
    tb = sum(D(str(r["total_ns"])) for r in b)
    ia = sum(int(r["instances"]) for r in a)
    ib = sum(int(r["instances"]) for r in b)
    rep.check(len(b) >= len(a) and len(a) > 0, "--by shape has >= rows than by name (%d >= %d)"
              % (len(b), len(a)), ["by name %d rows, by shape %d rows" % (len(a), len(b))])
    rep.check(ta == tb and ia == ib, "--by shape keeps the grand total and instances",
              ["by name %s ns / %d, by shape %s ns / %d" % (ta, ia, tb, ib)])
    return rep


def cmd_json(path):
    rep = Report()
    try:
        with open(path, encoding="utf-8") as f:
            json.load(f)
        rep.check(True, "output parses as JSON: %s" % os.path.basename(path))
    except ValueError as exc:
        rep.check(False, "output parses as JSON: %s" % os.path.basename(path), [exc])
    return rep


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == "corpus":
            rep = cmd_corpus(args)
        elif cmd == "multi":
            rep = cmd_multi(args[0], args[1], args[2:])
        elif cmd == "data":
            rep = cmd_data(args)
        elif cmd == "malformed":
            rep = cmd_malformed(args)
        elif cmd == "special":
            rep = cmd_special(args[0], args[1] if len(args) > 1 else None)
        elif cmd == "csv":
            rep = cmd_csv(*args)
        elif cmd == "shape":
            rep = cmd_shape(*args)
        elif cmd == "json":
            rep = cmd_json(*args)
        else:
            print("expected.py: unknown command %s" % cmd, file=sys.stderr)
            return 2
    except Exception as exc:  # a broken expectation is a failed test, not a crash
        import traceback
        print("FAIL expected.py %s: %s: %s" % (cmd, type(exc).__name__, exc))
        for line in traceback.format_exc().splitlines():
            print("  " + line)
        return 1
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
