/* GPU time accounting per device (HTA's temporal breakdown, comm/comp
 * overlap and kernel launch statistics, hta-analyses.md #4, #6, #7). */
#ifndef TREX_ANALYSIS_GPU_TIME_H
#define TREX_ANALYSIS_GPU_TIME_H

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* One row per GPU device (process with kernels, copies or sets) of each
 * rank, in display order. GPU work = kernels, memcpy and memset; its
 * class is memory (memcpy, memset), communication (a kernel in the
 * built-in "collective" category) or compute (every other kernel).
 *   rank, device
 *   span_ns      first start to last end of the device's GPU work
 *   busy_ns      length of the union of its intervals (never their sum)
 *   idle_ns      span - busy;  busy_pct = busy / span * 100
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

#endif
