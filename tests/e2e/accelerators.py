#!/usr/bin/env python3
"""Accelerator checks, computed independently of trex from the JSON and the
compiler log with Python, following doc/formats/acelyzer.md.

Usage (from tests/e2e/accelerators.sh; TREX is the program under test):
  accelerators.py summary TRACE     acelyzer's summary: the "Cmpt Exec" slices
                                    of each pid, against trex kernels --by device
  accelerators.py ideal LOG TRACE   acelyzer's _categories table (per pid: category,
                                    kernel time, fraction, calls, ideal cycles and
                                    time, PT utilisation) against
                                    trex categories --compiler-log LOG TRACE

Prints one "PASS what" / "FAIL what" line per check (lib.sh turns them into
TAP). Durations are exact integer nanoseconds (decimal.Decimal parsing);
ideal times use acelyzer's default core clock, 1100 MHz.
"""
import collections
import decimal
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expected import Trace, category_kind  # noqa: E402
from triage import trex_table as trex_rows  # noqa: E402

D = decimal.Decimal
CORE_MHZ = 1100
SUFFIX = " Cmpt Exec"


def report(ok, what, diag=()):
    print(("PASS " if ok else "FAIL ") + what)
    for line in ([] if ok else list(diag)[:12]):
        print("  " + str(line))
    return ok


def cmpt_exec(path):
    """{pid: [(name, dur_ns)]} of the kernel slices (X or B/E) of a trace."""
    out = collections.defaultdict(list)
    for e, dur in Trace(path).slice_events():
        if category_kind(e.get("cat"), e.get("name")) == "kernel":
            out[str(e.get("pid"))].append((str(e.get("name", "")), dur))
    return out


def cmd_summary(path):
    want = sorted((len(v), sum(d for _, d in v)) for v in cmpt_exec(path).values())
    got = sorted((r["instances"], int(r["total_ns"]))
                 for r in trex_rows("kernels", "--by", "device", path))
    short = "/".join(path.split("/")[-2:])
    return report(want == got and bool(want), "%s: Cmpt Exec instances and time of each of %d "
                  "pids (acelyzer's summary)" % (short, len(want)),
                  ["want %s" % want, "got  %s" % got])


# ---- the compiler log, as acelyzer reads it (acelyzer.md §4) --------------------

DATA = re.compile(r"^[_\-a-zA-Z\d]+[ \t]+\d+[ \t]*$")


def read_log(path):
    """[(phase, {kernel event name: (category, cycles)}, [categories])], one
    per table; trex's documented reading: "Total" is the table's sum, a name
    without a category suffix is NotAvailable."""
    tables, cur, phase = [], None, "UNKN"
    for line in open(path, encoding="utf-8", errors="replace").read().split("\n"):
        line = line.rstrip("\r")
        if re.match(r"^\s+(DECODING|PREFILL)\s*$", line) or line.strip() in ("PREFILL",
                                                                               "DECODING"):
            phase = line.strip()
        elif " Ideal/Total Cycles " in line:
            cur = (phase, {}, [])
            tables.append(cur)
        elif cur is not None and "====== Perf Summary End ======" in line:
            cur = None
        elif cur is not None and DATA.match(line):
            name, cycles = line.split()[0], int(line.split()[1])
            if name == "Total" or re.search("Precompute|-LxPreload", name):
                continue
            parts = re.split(r"(-opCat|-NA$)", name)
            kernel = parts[0] + SUFFIX
            cat = parts[-1] if len(parts) > 1 and parts[1] == "-opCat" else "NotAvailable"
            if kernel not in cur[1]:
                cur[1][kernel] = (cat, cycles)
                if cat not in cur[2]:
                    cur[2].append(cat)
    return tables


def expected_ideal(log, path):
    """{pid: {category: (time_ns, calls, cycles)}} per acelyzer.md §3."""
    tables = read_log(log)
    out = {}
    for pid, kernels in cmpt_exec(path).items():
        names = [n if n.endswith(SUFFIX) else n + SUFFIX for n, _ in kernels]
        hits = [sum(n in t[1] for n in names) for t in tables]
        phase, table, cats = tables[hits.index(max(hits))]
        rows = {c: [0, 0, 0] for c in ["Total", "StcdpHbm", "other"] + cats}
        for name, (_, dur) in zip(names, kernels):
            cat, cycles = table.get(name, ("other", 0))
            if cycles * 1000 > dur * CORE_MHZ:  # ideal longer than the run: dropped
                cycles = 0
            for c in (cat, "Total"):
                rows[c][0] += dur
                rows[c][1] += 1
                rows[c][2] += cycles
        out[pid] = (phase, rows)
    return out


def close(a, b):
    return abs(D(a) - D(b)) <= D("1e-6") * max(1, abs(D(b)))


def cmd_ideal(log, path):
    want = expected_ideal(log, path)
    rows = trex_rows("categories", "--compiler-log", log, path)
    got = collections.defaultdict(dict)
    phases = collections.defaultdict(set)
    for r in rows:
        got[r["device"]][r["category"]] = (int(r["kernel_ns"]), r["calls"], r["ideal_cycles"])
        phases[r["device"]].add(r["phase"])
    short = "/".join(path.split("/")[-2:])
    want_rows = sorted((phase, sorted((c, tuple(v)) for c, v in rows_.items()))
                       for phase, rows_ in want.values())
    got_rows = sorted((",".join(sorted(phases[d])), sorted(v.items())) for d, v in got.items())
    report(want_rows == got_rows, "%s with %s: per pid, its phase and each category's time, "
           "calls and ideal cycles (%d pids)" % (short, os.path.basename(log), len(want)),
           ["want %s" % want_rows, "got  %s" % got_rows])
    # the derived columns, row by row
    derived = []
    for r in rows:
        dev = got[r["device"]]
        total_ns, _, total_cyc = dev["Total"]
        t, _, cyc = dev[r["category"]]
        ideal = D(cyc) * 1000 / CORE_MHZ
        checks = {"time_pct": D(t) * 100 / total_ns if total_ns else 0,
                  "ideal_ns": ideal,
                  "ideal_pct": D(cyc) * 100 / total_cyc if total_cyc else 0,
                  "pt_util_pct": ideal * 100 / t if t else 0}
        derived += ["%s %s: %s %s, want %s" % (r["device"], r["category"], k, r[k], v)
                    for k, v in checks.items() if not close(r[k], v)]
    report(not derived, "%s with %s: fractions, ideal time at %d MHz and PT utilisation"
           % (short, os.path.basename(log), CORE_MHZ), derived)
    order = [(r["device"], r["category"]) for r in rows]
    ends = [order[i][1] == "Total" for i in range(len(order))
            if i + 1 == len(order) or order[i + 1][0] != order[i][0]]
    report(all(ends) and bool(ends), "%s with %s: each device's rows end with its Total"
           % (short, os.path.basename(log)), [str(order)])


def main(argv):
    cmds = {"summary": lambda a: cmd_summary(*a), "ideal": lambda a: cmd_ideal(*a)}
    if len(argv) < 2 or argv[1] not in cmds:
        sys.stderr.write(__doc__)
        return 2
    try:
        cmds[argv[1]](argv[2:])
    except (RuntimeError, OSError, ValueError, KeyError) as e:
        print("FAIL accelerators.py %s: %s" % (argv[1], e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
