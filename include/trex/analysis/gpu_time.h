/* GPU time accounting per device (HTA's temporal breakdown, idle time
 * breakdown, comm/comp overlap and kernel launch statistics,
 * hta-analyses.md #4, #5, #6, #7). */
#ifndef TREX_ANALYSIS_GPU_TIME_H
#define TREX_ANALYSIS_GPU_TIME_H

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* One row per GPU device (process with kernels, copies or sets) of each
 * rank, in display order. GPU work = device work (trex_work_is_device:
 * kernels, memcpy and memset on any accelerator); its class is
 * communication (a communication rule matches it, trex_work_comm),
 * memory (the other memcpy and memset) or compute (the other kernels).
 * Without any device work the table has no row and t->note says why.
 *   rank, device
 *   span_ns      first start to last end of the device's GPU work
 *   busy_ns      length of the union of its intervals (never their sum)
 *   idle_ns      span - busy;  busy_pct = busy / span * 100
 *   idle_host_wait_ns, idle_kernel_gap_ns, idle_sync_ns, idle_other_ns:
 *                idle_ns split by gap. A gap runs from the end of one
 *                span of the busy union to the start of the next; the
 *                work starting at the gap's end is its "next work", and
 *                its launch is the earliest start of their correlated
 *                runtime launch calls (trex_index_correlated). Each gap
 *                goes whole to the first class that applies:
 *                host wait   a launch exists and started after the gap
 *                            began (HTA: ts_runtime > prev_end_ts): the
 *                            GPU waited for the CPU to enqueue work;
 *                kernel gap  a launch exists, started at or before the
 *                            gap began, and the gap is shorter than
 *                            30 us (HTA consecutive_kernel_delay = 30 in
 *                            its unit, us): launch overhead between
 *                            back-to-back work already enqueued;
 *                sync        a cuda_sync slice (Stream/Context/Event Sync,
 *                            Stream Wait Event) on a track of the device
 *                            reaches inside the gap (ts < gap end and
 *                            end > gap start), or a runtime call named
 *                            cudaStreamSynchronize, cudaDeviceSynchronize
 *                            or cudaEventSynchronize of the same file
 *                            covers it (ts <= gap start, end >= gap end);
 *                other       the rest, including every gap whose next
 *                            work has no correlated launch and no sync.
 *                Host wait and kernel gap are HTA's classes over the
 *                device union instead of per stream (HTA also counts
 *                short gaps without a launch as kernel wait; here they
 *                are other); sync + other is HTA's "other". The four
 *                always add up to idle_ns exactly.
 *   compute_ns, comm_ns, memory_ns: union length of each class
 *   overlap_pct  |union(comm) & union(compute)| / union(comm) * 100
 *                (0 without communication)
 *   kernels      GPU work items
 *   launches     of them with a correlated runtime launch
 *   delay_{min,med,avg,p95,max}_ns  launch delay = GPU start - launch
 *                start (med: mean of the two middle values for even
 *                counts; p95: nearest rank), 0 without launches
 *   short_kernels  launched work shorter than its launch call */
enum trex_status trex_gpu_time_table(const struct trex_index *idx, struct trex_table *t,
                                     struct trex_error *err);

/* The class gpu-time gives one slice, for the analyses that split GPU time
 * the same way (steps, gaps, ops), from its stored kind and communication. */
enum trex_gpu_class {
	TREX_GPU_NOT_WORK, /* not GPU work: CPU slices, GPU annotations and syncs */
	TREX_GPU_COMPUTE,  /* a kernel that is not communication */
	TREX_GPU_COMM,     /* a communication kernel (gpu-time's comm_ns) */
	TREX_GPU_MEMORY,   /* memcpy or memset */
};
enum trex_gpu_class trex_gpu_class_of(const struct trex_index *idx, uint32_t slice);

#endif
