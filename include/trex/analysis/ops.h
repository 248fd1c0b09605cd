/* CPU-side summaries: the CPU ops (`trex ops`, in the manner of PyTorch's
 * key_averages()) and the runtime API calls (`trex api`, in the manner of
 * nsys stats' cuda_api_sum), with the instances behind each row. */
#ifndef TREX_ANALYSIS_OPS_H
#define TREX_ANALYSIS_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

struct trex_ops_opts {
	bool api;   /* runtime calls (kind RUNTIME) instead of CPU ops (kind CPU_OP) */
	size_t top; /* only the first top rows; 0: all */
};

/* Two costs of a CPU slice, shared by the tables and their instances:
 *   self  its duration minus the union of its direct children (the slices
 *         one level deeper on its thread starting inside it, clipped to
 *         it), as the details pane has it (trex_slice_children);
 *   gpu   the duration of the GPU work (kernels, memcpy, memset:
 *         trex_gpu_classify) whose launching runtime call
 *         (trex_index_launch_of) is this slice or, for an op, lies inside
 *         it: the call is the op or one of its descendants on its thread. */

/* One row per name, over all ranks:
 *  ops: calls total_ns self_ns self_pct avg_ns p95_ns max_ns gpu_ns name,
 *       sorted by self time descending (ties: name); total is inclusive,
 *       self_pct = self / the sum of every op's self * 100, gpu the sum
 *       over the instances (an op nested in a same-named op counts twice,
 *       as its total does);
 *  api: time_pct total_ns calls avg_ns med_ns min_ns max_ns stddev_ns
 *       p95_ns name, sorted by total descending (ties: name); time_pct =
 *       total / the sum of all totals * 100.
 * avg = total / calls; med the mean of the two middle durations for even
 * counts; p95 the nearest rank (the ceil(95 n / 100)-th smallest); stddev
 * the sample standard deviation (n - 1), 0 for one call. *members (when
 * not NULL) receives the slice ids of each row (ascending), zeroed on
 * failure; free it with trex_kernel_members_free. */
enum trex_status trex_ops_table(const struct trex_index *idx, const struct trex_ops_opts *opts,
                                struct trex_table *t, struct trex_kernel_members *members,
                                struct trex_error *err);

/* One row per slice of ids[0..n) (CPU slices), which is reordered to
 * match the rows: duration descending, ties by start, then id. Columns:
 * start_ns (from the trace start), dur_ns, self_ns, gpu_ns (as above),
 * rank, thread (its track label), name. */
enum trex_status trex_ops_instances_table(const struct trex_index *idx, uint32_t *ids, size_t n,
                                          struct trex_table *t, struct trex_error *err);

/* The ops or api table of a set of ranks without one index of them all
 * (cli_ranks.c): each rank's part (its groups by name: calls, self and GPU
 * sums, every duration sorted) made from that rank alone, then joined by
 * name into the table trex_ops_table gives for the merged load (opts->top
 * applies to the set's rows). A part keeps no reference to its index. */
struct trex_ops_part;
enum trex_status trex_ops_part_new(const struct trex_index *idx, bool api,
                                   struct trex_ops_part **out, struct trex_error *err);
void trex_ops_part_free(struct trex_ops_part *p);
enum trex_status trex_ops_join_table(struct trex_ops_part *const *parts, size_t n,
                                     const struct trex_ops_opts *opts, struct trex_table *t,
                                     struct trex_error *err);

#endif
