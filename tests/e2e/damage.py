#!/usr/bin/env python3
"""Damaged variants of real traces and what trex must salvage (issue 10).

  damage.py TMPDIR FILE...

For each trace, Python lays out its bytes (every event's span, the events
array's brackets, the top-level object's structure) and makes variants:

  top      a structural byte of the top-level object (a brace, bracket,
           colon, comma or key quote outside the events, the first byte,
           a letter of "traceEvents") replaced by another byte;
  sep      the ',' between two events replaced by another byte;
  stray    a byte inserted between two events;
  comma2   a ',' doubled;  comma0  a ',' deleted;
  value    one event's ts, dur, pid, tid or ph given the wrong type;
  ts-digit one event's epoch-like ts losing its first digit (a time outlier);
  brace    one event's closing '}' deleted;
  quote    a '"' inside one event replaced by 'x';
  gzip     (gzip sources) the file cut inside its gzip header, and a
           two-member gzip of it cut inside its second member.

Each variant goes through `trex info --format json` (-j1, and -j2 for every
fourth, which must give the same phases, counters and examples) and
`--strict`. Python counts the intact events: all but those whose bytes
were damaged (for a cut gzip, those wholly in what inflate still decodes).
Checks, per variant: exit 0 (a header-cut gzip: exit 2 saying "truncated
gzip header"), no crash or sanitizer report; every intact event loaded
(phase by phase; issue 10 asks for 99%); the damage reported on stderr with the
file, byte offset and a line:col that matches the offset; --strict exits 2
with a positioned message. The distribution of recovery (min, median, max)
is printed. TREX_E2E_QUICK=1 makes fewer variants of fewer files.
"""

import json
import os
import random
import re
import statistics
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expected as ex  # noqa: E402  (shared helpers: trex runs, JSON tables)

WS = b" \t\r\n"
REPLACEMENTS = [b"x", b"\x00", b"]", b"}", b"{", b'"', b",", b":", b"[", b" "]
QUICK = ex.QUICK
BIG = 4 << 20  # decoded bytes above which a trace gets fewer variants


# ---- layout ----------------------------------------------------------------------

class Layout:
    """Byte spans of a valid trace's events and its top-level structure
    (latin-1 decoding keeps character and byte offsets equal)."""

    def __init__(self, data):
        self.data = data
        s = data.decode("latin-1")
        self.s = s
        self.dec = json.JSONDecoder()
        self.events = []   # (start, end, phase row)
        self.seps = []     # offset of the ',' after event k (k < n - 1)
        self.top = []      # structural top-level offsets outside the array
        i = self._ws(0)
        if s[i] == "[":
            self.top.append(i)
            i = self._array(i)
        else:
            self._object(i)

    def _ws(self, i):
        while i < len(self.s) and self.s[i] in " \t\r\n":
            i += 1
        return i

    def _object(self, i):
        s = self.s
        self.top.append(i)
        i = self._ws(i + 1)
        while s[i] != "}":
            key, j = self.dec.raw_decode(s, i)
            self.top += [i, j - 1]
            if key == "traceEvents":
                self.top += list(range(i + 1, j - 1))
            i = self._ws(j)
            self.top.append(i)  # ':'
            i = self._ws(i + 1)
            if key == "traceEvents" and s[i] == "[":
                self.top.append(i)
                i = self._array(i)
            else:
                _, i = self.dec.raw_decode(s, i)
            i = self._ws(i)
            if s[i] == ",":
                self.top.append(i)
                i = self._ws(i + 1)
        self.top.append(i)

    def _array(self, i):
        s = self.s
        i = self._ws(i + 1)
        while s[i] != "]":
            ev, j = self.dec.raw_decode(s, i)
            if isinstance(ev, dict):
                self.events.append((i, j, ex.PHASE_ROW.get(ev.get("ph"), "other")))
            i = self._ws(j)
            if s[i] == ",":
                if len(self.events) and self.events[-1][1] == j:
                    self.seps.append(i)
                i = self._ws(i + 1)
        self.top.append(i)  # ']'
        return i + 1

    def counts(self, damaged=(), limit=None):
        """Phase counts of the events outside the damaged ones, wholly
        before limit (decoded bytes that survive a cut) when given."""
        c = {}
        for k, (a, b, row) in enumerate(self.events):
            if k in damaged or (limit is not None and b > limit):
                continue
            c[row] = c.get(row, 0) + 1
        return c


# ---- mutations -------------------------------------------------------------------------

class Variant:
    def __init__(self, kind, data, damaged=(), gzip_cut=None, header_cut=False):
        self.kind = kind
        self.data = data          # the variant's bytes as written to disk
        self.damaged = set(damaged)
        self.gzip_cut = gzip_cut  # decoded bytes that survive, for a cut gzip
        self.header_cut = header_cut


def replace_at(data, i, new):
    return data[:i] + new + data[i + 1:]


def other_byte(rng, old):
    return rng.choice([r for r in REPLACEMENTS if r != old])


def event_of(lay, offset):
    for k, (a, b, _) in enumerate(lay.events):
        if a <= offset < b:
            return k
    return None


def top_flip(lay, rng):
    i = rng.choice(lay.top)
    return Variant("top", replace_at(lay.data, i, other_byte(rng, lay.data[i:i + 1])))


def sep_flip(lay, rng):
    i = rng.choice(lay.seps)
    return Variant("sep", replace_at(lay.data, i, other_byte(rng, b",")))


def stray(lay, rng):
    k = rng.randrange(len(lay.events) - 1)
    i = rng.choice([lay.events[k][1], lay.seps[k] + 1])
    return Variant("stray", lay.data[:i] + rng.choice(REPLACEMENTS[:-1]) + lay.data[i:])


def comma(lay, rng, doubled):
    i = rng.choice(lay.seps)
    new = b",," if doubled else b""
    return Variant("comma2" if doubled else "comma0", lay.data[:i] + new + lay.data[i + 1:])


WRONG = {"ts": [b'"abc"', b"null", b"{}", b"true", b"[1]"], "dur": [b'"x"', b"null"],
         "pid": [b"null", b"1.5", b"{}"], "tid": [b"[]", b"2.5e3"], "ph": [b"5", b"null"]}


def wrong_value(lay, rng):
    for _ in range(50):
        k = rng.randrange(len(lay.events))
        a, b, row = lay.events[k]
        key = rng.choice(sorted(WRONG))
        if key == "dur" and row != "X":
            continue
        m = re.search(rb'"%s"\s*:\s*' % key.encode(), lay.data[a:b])
        if not m:
            continue
        v = a + m.end()
        _, end = lay.dec.raw_decode(lay.s, v)
        new = rng.choice(WRONG[key])
        # a dropped event (ts, ph) is damaged; the others stay intact
        damaged = [k] if key in ("ts", "ph") else []
        return Variant("value-" + key, lay.data[:v] + new + lay.data[end:], damaged)
    return None


def ts_digit(lay, rng):
    """An epoch-like ts (>= 1e10 us) loses its first digit: 10x earlier, far
    outside the file's span; the build drops it as a time outlier (files of
    16 timed events or more: fewer have no bulk to compare with)."""
    timed = sum(1 for e in lay.events if e[2] not in ("M", "other"))
    for _ in range(50 if timed >= 16 else 0):
        k = rng.randrange(len(lay.events))
        a, b, row = lay.events[k]
        m = re.search(rb'"ts"\s*:\s*"?(\d{11,})', lay.data[a:b])
        if m and row not in ("M", "other"):
            v = a + m.start(1)
            return Variant("ts-digit", lay.data[:v] + lay.data[v + 1:], [k])
    return None


def brace(lay, rng):
    k = rng.randrange(len(lay.events))
    b = lay.events[k][1]
    return Variant("brace", lay.data[:b - 1] + lay.data[b:], [k])


def quote(lay, rng):
    for _ in range(50):
        k = rng.randrange(len(lay.events))
        a, b, _ = lay.events[k]
        qs = [a + m.start() for m in re.finditer(rb'"', lay.data[a:b])]
        if qs:
            return Variant("quote", replace_at(lay.data, rng.choice(qs), b"x"), [k])
    return None


def gzip_bytes(data, level=6):
    z = zlib.compressobj(level, zlib.DEFLATED, 31)
    return z.compress(data) + z.flush()


def decodable(gz):
    """Decoded bytes zlib gets from a (possibly cut) multi-member gzip."""
    out, rest = b"", gz
    while rest:
        d = zlib.decompressobj(31)
        try:
            out += d.decompress(rest)
        except zlib.error:
            break
        if not d.eof:
            break
        rest = d.unused_data
    return out


def gzip_variants(lay, rng):
    gz = gzip_bytes(lay.data)
    yield Variant("gzip-header", gz[:rng.randrange(1, 10)], header_cut=True)
    mid = lay.events[len(lay.events) // 2][1]  # members split after an event
    first = gzip_bytes(lay.data[:mid])
    second = gzip_bytes(lay.data[mid:])
    cut = rng.randrange(1, len(second))
    data = first + second[:cut]
    yield Variant("gzip-member", data, gzip_cut=len(decodable(data)), header_cut=cut < 10)


def variants(lay, rng, is_gzip):
    big = len(lay.data) > BIG
    makers = [top_flip, top_flip, sep_flip, stray, lambda l, r: comma(l, r, True),
              lambda l, r: comma(l, r, False), wrong_value, wrong_value, ts_digit, brace,
              quote]
    if QUICK or big:
        makers = [top_flip, sep_flip, stray, wrong_value] if not QUICK else [top_flip, stray]
    for make in makers:
        v = make(lay, rng)
        if v:
            yield v
    if is_gzip and not big:
        yield from gzip_variants(lay, rng)


# ---- checking ---------------------------------------------------------------------------

def recovery(want, got):
    total = sum(want.values())
    if total == 0:
        return 1.0
    return sum(min(n, got.get(row, 0)) for row, n in want.items()) / total


def positioned(err, base):
    """(line, col, byte) of every 'FILE:LINE:COL: (byte N' on stderr."""
    return [(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            for m in re.finditer(re.escape(base) + r":(\d+):(\d+): \(byte (\d+)", err)]


def check_positions(err, base, decoded, diag, label):
    found = positioned(err, base)
    if not found:
        diag.append("%s: no 'FILE:LINE:COL: (byte N' on stderr: %r" % (label, err[:300]))
    for line, col, off in found:
        if off <= len(decoded) and (line, col) != ex.line_col(decoded, off):
            diag.append("%s: byte %d is at %s, stderr says %d:%d"
                        % (label, off, ex.line_col(decoded, off), line, col))


def same_info(a, b):
    keys = ("phases", "integrity", "examples")
    return all(ex.find_table(a, k) == ex.find_table(b, k) for k in keys)


def run_variant(rep, lay, v, path, n, results):
    with open(path, "wb") as f:
        f.write(v.data)
    base = os.path.basename(path)
    label = "%s %s" % (v.kind, base)
    diag = []
    decoded = v.data if v.gzip_cut is None and not path.endswith(".gz") else decodable(v.data)
    r = ex.trex("info", "--format", "json", "-j1", path)
    ex.check_run_sane(r, diag, label)
    if v.header_cut and v.gzip_cut is None:
        if r.rc != 2 or "truncated gzip header" not in r.err:
            diag.append("%s: exit %s, stderr %r; expected 2 and 'truncated gzip header'"
                        % (label, r.rc, r.err[:300]))
        return diag
    if r.rc != 0:
        diag.append("%s: exit %s: %r" % (label, r.rc, r.err[:300]))
        return diag
    doc = r.json()
    got = ex.phases_of_info(doc)
    want = lay.counts(v.damaged, v.gzip_cut)
    rec = recovery(want, got)
    results.append((rec, label))
    if rec < 1.0:
        diag.append("%s: recovered %.4f of the intact events: want %s, trex %s"
                    % (label, rec, want, dict(got)))
    check_positions(r.err, base, decoded, diag, label)
    if n % 4 == 0:
        r2 = ex.trex("info", "--format", "json", "-j2", path)
        if r2.rc != 0 or not same_info(doc, r2.json()):
            diag.append("%s: -j2 differs from -j1" % label)
    s = ex.trex("info", "--strict", "--format", "json", "-j1", path)
    ex.check_run_sane(s, diag, label + " --strict")
    if s.rc != 2:
        diag.append("%s --strict: exit %s, expected 2" % (label, s.rc))
    else:
        check_positions(s.err, base, decoded, diag, label + " --strict")
    return diag


def damage_file(rep, src, tmpdir, results):
    data = ex.decoded_bytes(src)
    try:
        lay = Layout(data)
    except (ValueError, IndexError) as exc:
        rep.check(False, "python lays out %s" % ex.short(src), [exc])
        return
    if len(lay.events) < 3 or not lay.seps:
        rep.skip("damaged variants of %s" % ex.short(src), "fewer than 3 events")
        return
    rng = random.Random(zlib.crc32(os.path.basename(src).encode()))
    is_gzip = src.endswith(".gz")
    diag, n = [], 0
    for v in variants(lay, rng, is_gzip):
        gz_out = v.kind.startswith("gzip") or (is_gzip and n % 2 == 1 and len(data) <= BIG)
        if gz_out and not v.kind.startswith("gzip"):
            v.data = gzip_bytes(v.data)
        name = "%s-%d-%s%s" % (v.kind, n, os.path.basename(src).replace(".gz", ""),
                               ".gz" if gz_out else "")
        path = os.path.join(tmpdir, name)
        diag += run_variant(rep, lay, v, path, n, results)
        os.unlink(path)
        n += 1
    rep.check(not diag, "%d damaged variants of %s: every intact event loads, damage "
              "reported with positions, --strict exits 2" % (n, ex.short(src)), diag[:12])


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    rep = ex.Report()
    results = []
    for src in argv[2:]:
        damage_file(rep, src, argv[1], results)
    if results:
        recs = sorted(r for r, _ in results)
        worst = min(results)
        print("recovery of intact events over %d variants: min %.4f (%s), median %.4f, "
              "max %.4f" % (len(recs), worst[0], worst[1], statistics.median(recs), recs[-1]))
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
