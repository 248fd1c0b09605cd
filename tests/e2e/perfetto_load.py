#!/usr/bin/env python3
"""What `trex info --format json` must say about a Perfetto trace, from the
records perfetto.py decodes from the wire format itself (no trex code):
slices and instants per (process, thread) track, the time span, the events
per type, truncation. Prints PASS/FAIL lines (tests/e2e/perfetto_load.sh).

    perfetto_load.py info TREX TRACE          trex info of TRACE against the records
    perfetto_load.py gpu TREX TRACE SUMMARY   trex kernels and info of a trace from
                                              tests/bench/perfetto_gen.py against
                                              what it says it wrote
"""
import gzip
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto  # noqa: E402  (the independent decoder next to this file)

TRACK = re.compile(r"track (\d+) kind=(\w+) parent=(\S+) pid=(-?\d+) tid=(-?\d+) name=(.*) unit=")
EVENT = re.compile(r"event ([BEI]) (\d+) track=(\d+) ")


def decode(path):
    with open(path, "rb") as f:
        b = f.read()
    if b[:2] == b"\x1f\x8b":
        b = gzip.decompress(b)
    d = perfetto.Decoder()
    error = d.trace(b)
    return d, error


def expected(path):
    d, error = decode(path)
    tracks, events = {}, []
    for line in d.out:
        m = TRACK.match(line)
        if m:
            tracks[int(m.group(1))] = (m.group(2), m.group(4), m.group(6))
            continue
        m = EVENT.match(line)
        if m:
            events.append((m.group(1), int(m.group(2)), int(m.group(3))))
    per_track = {}
    for typ, _, uuid in events:
        kind, pid, name = tracks.get(uuid, ("named", "global", "track %d" % uuid))
        if kind != "thread":
            continue  # the corpus has thread tracks only; others are named tracks
        row = per_track.setdefault((pid, name), [0, 0])
        if typ == "B":
            row[0] += 1
        elif typ == "I":
            row[1] += 1
    count = {t: sum(1 for e in events if e[0] == t) for t in "BEI"}
    times = [e[1] for e in events]
    st = d.stats
    return {
        "slices": count["B"], "instants": count["I"],
        "events": count["B"] + count["E"] + count["I"],
        "span": max(times) - min(times) if times and not error else None,
        "tracks": per_track,
        "descriptors": st["track_descriptors"],
        "other": st["packets"] - st["track_events"] - st["track_descriptors"],
        "truncated": "yes" if error else "no",
        "error": error,
    }


def result(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    return ok


def info(trex, path):
    exp = expected(path)
    p = subprocess.run([trex, "info", "--format", "json", path], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    if not result(p.returncode == 0, "%s: trex info exits 0 (got %d: %s)" %
                  (os.path.basename(path), p.returncode, p.stderr.strip()[:300])):
        return
    got = json.loads(p.stdout)
    name = os.path.basename(path)
    f = got["files"]["rows"][0]
    result(f["format"] == "perfetto", "%s: format perfetto (got %s)" % (name, f["format"]))
    result(got["slices"] == exp["slices"] and got["instants"] == exp["instants"],
           "%s: %d slices, %d instants (got %d, %d)" %
           (name, exp["slices"], exp["instants"], got["slices"], got["instants"]))
    result(f["events"] == exp["events"], "%s: %d events (got %d)" % (name, exp["events"], f["events"]))
    result(f["truncated"] == exp["truncated"], "%s: truncated %s (got %s)" %
           (name, exp["truncated"], f["truncated"]))
    if exp["span"] is not None:
        result(got["span_ns"] == exp["span"], "%s: span %d ns (got %d)" %
               (name, exp["span"], got["span_ns"]))
    phases = {r["phase"]: r["events"] for r in got["phases"]["rows"]}
    result(phases.get("track") == exp["descriptors"] and phases.get("other") == exp["other"],
           "%s: %d track descriptors, %d packets of other data (got %s, %s)" %
           (name, exp["descriptors"], exp["other"], phases.get("track"), phases.get("other")))
    rows = {(r["process"], r["track"]): [r["slices"], r["instants"]]
            for r in got["tracks"]["rows"] if r["kind"] == "thread"}
    result(rows == exp["tracks"], "%s: slices and instants of %d thread tracks (diff %s)" %
           (name, len(exp["tracks"]),
            sorted(set(map(str, rows.items())) ^ set(map(str, exp["tracks"].items())))[:6]))


def trex_json(trex, *args):
    p = subprocess.run([trex] + list(args) + ["--format", "json"], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        result(False, "trex %s exits 0 (got %d: %s)" % (args[0], p.returncode, p.stderr[:300]))
        return None
    return json.loads(p.stdout)


def gpu(trex, path, summary_path):
    with open(summary_path) as f:
        want = json.load(f)
    kernels = trex_json(trex, "kernels", path)
    got = trex_json(trex, "info", path)
    if kernels is None or got is None:
        return
    rows = {r["name"]: [r["instances"], r["total_ns"]] for r in kernels["rows"]}
    result(rows == want["kernels"], "kernels on the GPU tracks: %d names, instances and totals "
           "as written (diff %s)" % (len(want["kernels"]), sorted(
               set(map(str, rows.items())) ^ set(map(str, want["kernels"].items())))[:4]))
    cats = {r["kind"]: r["slices"] for r in got["categories"]["rows"]}
    result(cats.get("memcpy") == want["memcpy"], "%d copies of kind memcpy (got %s)" %
           (want["memcpy"], cats.get("memcpy")))
    result(got["slices"] == want["slices"] and got["flows"] == want["flows"] and
           got["samples"] == want["counter_values"],
           "%d slices, %d flows launch -> kernel, %d counter values (got %d, %d, %d)" %
           (want["slices"], want["flows"], want["counter_values"], got["slices"],
            got["flows"], got["samples"]))
    gpu_time = trex_json(trex, "gpu-time", path)
    launches = sum(r["launches"] for r in gpu_time["rows"]) if gpu_time else None
    result(launches == want["flows"], "every flow from a cudaLaunchKernel to its kernel is a "
           "launch: %d launches in gpu-time (got %s)" % (want["flows"], launches))
    nested = {r["track"]: r["kind"] for r in got["tracks"]["rows"]}
    result("stream 7" in nested and "GPU 0" in nested and nested.get("GPU memory") == "counter",
           "tracks GPU 0, stream 7 and the counter GPU memory (got %s)" % nested)
    result(nested.get("stream 7") == "gpu" and nested.get("stream 8") == "gpu",
           "the custom stream tracks that hold kernels are device queues (got %s, %s)" %
           (nested.get("stream 7"), nested.get("stream 8")))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "info":
        info(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "gpu":
        gpu(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
