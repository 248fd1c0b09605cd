"""Writes tests/data/stalls/intel/stalls.csv and stalls_xe2.csv as
unitrace's --stall-sampling writer (src/levelzero/ze_metrics.h, legacy
logger) lays them out: a "=== Device #N Metrics ===" banner, "Kernel"
right-aligned to the longest quoted name of the device's .kprops (names
without samples included), the IP column padded to 11, each value padded
to its column title's width, except the last one, padded to the width of
the column two before it (the writer indexes field_sizes[size - 2]).
The counts are chosen by hand (see ../README.md).

    python3 gen_unitrace.py stalls.csv stalls_xe2.csv stalls_before.csv

stalls_before.csv: device 0 of an earlier run of the same program, for
comparisons (--compare): other counts, one line (22) hotter, one (30)
only here.
"""
import sys
PVC = ["IP[Address]","Active[Events]","ControlStall[Events]","PipeStall[Events]","SendStall[Events]",
       "DistStall[Events]","SbidStall[Events]","SyncStall[Events]","InstrFetchStall[Events]","OtherStall[Events]"]
XE2 = ["IP[Address]","Active[Events]","PSDepStall[Events]","ControlStall[Events]","PipeStall[Events]","SendStall[Events]",
       "DistStall[Events]","SbidStall[Events]","SyncStall[Events]","InstrFetchStall[Events]","OtherStall[Events]"]
def section(out, device, metrics, kprops, rows):
    # kprops: every kernel name of the device (quoted as the .kprops file holds it)
    names = ['"%s"' % k for k in kprops]
    fs = [max(len(n) for n in names), max(len("0x00000000"), len(metrics[0]))]
    out.write("\n=== Device #%d Metrics ===\n\n" % device)
    h = " " * max(fs[0] + 1 - 7, 0) + "Kernel, "
    h += " " * max(fs[1] - len(metrics[0]), 0) + metrics[0]
    for m in metrics[1:]:
        fs.append(len(m)); h += ", " + m
    out.write(h + "\n")
    n = len(metrics)
    for kname, ip, counts in rows:
        name = '"%s"' % kname
        line = " " * max(fs[0] - len(name), 0) + name + ", "
        off = "%x" % ip
        line += " " * max(fs[1] - len(off), 0) + off + ", "
        for k in range(n - 2):
            v = str(counts[k]); line += " " * max(fs[k + 2] - len(v), 0) + v + ", "
        v = str(counts[n - 2]); line += " " * max(fs[n - 2] - len(v), 0) + v + "\n"
        out.write(line)
A = "main::{lambda(auto:1)#3}"
rowsA0 = [(0x0,[2,0,0,0,0,0,0,3,0]),(0x8,[0,0,1,0,4,0,0,0,0]),(0x18,[0,0,0,0,6,0,0,0,0]),
 (0x28,[1,0,0,0,2,0,0,0,0]),(0x38,[0,0,0,9,0,0,0,0,0]),(0x48,[0,0,0,0,0,0,0,0,0]),
 (0x50,[0,0,0,7,0,0,0,0,0]),(0x60,[3,0,0,0,0,120,0,0,1]),(0x70,[0,0,0,11,0,0,0,0,0]),
 (0x88,[0,2,0,0,0,95,0,0,0]),(0x98,[0,0,0,0,3,0,0,0,0]),(0xa8,[0,14,0,0,0,0,0,0,0]),
 (0xb8,[0,0,0,0,0,60,0,0,0]),(0xd0,[0,0,0,5,0,0,0,0,0]),(0xe0,[0,0,0,0,0,210,0,0,2]),
 (0xf8,[0,9,0,0,0,0,0,0,0]),(0x108,[0,0,0,0,0,40,0,0,0]),(0x118,[0,0,0,0,0,40,0,0,0]),
 (0x130,[0,0,0,3,0,0,0,0,0]),(0x140,[0,0,0,0,0,12,0,0,0]),(0x150,[1,0,0,0,0,0,25,0,0]),
 (0x400,[0,0,0,0,0,0,0,0,4])]
rowsG = [(0x0,[1,0,0,0,0,0,0,2,0]),(0x18,[0,0,0,0,3,0,0,0,0]),(0x28,[0,0,0,6,0,0,0,0,0]),
 (0x48,[0,0,0,0,0,30,0,0,0]),(0x50,[4,0,2,0,0,80,0,0,0]),(0x60,[0,0,0,0,0,5,0,0,0]),
 (0x70,[0,0,0,0,0,44,0,0,0]),(0x80,[0,0,0,8,0,0,0,0,0]),(0x98,[0,0,0,0,0,0,17,0,0])]
out = open(sys.argv[1], "w")
section(out, 0, PVC, ["GEMM", A, "main::{lambda(auto:1)#11}"],
        [("GEMM", ip, c) for ip, c in rowsG] + [(A, ip, c) for ip, c in rowsA0])
C = "main::{lambda(auto:1)#9}"
section(out, 1, PVC, [A, C],
        [(A,0x60,[0,0,0,0,0,33,0,0,0]),(A,0xe0,[0,0,0,0,0,51,0,0,0]),(A,0x150,[0,0,0,0,0,0,6,0,0]),
         (C,0x10,[0,0,0,2,0,7,0,0,0]),(C,0x20,[0,1,0,0,0,0,0,0,0])])
out.close()
D = "main::{lambda(auto:1)#4}"
out = open(sys.argv[2], "w")
section(out, 0, XE2, [D], [(D,0x0,[1,0,0,0,4,0,0,0,0,0]),(D,0x10,[0,3,0,0,2,0,0,0,0,0]),
                           (D,0x20,[0,0,0,0,0,0,66,0,0,1]),(D,0x30,[2,5,0,0,0,0,0,0,0,0])])
out.close()
out = open(sys.argv[3], "w")
section(out, 0, PVC, [A], [(A,0x38,[0,0,0,30,0,0,0,0,0]),(A,0x60,[0,0,0,0,0,90,0,0,0]),
                           (A,0x88,[0,0,0,0,0,95,0,0,0]),(A,0xe0,[0,0,0,0,0,400,0,0,0]),
                           (A,0x130,[0,0,0,20,0,0,0,0,0])])
out.close()
