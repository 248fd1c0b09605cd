#!/usr/bin/env python3
"""What a new user should find in a trace, computed from its JSON with
Python (for tests/screen/newuser.sh): the longest GPU kernels and the
runtime calls that launched them, how long each step is, where the
longest GPU gap is.

    newuser.py TRACE        prints one line per kernel instance of the longest
                            duration: "DUR_NS<TAB>NAME<TAB>LAUNCH" (LAUNCH is
                            "-" when no runtime call shares its correlation id);
                            nothing when the trace has no kernels.
    newuser.py steps TRACE  one line per ProfilerStep: "NAME<TAB>DUR_NS"
    newuser.py gap TRACE    the longest GPU gap (the earliest of equals):
                            "START_NS<TAB>LENGTH_NS<TAB>PID", START from the
                            start of the trace; nothing without gaps
(steps and gaps as tests/e2e/views.py computes them, independently of trex)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import expected  # noqa: E402

RUNTIME_CATS = ("cuda_runtime", "cuda_driver", "Runtime")


def main(path):
    events = [e for e in expected.events_of(expected.parse_doc(expected.decoded_bytes(path)))
              if isinstance(e, dict) and e.get("ph") == "X"]
    kernels = [e for e in events if expected.is_kernel(e)]
    if not kernels:
        return 0
    launches = {}
    for e in events:
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if e.get("cat") in RUNTIME_CATS and "correlation" in args:
            launches.setdefault(args["correlation"], str(e.get("name", "")))
    longest = max(max(expected.to_ns(k.get("dur", 0)), 0) for k in kernels)
    for k in kernels:
        if max(expected.to_ns(k.get("dur", 0)), 0) != longest:
            continue
        args = k.get("args") if isinstance(k.get("args"), dict) else {}
        launch = launches.get(args.get("correlation"), "-") if "correlation" in args else "-"
        print("%d\t%s\t%s" % (longest, k.get("name", ""), launch))
    return 0


def steps_and_gap(mode, path):
    import views  # noqa: E402 (tests/e2e, on the path above)

    tr = views.Trace(path)
    if mode == "steps":
        for row in views.expected_steps(tr):
            print("%s\t%d" % (row["step"], row["dur_ns"]))
    else:
        gaps = views.expected_gaps(tr)
        if gaps:
            print("%d\t%d\t%s" % (gaps[0][2], gaps[0][views.LENGTH], gaps[0][1]))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] in ("steps", "gap"):
        sys.exit(steps_and_gap(sys.argv[1], sys.argv[2]))
    sys.exit(main(sys.argv[1]))
