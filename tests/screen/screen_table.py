#!/usr/bin/env python3
"""Reads what a screen dump (trex --dump-screen) shows, for the screen tests.

  screen_table.py row SCREEN N TITLE          the cell under column TITLE of the
                                              N-th (1-based) row of the table shown
  screen_table.py cell SCREEN KEY VALUE TITLE the cell under TITLE of the first row
                                              whose KEY cell is VALUE
  screen_table.py rows SCREEN                 how many rows the table shows
  screen_table.py covers SCREEN T0 T1         exit 0 when the timeline's visible
                                              range (first status row, "A .. B")
                                              holds [T0, T1] (ns) and is at most
                                              three times as long, to the precision
                                              shown
  screen_table.py selected SCREEN T           exit 0 when the selected slice (last
                                              row, "start T") starts at T (ns), to
                                              the precision shown
  screen_table.py near WANT_NS TEXT [SLACK]   exit 0 when the duration TEXT
                                              ("16.654 ms") shows WANT_NS as rounded
                                              for display (4 significant digits or
                                              3 decimals, whichever is coarser), or
                                              within SLACK ns more

Columns are told apart as the table view draws them: two or more blanks
between cells, one blank inside a cell ("16.654 ms", "Step time"), each
cell under the title it overlaps; a sort mark (a triangle) after a title
is dropped. Anything not found: exit 1.
"""
import re
import sys

UNITS = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "ms": 10**6, "s": 10**9}
DURATION = re.compile(r"^(-?[0-9]+(?:\.[0-9]+)?) ?(ns|us|\u00b5s|ms|s)$")


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def spans(line):
    """(start, end, text) of each cell: two or more blanks between cells,
    except between a number and its unit, which durations pad to line up
    their units ("32.82  ms" under "32.935 ms")."""
    out = []
    for m in re.finditer(r"\S+(?: \S+)*", line):
        if out and m.group(0) in UNITS and re.search(r"[0-9]$", out[-1][2]):
            a, _, text = out.pop()
            out.append((a, m.end(), text + " " + m.group(0)))
        else:
            out.append((m.start(), m.end(), m.group(0)))
    return out


def table(path):
    """(titles, rows) of the table view (the title row is the second line);
    each cell goes to the column whose title it overlaps most (or is
    nearest to), so an empty cell stays empty."""
    ls = lines(path)
    heads = spans(ls[1])
    titles = [t.rstrip("\u25bc\u25b2") for _, _, t in heads]
    rows = []
    for line in ls[2:-2]:
        if not line.strip():
            break
        row = [""] * len(heads)
        for a, b, text in spans(line):
            def score(h):
                return min(b, h[1]) - max(a, h[0])
            best = max(range(len(heads)), key=lambda i: score(heads[i]))
            row[best] = (row[best] + "  " + text).strip()
        rows.append(row)
    return titles, rows


def column(titles, title):
    if title not in titles:
        sys.exit("no column %r in %s" % (title, titles))
    return titles.index(title)


def ns_of(text):
    m = DURATION.match(text.strip())
    if not m:
        return None
    return float(m.group(1)) * UNITS[m.group(2)]


def shown_step(ns_value, text):
    """The rounding step the display may have used for text's number."""
    m = DURATION.match(text.strip())
    decimals = len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
    unit = UNITS[m.group(2)]
    return max(unit / 10**decimals, abs(ns_value) / 10**4, 1)


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd in ("row", "cell", "rows"):
        titles, rows = table(argv[2])
        if cmd == "rows":
            print(len(rows))
            return 0
        if cmd == "row":
            n, col = int(argv[3]), column(titles, argv[4])
            row = rows[n - 1] if 0 < n <= len(rows) else None
        else:
            key, col = column(titles, argv[3]), column(titles, argv[5])
            row = next((r for r in rows if len(r) > key and r[key] == argv[4]), None)
        if row is None or len(row) != len(titles):
            return 1
        print(row[col])
        return 0
    if cmd == "covers":
        m = re.match(r"\s*(\S+ \S+) \.\. (\S+ \S+) ", lines(argv[2])[-2])
        t0, t1 = float(argv[3]), float(argv[4])
        if not m or ns_of(m.group(1)) is None or ns_of(m.group(2)) is None:
            return 1
        lo, hi = ns_of(m.group(1)), ns_of(m.group(2))
        slack = shown_step(lo, m.group(1)) + shown_step(hi, m.group(2))
        return 0 if lo <= t0 + slack and hi >= t1 - slack and hi - lo <= 3 * (t1 - t0) + slack \
            else 1
    if cmd == "selected":
        m = re.search(r" start (\S+ \S+)", lines(argv[2])[-1])
        want = float(argv[3])
        return 0 if m and ns_of(m.group(1)) is not None and \
            abs(ns_of(m.group(1)) - want) <= shown_step(want, m.group(1)) else 1
    if cmd == "near":
        want, text = float(argv[2]), argv[3]
        slack = float(argv[4]) if len(argv) > 4 else 0
        got = ns_of(text)
        return 0 if got is not None and abs(got - want) <= shown_step(want, text) + slack else 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
