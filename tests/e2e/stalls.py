#!/usr/bin/env python3
"""Expected findings of `trex stalls`, computed independently of trex.

Intel: unitrace's analyzeperfmetrics.py stall analysis (AnalyzeStalls,
ConstructCFG, Demangler; intel/pti-gpu tools/unitrace/scripts/metrics, as
doc/formats/unitrace.md §4 describes it) restated here: the
stall CSV read as pandas reads it (skipinitialspace), the .asm files found
by their demangled //.kernel line (longest name, then largest), addresses
added as addrasm.py does when the listing has none, and the SBID token walk
over basic blocks. One change, the one trex makes too: a block is not
entered twice (the script loops forever on a token nothing sets in a loop).
NVIDIA: the hottest SASS rows per stall_* column and the per-line sums,
from the CSV with the csv module.

Each check prints PASS/FAIL lines (tests/e2e/lib.sh turns them into TAP):

    stalls.py intel TREX_JSON DUMP_DIR TOP CSV...
    stalls.py ncu TREX_JSON TOP CSV
    stalls.py lines TREX_JSON DUMP_DIR CSV_BASELINE CSV       (compared lines)
    stalls.py same-lines TREX_JSON_A TREX_JSON_B              (two exports agree per line)
"""
import csv
import json
import os
import re
import subprocess
import sys

STALLS = ["ControlStall[Events]", "PipeStall[Events]", "SendStall[Events]", "DistStall[Events]",
          "SbidStall[Events]", "SyncStall[Events]", "InstrFetchStall[Events]", "OtherStall[Events]",
          "PSDepStall[Events]"]

failures = 0


def check(ok, what, detail=""):
    global failures
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        failures += 1
        for line in str(detail).splitlines()[:30]:
            print("    " + line)


# ---- the stall CSV ---------------------------------------------------------------------------

def read_stall_csv(path):
    """{(device, kernel): {ip: {column: count}}}, columns in file order."""
    out, columns, device, header = {}, [], 0, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"\s*=== Device #(\d+) Metrics ===\s*$", line)
            if m:
                device, header = int(m.group(1)), None
                continue
            if not line.strip():
                continue
            row = next(csv.reader([line], skipinitialspace=True))
            if row[0] == "Kernel" and "OtherStall[Events]" in row:
                header = row
                for c in row[2:]:
                    if c not in columns:
                        columns.append(c)
                continue
            rec = dict(zip(header, row))
            ip = int(rec["IP[Address]"], 16)
            cell = out.setdefault((device, rec["Kernel"]), {}).setdefault(ip, {})
            for c in header[2:]:
                cell[c] = cell.get(c, 0) + int(rec[c])
    return out, columns


# ---- the dump ----------------------------------------------------------------------------------

def demangle(name):
    """Demangler.Demangle of the script (c++filt)."""
    out = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.split("\n")[0]
    return out[18:] if "typeinfo name for" in out else name


def find_asm(dump, kernel):
    files = [dump + "/" + f for f in os.listdir(dump) if f.endswith(".asm")]
    found = []
    for f in files:
        for row in open(f):
            if row.startswith("//.kernel") and demangle(row.split()[1]) == kernel:
                found.append(f)
    if not found:
        return None
    longest = max(len(f) for f in found)
    return max(f for f in found if len(f) == longest)


def listing(asm):
    """The lines as the script sees them after adding /* [ADDR] */."""
    rows = [r.rstrip("\n") for r in open(asm)]
    ip, addressed = 0, True
    for r in rows:
        if not r.startswith("//") and "//" in r:
            if not r.startswith("/* [%08X] */ " % ip):
                addressed = False
            ip += 8 if "Compacted" in r else 16
    if addressed:
        return rows
    out, ip = [], 0
    for r in rows:
        if not r.startswith("//") and "//" in r:
            out.append("/* [%08X] */ " % ip + r)
            ip += 8 if "Compacted" in r else 16
        else:
            out.append(r)
    return out


def cfg(ins):
    """ConstructCFG: {id: (head, tail, preds)} and the blocks in order."""
    bbs, order, head, bid, preds = {}, [], None, None, []
    for addr, r in enumerate(ins):
        if re.match("// *B", r) and "Preds" in r and "Succs" in r:
            if bid is not None:
                bbs[bid] = (head, addr - 1, preds)
            head, bid = addr, r.split(" ")[1].split(":")[0].strip()
            order.append(bid)
            preds = [b.strip() for b in r.split("Preds")[1].split("{")[1].split("}")[0].split(",")
                     if b.strip()]
    if bid is not None:
        bbs[bid] = (head, len(ins) - 1, preds)
    if not bbs:
        bbs["B000"] = (0, len(ins) - 1, [])
        order = ["B000"]
    return bbs, order


def find_bb(bbs, order, addr):
    for b in order:
        if bbs[b][0] <= addr <= bbs[b][1]:
            return b
    return None


def stalled_tokens(ins):
    send = any(w in ins for w in ("load", "store", "send", "EOT"))
    toks = []
    words = ins.split("{")
    if len(words) >= 2:
        for t in words[1].split("}")[0].split(","):
            if t.startswith("$") and (not send or len(t.split(".")) > 1):
                toks.append(t)
    if not toks:
        words = ins.split("(")
        for w in words[1:]:
            group = [t for t in w.split(")")[0].split(",") if t.startswith("$")]
            toks += [t for t in group if not send or len(t.split(".")) > 1]
            if group:
                break
    return toks


def annotation(ins, i):
    return None if i is None else ins[i][3:]


def walk(ins, bbs, order, addr, source):
    """The SBID walk of AnalyzeStalls from line addr: [(cause line, Line line, File line)]."""
    want = stalled_tokens(ins[addr])
    causes, pend_line, pend_file = [], [], []
    own = {"line": True, "file": True}

    def note(i, kind, pending):
        if own[kind]:
            own[kind] = False
        for c in pending:
            c[kind] = i
        pending.clear()

    bid = find_bb(bbs, order, addr)
    queue, entered, j = [(bid, bbs[bid][0], addr - 1)], set(), 0
    while j < len(queue):
        b, start, end = queue[j]
        stop, done = start, False
        for i in range(end, start - 1, -1):
            r = ins[i]
            if want and not r.startswith("//") and "//" in r and re.match(r"/\* *\[", r):
                parts = r.split("{")
                if len(parts) > 1:
                    have = [t for t in parts[1].split("}")[0].split(",") if t.startswith("$")]
                    for t in list(want):
                        hit = any(h == t.split(".")[0] for h in have) if "." in t else \
                            any(h == t for h in have) and "sync." not in r
                        if hit:
                            want.remove(t)
                            if all(c["insn"] != i for c in causes):
                                c = {"insn": i, "line": None, "file": None}
                                causes.append(c)
                                pend_line.append(c)
                                pend_file.append(c)
            if re.match("// *Line", r):
                note(i, "line", pend_line)
            if re.match("// *File", r):
                note(i, "file", pend_file)
            if not want:
                stop, done = i, True
                break
        if done or not want:
            if source and (own["line"] or own["file"] or pend_line or pend_file):
                for i in range(stop - 1, -1, -1):
                    if re.match("// *Line", ins[i]):
                        note(i, "line", pend_line)
                    if re.match("// *File", ins[i]):
                        note(i, "file", pend_file)
                    if not (own["line"] or own["file"] or pend_line or pend_file):
                        break
            break
        for p in bbs[b][2]:
            if p in bbs and p not in entered:
                entered.add(p)
                queue.append((p, bbs[p][0], bbs[p][1]))
        j += 1
    return causes


def nearest(ins, addr, what):
    for i in range(addr - 1, -1, -1):
        if re.match("// *" + what, ins[i]):
            return i
    return None


def line_number(text):
    m = re.match(r"Line (\d+)", text or "")
    return int(m.group(1)) if m else 0


def file_path(text):
    return (text or "")[len("File"):].lstrip(":").strip() if text else ""


def expect_intel(csv_path, dump, top):
    """{(device, kernel, label): [(addr, samples, file, line, [(addr, file, line)])]}"""
    data, _ = read_stall_csv(csv_path)
    out = {}
    for (device, kernel), ips in data.items():
        asm = find_asm(dump, kernel)
        ins = listing(asm) if asm else []
        bbs, order = cfg(ins) if asm else ({}, [])
        source = any(re.match("// *Line", r) for r in ins)
        where = {}
        for i, r in enumerate(ins):
            m = re.match(r"/\* \[([0-9A-F]{8})\] \*/ ", r)
            if m and not r.startswith("//") and "//" in r:
                where[int(m.group(1), 16)] = i
        for col in STALLS:
            rows = sorted(((ip, c.get(col, 0)) for ip, c in ips.items() if c.get(col, 0) > 0),
                          key=lambda x: (-x[1], x[0]))[:top]
            found = []
            for ip, n in rows:
                i = where.get(ip)
                if i is None:
                    found.append((ip, n, "", 0, []))
                    continue
                li, fi = nearest(ins, i, "Line"), nearest(ins, i, "File")
                causes = []
                if col == "SbidStall[Events]":
                    for c in walk(ins, bbs, order, i, source):
                        m = re.match(r"/\* \[([0-9A-F]{8})\] \*/ ", ins[c["insn"]])
                        causes.append((int(m.group(1), 16), file_path(annotation(ins, c["file"])),
                                       line_number(annotation(ins, c["line"]))))
                found.append((ip, n, file_path(annotation(ins, fi)),
                              line_number(annotation(ins, li)), causes))
            if found:
                out[(device, kernel, col.split("Stall")[0].split("[")[0])] = found
    return out


# ---- trex's JSON -----------------------------------------------------------------------------

def trex_top(path, report=None):
    t = json.load(open(path))["top"]["rows"]
    out = {}
    for r in t:
        if report and os.path.basename(r["report"]) != report:
            continue
        key = (r["device"], r["kernel"], r["reason"])
        rows = out.setdefault(key, [])
        addr = int(r["address"], 16) if r["address"] != "-" else r["line"]
        if not rows or rows[-1][0] != addr or r["rank"] != len(rows):
            rows.append((addr, r["samples"], r["file"], r["line"], []))
        if r["waits_for"]:
            rows[-1][4].append((int(r["waits_for"], 16), r["waits_file"], r["waits_line"]))
    return out


def compare(want, got, what):
    for key in sorted(set(want) | set(got), key=str):
        w, g = want.get(key), got.get(key)
        check(w == g, "%s: %s / device %d / %s" % (what, key[1], key[0], key[2]),
              "expected %s\ntrex     %s" % (w, g))


def cmd_intel(args):
    js, dump, top, csvs = args[0], args[1], int(args[2]), args[3:]
    for c in csvs:
        compare(expect_intel(c, dump, top), trex_top(js, os.path.basename(c)),
                os.path.basename(c))


# ---- NVIDIA ------------------------------------------------------------------------------------

def read_ncu(path):
    """{kernel: [(addr, line, file, {reason: n}, sass)]} with addresses from the lowest."""
    kernels, kernel, header, file, line = {}, "", None, "", 0
    for row in csv.reader(l for l in open(path) if not l.startswith("==")):
        if not row:
            continue
        if row[0] in ("Kernel Name", "Function Name"):
            kernel, header = row[1], None
            continue
        if row[0] == "File Path":
            file = row[1]
            continue
        if row[0] in ("Address", "Line No", "#"):
            header = row
            continue
        rec = dict(zip(header, row))
        counts = {h[len("stall_"):]: int(v.replace(",", "")) for h, v in zip(header, row)
                  if h.startswith("stall_") and "(Not Issued)" not in h and v not in ("", "-")}
        addr = rec.get("Address", "")
        if header[0] == "Line No" and row[0]:
            line = int(row[0])
            if "Address" in header:
                continue
        if addr.startswith("0x"):
            src = [v for h, v in zip(header, row) if h == "Source"][-1].strip()
            kernels.setdefault(kernel, []).append((int(addr, 16), line, file, counts, src))
        else:
            kernels.setdefault(kernel, []).append((None, line, file, counts, ""))
    for k, rows in kernels.items():
        base = min((r[0] for r in rows if r[0] is not None), default=0)
        kernels[k] = [((r[0] - base) if r[0] is not None else None,) + r[1:] for r in rows]
    return kernels


def expect_ncu(path, top):
    out = {}
    for kernel, rows in read_ncu(path).items():
        reasons = sorted({r for row in rows for r in row[3] if r != "selected"})
        for reason in reasons:
            hot = sorted(((row[0] if row[0] is not None else row[1], row[3].get(reason, 0), row)
                          for row in rows if row[3].get(reason, 0) > 0),
                         key=lambda x: (x[0] is None, -x[1], x[0]))[:top]
            if hot:
                out[(0, kernel, reason)] = [(a, n, row[2], row[1], []) for a, n, row in hot]
    return out


def cmd_ncu(args):
    js, top, path = args[0], int(args[1]), args[2]
    compare(expect_ncu(path, top), trex_top(js, os.path.basename(path)), os.path.basename(path))


# ---- per line --------------------------------------------------------------------------------

def trex_lines(path, report=None):
    out = {}
    for r in json.load(open(path))["lines"]["rows"]:
        if report and os.path.basename(r["report"]) != report:
            continue
        out[(r["device"], r["kernel"], r["file"], r["line"])] = (r["stall_samples"],
                                                                 r["baseline_stall_samples"],
                                                                 r["change"])
    return out


def intel_line_sums(csv_path, dump):
    data, _ = read_stall_csv(csv_path)
    sums = {}
    for (device, kernel), ips in data.items():
        asm = find_asm(dump, kernel)
        ins = listing(asm) if asm else []
        where = {}
        for i, r in enumerate(ins):
            m = re.match(r"/\* \[([0-9A-F]{8})\] \*/ ", r)
            if m and not r.startswith("//") and "//" in r:
                where[int(m.group(1), 16)] = i
        for ip, c in ips.items():
            i = where.get(ip)
            f = file_path(annotation(ins, nearest(ins, i, "File"))) if i is not None else ""
            ln = line_number(annotation(ins, nearest(ins, i, "Line"))) if i is not None else 0
            n = sum(v for k, v in c.items() if k != "Active[Events]")
            key = (device, kernel, f, ln)
            sums[key] = sums.get(key, 0) + n
    return sums


def cmd_lines(args):
    js, dump, base_csv, csv_path = args
    base, now = intel_line_sums(base_csv, dump), intel_line_sums(csv_path, dump)
    compared = {k[:2] for k in base} & {k[:2] for k in now}
    want = {}
    for key in set(base) | set(now):
        n, b = now.get(key, 0), base.get(key, 0)
        if key[:2] in compared and (n or b):
            want[key] = (n, b, n - b)
    got = {k: v for k, v in trex_lines(js, os.path.basename(csv_path)).items() if k[:2] in compared}
    check(len(want) > 0, "some lines are compared")
    for key in sorted(set(want) | set(got), key=str):
        check(want.get(key) == got.get(key), "compared line %s:%d of %s" % (key[2], key[3], key[1]),
              "expected %s\ntrex     %s" % (want.get(key), got.get(key)))


def cmd_same_lines(args):
    a, b = trex_lines(args[0]), trex_lines(args[1])
    strip = lambda d: {(k[1], k[2], k[3]): v[0] for k, v in d.items()}
    check(strip(a) == strip(b), "the two exports give the same samples per source line",
          "%s\n%s" % (strip(a), strip(b)))


if __name__ == "__main__":
    {"intel": cmd_intel, "ncu": cmd_ncu, "lines": cmd_lines,
     "same-lines": cmd_same_lines}[sys.argv[1]](sys.argv[2:])
    sys.exit(1 if failures else 0)
