#!/usr/bin/env python3
"""hostlink.py nodes CHAKRA_JSON: one line per node of a chakra-json document
(tests/data/hostlink/tiny.expect's format): id type name duration_us
data=DEPS ctrl=DEPS cpu=0|1 [comm_type=N comm_size=N]; ranks one after the other.
hostlink.py attrs CHAKRA_JSON ID: the attributes of node ID, "name=value" each."""

import json
import sys


def attr_values(node):
    out = {}
    for a in node.get("attr", []):
        vals = [v for k, v in a.items() if k != "name"]
        out[a["name"]] = vals[0] if vals else None
    return out


def main():
    with open(sys.argv[2]) as f:
        doc = json.load(f)
    for rank in doc["ranks"]:
        for n in rank["nodes"]:
            a = attr_values(n)
            if sys.argv[1] == "attrs":
                if n.get("id", "0") == sys.argv[3]:
                    for k, v in a.items():
                        print("%s=%s" % (k, v))
                continue
            line = "%s %s %s %s data=%s ctrl=%s cpu=%d" % (
                n.get("id", "0"), n.get("type", "INVALID_NODE"), n.get("name", ""),
                n.get("durationMicros", "0"), ",".join(n.get("dataDeps", [])),
                ",".join(n.get("ctrlDeps", [])), 1 if a.get("is_cpu_op") else 0)
            if "comm_type" in a:
                line += " comm_type=%s comm_size=%s" % (a["comm_type"], a.get("comm_size"))
            print(line)


if __name__ == "__main__":
    main()
