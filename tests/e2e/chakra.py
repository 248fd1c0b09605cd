#!/usr/bin/env python3
"""Decodes Chakra .et files from the protobuf wire format, independently of
trex (no protobuf library), and prints what tests/unit/chakra_dump prints:

  file PATH / metadata yes|legacy / nodes N / type NAME COUNT (sorted) /
  damage KIND record R offset O bytes B

Framing: records of varint32 length + payload; record 0 is a
GlobalMetadata when all its top-level fields are 1 or 2, length-delimited
(else a legacy file whose record 0 is a Node); gzip is sniffed. A record
that does not parse as a Node (a bad tag, wire type or length, a known
field with the wrong wire type) is "undecodable" and skipped; the input
ending inside a record is a "cut"; a length prefix over 5 bytes or 32 bits
is "bad-length" and ends the framing.

  chakra.py FILE...            the dump
  chakra.py --counts FILE...   "RANK TYPE COUNT" lines of a set (rank from
                               the name PREFIX.RANK.et), for trex info
  chakra.py --make dangling|cycle|plain FILE
                               writes 4 compute nodes, with a dependency on
                               a missing id or a cycle
"""
import gzip
import re
import sys

TYPES = {0: "INVALID_NODE", 1: "METADATA_NODE", 2: "MEM_LOAD_NODE", 3: "MEM_STORE_NODE",
         4: "COMP_NODE", 5: "COMM_SEND_NODE", 6: "COMM_RECV_NODE", 7: "COMM_COLL_NODE"}
# Node fields: number -> wire type (deps 4, 5 also unpacked: 0)
NODE_WIRE = {1: 0, 2: 2, 3: 0, 4: 2, 5: 2, 6: 0, 7: 0, 8: 2, 9: 2, 10: 2}


class Bad(Exception):
    pass


def varint(b, pos, limit=10):
    v = 0
    for i in range(limit):
        if pos + i >= len(b):
            raise IndexError
        v |= (b[pos + i] & 0x7F) << (7 * i)
        if not b[pos + i] & 0x80:
            return v, pos + i + 1
    raise Bad("varint too long")


def fields(b):
    """(number, wire, value or bytes) of every top-level field of b."""
    pos = 0
    out = []
    while pos < len(b):
        try:
            tag, pos = varint(b, pos)
        except IndexError:
            raise Bad("cut tag")
        num, wire = tag >> 3, tag & 7
        if num == 0:
            raise Bad("field 0")
        try:
            if wire == 0:
                v, pos = varint(b, pos)
            elif wire == 1:
                if pos + 8 > len(b):
                    raise Bad("cut fixed64")
                v, pos = b[pos:pos + 8], pos + 8
            elif wire == 5:
                if pos + 4 > len(b):
                    raise Bad("cut fixed32")
                v, pos = b[pos:pos + 4], pos + 4
            elif wire == 2:
                n, pos = varint(b, pos)
                if pos + n > len(b):
                    raise Bad("cut bytes")
                v, pos = b[pos:pos + n], pos + n
            else:
                raise Bad("wire type %d" % wire)
        except IndexError:
            raise Bad("cut varint")
        out.append((num, wire, v))
    return out


def is_metadata(b):
    try:
        return all(num in (1, 2) and wire == 2 for num, wire, _ in fields(b))
    except Bad:
        return False


def node_type(b):
    """The node's type number; raises Bad when b is no Node."""
    t = 0
    for num, wire, v in fields(b):
        want = NODE_WIRE.get(num)
        if want is not None and wire != want and not (num in (4, 5) and wire == 0):
            raise Bad("field %d wire %d" % (num, wire))
        if num in (8, 9, 10):
            fields(v)  # sub-messages must parse too
        if num == 3:
            t = v
    return t


def read(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def decode(path):
    data = read(path)
    pos, record = 0, 0
    legacy = False
    types = {}
    damage = []
    while pos < len(data):
        start = pos
        try:
            n, body = varint(data, pos, 5)
            if n > 0xFFFFFFFF:
                raise Bad("over 32 bits")
        except IndexError:
            damage.append(("cut", record, start, len(data) - start))
            break
        except Bad:
            damage.append(("bad-length", record, start, len(data) - start))
            break
        if body + n > len(data):
            damage.append(("cut", record, start, len(data) - start))
            break
        payload = data[body:body + n]
        pos = body + n
        if record == 0 and is_metadata(payload):
            record += 1
            continue
        if record == 0:
            legacy = True
        try:
            t = node_type(payload)
            name = TYPES.get(t, "OTHER")
            types[name] = types.get(name, 0) + 1
        except Bad:
            damage.append(("undecodable", record, start, n))
        record += 1
    return legacy, types, damage


def dump(path):
    legacy, types, damage = decode(path)
    print("file %s" % path)
    print("metadata %s" % ("legacy" if legacy else "yes"))
    print("nodes %d" % sum(types.values()))
    for name in sorted(types):
        print("type %s %d" % (name, types[name]))
    for kind, record, offset, nbytes in damage:
        print("damage %s record %d offset %d bytes %d" % (kind, record, offset, nbytes))


def counts(paths):
    for path in paths:
        m = re.search(r"\.(\d+)\.et(\.gz)?$", path)
        rank = int(m.group(1)) if m else 0
        _, types, _ = decode(path)
        for name in sorted(types):
            print("%d %s %d" % (rank, name, types[name]))


# ---- writing small files for the damage tests ----

def put_varint(v):
    out = bytearray()
    while True:
        out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
        v >>= 7
        if not v:
            return bytes(out)


def put_field(num, wire, payload):
    tag = put_varint(num << 3 | wire)
    if wire == 2:
        return tag + put_varint(len(payload)) + payload
    return tag + put_varint(payload)


def put_node(node_id, name, node_type, deps, dur_us):
    b = put_field(1, 0, node_id) + put_field(2, 2, name.encode()) + put_field(3, 0, node_type)
    if deps:
        b += put_field(5, 2, b"".join(put_varint(d) for d in deps))
    if dur_us:
        b += put_field(7, 0, dur_us)
    return b


def make(kind, path):
    """A GlobalMetadata and 4 compute nodes 1..4 (each on the one before)
    with a dependency on a missing id (dangling) or a cycle 2 -> 3 -> 2."""
    deps = {1: [], 2: [1], 3: [2], 4: [3]}
    if kind == "dangling":
        deps[3] = [2, 99]
    elif kind == "cycle":
        deps[2] = [1, 3]
    records = [put_field(1, 2, b"0.0.4")]
    records += [put_node(i, "COMP_NODE_%d" % i, 4, deps[i], 10 * i) for i in range(1, 5)]
    with open(path, "wb") as out:
        for r in records:
            out.write(put_varint(len(r)) + r)


def main(argv):
    if argv and argv[0] == "--counts":
        counts(argv[1:])
        return 0
    if argv and argv[0] == "--make":
        make(argv[1], argv[2])
        return 0
    for path in argv:
        dump(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
