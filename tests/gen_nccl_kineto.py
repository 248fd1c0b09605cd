#!/usr/bin/env python3
"""gen_nccl_kineto.py OUTDIR [RANKS]: a deterministic multi-rank PyTorch-profiler
(Kineto) trace set with NCCL collectives on every rank, as a 2024 Kineto writes
it, one file per rank: OUTDIR/rank-R.pt.trace.json.

No GPU was available to record one, so this builds what such a run records:
per rank (GPU pid = rank), three steps ProfilerStep#10..#12 on the main thread;
in each, compute kernels (aten::mm -> cudaLaunchKernel -> a kernel on stream 7),
then ncclDevKernel_AllReduce_Sum_f32_RING_LL on the NCCL stream 20 in the default
group ("0", all ranks) and, with 4 or more ranks, ncclDevKernel_AllGather_RING_LL
in a tensor-parallel group of 2 ("1": ranks 0,1; "2": ranks 2,3; ...), each
launched under record_param_comms with Kineto's NCCL args (Collective name,
In/Out msg nelems, dtype, Group size, Process Group Name/Description/Ranks),
copied onto the kernel as Kineto does. Cross-stream order is what PyTorch
records: cudaEventRecord on stream 7 then cudaStreamWaitEvent on stream 20
before a collective (a cuda_sync "Stream Wait Event"), the reverse after it,
and a cudaStreamSynchronize of stream 7 (cuda_sync "Stream Sync") closing each
step. Also printed on stdout, per rank, one line per device-work node in start
order: "R ID NAME DEPS" (DEPS: comma-separated ids, "-" for none), the
dependencies trex's Chakra export must write: the previous work on the same
stream, plus, for the first work on a stream after a wait or sync, the last
work the wait or sync covers.
"""
import json
import os
import sys

COMPUTE, NCCL = 7, 20
STEPS = (10, 11, 12)
KERNELS_PER_STEP = 3
PID, TID = 4242, 4242


def us(ns):
    """ns as Kineto prints it: microseconds with 3 decimals."""
    return float("%d.%03d" % (ns // 1000, ns % 1000))


class Rank:
    def __init__(self, rank, world):
        self.rank, self.world = rank, world
        self.ev = []
        self.t = 1_000_000  # ns; the host clock
        self.gpu_free = {COMPUTE: 0, NCCL: 0}
        self.corr = 100
        self.ext = 1
        self.work = []  # (start ns, stream, name, correlation)
        self.last_on = {}  # stream -> index in work
        self.deps = []  # per work: set of indexes
        self.ends = []  # per work: its end, ns
        self.pending = {COMPUTE: set(), NCCL: set()}  # deps for the next work on a stream
        self.recorded = {}  # record correlation -> index of the last work on its stream

    def next_corr(self):
        self.corr += 1
        return self.corr

    def cpu(self, name, dur, cat="cpu_op", args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": PID, "tid": TID,
             "ts": us(self.t), "dur": us(dur), "args": args or {}}
        self.ev.append(e)
        return e

    def runtime(self, name, corr, dur=4000, cbid=211):
        self.cpu(name, dur, "cuda_runtime",
                 {"External id": self.ext, "cbid": cbid, "correlation": corr})
        self.t += dur + 500

    def gpu(self, name, stream, corr, dur, extra=None):
        d = set(self.pending[stream])
        if stream in self.last_on:
            d.add(self.last_on[stream])
        # a kernel starts once launched and once what it waits for has ended
        start = max([self.t + 2000] + [self.ends[i] for i in d])
        args = {"External id": self.ext, "queued": 0, "device": self.rank,
                "context": 1, "stream": stream, "correlation": corr,
                "registers per thread": 32, "shared memory": 0,
                "grid": [64, 1, 1], "block": [256, 1, 1]}
        args.update(extra or {})
        self.ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": self.rank,
                        "tid": stream, "ts": us(start), "dur": us(dur), "args": args})
        self.gpu_free[stream] = start + dur
        i = len(self.work)
        self.work.append((start, stream, name, corr))
        self.ends.append(start + dur)
        self.pending[stream] = set()
        self.deps.append(d)
        self.last_on[stream] = i

    def launch(self, name, stream, dur, extra=None):
        corr = self.next_corr()
        self.runtime("cudaLaunchKernel", corr)
        self.gpu(name, stream, corr, dur, extra)
        self.ext += 1

    def record_then_wait(self, src, dst):
        """cudaEventRecord on src, cudaStreamWaitEvent on dst."""
        rec = self.next_corr()
        self.runtime("cudaEventRecord", rec, 1500, 135)
        wait = self.next_corr()
        self.runtime("cudaStreamWaitEvent", wait, 1500, 147)
        self.ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event",
                        "pid": self.rank, "tid": dst, "ts": us(self.t), "dur": us(1000),
                        "args": {"cuda_sync_kind": "Stream Wait Event", "wait_on_stream": src,
                                 "wait_on_cuda_event_record_corr_id": rec,
                                 "wait_on_cuda_event_id": 7, "stream": dst,
                                 "correlation": wait, "device": self.rank}})
        if src in self.last_on:
            self.pending[dst].add(self.last_on[src])

    def stream_sync(self, stream):
        corr = self.next_corr()
        end = max(self.gpu_free[stream], self.t)
        self.cpu("cudaStreamSynchronize", end - self.t + 1000, "cuda_runtime",
                 {"cbid": 131, "correlation": corr})
        self.ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": self.rank,
                        "tid": stream, "ts": us(self.t), "dur": us(end - self.t + 1000),
                        "args": {"cuda_sync_kind": "Stream Sync", "stream": stream,
                                 "correlation": corr, "device": self.rank}})
        self.t = end + 2000
        if stream in self.last_on:
            for s in self.pending:
                if s != stream:
                    self.pending[s].add(self.last_on[stream])

    def collective(self, coll, kernel, nelems, out_nelems, pg, pg_ranks, desc):
        nccl = {"Collective name": coll, "In msg nelems": nelems, "Out msg nelems": out_nelems,
                "Group size": len(pg_ranks), "dtype": "Float", "In split size": "[]",
                "Out split size": "[]", "Process Group Name": pg,
                "Process Group Description": desc, "Process Group Ranks": pg_ranks}
        self.record_then_wait(COMPUTE, NCCL)
        op = self.cpu("record_param_comms", 9000, "cpu_op", dict(nccl, **{"External id": self.ext}))
        self.t += 1000
        self.launch(kernel, NCCL, 40000 + nelems // 100, nccl)
        op["dur"] = us(self.t - int(round(op["ts"] * 1000)))
        self.t += 1000
        self.record_then_wait(NCCL, COMPUTE)

    def step(self, n):
        ann = self.cpu("ProfilerStep#%d" % n, 0, "user_annotation", {"External id": self.ext})
        self.ext += 1
        t0 = self.t
        self.t += 1000
        for k in range(KERNELS_PER_STEP):
            op = self.cpu("aten::mm", 6000, "cpu_op", {"External id": self.ext})
            self.t += 500
            self.launch("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize%dx128" % (64 * (k + 1)),
                        COMPUTE, 30000 + 5000 * k)
            op["dur"] = us(6000)
        world = list(range(self.world))
        self.collective("allreduce", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                        262144, 262144, "0", world, "default_pg")
        if self.world >= 4:
            tp = self.rank // 2
            self.collective("_allgather_base", "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                            65536, 131072, str(tp + 1), [2 * tp, 2 * tp + 1], "undefined")
        self.launch("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >",
                    COMPUTE, 8000)
        self.stream_sync(COMPUTE)
        ann["dur"] = us(self.t - t0)
        self.t += 5000

    def trace(self):
        for n in STEPS:
            self.step(n)
        meta = [{"ph": "M", "name": "process_name", "pid": PID, "tid": 0, "args": {"name": "python3"}},
                {"ph": "M", "name": "process_name", "pid": self.rank, "tid": 0, "args": {"name": "python3"}},
                {"ph": "M", "name": "process_labels", "pid": self.rank, "tid": 0,
                 "args": {"labels": "GPU %d" % self.rank}},
                {"ph": "M", "name": "thread_name", "pid": self.rank, "tid": COMPUTE,
                 "args": {"name": "stream %d " % COMPUTE}},
                {"ph": "M", "name": "thread_name", "pid": self.rank, "tid": NCCL,
                 "args": {"name": "stream %d " % NCCL}}]
        groups = [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                   "pg_size": self.world, "ranks": list(range(self.world))}]
        return {"schemaVersion": 1, "deviceProperties": [],
                "distributedInfo": {"backend": "nccl", "rank": self.rank, "world_size": self.world,
                                    "pg_count": len(groups), "pg_config": groups,
                                    "nccl_version": "2.21.5"},
                "displayTimeUnit": "ms", "traceEvents": self.ev + meta,
                "traceName": "rank-%d.pt.trace.json" % self.rank}


def main():
    out = sys.argv[1]
    world = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    os.makedirs(out, exist_ok=True)
    for r in range(world):
        rk = Rank(r, world)
        doc = rk.trace()
        with open(os.path.join(out, "rank-%d.pt.trace.json" % r), "w") as f:
            json.dump(doc, f, indent=1)
        order = sorted(range(len(rk.work)), key=lambda i: (rk.work[i][0], i))
        ids = {w: k for k, w in enumerate(order)}
        for k, w in enumerate(order):
            deps = sorted(ids[d] for d in rk.deps[w])
            print(r, k, rk.work[w][2].split("(")[0], ",".join(map(str, deps)) or "-")


if __name__ == "__main__":
    main()
