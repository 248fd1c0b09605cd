#!/usr/bin/env python3
"""Interleaved timing of several commands, for A/B comparisons on a noisy
machine: each round runs every command once, in turn, so a slow spell hits
all of them alike. Prints the median, minimum and maximum wall time and the
median user+sys CPU time of each command, with its user and sys medians (page
faults are sys time, and their cost differs from machine to machine).

    tests/bench/interleave.py ROUNDS CMD... [-- CMD...]...

Example: python3 tests/bench/interleave.py 9 ./old/trex kernels -q -j2 T.json.gz \\
             -- ./new/trex kernels -q -j2 T.json.gz
"""
import resource
import statistics
import subprocess
import sys
import time


def split_commands(words):
    cmds, cur = [], []
    for w in words:
        if w == "--":
            cmds.append(cur)
            cur = []
        else:
            cur.append(w)
    cmds.append(cur)
    return [c for c in cmds if c]


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__.strip())
    rounds = int(sys.argv[1])
    cmds = split_commands(sys.argv[2:])
    runs = [[] for _ in cmds]
    for _ in range(rounds):
        for k, cmd in enumerate(cmds):
            # getrusage, not os.times: microseconds, not 10 ms clock ticks
            t0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
            t1, r1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
            user = r1.ru_utime - r0.ru_utime
            sys_ = r1.ru_stime - r0.ru_stime
            runs[k].append((t1 - t0, user + sys_, user, sys_))
    for cmd, rs in zip(cmds, runs):
        wall = [r[0] for r in rs]
        cpu = [r[1] for r in rs]
        user = statistics.median(r[2] for r in rs)
        sys_ = statistics.median(r[3] for r in rs)
        print(f"{' '.join(cmd)}\n    wall median {statistics.median(wall):.3f} s "
              f"(min {min(wall):.3f}, max {max(wall):.3f}), cpu median "
              f"{statistics.median(cpu):.4f} s (user {user:.3f}, sys {sys_:.3f})")


if __name__ == "__main__":
    main()
