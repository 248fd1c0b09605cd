#!/usr/bin/env python3
"""Random key and mouse sequences through every view of the interface
(tests/screen/monkey.sh): trex must never crash, hang, or report a
sanitizer problem, whatever is typed, at any terminal size.

    monkey.py TREX WORKDIR SEED RUNS TRACE...   prints TAP lines
"""
import os
import random
import subprocess
import sys

KEYS = ("j k J K h l w s a d A D f 0 u T : . , t F m ' [ ] Enter Esc Backspace Tab BackTab "
        "1 2 4 6 7 8 9 F5 < > I B S x y n N / \\ ? g G PgDn PgUp C-d C-u Space F6 e "
        "click:5,30 click:1,10 click:20,5 wheel-up:6,30 wheel-down:6,30 "
        "S-wheel-up:6,40 C-wheel-down:6,40 rclick:3,3").split()
KEYS += ["L"]  # toggle-flows: every flow of the window drawn
KEYS += ["!"]  # open-integrity: every counter, its examples, Enter to the timeline
KEYS += ["X"]  # export-trace: the dialog; Enter writes into the work directory
TYPED = list("gemm.*(k[0123456789") + ["Space", "Enter", "Backspace", "C-w", "Left"]
PROMPTS = ("/", "\\", ":", "T", "F6", "x")
SIZES = ((80, 24), (40, 12), (160, 48), (200, 60), (39, 11), (100, 30))


def sequence(rng):
    seq = []
    for _ in range(rng.randint(20, 120)):
        k = rng.choice(KEYS)
        seq.append(k)
        if k in PROMPTS and rng.random() < 0.8:
            seq += [rng.choice(TYPED) for _ in range(rng.randint(0, 6))]
    return seq


def main(trex, work, seed, runs, traces):
    rng = random.Random(seed)
    print("1..%d" % runs)
    for n in range(1, runs + 1):
        trace = rng.choice(traces)
        seq = sequence(rng)
        w, h = rng.choice(SIZES)
        env = dict(os.environ, LINES=str(h), COLUMNS=str(w), TERM="xterm-256color",
                   LC_ALL="C.UTF-8", HOME=work)
        args = [trex, "-q", "--script", " ".join(seq), "--force", "--dump-screen", "screen.txt"]
        args += ["--demo"] if trace == "--demo" else [trace]
        what = "%s %dx%d, %d keys" % (os.path.basename(trace), w, h, len(seq))
        try:
            p = subprocess.run(args, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                               cwd=work, timeout=120)
            rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err = -1, "timed out after 120 s"
        if rc == 0 and "Sanitizer" not in err and "runtime error" not in err:
            print("ok %d - %s" % (n, what))
        else:
            print("not ok %d - %s: exit %d" % (n, what, rc))
            print("# keys: %s" % " ".join(seq))
            for line in err.splitlines()[-30:]:
                print("# " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]))
