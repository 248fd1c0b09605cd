#!/usr/bin/env python3
"""Decodes a Perfetto protobuf trace by hand (the wire format, no protobuf
package) and prints what trex's decoder should make of it, in the form of
tests/unit/perfetto_dump: track/event/counter records, then "stat NAME N"
lines, then "error ..." if the framing breaks. tests/e2e/perfetto.sh
compares the two.

    perfetto.py FILE          (plain or gzip)

Independent of the C code: its own varint reader, its own table of the
fields trex knows (to count the unknown ones), its own sequence state."""
import gzip
import struct
import sys

# The fields trex's .proto declares, per message: number -> sub-message
# name (or None for scalars, strings and bytes). Everything else is unknown.
KNOWN = {
    "TracePacket": {8: None, 58: None, 6: "ClockSnapshot", 11: "TrackEvent",
                    60: "TrackDescriptor", 50: None, 133: None, 3: None, 10: None,
                    79: None, 12: "InternedData", 13: None, 41: None,
                    59: "TracePacketDefaults", 42: None, 87: None, 98: None},
    "ClockSnapshot": {1: "Clock", 2: None},
    "Clock": {1: None, 2: None, 3: None, 4: None},
    "InternedData": {1: "Interned", 2: "Interned", 3: "Interned", 4: "SourceLocation",
                     29: "Interned"},
    "Interned": {1: None, 2: None},
    "SourceLocation": {1: None, 2: None, 3: None, 4: None},
    "TrackDescriptor": {1: None, 5: None, 2: None, 10: None, 13: None, 14: None,
                        3: "ProcessDescriptor", 4: "ThreadDescriptor",
                        8: "CounterDescriptor", 9: None, 11: None, 12: None},
    "ProcessDescriptor": {1: None, 2: None, 3: None, 5: None, 6: None, 7: None, 8: None},
    "ThreadDescriptor": {1: None, 2: None, 3: None, 5: None},
    "CounterDescriptor": {1: None, 2: None, 3: None, 4: None, 5: None, 6: None, 7: None},
    "TrackEvent": {9: None, 11: None, 10: None, 23: None, 3: None, 22: None,
                   4: "DebugAnnotation", 30: None, 44: None, 31: None, 12: None, 45: None,
                   46: None, 47: None, 48: None, 36: None, 42: None,
                   33: "SourceLocation", 34: None, 52: None, 53: None},
    "DebugAnnotation": {1: None, 10: None, 2: None, 3: None, 4: None, 5: None, 7: None,
                        8: "NestedValue", 9: None, 6: None, 17: None, 16: None, 13: None,
                        14: None, 11: "DebugAnnotation", 12: "DebugAnnotation"},
    "NestedValue": {1: None, 2: None, 3: "NestedValue", 4: "NestedValue", 5: None,
                    6: None, 7: None, 8: None},
    "TracePacketDefaults": {58: None, 11: "TrackEventDefaults"},
    "TrackEventDefaults": {11: None, 31: None, 45: None},
}


class Short(Exception):
    pass


def varint(b, i):
    v = 0
    for k in range(10):
        if i + k >= len(b):
            raise Short("varint")
        v |= (b[i + k] & 0x7F) << (7 * k)
        if not b[i + k] & 0x80:
            return v & (2**64 - 1), i + k + 1
    raise ValueError("varint longer than 10 bytes")


def fields(b):
    """[(number, wire type, value)] of a message; bytes for wire type 2."""
    out, i = [], 0
    while i < len(b):
        tag, i = varint(b, i)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        elif wt == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise ValueError("length past the end")
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, v))
    return out


def unknown(b, msg):
    known, n = KNOWN[msg], 0
    for num, wt, v in fields(b):
        if num not in known:
            n += 1
        elif known[num] and wt == 2:
            n += unknown(v, known[num])
    return n


def last(fs, num, default=None):
    vals = [v for n, _, v in fs if n == num]
    return vals[-1] if vals else default


def has(fs, num):
    return any(n == num for n, _, _ in fs)


def signed(v):
    return v - 2**64 if v >= 2**63 else v


def merged(fs, num):
    """A singular message field that may come in pieces: concatenated."""
    parts = [v for n, _, v in fs if n == num]
    return fields(b"".join(parts)) if parts else None


def repeated_u64(fs, num):
    out = []
    for n, wt, v in fs:
        if n != num:
            continue
        if wt == 0:
            out.append(v)
        elif wt == 1:
            out.append(struct.unpack("<Q", v)[0])
        elif wt == 2:  # packed
            j = 0
            while j < len(v):
                x, j = varint(v, j)
                out.append(x)
    return out


def repeated_fixed64(fs, num):
    out = []
    for n, wt, v in fs:
        if n == num and wt == 1:
            out.append(struct.unpack("<Q", v)[0])
        elif n == num and wt == 2:
            out += [struct.unpack("<Q", v[k:k + 8])[0] for k in range(0, len(v), 8)]
    return out


def text(v):
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def esc(s):
    """One line, as perfetto_dump writes it; "-" for none."""
    if s is None:
        return "-"
    out = bytearray()
    for ch in s.encode("utf-8"):
        if ch == 0x5C:
            out += b"\\\\"
        elif ch == 0x0A:
            out += b"\\n"
        elif ch == 0x09:
            out += b"\\t"
        elif ch < 0x20 or ch == 0x7F:
            out += b"\\x%02x" % ch
        else:
            out.append(ch)
    return out.decode("utf-8", "replace")


def fmt_double(x):
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    for p in (15, 16, 17):
        s = "%.*g" % (p, x)
        if float(s) == x:
            return s
    return s


class Seq:
    def __init__(self, sid):
        self.id = sid
        self.valid = False
        self.clear()

    def clear(self):
        self.dicts = {1: {}, 2: {}, 3: {}, 29: {}}
        self.clock_default = None
        self.track_default = None
        self.extra = []
        self.extra_double = []


class Decoder:
    def __init__(self):
        self.out = []
        self.seqs = {}
        self.open = {}
        self.stats = dict.fromkeys(
            "packets bytes track_descriptors track_events slice_begins slice_ends instants "
            "counter_values debug_annotations clock_snapshots interned_entries unknown_fields "
            "packets_with_unknown_fields other_top_level_fields corrupt_packets "
            "unmatched_slice_ends unfinished_slices truncated".split(), 0)
        self.counter_tracks = {}

    # -- debug annotations --
    def ann_name(self, seq, fs):
        if has(fs, 10):
            return text(last(fs, 10))
        if has(fs, 1):
            return seq.dicts[3].get(last(fs, 1), "")
        return ""

    def ann_value(self, seq, fs, in_json):
        import json
        vals = [(n, wt, v) for n, wt, v in fs if n in (2, 3, 4, 5, 6, 7, 8, 9, 17)]
        if vals:
            n, wt, v = vals[-1]
            if n == 2:
                return "true" if v else "false"
            if n == 3:
                return str(v)
            if n == 4:
                return str(signed(v))
            if n == 5:
                return fmt_double(struct.unpack("<d", v)[0])
            if n == 7:
                return ('"0x%x"' if in_json else "0x%x") % v
            if n == 9:
                return text(v)
            s = text(v) if n == 6 else seq.dicts[29].get(v, "")
            return json.dumps(s, ensure_ascii=False) if in_json else s
            # nested_value (8) is not in the corpus; trex's unit tests cover it
        kids = [fields(v) for n, _, v in fs if n == 11]
        if kids:
            return "{" + ",".join(
                json.dumps(self.ann_name(seq, k), ensure_ascii=False) + ":" +
                self.ann_value(seq, k, True) for k in kids) + "}"
        kids = [fields(v) for n, _, v in fs if n == 12]
        if kids:
            return "[" + ",".join(self.ann_value(seq, k, True) for k in kids) + "]"
        return "null" if in_json else ""

    # -- records --
    def track(self, fs):
        self.stats["track_descriptors"] += 1
        uuid = last(fs, 1, 0)
        name = None
        for num in (2, 10, 13):
            if has(fs, num):
                name = text(last(fs, num))
        kind, pid, tid, unit = "named", 0, 0, None
        thread, process, counter = merged(fs, 4), merged(fs, 3), merged(fs, 8)
        if name is None and thread is not None and has(thread, 5):
            name = text(last(thread, 5))
        if name is None and process is not None and has(process, 6):
            name = text(last(process, 6))
        if thread is not None:
            kind, pid, tid = "thread", signed(last(thread, 1, 0)), signed(last(thread, 2, 0))
        elif process is not None:
            kind, pid = "process", signed(last(process, 1, 0))
        elif counter is not None:
            kind = "counter"
            unit = text(last(counter, 6)) if has(counter, 6) else \
                {1: "ns", 2: "count", 3: "bytes"}.get(last(counter, 3, 0))
            self.counter_tracks[uuid] = (signed(last(counter, 4, 1)) or 1, bool(last(counter, 5, 0)))
        parent = str(last(fs, 5)) if has(fs, 5) else "-"
        pid = signed(pid) if pid >= 2**31 else pid
        self.out.append("track %d kind=%s parent=%s pid=%d tid=%d name=%s unit=%s" %
                        (uuid, kind, parent, pid if pid < 2**31 else pid - 2**32, tid,
                         esc(name), esc(unit)))

    def event(self, seq, pkt, te):
        self.stats["track_events"] += 1
        track = last(te, 11) if has(te, 11) else (seq.track_default or 0)
        ts = last(pkt, 8, 0)  # the corpus uses the trace clock only
        typ = last(te, 9, 0)
        if typ not in (1, 2, 3):
            return
        if typ == 2:
            if not self.open.get(track):
                self.stats["unmatched_slice_ends"] += 1
                return
            self.open[track] -= 1
            self.stats["slice_ends"] += 1
        elif typ == 1:
            self.open[track] = self.open.get(track, 0) + 1
            self.stats["slice_begins"] += 1
        else:
            self.stats["instants"] += 1
        name = text(last(te, 23)) if has(te, 23) else \
            seq.dicts[2].get(last(te, 10)) if has(te, 10) else None
        cats = [text(v) for n, _, v in te if n == 22]
        cats += [seq.dicts[1][i] for i in repeated_u64(te, 3) if i in seq.dicts[1]]
        flows = repeated_fixed64(te, 47) + repeated_u64(te, 36)
        term = repeated_fixed64(te, 48) + repeated_u64(te, 42)
        args = []
        for n, _, v in te:
            if n == 4:
                a = fields(v)
                args.append(esc(self.ann_name(seq, a)) + "=" + esc(self.ann_value(seq, a, False)))
        self.stats["debug_annotations"] += len(args)
        self.out.append("event %s %d track=%d seq=%d name=%s cat=%s flows=%s term=%s args=%s" % (
            "?BEI"[typ], ts, track, seq.id, esc(name), esc(",".join(cats) if cats else None),
            ",".join(map(str, flows)), ",".join(map(str, term)), ";".join(args)))

    def packet(self, body):
        self.stats["packets"] += 1
        try:
            fs = fields(body)
            n_unknown = unknown(body, "TracePacket")
        except (ValueError, Short):
            self.stats["corrupt_packets"] += 1
            return
        self.stats["unknown_fields"] += n_unknown
        self.stats["packets_with_unknown_fields"] += n_unknown > 0
        sid = last(fs, 10, 0)
        seq = self.seqs.setdefault(sid, Seq(sid))
        if last(fs, 42, 0):
            seq.valid = False
        flags = last(fs, 13, 0)
        if flags & 1 or last(fs, 41, 0):
            seq.clear()
            seq.valid = True
        if flags & 2 and not seq.valid:
            return
        interned = merged(fs, 12)
        if interned is not None:
            for n, _, v in interned:
                if n in seq.dicts:
                    e = fields(v)
                    seq.dicts[n][last(e, 1, 0)] = text(last(e, 2, b"")).split("\0")[0]
                    self.stats["interned_entries"] += 1
        defaults = merged(fs, 59)
        if defaults is not None:
            seq.clock_default = last(defaults, 58)
            ted = merged(defaults, 11) or []
            seq.track_default = last(ted, 11)
        data = [n for n, _, _ in fs if n in (6, 11, 60)]
        if not data:
            return
        if data[-1] == 6:
            self.stats["clock_snapshots"] += 1
        elif data[-1] == 60:
            self.track(merged(fs, 60))
        else:
            self.event(seq, fs, merged(fs, 11))

    def trace(self, b):
        i = 0
        index = 0
        while i < len(b):
            start = i
            try:
                tag, i = varint(b, i)
                if tag & 7 != 2:
                    raise ValueError("top-level field of wire type %d" % (tag & 7))
                n, i = varint(b, i)
                if i + n > len(b):
                    raise Short("packet")
            except Short:
                self.stats["truncated"] = 1
                self.stats["bytes"] = start
                return "truncated at byte %d, packet %d" % (start, index)
            if tag >> 3 == 1:
                index += 1
                self.packet(b[i:i + n])
            else:
                self.stats["other_top_level_fields"] += 1
            i += n
        self.stats["bytes"] = i
        return None


def main():
    with open(sys.argv[1], "rb") as f:
        b = f.read()
    if b[:2] == b"\x1f\x8b":
        b = gzip.decompress(b)
    d = Decoder()
    error = d.trace(b)
    d.stats["unfinished_slices"] = sum(d.open.values())
    for line in d.out:
        print(line)
    for k, v in d.stats.items():
        print("stat %s %d" % (k, v))
    if error:
        print("error " + error)


if __name__ == "__main__":
    main()
