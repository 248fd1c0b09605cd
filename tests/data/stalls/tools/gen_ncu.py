"""Writes tests/data/stalls/nvidia/{sass,sass_2022,cuda_sass,cuda}.csv in
the layouts of Nsight Compute's source page exported as CSV (`ncu --import
R.ncu-rep --page source --csv --print-source sass|cuda,sass|cuda`), as
public scripts that read real exports show them (../README.md): a
"Kernel Name" (sass) or "File Path" + "Function Name" (cuda, cuda,sass)
row, the header, every field quoted, counts with thousands separators in
newer versions, "-" where a column does not apply, the stall_* columns
and their "(Not Issued)" twins, totals "Warp Stall Sampling (All
Samples)" (2022: "(All Cycles)"). The SASS, addresses and counts are
chosen by hand; src/vadd.cu is the source they stand for.

    python3 gen_ncu.py .    (run in tests/data/stalls/nvidia)
"""
import csv, io, sys
REASONS = ["barrier","branch_resolving","dispatch","drain","imc","lg","long_sb","math","membar","mio",
           "misc","no_inst","not_selected","selected","short_sb","sleep","tex","wait"]
NI = [r if r != "sleep" else "sleeping" for r in REASONS]
def header(first, total_name):
    h = first + [total_name, total_name.replace("All", "Not-issued"), "# Samples", "Instructions Executed",
                 "Thread Instructions Executed", "Predicated-On Thread Instructions Executed",
                 "Avg. Threads Executed", "Avg. Predicated-On Threads Executed", "Divergent Branches",
                 "Address Space", "Access Operation", "Access Size", "L1 Tag Requests Global",
                 "L2 Theoretical Sectors Global Excessive", "L2 Theoretical Sectors Global",
                 "L2 Theoretical Sectors Global Ideal"]
    return h + ["stall_" + r for r in REASONS] + ["stall_%s (Not Issued)" % r for r in NI]
def num(v, grouped):
    return "{:,}".format(v) if grouped else str(v)
def metrics(stalls, executed, grouped=False, space="-", op="-", size="-"):
    # stalls: dict reason -> samples; not-issued = all but 'selected'
    total = sum(stalls.values())
    ni = {r: v for r, v in stalls.items() if r != "selected"}
    vals = [num(total, grouped), num(sum(ni.values()), grouped), num(total, grouped), num(executed, grouped),
            num(executed * 32, grouped), num(executed * 32, grouped), "32", "32", "0", space, op, size,
            "0", "0", "0", "0"]
    vals += [num(stalls.get(r, 0), grouped) for r in REASONS]
    vals += [num(ni.get(r, 0), grouped) for r in REASONS]
    return vals
BASE = 0x7f3a1c000000
VADD = [  # offset, SASS, line, stalls
 (0x00, "IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ", 4, {"dispatch": 2, "no_inst": 5}),
 (0x10, "S2R R0, SR_CTAID.X ", 5, {"short_sb": 3, "selected": 1}),
 (0x20, "S2R R3, SR_TID.X ", 5, {"short_sb": 1}),
 (0x30, "IMAD R0, R0, c[0x0][0x0], R3 ", 5, {"short_sb": 40, "wait": 4, "selected": 2}),
 (0x40, "ISETP.GE.AND P0, PT, R0, c[0x0][0x178], PT ", 6, {"wait": 6, "selected": 1}),
 (0x50, "@P0 EXIT ", 6, {"branch_resolving": 3}),
 (0x60, "IMAD.MOV.U32 R7, RZ, RZ, 0x4 ", 7, {"selected": 1}),
 (0x70, "ULDC.64 UR4, c[0x0][0x118] ", 7, {"not_selected": 2}),
 (0x80, "IMAD.WIDE R2, R0, R7, c[0x0][0x160] ", 7, {"math": 3, "selected": 1}),
 (0x90, "IMAD.WIDE R4, R0, R7, c[0x0][0x168] ", 7, {"wait": 5}),
 (0xa0, "LDG.E R2, [R2.64] ", 7, {"lg": 12, "selected": 1}),
 (0xb0, "LDG.E R5, [R4.64] ", 7, {"lg": 9, "mio": 1}),
 (0xc0, "IMAD.WIDE R6, R0, R7, c[0x0][0x170] ", 7, {"wait": 2}),
 (0xd0, "FADD R9, R2, R5 ", 7, {"long_sb": 1234, "selected": 3, "not_selected": 1}),
 (0xe0, "STG.E [R6.64], R9 ", 7, {"drain": 25, "lg": 4}),
 (0xf0, "EXIT ", 8, {"drain": 7}),
 (0x100, "BRA 0x7f3a1c000100", 8, {}),
]
SOFTMAX = [
 (0x00, "MOV R1, c[0x0][0x28] ", 0, {"no_inst": 1}),
 (0x10, "S2R R0, SR_TID.X ", 0, {"short_sb": 17}),
 (0x20, "BAR.SYNC.DEFER_BLOCKING 0x0 ", 0, {"barrier": 2048, "selected": 2}),
 (0x30, "MUFU.EX2 R3, R2 ", 0, {"mio": 3, "short_sb": 250}),
 (0x40, "EXIT ", 0, {}),
]
SRC = {4: "{", 5: "    int i = blockIdx.x * blockDim.x + threadIdx.x;", 6: "    if (i < n)",
       7: "        c[i] = a[i] + b[i];", 8: "}"}
VNAME = "vadd(const float *, const float *, float *, int)"
SNAME = "void softmax<float>(const float *, float *, int)"
def w(out, rows):
    wr = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for r in rows: wr.writerow(r)
# --print-source sass (newer ncu: "All Samples", thousands separators)
def sass(path, total_name, grouped, prof):
    out = open(path, "w")
    if prof: out.write("==PROF== Connected to process 31337 (/home/dev/vadd)\n")
    for name, base, ins in ((VNAME, BASE, VADD), (SNAME, BASE + 0x4000, SOFTMAX)):
        rows = [["Kernel Name", name], header(["Address", "Source"], total_name)]
        for off, text, line, st in ins:
            rows.append(["0x%x" % (base + off), "      " + text] + metrics(st, 4096 if off < 0x60 else 3072, grouped,
                          "global" if "G.E" in text else "-", "load" if "LDG" in text else "store" if "STG" in text else "-",
                          "32" if ".E" in text else "-"))
        w(out, rows)
    out.close()
sass(sys.argv[1] + "/sass.csv", "Warp Stall Sampling (All Samples)", True, True)
sass(sys.argv[1] + "/sass_2022.csv", "Warp Stall Sampling (All Cycles)", False, False)
# --print-source cuda,sass
out = open(sys.argv[1] + "/cuda_sass.csv", "w")
rows = [["File Path", "/build/ci/src/vadd.cu"], ["Function Name", VNAME],
        header(["Line No", "Source", "Address", "Source"], "Warp Stall Sampling (All Samples)")]
for line in range(1, 9):
    ins = [x for x in VADD if x[2] == line]
    agg = {}
    for _, _, _, st in ins:
        for r, v in st.items(): agg[r] = agg.get(r, 0) + v
    text = open(sys.argv[1] + "/src/vadd.cu").read().split("\n")[line - 1]
    if not ins:
        rows.append([str(line), text, "-", "-"] + ["-"] * (len(rows[2]) - 4)); continue
    rows.append([str(line), text, "-", "-"] + metrics(agg, 4096 * len(ins), True))
    for off, t, _, st in ins:
        rows.append(["", "", "0x%x" % (BASE + off), t] + metrics(st, 4096, True))
w(out, rows); out.close()
# --print-source cuda: the source lines only
out = open(sys.argv[1] + "/cuda.csv", "w")
rows = [["File Path", "/build/ci/src/vadd.cu"], ["Function Name", VNAME],
        header(["Line No", "Source"], "Warp Stall Sampling (All Samples)")]
for line in range(1, 9):
    agg = {}
    for _, _, l, st in VADD:
        if l == line:
            for r, v in st.items(): agg[r] = agg.get(r, 0) + v
    text = open(sys.argv[1] + "/src/vadd.cu").read().split("\n")[line - 1]
    rows.append([str(line), text] + (metrics(agg, 4096, True) if agg else ["-"] * (len(rows[2]) - 2)))
w(out, rows); out.close()
