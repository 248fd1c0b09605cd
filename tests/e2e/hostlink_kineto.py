#!/usr/bin/env python3
"""hostlink_kineto.py HOST_ET RANK OUT [--expect]

Writes a Kineto trace (Chrome JSON) of the run a PyTorch host execution
trace describes, as the profiler would have recorded it on rank RANK, for
tests/e2e/hostlink.sh: every host op below the thread root becomes a cpu_op
(user_annotation for "## ... ##" names) with its "Record function id",
nested as the host call tree says, at deterministic times; the ops that
move data launch device work:
  aten::copy_ into a cuda tensor from a cpu one -> cudaMemcpyAsync + a
      "Memcpy HtoD" gpu_memcpy on stream 7,
  aten::copy_ between cuda tensors -> cudaLaunchKernel + a copy kernel on 7,
  nccl:all_gather -> cudaLaunchKernel + ncclDevKernel_AllGather on stream 20.
With --expect it prints instead what trex should write for the pair, counted
here independently of trex: host ops, host ops linked by rf_id, device ops
(all linked) and the nodes per Chakra type (device work launched under a
communication op is a collective, trex's rule, except beside a named
communication kernel of the same call: one collective, one node)."""

import json
import re
import sys

# trex's rule (include/trex/load/classify.h, the OP rules): device work launched
# under one of these ops is communication, and the Chakra writer makes it a
# collective of the type the op names.
COMM_OP = re.compile(r"^(_?c10d_functional|c10d|symm_mem)::|^(nccl|gloo|xccl|hccl|ucc|mpi):"
                     r"|^record_param_comms$")

# The Chakra writer's collective calls (chakra_write.c, cw_comm_op).
CALL_OP = re.compile(r"^(c10d::|nccl:|rccl:|gloo:|xccl:|hccl:)|^record_param_comms$")

THREAD_ROOTS = ("[pytorch|profiler|execution_trace|thread]",
                "[pytorch|profiler|execution_graph|thread]")


def attrs(node):
    return {a["name"]: a["value"] for a in node.get("attrs", [])}


def launch(node):
    """The device work a host op launches: (kind, name, stream) or None."""
    if node["name"] == "nccl:all_gather":
        return ("kernel", "ncclDevKernel_AllGather_RING_LL", 20)
    if node["name"] == "aten::copy_":
        values = node["inputs"]["values"]
        dst, src = values[0][5], values[1][5]
        if str(dst).startswith("cuda") and src == "cpu":
            return ("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 7)
        if str(dst).startswith("cuda"):
            return ("kernel", "void at::native::elementwise_kernel<128, 4, copy>", 7)
    return None


class Gen:
    def __init__(self, et, rank):
        self.et, self.rank = et, rank
        self.pid = et.get("pid", 1)
        self.events, self.gpu = [], []
        self.ext = self.corr = 0
        self.stream_free = {}
        self.kids = {}
        self.comm_items = []  # communication device ops: (their collective's call, named)
        self.byid = {n["id"]: n for n in et["nodes"]}
        for n in et["nodes"]:
            if n["ctrl_deps"] != n["id"]:
                self.kids.setdefault(n["ctrl_deps"], []).append(n)

    def op(self, node, t):
        """Places node at t (µs) with its callees; returns its end."""
        self.ext += 1
        ext = self.ext
        cur = t + 1
        for kid in sorted(self.kids.get(node["id"], []), key=lambda n: n["id"]):
            cur = self.op(kid, cur) + 1
        work = launch(node)
        if work:
            cur = self.device(work, ext, cur) + 1
            named = work[1].startswith("ncclDevKernel")
            if named or self.under_comm(node):
                self.comm_items.append((self.comm_call(node), named))
        cat = "user_annotation" if node["name"].startswith("##") else "cpu_op"
        args = {"External id": ext, "Record function id": attrs(node)["rf_id"]}
        if node["name"] == "record_param_comms":
            args.update({"Collective name": "all_gather", "In msg nelems": 1, "dtype": "Float",
                         "Group size": 2, "Process Group Name": "0"})
        self.events.append({"ph": "X", "cat": cat, "name": node["name"], "pid": self.pid,
                            "tid": self.pid, "ts": t, "dur": cur + 1 - t, "args": args})
        return cur + 1

    def comm_call(self, node):
        """The outermost op above node (node included) that the Chakra writer
        takes for a collective's call (its cw_comm_op), or None."""
        call, seen = None, set()
        while node and node["id"] not in seen:
            if CALL_OP.search(node["name"]):
                call = node["id"]
            seen.add(node["id"])
            node = self.byid.get(node["ctrl_deps"])
        return call

    @property
    def comm_work(self):
        """Collective nodes: one collective is one node, so work that is
        communication only by the op launching it, where that call also
        launched a named communication kernel, is written as COMP."""
        named_calls = {c for c, named in self.comm_items if named and c is not None}
        return sum(1 for c, named in self.comm_items if named or c not in named_calls)

    def under_comm(self, node):
        seen = set()
        while node and node["id"] not in seen:
            if COMM_OP.search(node["name"]):
                return True
            seen.add(node["id"])
            node = self.byid.get(node["ctrl_deps"])
        return False

    def device(self, work, ext, t):
        kind, name, stream = work
        self.corr += 1
        api = "cudaMemcpyAsync" if kind == "gpu_memcpy" else "cudaLaunchKernel"
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": api, "pid": self.pid,
                            "tid": self.pid, "ts": t, "dur": 3,
                            "args": {"External id": ext, "correlation": self.corr}})
        start = max(t + 5, self.stream_free.get(stream, 0))
        dur = {7: 4, 20: 30}[stream] if kind == "gpu_memcpy" or stream == 20 else 9
        self.stream_free[stream] = start + dur
        self.gpu.append({"ph": "X", "cat": kind, "name": name, "pid": self.rank,
                         "tid": stream, "ts": start, "dur": dur,
                         "args": {"External id": ext, "device": self.rank, "stream": stream,
                                  "correlation": self.corr}})
        return t + 3

    def trace(self):
        t = 1000
        for root in sorted(self.et["nodes"], key=lambda n: n["id"]):
            if root["name"] in THREAD_ROOTS:
                for kid in sorted(self.kids.get(root["id"], []), key=lambda n: n["id"]):
                    t = self.op(kid, t) + 2
        return {"schemaVersion": 1,
                "distributedInfo": {"backend": "nccl", "rank": self.rank, "world_size": 2},
                "traceEvents": self.events + self.gpu}


def expect(et, gen):
    nodes = et["nodes"]
    rf_ids = {e["args"]["Record function id"] for e in gen.events
              if e["cat"] in ("cpu_op", "user_annotation")}
    linked = sum(1 for n in nodes if attrs(n).get("rf_id") in rf_ids)
    comm = gen.comm_work
    print("host_ops", len(nodes))
    print("linked_rf_id", linked)
    print("unmatched", len(nodes) - linked)
    print("device_ops", len(gen.gpu))
    print("COMM_COLL_NODE", comm)
    print("COMP_NODE", len(nodes) + len(gen.gpu) - comm)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        et = json.load(f)
    gen = Gen(et, int(sys.argv[2]))
    tr = gen.trace()
    if "--expect" in sys.argv[4:]:
        expect(et, gen)
        return
    with open(sys.argv[3], "w") as f:
        json.dump(tr, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
