#!/usr/bin/env python3
"""Kernel triage numbers, computed independently of trex from the trace JSON.

Usage (from tests/e2e/triage.sh; TREX is the program under test):
  triage.py kernels TRACE...     per-name percentiles, --memory, --by stream/rank/op
  triage.py per-rank TRACE...    --per-rank totals over several files (one rank each)
  triage.py shape TRACE...       --by shape: unique launches, ROCm shapes, first args
  triage.py categories TRACE...  built-in categories: time, calls, shares, devices
  triage.py gpu-time TRACE...    busy (union), idle and its host wait / kernel gap / sync /
                                 other split, compute/comm/memory, overlap, launches
  triage.py gpu-ranks TRACE...   gpu-time over several files: one row per device per rank
  triage.py runs TRACE...        every file one run: ranks (distributedInfo.rank, else the
                                 lowest free one), labels, keys and rows of files that claim
                                 the same rank, the warning, and the same tables in any order
  triage.py schema INI JSON DIR  --schema INI on a trace of names made from INI's tags,
                                 against unitrace's own compiled JSON of that schema

Prints one "PASS what" / "FAIL what" / "SKIP what -- why" line per check
(lib.sh turns them into TAP). Times are exact: JSON decimals are parsed as
decimal.Decimal and microseconds become integer nanoseconds.
"""
import collections
import decimal
import json
import os
import re
import subprocess
import sys

# One exact reading of the traces for every e2e check: the loader and the
# µs -> ns conversion live in expected.py.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expected import NotExact as Inexact  # noqa: E402
from expected import category_kind, decoded_bytes, device_tracks  # noqa: E402
from expected import events_of, parse_doc, work_kind  # noqa: E402
from expected import to_ns as ns  # noqa: E402

D = decimal.Decimal
TREX = os.environ.get("TREX", "trex")
# Event kinds as trex(1) GPU WORK names them (expected.work_kind).
KERNEL_CATS = {"kernel"}
MEMORY_CATS = {"memcpy", "memset"}
RUNTIME_CATS = {"runtime"}
CPU_OP_CATS = {"cpu op"}
GPU_SYNC = {"gpu sync"}


class Report:
    def __init__(self):
        self.failed = 0

    def check(self, ok, what, diag=()):
        print(("PASS " if ok else "FAIL ") + what)
        if not ok:
            self.failed += 1
            for line in list(diag)[:12]:
                print("  " + str(line))

    def skip(self, what, why):
        print("SKIP %s -- %s" % (what, why))


def short(path):
    return "/".join(path.split("/")[-2:])


def load(path):
    doc = parse_doc(decoded_bytes(path))
    rank = None
    if isinstance(doc, dict) and isinstance(doc.get("distributedInfo"), dict):
        rank = doc["distributedInfo"].get("rank")
    return [e for e in events_of(doc) if isinstance(e, dict)], rank


# ---- runs and devices: what trex calls them (the man page's rules) ------------------

def run_ranks(ranks):
    """distributedInfo.rank, else the lowest rank >= 0 no file claims, the
    files without one taking them in command-line order."""
    claimed = {r for r in ranks if isinstance(r, int) and not isinstance(r, bool)}
    out, free = [], 0
    for r in ranks:
        if isinstance(r, int) and not isinstance(r, bool):
            out.append(r)
            continue
        while free in claimed:
            free += 1
        out.append(free)
        free += 1
    return out


def tail(path, k):
    return "/".join(path.split("/")[-k:])


def run_name(path, others):
    """The base name, or as many trailing components as tell path apart from
    the other files of its rank."""
    for k in range(1, len(path.split("/")) + 1):
        if all(tail(o, k) != tail(path, k) for o in others):
            return tail(path, k)
    return path


def key_part(text):
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


class RunFile:
    """One input file as trex shows it: rank, label, CSV key and devices."""

    def __init__(self, path, events, rank, same_rank):
        self.path, self.events, self.rank = path, events, rank
        self.shared = bool(same_rank)
        self.name = run_name(path, same_rank) if same_rank else os.path.basename(path)
        self.label = "rank %d (%s)" % (rank, self.name) if same_rank else "rank %d" % rank
        slug = re.sub(r"(\.json)?(\.gz)?$", "", self.name)
        self.key = "rank%d_%s" % (rank, key_part(slug)) if same_rank else "rank%d" % rank
        self.labels = {}
        for e in events:
            if e.get("ph") == "M" and e.get("name") == "process_labels" and \
                    isinstance(e.get("args"), dict):
                self.labels[str(e.get("pid"))] = str(e["args"].get("labels", ""))

    def device(self, pid):
        """(name, key) of the device of pid: "GPU 0" from its process_labels,
        else "GPU <pid>" for a numeric pid (Kineto: the device index)."""
        lab = self.labels.get(pid, "")
        if re.fullmatch(r"[A-Za-z]+ [0-9]+", lab) and not lab.startswith("CPU "):
            name = lab
        else:
            assert pid.isdigit(), "a GPU process with pid %r" % pid
            name = "GPU " + pid
        return name, name.lower().replace(" ", "")


def runs_of(paths):
    """The files in trex's order: by rank, files of one rank by base name, then path."""
    loaded = [load(p) for p in paths]
    ranks = run_ranks([r for _, r in loaded])
    order = sorted(range(len(paths)),
                   key=lambda i: (ranks[i], os.path.basename(paths[i]), paths[i], i))
    return [RunFile(paths[i], loaded[i][0], ranks[i],
                    [paths[j] for j in range(len(paths)) if j != i and ranks[j] == ranks[i]])
            for i in order]


def device_label(run, pid, nfiles):
    name = run.device(pid)[0]
    return name if nfiles == 1 else "%s %s" % (run.label, name)


def x_tuple(e):
    args = e.get("args") if isinstance(e.get("args"), dict) else {}
    return (str(e.get("name", "")), str(e.get("pid")), str(e.get("tid")),
            ns(e.get("ts", 0)), max(ns(e.get("dur", 0)), 0), args)


_kinds = [None, None]  # the trace last asked about (kept alive) and its kinds


def x_kinds(events):
    """[(event, kind)] of the X events (expected.work_kind), once per trace."""
    if _kinds[0] is not events:
        xs = [e for e in events if e.get("ph") == "X"]
        device = device_tracks(events, xs)
        _kinds[:] = [events, [(e, work_kind(e, device)) for e in xs]]
    return _kinds[1]


def x_events(events, kinds):
    """(name, pid, tid, ts_ns, dur_ns, args) of the X events of those kinds."""
    return [x_tuple(e) for e, k in x_kinds(events) if k in kinds]


def nearest_rank(sorted_vals, p):
    """The ceil(p * n / 100)-th smallest value (nearest-rank percentile)."""
    k = max(1, -(-p * len(sorted_vals) // 100))
    return sorted_vals[k - 1]


def median(v):
    n = len(v)
    return D(v[n // 2]) if n % 2 else (D(v[n // 2 - 1]) + D(v[n // 2])) / 2


def trex_table(*args):
    p = subprocess.run([TREX, "-q", "--format", "json", *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise RuntimeError("trex %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                      p.stderr.decode(errors="replace")[:300]))
    return json.loads(p.stdout.decode("utf-8"), parse_float=D)["rows"]


def diff(want, got, limit=8):
    out = []
    for k in sorted(set(want) | set(got), key=str):
        if want.get(k) != got.get(k):
            out.append("%s: want %s, got %s" % (str(k)[:80], want.get(k), got.get(k)))
            if len(out) >= limit:
                break
    return out


# ---- kernels -----------------------------------------------------------------------

def check_by_name(rep, path, kernels):
    by = collections.defaultdict(list)
    for k in kernels:
        by[k[0]].append(k[4])
    want = {}
    for name, v in by.items():
        v.sort()
        want[name] = (len(v), sum(v), median(v), nearest_rank(v, 95), nearest_rank(v, 99))
    got = {}
    for r in trex_table("kernels", path):
        got[r["name"]] = (r["instances"], int(r["total_ns"]), D(r["med_ns"]),
                          int(r["p95_ns"]), int(r["p99_ns"]))
    rep.check(want == got, "%s: per kernel instances, total, median, p95, p99 (%d names)"
              % (short(path), len(want)), diff(want, got))


def check_by_stream(rep, path, work):
    want = collections.Counter()
    by = collections.defaultdict(list)
    for k in work:
        by[(k[1], k[2])].append(k[4])
    for v in by.values():
        want[(len(v), sum(v))] += 1
    got = collections.Counter((r["instances"], int(r["total_ns"]))
                              for r in trex_table("kernels", "--memory", "--by", "stream", path))
    rep.check(want == got, "%s: --memory --by stream: instances and total of each of %d streams"
              % (short(path), len(by)), diff(dict(want), dict(got)))


def innermost_op(ops_by_thread, rt):
    """The cpu_op on the runtime call's thread that encloses it most tightly; of
    equal intervals the later one in the file, which nests inside the earlier."""
    best = None
    for name, ts, end in ops_by_thread.get((rt[1], rt[2]), ()):
        if ts <= rt[3] and rt[3] + rt[4] <= end:
            if best is None or (ts, -end) >= (best[1], -best[2]):
                best = (name, ts, end)
    return best[0] if best else None


def check_by_op(rep, path, events, kernels):
    runtimes = {}
    for r in x_events(events, RUNTIME_CATS):
        c = r[5].get("correlation")
        if isinstance(c, int):
            runtimes.setdefault(c, r)
    ops_by_thread = collections.defaultdict(list)
    ops_by_ext = {}
    for o in x_events(events, CPU_OP_CATS):
        ops_by_thread[(o[1], o[2])].append((o[0], o[3], o[3] + o[4]))
        ext = o[5].get("External id")
        if isinstance(ext, int):
            ops_by_ext.setdefault(ext, o[0])
    want = collections.defaultdict(int)
    for k in kernels:
        rt = runtimes.get(k[5].get("correlation"))
        op = innermost_op(ops_by_thread, rt) if rt else None
        for src in (rt[5] if rt else {}, k[5]):
            if op is None and isinstance(src.get("External id"), int):
                op = ops_by_ext.get(src["External id"])
        want[op if op is not None else "(no launching op)"] += k[4]
    got = {r["op"]: int(r["total_ns"]) for r in trex_table("kernels", "--by", "op", path)}
    rep.check(dict(want) == got, "%s: --by op: kernel time of each of %d launching ops"
              % (short(path), len(want)), diff(dict(want), got))


def check_by_rank(rep, path, kernels):
    total = sum(k[4] for k in kernels)
    rows = trex_table("kernels", "--by", "rank", path)
    got = [int(r["total_ns"]) for r in rows]
    want = [total] if kernels else []
    rep.check(got == want, "%s: --by rank: one row with the kernel total %d ns"
              % (short(path), total), ["got %s" % got])


def cmd_kernels(paths):
    rep = Report()
    for path in paths:
        try:
            events, _ = load(path)
            kernels = x_events(events, KERNEL_CATS)
            memory = x_events(events, MEMORY_CATS)
        except Inexact as e:
            rep.skip("%s: kernel checks" % short(path), str(e))
            continue
        if not kernels:
            rep.skip("%s: kernel checks" % short(path), "no kernels")
            continue
        check_by_name(rep, path, kernels)
        check_by_stream(rep, path, kernels + memory)
        check_by_rank(rep, path, kernels)
        check_by_op(rep, path, events, kernels)
    return rep


def per_rank_check(rep, runs, paths):
    """--per-rank: a column per file, in file order, keyed <run key>_total_ns."""
    want = collections.defaultdict(lambda: collections.defaultdict(int))
    keys = [r.key + "_total_ns" for r in runs]
    for run in runs:
        for k in x_events(run.events, KERNEL_CATS):
            want[k[0]][run.key + "_total_ns"] += k[4]
    rows = trex_table("kernels", "--per-rank", *paths)
    got = {}
    for r in rows:
        got[r["name"]] = {k: int(r[k]) for k in keys if int(r.get(k, 0))}
        if sum(got[r["name"]].values()) != int(r["total_ns"]):
            got[r["name"]]["sum"] = "per-rank columns do not add up to total_ns"
    cols = [k for k in (rows[0] if rows else {}) if k.endswith("_total_ns") and k != "total_ns"]
    want = {n: dict(v) for n, v in want.items()}
    rep.check(want == got and cols == keys,
              "--per-rank over %d files: each kernel's total in each of the columns %s"
              % (len(paths), " ".join(keys)), ["columns %s" % cols] + diff(want, got))


def cmd_per_rank(paths):
    rep = Report()
    per_rank_check(rep, runs_of(paths), paths)
    return rep


# ---- unique launch shapes ------------------------------------------------------------

def shape_text(args):
    """grid=[x,y,z] block=[x,y,z] smem=N as the loader writes it, "" without both."""
    if "grid" not in args and "block" not in args:
        return ""
    def part(key):
        if key not in args:
            return "?"
        return json.dumps(args[key], separators=(",", ":"), default=str).replace('"', "")
    return "grid=%s block=%s smem=%s" % (part("grid"), part("block"), part("shared memory"))


def cmd_shape(paths):
    rep = Report()
    for path in paths:
        try:
            events, _ = load(path)
            kernels = x_events(events, KERNEL_CATS)
            runtimes = {}
            for r in x_events(events, RUNTIME_CATS):
                runtimes.setdefault(r[5].get("correlation"), r)
        except Inexact as e:
            rep.skip("%s: --by shape" % short(path), str(e))
            continue
        want = collections.Counter()
        first = {}
        for k in kernels:
            shape = shape_text(k[5])
            rt = runtimes.get(k[5].get("correlation")) if "correlation" in k[5] else None
            if not shape and rt:
                shape = shape_text(rt[5])
            key = (k[0], shape, k[1], k[2])
            want[key] += 1
            if key not in first or k[3] < first[key][0]:
                first[key] = (k[3], k[5])
        rows = trex_table("kernels", "--by", "shape", path)
        got = collections.Counter()
        bad_args = []
        for r in rows:
            got[(r["name"], r["shape"], r["instances"])] += 1
            args = json.loads(r["args"], parse_float=D) if r["args"] else {}
            if shape_text(args) not in ("", r["shape"]):
                bad_args.append("%s: args shape %s, row %s" % (r["name"][:40], shape_text(args),
                                                              r["shape"]))
        want_rows = collections.Counter((n, s, c) for (n, s, _, _), c in want.items())
        rep.check(want_rows == got, "%s: --by shape: %d unique (name, grid, block, smem, stream)"
                  % (short(path), len(want)), diff(dict(want_rows), dict(got)))
        firsts = collections.Counter(json.dumps(a, sort_keys=True, default=str)
                                     for _, a in first.values())
        got_firsts = collections.Counter(
            json.dumps(json.loads(r["args"], parse_float=D) if r["args"] else {},
                       sort_keys=True, default=str) for r in rows)
        rep.check(not bad_args and firsts == got_firsts,
                  "%s: --by shape: args of each group's first instance" % short(path),
                  bad_args + ["args differ"] * (firsts != got_firsts))
    return rep


# ---- categories ------------------------------------------------------------------------

# The communication rules as trex(1) COMMUNICATION lists them, in order:
# (id, what they look at, pattern).
COMM_RULES = [
    ("rccl", "name", r"(?i)rccl"),
    ("msccl", "name", r"(?i)msccl"),
    ("nccl", "name", r"(?i)nccl"),
    ("oneccl", "name", r"(?i)oneccl|\bccl::|^ccl_|^(allreduce|alltoallv|reduce_read_write|"
                       r"local_reduce|(read_)?write_monolithic|reduce_monolithic)_kernel_|"
                       r"^reduce_(single_)?local_(inplace|outofplace)_kernel_"),
    ("hccl", "name", r"(?i)hccl|^hcom"),
    ("deepep", "name", r"deep_ep::|dpsk::ep::"),
    ("pplx", "name", r"pplx::|^(void )?(\(anonymous namespace\)::)?(dispatch|combine)Kernel<"),
    ("nvshmem", "name", r"(?i)nvshmem"),
    ("custom-allreduce", "name",
     r"cross_device_reduce|multimem_|(one|two)_shot_all_reduce|(?i:custom_?all_?reduce)"),
    ("aiu", "name", r"HCOLL|Rdma(Send|Recv|Receive)|\[sync="),
    ("collective-name", "name", r"(?i)allreduce|all_reduce|allgather|all_gather|reducescatter|"
                                r"reduce_scatter|alltoall|all_to_all|sendrecv|send_recv"),
    ("c10d-op", "op", r"^(_?c10d_functional|c10d|symm_mem)::"),
    ("process-group-op", "op", r"^(nccl|gloo|xccl|hccl|ucc|mpi):"),
    ("record-param-comms-op", "op", r"^record_param_comms$"),
    ("library-op", "op", r"^(oneccl_bindings_for_pytorch|pplx_kernels|_C_custom_ar)::|"
                         r"^vllm::(all_reduce|all_gather|reduce_scatter|all_to_all)"),
    ("collective-arg", "arg", "Collective name"),
    ("collgroup-arg", "arg", "CollGroup"),
]


def first_rule(by, name):
    import re
    for rid, b, pattern in COMM_RULES:
        if b == by and re.search(pattern, name):
            return rid
    return None


def int_arg(args, key):
    v = args.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


class Comm:
    """The communication rule of each piece of device work: its name, then
    the CPU slices enclosing its launch (same correlation id; without one,
    the cpu_op sharing its External id), innermost first, then for work
    launched by nothing its args' top-level keys."""

    def __init__(self, events):
        xs = x_kinds(events)
        self.launch = {}
        self.ext_op = {}
        for e, k in xs:
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            if k == "runtime" and int_arg(args, "correlation") is not None:
                self.launch.setdefault(int_arg(args, "correlation"), e)
            if k == "cpu op" and int_arg(args, "External id") is not None:
                self.ext_op.setdefault(int_arg(args, "External id"), e)
        self.parent = self.parents([e for e, k in xs])

    @staticmethod
    def parents(xs):
        """{id(event): enclosing event} per thread by time containment."""
        threads = collections.defaultdict(list)
        for e in xs:
            threads[(str(e.get("pid")), str(e.get("tid")))].append(e)
        out = {}
        for evs in threads.values():
            stack = []
            for e in sorted(evs, key=lambda e: (ns(e.get("ts", 0)), -ns(e.get("dur", 0)))):
                ts = ns(e.get("ts", 0))
                while stack and ns(stack[-1].get("ts", 0)) + max(ns(stack[-1].get("dur", 0)), 0) < ts:
                    stack.pop()
                out[id(e)] = stack[-1] if stack else None
                stack.append(e)
        return out

    def rule(self, e):
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        r = first_rule("name", str(e.get("name", "")))
        if r:
            return r
        c = int_arg(args, "correlation")
        start = self.launch.get(c) if c is not None else None
        if start is None and int_arg(args, "External id") is not None:
            start = self.ext_op.get(int_arg(args, "External id"))
        while start is not None:
            r = first_rule("op", str(start.get("name", "")))
            if r:
                return r
            start = self.parent.get(id(start))
        if c is not None and c in self.launch or int_arg(args, "External id") in self.ext_op:
            return None
        for rid, b, key in COMM_RULES:
            if b == "arg" and key in args:
                return rid
        return None


def work_items(events):
    """[(x tuple, kind, communication rule or None)] of the device work."""
    comm = Comm(events)
    return [(x_tuple(e), k, comm.rule(e)) for e, k in x_kinds(events)
            if k in KERNEL_CATS | MEMORY_CATS]


# The built-in rules as the man page lists them (first match wins); the
# communication rules decide collective before them.
BUILTIN = [
    ("memcpy", r"memcpy|memorycopy|memmove|clEnqueue(Read|Write|Copy)Buffer"),
    ("memset", r"memset|memoryfill|fillbuffer|memfill"),
    ("attention", r"flash|fmha|attention|attn|sdpa|mha_"),
    ("convolution", r"conv|winograd|implicit_?gemm|fprop|dgrad|wgrad"),
    ("gemm", r"gemm|gemv|matmul|cutlass|cublas|xmma|wgmma|Cijk_|_mm_|bmm"),
    ("normalization", r"norm|bn_fw|bn_bw|welford"),
    ("softmax", r"softmax"),
    ("reduction", r"reduce|reduction|sum_kernel|argmax|argmin|cub::"),
    ("elementwise", r"elementwise|vectorized|pointwise|triton_poi|unary|binary|activation|gelu|"
                    r"relu|silu|sigmoid|tanh|add_kernel|mul_kernel|copy|fill"),
    ("other", r"sync|barrier|index|scatter|gather|cat|embedding|sort|topk|random|philox|"
              r"dropout|arange"),
]


def builtin_category(name, comm):
    import re
    if comm:
        return "collective"
    for cat, rx in BUILTIN:
        if re.search(rx, name, re.IGNORECASE):
            return cat
    return "uncategorized"


def cmd_categories(paths):
    rep = Report()
    for path in paths:
        try:
            events, _ = load(path)
            items = work_items(events)
        except Inexact as e:
            rep.skip("%s: categories" % short(path), str(e))
            continue
        want = {cat: [0, 0] for cat in ["collective"] + [c for c, _ in BUILTIN]}
        want["uncategorized"] = [0, 0]
        devices = collections.defaultdict(int)
        rules = collections.defaultdict(collections.Counter)
        for w, _, comm in items:
            cat = builtin_category(w[0], comm)
            want[cat][0] += w[4]
            want[cat][1] += 1
            devices[w[1]] += w[4]
            rules[cat][comm or (cat + " regex" if cat != "uncategorized" else "")] += w[4]
        if not items:
            want = {}
        rows = trex_table("categories", path)
        run = runs_of([path])[0]
        keys = ["%s_%s_ns" % (run.key, run.device(pid)[1]) for pid in devices]
        cols = [k for k in (rows[0] if rows else {}) if k.startswith("rank")]
        rep.check(sorted(cols) == sorted(keys), "%s: device columns %s" % (short(path),
                  " ".join(keys)), ["got %s" % cols])
        got = {r["category"]: [int(r["total_ns"]), r["calls"]] for r in rows}
        rep.check(want == got, "%s: time and calls of the %d built-in categories (%d events)"
                  % (short(path), len(want), len(items)), diff(want, got))
        got_rules = {r["category"]: set(filter(None, r["rules"].split(", "))) for r in rows}
        want_rules = {c: set(filter(None, v)) for c, v in rules.items()}
        want_rules.update({c: set() for c in want if c not in want_rules})
        rep.check(want_rules == got_rules, "%s: the rules column names the rules that decided "
                  "each category (%s)" % (short(path), ", ".join(sorted(
                      r for v in want_rules.values() for r in v))), diff(want_rules, got_rules))
        total = sum(v[0] for v in want.values())
        shares = sum(D(r["share_pct"]) for r in rows)
        dev_got = collections.Counter()
        for r in rows:
            for k, v in r.items():
                if k.startswith("rank") and k.endswith("_ns"):
                    dev_got[k] += int(v)
        ok = (not total or abs(shares - 100) < D("0.0001")) and \
            sorted(dev_got.values()) == sorted(v for v in devices.values())
        rep.check(ok, "%s: shares add up to 100 %%, device columns to each device's time"
                  % short(path), ["shares %s" % shares, "devices want %s" % sorted(devices.values()),
                                  "got %s" % sorted(dev_got.values())])
    return rep


def trie_lookup(node, s):
    """unitrace's compiled schema: the longest prefix entry, or an exact one."""
    best, pos = None, 0
    while True:
        if "category" in node:
            best = node["category"]
        nxt = node.get("next") or {}
        if pos == len(s) and "" in nxt:
            return nxt[""].get("category", best)
        k = node.get("length", 0)
        chunk = s[pos:pos + k]
        if not k or len(chunk) < k or chunk not in nxt:
            return best
        node, pos = nxt[chunk], pos + k


def schema_names(ini_path):
    """Names made from every tag of the INI: exact, longer, shorter, spaced."""
    names = ["unknown_kernel", "x"]
    verb = None
    with open(ini_path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                verb = line.split(" if ", 1)[-1].rstrip("]").replace(" ", "")
                continue
            tag = line.split(":=")[0].strip()
            names += [tag, tag + "_k", tag[:-1], "pre_" + tag, " ".join(tag[:3]) + tag[3:]]
            if verb == "endswith":
                names.append("a::b" + tag)
    return sorted(set(n for n in names if n))


def cmd_schema(ini_path, json_path, tmpdir):
    rep = Report()
    schema = json.load(open(json_path, encoding="utf-8"))
    names = schema_names(ini_path)
    events, want = [], collections.defaultdict(int)
    for i, name in enumerate(names):
        dur = 3 + 7 * i
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                       "ts": 1000 * i, "dur": dur})
        s = name.replace(" ", "").replace("\t", "") if schema.get("ignore_spaces") else name
        cat = trie_lookup(schema["direct"], s) or trie_lookup(schema["reverse"], s[::-1]) \
            or "device"
        want[cat + "_time"] += dur * 1000
        want[cat + "_calls"] += 1
    trace = os.path.join(tmpdir, "schema_names.json")
    with open(trace, "w", encoding="utf-8") as f:
        json.dump({"traceEvents": events}, f)
    p = subprocess.run([TREX, "-q", "categories", "--schema", ini_path, "--format",
                        "unitrace-json", trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = json.loads(p.stdout.decode()) if p.returncode == 0 else {}
    got = {k: v for k, v in got.items() if v}
    rep.check(p.returncode == 0 and not p.stderr, "--schema %s loads without messages"
              % os.path.basename(ini_path), [p.stderr.decode(errors="replace")[:300]])
    rep.check(dict(want) == got, "--schema %s: %d names categorized as %s says"
              % (os.path.basename(ini_path), len(names), os.path.basename(json_path)),
              diff(dict(want), got))
    return rep


# ---- gpu time ------------------------------------------------------------------------

def union(intervals):
    """Sorted, merged (start, end) list of the intervals."""
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def length(spans):
    return sum(b - a for a, b in spans)


def intersection(x, y):
    total = 0
    for a, b in x:
        for c, d in y:
            total += max(0, min(b, d) - max(a, c))
    return total


KERNEL_GAP_NS = 30000  # HTA consecutive_kernel_delay: 30 (us)
SYNC_CALLS = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize"}


def idle_split(every, items, launches, gpu_sync, call_sync):
    """Host wait, kernel gap, sync and other time of the gaps of the union
    every (gpu-time's definitions, the man page): each gap whole to the first
    class that applies, judged by the earliest launch of the work starting at
    the gap's end."""
    out = {"idle_host_wait_ns": 0, "idle_kernel_gap_ns": 0, "idle_sync_ns": 0,
           "idle_other_ns": 0}
    for (_, g0), (g1, _) in zip(every, every[1:]):
        starts = [launches[c][3] for w, _ in items if w[3] == g1
                  for c in [w[5].get("correlation")]
                  if isinstance(c, int) and not isinstance(c, bool) and c in launches]
        launch = min(starts) if starts else None
        if launch is not None and launch > g0:
            key = "idle_host_wait_ns"
        elif launch is not None and g1 - g0 < KERNEL_GAP_NS:
            key = "idle_kernel_gap_ns"
        elif any(a < g1 and b > g0 for a, b in gpu_sync) or \
                any(a <= g0 and b >= g1 for a, b in call_sync):
            key = "idle_sync_ns"
        else:
            key = "idle_other_ns"
        out[key] += g1 - g0
    return out


def expected_gpu_time(events):
    work = [(w, "comm" if comm else "compute" if k == "kernel" else "memory")
            for w, k, comm in work_items(events)]
    launches = {}
    for r in x_events(events, RUNTIME_CATS):
        c = r[5].get("correlation")
        if isinstance(c, int) and not isinstance(c, bool):
            launches.setdefault(c, r)
    devices = collections.defaultdict(list)
    for w, cls in work:
        devices[w[1]].append((w, cls))
    gpu_sync = collections.defaultdict(list)
    for e in x_events(events, GPU_SYNC):
        gpu_sync[e[1]].append((e[3], e[3] + e[4]))
    call_sync = [(r[3], r[3] + r[4]) for r in x_events(events, RUNTIME_CATS)
                 if r[0] in SYNC_CALLS]
    out = {}
    for pid, items in devices.items():
        iv = {cls: [(w[3], w[3] + w[4]) for w, c in items if c == cls]
              for cls in ("compute", "comm", "memory")}
        every = union(iv["compute"] + iv["comm"] + iv["memory"])
        start, end = every[0][0], max(b for _, b in every)
        comm, comp = union(iv["comm"]), union(iv["compute"])
        delays, short = [], 0
        for w, _ in items:
            c = w[5].get("correlation")
            rt = launches.get(c) if isinstance(c, int) and not isinstance(c, bool) else None
            if rt:
                delays.append(w[3] - rt[3])
                short += w[4] < rt[4]
        delays.sort()
        row = {"span_ns": end - start, "busy_ns": length(every),
               "idle_ns": end - start - length(every), "compute_ns": length(comp),
               "comm_ns": length(comm), "memory_ns": length(union(iv["memory"])),
               "kernels": len(items), "launches": len(delays), "short_kernels": short,
               "overlap_pct": round(D(intersection(comm, comp) * 100) / length(comm), 4)
               if length(comm) else D(0)}
        row.update(idle_split(every, items, launches, gpu_sync[pid], call_sync))
        if delays:
            row.update({"delay_min_ns": delays[0], "delay_max_ns": delays[-1],
                        "delay_med_ns": median(delays), "delay_p95_ns": nearest_rank(delays, 95)})
        out[pid] = row
    return out


IDLE_KEYS = ("idle_host_wait_ns", "idle_kernel_gap_ns", "idle_sync_ns", "idle_other_ns")


def gpu_rows(*args):
    got = {}
    for r in trex_table("gpu-time", *args):
        row = {k: (int(v) if k != "overlap_pct" else round(D(v), 4))
               for k, v in r.items() if k not in ("rank", "device", "busy_pct", "delay_avg_ns")}
        row["delay_med_ns"] = D(r["delay_med_ns"])
        if not r["launches"]:
            for k in ("delay_min_ns", "delay_max_ns", "delay_med_ns", "delay_p95_ns"):
                del row[k]
        key = (r["rank"], r["device"])
        got[key] = row if key not in got else {"rows": "two rows %s" % (key,)}
    return got


def expected_gpu_rows(runs):
    """(rank, device label) -> the device's gpu-time row."""
    want = {}
    for run in runs:
        for pid, row in expected_gpu_time(run.events).items():
            key = (run.rank, device_label(run, pid, len(runs)))
            want[key] = row if key not in want else {"rows": "two devices %s" % (key,)}
    return want


def cmd_gpu_ranks(paths):
    rep = Report()
    want = expected_gpu_rows(runs_of(paths))
    got = gpu_rows(*paths)
    rep.check(want == got, "gpu-time over %d files: %d (rank, device) rows" % (len(paths), len(want)),
              ["%s: %s" % (k, d) for k in sorted(set(want) | set(got))
               for d in diff(want.get(k, {}), got.get(k, {}))])
    return rep


# ---- runs: files that claim one rank, file order ------------------------------------

def trex_run(*args):
    """(stdout, stderr) of trex ARGS, which must succeed."""
    p = subprocess.run([TREX, "-q", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise RuntimeError("trex %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                      p.stderr.decode(errors="replace")[:300]))
    return p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def clash_warnings(runs):
    """One stderr line per rank that several files claim."""
    lines = []
    for rank in sorted({r.rank for r in runs}):
        names = [r.name for r in runs if r.rank == rank]
        if len(names) < 2:
            continue
        who = " and ".join(names) if len(names) == 2 else \
            ", ".join(names[:-1]) + " and " + names[-1]
        lines.append("trex: warning: %s %s claim rank %d; they are shown as separate runs"
                     % (who, "both" if len(names) == 2 else "all", rank))
    return lines


def by_rank_check(rep, runs, paths):
    """--by rank: one row per file (rank, name), its kernel total."""
    want = collections.Counter((r.rank, r.name, sum(k[4] for k in x_events(r.events,
                                                                          KERNEL_CATS)))
                               for r in runs)
    want = collections.Counter({k: v for k, v in want.items() if k[2]})
    got = collections.Counter((r["rank"], r.get("file"), int(r["total_ns"]))
                              for r in trex_table("kernels", "--by", "rank", *paths))
    rep.check(want == got, "--by rank over %d files: a row per file with its kernel total"
              % len(paths), diff(dict(want), dict(got)))


def categories_check(rep, runs, paths):
    """categories: a column per device of each file, <run key>_<device key>_ns,
    in file order, adding up to the device's GPU time."""
    want = {}
    for run in runs:
        per_pid = collections.defaultdict(int)
        for w in x_events(run.events, KERNEL_CATS | MEMORY_CATS):
            per_pid[w[1]] += w[4]
        for pid in sorted(per_pid, key=int):
            want["%s_%s_ns" % (run.key, run.device(pid)[1])] = per_pid[pid]
    rows = trex_table("categories", *paths)
    got = collections.OrderedDict((k, 0) for k in (rows[0] if rows else {})
                                  if k.startswith("rank"))
    for r in rows:
        for k in got:
            got[k] += int(r[k])
    rep.check(list(got) == list(want) and dict(got) == want,
              "categories over %d files: device columns %s" % (len(paths), " ".join(want)),
              ["got %s" % list(got)] + diff(want, dict(got)))


ORDER_COMMANDS = [("kernels", "--by", "rank", "--format", "csv"),
                  ("kernels", "--per-rank", "--format", "csv"),
                  ("kernels", "--by", "device", "--format", "csv"),
                  ("kernels", "--by", "stream", "--memory", "--format", "json"),
                  ("gpu-time", "--format", "csv"), ("categories", "--format", "csv")]


def order_check(rep, paths):
    """The same outputs and warnings whatever the order of the files."""
    orders = [list(reversed(paths)), paths[1:] + paths[:1]]
    for cmd in ORDER_COMMANDS:
        first = trex_run(*cmd, *paths)
        bad = ["%s" % " ".join(os.path.basename(p) for p in o) for o in orders
               if trex_run(*cmd, *o) != first]
        rep.check(not bad, "trex %s: the same output for %d orders of the files"
                  % (" ".join(cmd), len(orders) + 1), ["differs for %s" % b for b in bad])


def cmd_runs(paths):
    rep = Report()
    runs = runs_of(paths)
    print("files in trex's order: %s" % ", ".join(
        "%s = %s" % (os.path.basename(r.path), r.label) for r in runs))
    _, err = trex_run("kernels", "--by", "rank", *paths)
    want = clash_warnings(runs)
    got = [line for line in err.splitlines() if "claim rank" in line]
    rep.check(got == want, "%d warning lines for ranks claimed by several files" % len(want),
              ["want %s" % want, "got %s" % got])
    by_rank_check(rep, runs, paths)
    per_rank_check(rep, runs, paths)
    cols = [k for k in (trex_table("kernels", *paths) or [{}])[0] if k.endswith("_total_ns")]
    want = [r.key + "_total_ns" for r in runs] if want else []
    rep.check(cols == want, "kernels: %s" % (
        "a total column per run, as files claim one rank" if want else
        "no column per rank unless asked"), ["columns %s" % cols])
    want = expected_gpu_rows(runs)
    got = gpu_rows(*paths)
    rep.check(want == got, "gpu-time over %d files: rows %s" % (len(paths), ", ".join(
        "%s" % d for _, d in sorted(want))),
        ["%s: %s" % (k, d) for k in sorted(set(want) | set(got))
         for d in diff(want.get(k, {}), got.get(k, {}))] if want != got else [])
    categories_check(rep, runs, paths)
    order_check(rep, paths)
    return rep


def cmd_gpu_time(paths):
    rep = Report()
    for path in paths:
        try:
            events, _ = load(path)
            want = expected_gpu_time(events)
        except Inexact as e:
            rep.skip("%s: gpu-time" % short(path), str(e))
            continue
        names = {runs_of([path])[0].device(pid)[0]: pid for pid in want}
        got = {names.get(dev, dev): row for (_, dev), row in gpu_rows(path).items()}
        rep.check(want == got, "%s: gpu-time of %d devices: span, busy union, idle, classes, "
                  "overlap, launch delays" % (short(path), len(want)),
                  ["%s: %s" % (pid, d) for pid in sorted(set(want) | set(got))
                   for d in diff(want.get(pid, {}), got.get(pid, {}))])
        if x_events(events, KERNEL_CATS):
            split = {pid: {k: v for k, v in row.items() if k.startswith("idle_")}
                     for pid, row in got.items()}
            sums_ok = all(sum(v for k, v in row.items() if k != "idle_ns") == row["idle_ns"]
                          for row in split.values())
            rep.check(want == got and sums_ok and bool(split),
                      "%s: idle host wait / kernel gap / sync / other of %d devices add up to "
                      "idle (%s)" % (short(path), len(split), "; ".join(
                          "%s: %s" % (pid, " ".join(str(row[k]) for k in IDLE_KEYS))
                          for pid, row in sorted(split.items()))),
                      ["%s: %s" % (pid, row) for pid, row in sorted(split.items())])
    return rep


def main(argv):
    cmds = {"kernels": cmd_kernels, "per-rank": cmd_per_rank, "shape": cmd_shape,
            "categories": cmd_categories, "gpu-time": cmd_gpu_time,
            "gpu-ranks": cmd_gpu_ranks, "runs": cmd_runs,
            "schema": lambda args: cmd_schema(*args)}
    if len(argv) < 2 or argv[1] not in cmds:
        sys.stderr.write(__doc__)
        return 2
    try:
        rep = cmds[argv[1]](argv[2:])
    except (RuntimeError, OSError, ValueError, TypeError) as e:
        print("FAIL triage.py %s: %s" % (argv[1], e))
        return 1
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
