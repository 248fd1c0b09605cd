#!/usr/bin/env python3
"""A synthetic PyTorch-like Perfetto trace, written in the wire format by
hand (no protobuf package), for `make bench` and tests/e2e/perfetto_gpu.sh.

    perfetto_gen.py EVENTS OUT [--summary JSON] [--seed N]

One process (pid 100, "train.py") with a thread "main" (tid 101) that runs
ops (category cpu_op) and cudaLaunchKernel calls (cuda_runtime), and a
custom track "GPU 0" under the process with two custom tracks "stream 7"
and "stream 8" nested under it, holding kernels (category kernel) and
copies (gpu_memcpy). Each launch starts a flow that its kernel ends; each
kernel has debug annotations (grid, block, stream, a string); a counter
track "GPU memory" gets a value per kernel. EVENTS counts slice begins,
ends and counter values (about). --summary writes what was written: per
kernel name its instances and total ns, and the counts of everything.
"""
import json
import random
import struct
import sys

KERNELS = ["ampere_sgemm_128x64_tn", "vectorized_elementwise_kernel", "reduce_kernel",
           "softmax_warp_forward", "cunn_SoftMaxBackward", "nchwToNhwcKernel"]
OPS = ["aten::linear", "aten::relu", "aten::softmax", "aten::add_"]


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def vi(field, v):
    return varint(field << 3) + varint(v & 0xFFFFFFFFFFFFFFFF)


def ld(field, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(field << 3 | 2) + varint(len(data)) + data


def fixed64(field, v):
    return varint(field << 3 | 1) + struct.pack("<Q", v)


SEQ = vi(10, 1)


def packet(body):
    return ld(1, body)


def track(uuid, parent=None, name=None, process=None, thread=None, counter=False):
    b = vi(1, uuid)
    if name is not None:
        b += ld(2, name)
    if parent is not None:
        b += vi(5, parent)
    if process is not None:
        b += ld(3, vi(1, process[0]) + ld(6, process[1]))
    if thread is not None:
        b += ld(4, vi(1, thread[0]) + vi(2, thread[1]) + ld(5, thread[2]))
    if counter:
        b += ld(8, b"")
    return packet(ld(60, b) + SEQ)


def annotation(name, value):
    b = ld(10, name)
    if isinstance(value, int):
        b += vi(4, value)
    else:
        b += ld(6, value)
    return ld(4, b)


def event(ts, typ, uuid, name=None, cat=None, flows=(), terms=(), anns=b"", counter=None):
    b = vi(9, typ) + vi(11, uuid)
    if name is not None:
        b += ld(23, name)
    if cat is not None:
        b += ld(22, cat)
    for f in flows:
        b += fixed64(47, f)
    for f in terms:
        b += fixed64(48, f)
    if counter is not None:
        b += vi(30, counter)
    b += anns
    return packet(vi(8, ts) + ld(11, b) + SEQ)


BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4
PROC, MAIN, GPU, STREAMS, MEM = 1, 2, 3, (4, 5), 6


def generate(events, out, seed):
    rnd = random.Random(seed)
    summary = {"kernels": {}, "slices": 0, "instants": 0, "counter_values": 0, "flows": 0,
               "memcpy": 0, "packets": 0}
    w = out.write

    def put(p):
        summary["packets"] += 1
        w(p)

    put(track(PROC, process=(100, "train.py")))
    put(track(MAIN, parent=PROC, thread=(100, 101, "main")))
    put(track(GPU, parent=PROC, name="GPU 0"))
    for i, s in enumerate(STREAMS):
        put(track(s, parent=GPU, name="stream %d" % (7 + i)))
    put(track(MEM, parent=PROC, name="GPU memory", counter=True))
    ts, gpu_free, written, flow, mem = 1_000_000, [0, 0], 0, 0, 0
    while written < events:
        op = rnd.choice(OPS)
        put(event(ts, BEGIN, MAIN, op, "cpu_op"))
        for _ in range(rnd.randint(1, 3)):
            flow += 1
            ts += rnd.randint(200, 2000)
            put(event(ts, BEGIN, MAIN, "cudaLaunchKernel", "cuda_runtime", flows=(flow,)))
            ts += rnd.randint(1000, 5000)
            put(event(ts, END, MAIN))
            s = rnd.randrange(2)
            start = max(ts + 500, gpu_free[s])
            dur = rnd.randint(2000, 200000)
            copy = rnd.random() < 0.1
            name = "Memcpy HtoD (Pageable -> Device)" if copy else rnd.choice(KERNELS)
            anns = annotation("grid", rnd.randint(1, 4096)) + \
                annotation("block", 256) + annotation("stream", 7 + s) + \
                annotation("note", "kernel \"%d\"" % flow)
            put(event(start, BEGIN, STREAMS[s], name, "gpu_memcpy" if copy else "kernel",
                      terms=(flow,), anns=anns))
            put(event(start + dur, END, STREAMS[s]))
            mem += rnd.randint(-1000, 4096) * 1024
            mem = max(mem, 0)
            put(event(start, COUNTER, MEM, counter=mem))
            gpu_free[s] = start + dur
            summary["flows"] += 1
            summary["slices"] += 2
            summary["counter_values"] += 1
            written += 7
            if copy:
                summary["memcpy"] += 1
            else:
                k = summary["kernels"].setdefault(name, [0, 0])
                k[0] += 1
                k[1] += dur
        ts += rnd.randint(1000, 3000)
        put(event(ts, END, MAIN))
        summary["slices"] += 1
        written += 2
    return summary


def main():
    args = sys.argv[1:]
    summary_path, seed = None, 1
    if "--summary" in args:
        i = args.index("--summary")
        summary_path = args[i + 1]
        del args[i:i + 2]
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    with open(args[1], "wb") as out:
        summary = generate(int(args[0]), out, seed)
    if summary_path:
        with open(summary_path, "w") as f:
            json.dump(summary, f, indent=1, sort_keys=True)
    print("perfetto_gen: %d packets, %d slices" % (summary["packets"], summary["slices"]),
          file=sys.stderr)


if __name__ == "__main__":
    main()
