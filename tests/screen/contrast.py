#!/usr/bin/env python3
"""Legibility of a screen captured with `tmux capture-pane -p -e`.

    contrast.py check FILE            every visible character reads
    contrast.py tint BEFORE AFTER     AFTER is BEFORE under a tint that hides nothing
    contrast.py session DIR WHAT      PASS/FAIL lines for the captures of one
                                      session of contrast.sh in DIR

The capture is parsed as a stream of SGR escapes (the state carries across
lines, as tmux writes it). A character is visible unless it is a blank. Its
foreground and background are taken after reverse video swaps them; a
colour is an xterm palette index, DF (the terminal's own foreground) or DB
(its own background).

The rule, for dark and light terminals alike (trex-theme(5), LEGIBILITY):
  - DF on DB: reads (the terminal sees to it);
  - a colour on DB: fails when the colour could be the terminal's background,
    i.e. near black (every channel <= 64) or near white (every channel >= 190);
  - DF on a colour: fails (the terminal's foreground may be black or white,
    so nothing is known about it against a colour);
  - a colour on a colour: fails when they are the same index, closer than 64
    in RGB distance, or closer than 40 in luminance (black on blue).
The palette is xterm's, as trex's theme code assumes; bold does not change a
colour (terminals differ on whether bold brightens).
"""
import re
import sys

SGR = re.compile(r"\x1b\[([0-9;:]*)m")
OTHER_ESC = re.compile(r"\x1b[^\[]|\x1b\[[0-9;:?]*[A-Za-ln-z]")


def palette(i):
    base = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205),
            (0, 205, 205), (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0),
            (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]
    if i < 16:
        return base[i]
    if i < 232:
        lv = [0, 95, 135, 175, 215, 255]
        i -= 16
        return (lv[i // 36], lv[i // 6 % 6], lv[i % 6])
    v = 8 + 10 * (i - 232)
    return (v, v, v)


def extreme(c):
    rgb = palette(c)
    return max(rgb) <= 64 or min(rgb) >= 190


def luma(c):
    r, g, b = palette(c)
    return (2126 * r + 7152 * g + 722 * b) // 10000


def close(a, b):
    pa, pb = palette(a), palette(b)
    d2 = sum((x - y) ** 2 for x, y in zip(pa, pb))
    return a == b or d2 < 64 * 64 or abs(luma(a) - luma(b)) < 40


class State:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg, self.bg = "DF", "DB"
        self.attrs = set()

    def apply(self, params):
        codes = [p for p in re.split("[;]", params)] if params else ["0"]
        i = 0
        while i < len(codes):
            c = codes[i].split(":")[0]
            n = int(c) if c else 0
            if n == 0:
                self.reset()
            elif n in (1, 2, 3, 4, 5, 7, 8, 9):
                self.attrs.add(n)
            elif n == 22:
                self.attrs -= {1, 2}
            elif n in (23, 24, 25, 27, 28, 29):
                self.attrs.discard(n - 20)
            elif 30 <= n <= 37:
                self.fg = n - 30
            elif 90 <= n <= 97:
                self.fg = n - 90 + 8
            elif n == 39:
                self.fg = "DF"
            elif 40 <= n <= 47:
                self.bg = n - 40
            elif 100 <= n <= 107:
                self.bg = n - 100 + 8
            elif n == 49:
                self.bg = "DB"
            elif n in (38, 48):
                if codes[i + 1] == "5":
                    v = int(codes[i + 2])
                    i += 2
                else:  # 2;r;g;b: trex never writes direct colour
                    v = ("rgb", codes[i + 2], codes[i + 3], codes[i + 4])
                    i += 4
                if n == 38:
                    self.fg = v
                else:
                    self.bg = v
            i += 1


def cells(path):
    """[(row, col, char, fg, bg, attrs)] of a capture, fg/bg as stored."""
    text = open(path, encoding="utf-8", errors="replace").read()
    st = State()
    out = []
    for row, line in enumerate(text.split("\n")):
        col, pos = 0, 0
        while pos < len(line):
            m = SGR.match(line, pos)
            if m:
                st.apply(m.group(1))
                pos = m.end()
                continue
            m = OTHER_ESC.match(line, pos)
            if m:
                pos = m.end()
                continue
            out.append((row, col, line[pos], st.fg, st.bg, frozenset(st.attrs)))
            col += 1
            pos += 1
    return out


def shown(fg, bg, attrs):
    """Foreground and background as seen (reverse video swaps them)."""
    if 7 in attrs:
        return bg, fg
    return fg, bg


def problem(ch, fg, bg, attrs):
    if ch in " \u00a0" or 8 in attrs:
        return None
    f, b = shown(fg, bg, attrs)
    if isinstance(f, tuple) or isinstance(b, tuple):
        return "direct colour"
    if f in ("DF", "DB") and b in ("DF", "DB"):
        return None
    if b == "DB" or f == "DB":
        c = f if b == "DB" else b
        return "%s could be the terminal's background" % c if extreme(c) else None
    if f == "DF" or b == "DF":
        return "the terminal's foreground on colour %s" % (b if f == "DF" else f)
    return "%s on %s" % (f, b) if close(f, b) else None


def check(path, out=print):
    bad = []
    count = 0
    for row, col, ch, fg, bg, attrs in cells(path):
        if ch in " \u00a0":
            continue
        count += 1
        why = problem(ch, fg, bg, attrs)
        if why:
            bad.append("row %d col %d %r: %s" % (row, col, ch, why))
    if count == 0:
        out("no visible characters")
        return 1
    for b in bad[:20]:
        out(b)
    if bad:
        out("%d of %d characters unreadable" % (len(bad), count))
        return 1
    out("%d characters, all readable" % count)
    return 0


def tint(before_path, after_path, out=print):
    """Rows 2.. (the body, as long as both show it): every cell that changed
    keeps its character, and a cell with a colour background keeps it."""
    before = {(r, c): (ch, fg, bg, a) for r, c, ch, fg, bg, a in cells(before_path)}
    after = {(r, c): (ch, fg, bg, a) for r, c, ch, fg, bg, a in cells(after_path)}
    # the body: the rows under the axis with the names' separator; the
    # statistics pane takes rows from the bottom, and the rows may scroll
    # to keep the cursor's in view: after's row r is before's row r + k
    sep = next(c for c in range(400) if before.get((2, c), ("\0",))[0] in "\u2502|")

    def names(cells_of):
        rows = {}
        for r in sorted({r for r, _ in cells_of}):
            if r >= 2 and cells_of.get((r, sep), ("\0",))[0] in "\u2502|":
                rows[r] = "".join(cells_of.get((r, c), (" ",))[0] for c in range(sep))
        return rows

    nb, na = names(before), names(after)
    shifts = [k for k in range(-40, 41)
              if all(nb.get(r + k) == name for r, name in na.items())]
    if not shifts:
        out("the rows of the two screens do not line up")
        return 1
    k = shifts[0]
    body = sorted(na)
    changed, bad = 0, []
    for r in body:
        for c in range(sep + 1, 400):
            if (r + k, c) not in before or (r, c) not in after:
                continue
            b, a = before[(r + k, c)], after[(r, c)]
            if b == a:
                continue
            changed += 1
            if b[0] != a[0]:
                bad.append("row %d col %d: %r became %r" % (r, c, b[0], a[0]))
            elif b[2] != "DB" and 7 not in b[3] and a[2] != b[2]:
                bad.append("row %d col %d %r: background %s became %s" % (r, c, b[0], b[2], a[2]))
            elif b[0] != " " and 7 not in b[3] and a[2] == b[2] and 4 not in a[3]:
                bad.append("row %d col %d %r: neither tinted nor underlined" % (r, c, b[0]))
    for b in bad[:20]:
        out(b)
    if changed == 0:
        out("the range changed nothing in rows %s" % body)
        return 1
    out("%d cells tinted in %d rows, %d hidden" % (changed, len(body), len(bad)))
    return 1 if bad else 0


SESSION = [("timeline", "the timeline"), ("before", "three slices on, one selected"),
           ("range", "a marked range and its statistics"), (None, "the range tints and hides nothing"),
           ("details", "the details pane"), ("view2", "the kernels table"),
           ("view4", "the categories table"), ("view6", "the GPU time table"),
           ("help", "the help screen")]


def session(d, what):
    """One PASS/FAIL line per capture of a contrast.sh session (a missing
    capture fails), the reasons indented under a failure."""
    for name, desc in SESSION:
        lines = []
        try:
            if name is None:
                status = tint(d + "/before", d + "/range", lines.append)
            else:
                status = check(d + "/" + name, lines.append)
        except OSError as e:  # no capture: the session broke off before it
            status, lines = 1, [str(e)]
        if status == 0:
            print("PASS %s: %s (%s)" % (what, desc, lines[-1]))
        else:
            print("FAIL %s: %s" % (what, desc))
            for line in lines:
                print("  " + line)


if __name__ == "__main__":
    if sys.argv[1] == "check":
        sys.exit(check(sys.argv[2]))
    if sys.argv[1] == "session":
        sys.exit(session(sys.argv[2], sys.argv[3]))
    sys.exit(tint(sys.argv[2], sys.argv[3]))
