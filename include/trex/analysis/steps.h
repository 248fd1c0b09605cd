/* Per-step GPU breakdown (`trex steps`): for each training step (a
 * ProfilerStep#N range, or ranges named by a regex), how its time went on
 * the GPUs of its rank. */
#ifndef TREX_ANALYSIS_STEPS_H
#define TREX_ANALYSIS_STEPS_H

#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

#define TREX_STEP_PATTERN "^ProfilerStep#" /* the default: PyTorch profiler steps */

struct trex_step_opts {
	const char *pattern; /* PCRE2 over names (smart case); NULL: TREX_STEP_PATTERN */
};

/* A step is a cpu_op or user_annotation slice (kinds CPU_OP, ANNOTATION)
 * whose name matches the pattern; GPU-side copies of annotations are not
 * steps. One row per step, ordered by rank (file), then start, then
 * display order. Over the step's window [start, end), clipped to it, on
 * all GPU devices of its file (rank) together, with GPU work and its
 * classes as gpu-time has them (trex_gpu_classify):
 *   rank
 *   start_ns     step start, from the trace start (trex_index_start)
 *   dur_ns       step length
 *   busy_ns      length of the union of all GPU work (never a sum)
 *   idle_ns      dur - busy;  busy_pct = busy / dur * 100 (0 for dur 0)
 *   compute_ns, comm_ns, memory_ns: union length of each class (memory:
 *                memcpy and memset)
 *   overlap_ns   |union(compute) & union(comm)|
 *   kernels      kernels (compute and comm) starting inside the window
 *   step         the step's name
 * *ids (when not NULL) receives the step slice of each row (malloc'd;
 * NULL on failure and for no rows). A bad pattern is USAGE with PCRE2's
 * message. */
enum trex_status trex_steps_table(const struct trex_index *idx, const struct trex_step_opts *opts,
                                  struct trex_table *t, uint32_t **ids, struct trex_error *err);

/* The steps trex_steps_table finds, without their GPU columns: how many
 * (its rows) and their summed length (its dur_ns column, exactly), in one
 * pass over the slices. Errors as trex_steps_table's. */
enum trex_status trex_steps_total(const struct trex_index *idx, const struct trex_step_opts *opts,
                                  uint64_t *count, __int128 *total, struct trex_error *err);

#endif
