#!/usr/bin/env python3
"""What a new user should find in a trace, computed from its JSON with
Python (for tests/screen/newuser.sh): the longest GPU kernels and the
runtime calls that launched them.

    newuser.py TRACE   prints one line per kernel instance of the longest
                       duration: "DUR_NS<TAB>NAME<TAB>LAUNCH" (LAUNCH is
                       "-" when no runtime call shares its correlation id);
                       nothing when the trace has no kernels.
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
