#!/usr/bin/env python3
"""Timing and the report for tests/bench/run.sh.

    measure.py run RESULTS LABEL RUNS FILE EVENTS RAW_BYTES -- CMD...
        Runs CMD RUNS times (stdout to /dev/null) and appends one JSON line
        to RESULTS: wall times and the peak RSS of each run.
    measure.py report RESULTS
        Prints the Markdown table.

Each run goes through the small C wrapper named by $TREX_RUSAGE
(tests/bench/rusage.c): wall time from CLOCK_MONOTONIC around
fork/exec/wait4, peak RSS = ru_maxrss of the command. Forking from Python
directly would add Python's own ~15 MB to ru_maxrss (Linux keeps the
high-water mark across exec); without the wrapper that is what happens.
"""
import json
import os
import statistics
import subprocess
import sys
import time


def run_wrapped(wrapper, cmd):
    proc = subprocess.run([wrapper] + cmd, stderr=subprocess.PIPE, text=True, check=True)
    lines = proc.stderr.splitlines()
    sys.stderr.write("".join(line + "\n" for line in lines[:-1]))
    wall, maxrss_kib, code = lines[-1].split()
    return float(wall), int(maxrss_kib) * 1024, int(code)


def run_direct(cmd):
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    return wall, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)


def run_once(cmd):
    wrapper = os.environ.get("TREX_RUSAGE")
    wall, rss, code = run_wrapped(wrapper, cmd) if wrapper else run_direct(cmd)
    if code != 0:
        sys.exit("measure.py: %s exited with %d" % (" ".join(cmd), code))
    return wall, rss


def cmd_run(argv):
    results, label, runs, path, events, raw_bytes = argv[:6]
    cmd = argv[argv.index("--") + 1:]
    walls, rss = [], []
    for _ in range(int(runs)):
        w, r = run_once(cmd)
        walls.append(w)
        rss.append(r)
    row = {"label": label, "file": os.path.basename(path),
           "bytes": os.path.getsize(path), "raw_bytes": int(raw_bytes),
           "events": int(events), "walls": walls, "rss": rss}
    with open(results, "a") as f:
        f.write(json.dumps(row) + "\n")
    print("  %-14s %-32s median %.3f s  peak RSS %.0f MB  (%d runs)" % (
        label, row["file"], statistics.median(walls), max(rss) / 1e6, len(walls)))


HEADER = ("| file | tool | runs | median s | MB/s | MB/s raw | Mevents/s | peak RSS MB "
          "| RSS-file MB | B/event | B/event (RSS-file) | x cat | vs python |")


def ratios(r, med, base):
    """trex: time relative to cat, speed-up over Python; Python: x cat."""
    cat = base.get(("cat", r["file"]))
    py = base.get(("python", r["file"]))
    if r["label"] == "cat":
        return "", ""
    x_cat = "%.1f" % (med / cat) if cat else ""
    vs_py = "%.1fx faster" % (py / med) if py and r["label"] != "python" else ""
    return x_cat, vs_py


def memory(r, rss):
    """Bytes per event; for trex on a plain file also without the mapped file."""
    if r["label"] == "cat":
        return "", "", ""
    per_event = "%.0f" % (rss / r["events"])
    if r["file"].endswith(".gz") or not r["label"].startswith("trex"):
        return "", per_event, ""
    # A mapped plain file is counted in RSS once every page was read.
    nofile = rss - r["bytes"]
    return "%.0f" % (nofile / 1e6), per_event, "%.0f" % (nofile / r["events"])


def fmt_row(r, base):
    med = statistics.median(r["walls"])
    rss = max(r["rss"])
    gz = r["file"].endswith(".gz")
    is_cat = r["label"] == "cat"
    raw = "%.0f" % (r["raw_bytes"] / 1e6 / med) if gz and not is_cat else ""
    evs = "%.2f" % (r["events"] / 1e6 / med) if not is_cat else ""
    nofile_mb, per_event, per_event_nofile = memory(r, rss)
    x_cat, vs_py = ratios(r, med, base)
    cells = [r["file"], r["label"], str(len(r["walls"])), "%.3f" % med,
             "%.0f" % (r["bytes"] / 1e6 / med), raw, evs, "%.0f" % (rss / 1e6),
             nofile_mb, per_event, per_event_nofile, x_cat, vs_py]
    return "| " + " | ".join(cells) + " |"


def cmd_report(argv):
    with open(argv[0]) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    base = {(r["label"], r["file"]): statistics.median(r["walls"])
            for r in rows if r["label"] in ("cat", "python")}
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    for r in rows:
        print(fmt_row(r, base))


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("run", "report"):
        sys.exit(__doc__)
    (cmd_run if sys.argv[1] == "run" else cmd_report)(sys.argv[2:])


if __name__ == "__main__":
    main()
