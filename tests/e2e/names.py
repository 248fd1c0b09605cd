#!/usr/bin/env python3
"""Names with NUL and control characters in trex's text, CSV and JSON output.

  names.py TRACE KERNELS_TEXT KERNELS_CSV KERNELS_JSON INFO_TEXT INFO_JSON

The expected names come from the trace itself (json.load), the expected text
form from the rule documented in trex(1) ("Names"), written here again from
the documentation rather than from trex's code: a backslash is \\\\, NUL \\0,
tab \\t, newline \\n, carriage return \\r, other C0 controls and DEL \\xHH,
C1 controls (U+0080-U+009F) \\u00HH. Prints PASS/FAIL lines (tests/e2e/lib.sh).
"""

import csv
import io
import json
import sys

NAMED = {"\\": "\\\\", "\0": "\\0", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def shown(name):
    out = []
    for ch in name:
        o = ord(ch)
        if ch in NAMED:
            out.append(NAMED[ch])
        elif o < 0x20 or o == 0x7F:
            out.append("\\x%02x" % o)
        elif 0x80 <= o <= 0x9F:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    return "".join(out)


def raw_controls(data):
    """Bytes a terminal would act on: C0 (but the line ends), DEL, C1 in UTF-8."""
    text = data.decode("utf-8", errors="replace")
    return sorted({"%#x" % ord(c) for c in text
                   if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F})


def report(ok, what, detail=""):
    print(("PASS " if ok else "FAIL ") + what)
    if not ok and detail:
        for line in str(detail).splitlines():
            print("  " + line)


def text_column(data, title):
    """The values of the last column (left-aligned, under title) of a text table."""
    lines = data.decode("utf-8").split("\n")
    head = next(i for i, l in enumerate(lines) if l.rstrip().endswith(title))
    at = lines[head].rindex(title)
    rows = []
    for line in lines[head + 2:]:
        if not line.strip():
            break
        rows.append(line[at:])
    return rows


def main(argv):
    trace, ktext, kcsv, kjson, itext, ijson = argv
    with open(trace, "rb") as f:
        events = json.loads(f.read().decode("utf-8"), strict=False)["traceEvents"]
    kernels = sorted(e["name"] for e in events if e.get("cat") == "kernel")
    cats = sorted({e["cat"] for e in events if e.get("ph") == "X"})
    meta = sorted(e["args"]["name"] for e in events if e.get("ph") == "M")
    outs = {p: open(p, "rb").read() for p in (ktext, kcsv, kjson, itext, ijson)}

    report(len(set(kernels)) == len(kernels) == 7, "the trace has 7 distinct kernel names")
    got = sorted(text_column(outs[ktext], "Name"))
    want = sorted(shown(k) for k in kernels)
    report(got == want, "kernels text: every name whole and escaped, one row each "
           "(a\\0b and a\\0c apart, \\\\x1b apart from \\x1b)", "got  %r\nwant %r" % (got, want))
    rows = list(csv.DictReader(io.StringIO(outs[kcsv].decode("utf-8"), newline="")))
    got = sorted(r["name"] for r in rows)
    report(got == want, "kernels CSV: the text form of every name, one line per row",
           "got  %r\nwant %r" % (got, want))
    report(outs[kcsv].count(b"\n") == len(kernels) + 1, "kernels CSV: a row is one line")
    doc = json.loads(outs[kjson])
    got = sorted(r["name"] for r in doc["rows"])
    report(got == kernels, "kernels JSON: every name exactly as in the trace (NUL as \\u0000)",
           "got  %r\nwant %r" % (got, kernels))
    report(b"\\u0000" in outs[kjson] and b"\\u009b" in outs[kjson] and b"\\u007f" in outs[kjson],
           "kernels JSON: NUL, C1 and DEL as \\u escapes")

    info = json.loads(outs[ijson])
    got = sorted(r["category"] for r in info["categories"]["rows"])
    report(got == cats, "info JSON: categories exactly as in the trace", "got %r" % got)
    tracks = info["tracks"]["rows"]
    got = sorted([r["track"] for r in tracks if "\x1b" in r["track"]] +
                 [r["process"].rsplit(" (", 1)[0] for r in tracks if "\x1b" in r["process"]])
    report(got == meta, "info JSON: process and thread names exactly as in the trace",
           "got %r want %r" % (got, meta))
    got = sorted(text_column(outs[itext], "Category"))
    report(got == sorted(shown(c) for c in cats), "info text: categories escaped",
           "got %r" % got)
    for path in (ktext, kcsv, kjson, itext, ijson):
        bad = raw_controls(outs[path])
        report(not bad, "%s: no raw control character" % path.rsplit("/", 1)[-1], bad)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
