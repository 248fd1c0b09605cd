#!/usr/bin/env python3
"""Writes the metrics fixtures of this directory (README.md says what each is).

No real unitrace -q/-k metric CSV of a current unitrace is public (the one
real file, the roofline example in shared/corpus/unitrace, is the older
style), so these follow the writer code of intel/pti-gpu (ze_metrics.h,
ze_collector.h, chromelogger.h; unitrace.md §1 and §3) byte for byte:
headers "Kernel,GlobalInstanceId,SubDeviceId,<metrics>" (-q) and
"Kernel, GlobalInstanceId, <metrics>" (-k), names quoted with their
-v shape suffix, uint metrics as integers and float ones as C++
std::to_string (%f), a blank line after each instance, idle samples as
"NoKernel(Before <kernel>)" with dummy instance ids from 1048576 on.

The values are made up, deterministically (no randomness): run
`python3 make_fixtures.py` in this directory to write the same files again.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# (name with the -v shape suffix, instance ids, start us, dur us)
K1 = "main::{lambda(auto:1)#1}[SIMD32 {4096; 1; 1} {256; 1; 1}]"
K2 = "main::{lambda(auto:1)#2}[SIMD32 {256; 1; 1} {128; 1; 1}]"
K3 = "gemm_kernel<float, 16>(float*, float const*, int)[SIMD16 {64; 64; 1} {8; 8; 1}]"
COPY = "zeCommandListAppendMemoryCopy(M2D)[4194304]"

# the trace's device work: (id, name, start offset us, dur us)
WORK = [
    (1, K1, 100.0, 20.5),
    (2, K2, 130.25, 8.0),
    (3, COPY, 150.0, 40.125),
    (4, K1, 200.0, 21.0),
    (5, K2, 230.0, 9.5),
    (6, COPY, 250.0, 39.875),
    (7, K1, 300.0, 19.75),
    (8, K2, 330.0, 8.25),
    (9, COPY, 350.0, 41.0),
    (10, K1, 400.0, 22.25),
    (11, K2, 430.0, 7.75),
    (12, K3, 500.0, 150.0),
    (13, K3, 700.0, 148.5),
]

BASE_US = 1718111111000000  # epoch microseconds, as unitrace writes them

Q_METRICS = [
    ("GpuTime[ns]", "u"),
    ("GpuCoreClocks[cycles]", "u"),
    ("AvgGpuCoreFrequencyMHz[MHz]", "u"),
    ("XVE_ACTIVE[%]", "f"),
    ("XVE_STALL[%]", "f"),
    ("XVE_THREADS_OCCUPANCY_ALL[%]", "f"),
    ("L3_BYTE_READ[bytes]", "u"),
    ("GPU_MEMORY_BYTE_READ[bytes]", "u"),
    ("QueryBeginTime[ns]", "u"),
    ("ReportReason", "u"),
]

K_METRICS = [
    ("GpuTime[ns]", "u"),
    ("GpuCoreClocks[cycles]", "u"),
    ("XVE_ACTIVE[%]", "f"),
    ("XVE_STALL[%]", "f"),
    ("L3_BYTE_READ[bytes]", "u"),
    ("QueryBeginTime[ns]", "u"),
    ("CoreFrequencyMHz[MHz]", "u"),
    ("ReportReason", "u"),
    ("StreamMarker", "u"),
]


def fmt(value, kind):
    """std::to_string of a uint64 or a float."""
    return str(int(value)) if kind == "u" else "%f" % value


def q_values(inst, sub):
    """Made-up metric values of one -q sample of instance inst."""
    return [
        20000 + inst * 137 + sub * 11,
        30000 + inst * 211 + sub * 7,
        1300 + inst,
        50.0 + inst * 1.25 + sub * 0.5,
        10.0 + inst * 0.375,
        40.0 + inst * 2.0625,
        1000000 * inst + sub * 4096,
        500000 * inst + sub * 2048,
        1000000000 + inst * 1000000 + sub,
        1,
    ]


def k_values(inst, sample):
    return [
        50000 + sample * 10,
        75000 + inst * 3 + sample,
        30.0 + sample * 12.5 + inst * 0.25,
        5.0 + sample * 0.125,
        4096 * (inst + sample + 1),
        2000000000 + inst * 100000 + sample * 50000,
        1400 + sample,
        1,
        0,
    ]


def quote(name):
    return '"' + name + '"'


def write(name, text):
    with open(os.path.join(HERE, name), "w", newline="") as f:
        f.write(text)


def trace():
    """unitrace Chrome JSON (chromelogger.h): host and device events, one
    per line, each line after the first starting with ','."""
    ev = [
        '{"ph": "M", "name": "process_name", "pid": 4242, "ts": %d.000000, '
        '"args": {"name": "HOSTnode01"}}' % BASE_US,
        '{"ph": "M", "name": "process_name", "pid": 4294967295, "ts": %d.000000, '
        '"args": {"name": "DEVICEnode01[Intel(R) Data Center GPU Max 1550] 0:41:0:0 #0"}}'
        % BASE_US,
        '{"ph": "M", "name": "thread_name", "pid": 4294967295, "tid": 4294967295, '
        '"ts": %d.000000, "args": {"name": "Thread 4243 L0 Compute Engine<0,0>"}}' % BASE_US,
    ]
    for kid, name, start, dur in WORK:
        ev.append(
            '{"ph": "X", "tid": 4243, "pid": 4242, "name": "zeCommandListAppendLaunchKernel", '
            '"cat": "cpu_op", "ts": %.6f, "dur": 2.500000, "id": 0}' % (BASE_US + start - 10))
        ev.append(
            '{"ph": "X", "tid": 4294967295, "pid": 4294967295, "name": %s, "cat": "gpu_op", '
            '"ts": %.6f, "dur": %.6f, "args": {"id": "%d"}}'
            % (json.dumps(name), BASE_US + start, dur, kid))
    return '{ "traceEvents":[\n' + "\n,".join(ev) + "\n]\n}\n"


# -q: (kernel, id, sub-devices) in the order unitrace dumps them; id 99 is in
# no trace, id 3 is a copy's in the trace (not this kernel's).
Q_INSTANCES = [
    (K1, 1, 1), (K2, 2, 1), (K1, 4, 1), (K2, 5, 2), (K1, 7, 1), (K2, 8, 1),
    (K1, 10, 1), (K2, 11, 1), (K3, 12, 1), (K3, 13, 1), (K2, 99, 1), (K1, 3, 1),
]


def q_csv(banner=True):
    out = "\n=== Device #0 Metrics ===\n" if banner else ""
    out += "\nKernel,GlobalInstanceId,SubDeviceId," + ",".join(m for m, _ in Q_METRICS) + "\n"
    for name, kid, subs in Q_INSTANCES:
        for sub in range(subs):
            vals = q_values(kid, sub)
            out += quote(name) + ",%d,%d," % (kid, sub)
            out += ",".join(fmt(v, k) for v, (_, k) in zip(vals, Q_METRICS)) + "\n"
        out += "\n"
    return out


# -k: samples per instance, idle samples (NoKernel) before some kernels
K_INSTANCES = [(K1, 1, 3), (K2, 2, 1), (K1, 4, 2), (K3, 12, 4)]


def k_csv():
    out = "\n=== Device #0 Metrics ===\n"
    out += "\nKernel, GlobalInstanceId, " + ", ".join(m for m, _ in K_METRICS) + "\n"
    dummy = 13 + 1024 * 1024
    for n, (name, kid, samples) in enumerate(K_INSTANCES):
        if n in (1, 3):  # the device was idle before these kernels
            for s in range(2):
                vals = k_values(0, s)
                out += '"NoKernel(Before %s)", %d, ' % (name, dummy)
                out += ", ".join(fmt(v, k) for v, (_, k) in zip(vals, K_METRICS)) + "\n"
            out += "\n"
        for s in range(samples):
            vals = k_values(kid, s)
            out += quote(name) + ", %d, " % kid
            out += ", ".join(fmt(v, k) for v, (_, k) in zip(vals, K_METRICS)) + "\n"
        out += "\n"
        dummy += 1
    return out


def damaged_csv():
    """q.csv with a short row, a long one, a value that is no number, a
    header without metrics and a last row cut off (no newline)."""
    lines = q_csv().split("\n")
    out = []
    for line in lines:
        if line.startswith(quote(K2) + ",5,1,"):
            line = ",".join(line.split(",")[:-3])  # short: 3 fields missing
        elif line.startswith(quote(K1) + ",7,"):
            line += ",17"  # long: one field too many
        elif line.startswith(quote(K3) + ",12,"):
            f = line.split(",")
            f[8] = "abc"  # AvgGpuCoreFrequencyMHz of 12 (the name holds 3 commas)
            line = ",".join(f)
        out.append(line)
    text = "\n".join(out).rstrip("\n") + "\n"
    # a cut last row: instance 14 of K3, its XVE_ACTIVE value half written
    text += "\n" + quote(K3) + ",14,0,20000,30000,1314,67.5"
    return text


def d_report():
    """-d of the same run: device timing and kernel properties; the last
    kernel ran in none of the trace's instances."""
    rows = {}
    for _, name, _, dur in WORK:
        base = name.rsplit("[", 1)[0]
        rows.setdefault(base, []).append(int(round(dur * 1000)))
    rows["unused_kernel"] = [1000]
    total = sum(sum(v) for v in rows.values())
    width = max(len(quote(n)) for n in rows) + 1
    out = "\n=== Device Timing Summary ===\n\n"
    out += "                Total Execution Time (ns):%21d\n" % 5000000
    out += "    Total Device Time for L0 backend (ns):%21d\n" % total
    out += "\n== L0 Backend ==\n\n"
    out += "Kernel,".rjust(width + 1) + "        Calls,            Time (ns),     Time (%),"
    out += "         Average (ns),             Min (ns),             Max (ns)\n"
    for name, durs in sorted(rows.items(), key=lambda kv: -sum(kv[1])):
        t = sum(durs)
        out += (quote(name) + ",").rjust(width + 1)
        out += "%13d,%21d,%13s,%21d,%21d,%21d\n" % (
            len(durs), t, "%f" % (t * 100.0 / total), t // len(durs), min(durs), max(durs))
    out += "\n\n=== Kernel Properties ===\n\n"
    out += "Kernel,".rjust(width + 1) + " Compiled, SIMD, Number of Arguments, SLM Per Work "
    out += "Group, Private Memory Per Thread, Spill Memory Per Thread, Register File Size Per "
    out += "Thread\n"
    props = [(K1, "JIT", "32", 3, 0, 0, 0, "128"), (K2, "JIT", "32", 1, 0, 0, 0, "128"),
             (K3, "AOT", "16", 4, 8192, 64, 256, "256")]
    for name, comp, simd, args, slm, priv, spill, grf in props:
        out += (quote(name.rsplit("[", 1)[0]) + ",").rjust(width + 1)
        out += "%9s,%5s,%20d,%19d,%26d,%24d,%30s\n" % (comp, simd, args, slm, priv, spill, grf)
    return out


def main():
    write("gemm.unitrace.json", trace())
    write("gemm.q.csv", q_csv())
    write("gemm.q-nobanner.csv", q_csv(banner=False))
    write("gemm.k.csv", k_csv())
    write("gemm.damaged.csv", damaged_csv())
    write("gemm.d.txt", d_report())


if __name__ == "__main__":
    main()
