/* The kernels table of a set of ranks, from each rank's own index in turn
 * (never one index of the set), for the groupings and options the
 * per-rank kernel summaries (core/kernel_summary.h) do not hold:
 *  - by name with --memory, and by op: groups span ranks. Each rank gives
 *    a part (trex_kernels_rank_new): per group its label, its durations
 *    sorted, their exact sums, and the bytes of its copies and sets; the
 *    parts merge as the summaries do (analysis/kernels_merge.h), Med, P95
 *    and P99 selected from the ranks' sorted arrays in place.
 *  - by shape, stream, device or rank: a group (a stream, a device, a
 *    file, a shape on one stream) belongs to one rank, so each rank's own
 *    table has the set's rows; trex_kernels_join_table relabels and
 *    orders them as the table of the set loaded as one index does.
 * Both give what trex_kernels_table gives for the set loaded as one index
 * (its files in rank order, distinct ranks), cell for cell. */
#ifndef TREX_ANALYSIS_KERNELS_RANK_H
#define TREX_ANALYSIS_KERNELS_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/kernels_merge.h"
#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/kernel_summary.h"
#include "trex/core/status.h"

/* One rank's groups by name or op (opts->group; opts->memory, category
 * and catset as trex_kernels_table takes them; per_rank and args are
 * ignored): sum is a summary of one file whose rows are the groups, named
 * by the name or the op's label; copies per row when a copy or set of
 * the rank has a known size, else NULL. */
struct trex_kernels_rank {
	struct trex_ksum sum;
	struct trex_kernels_copy *copies;
	char *names; /* the rows' labels */
	void *durs;  /* the rows' durations */
};

/* *out (free with trex_kernels_rank_free) from idx, one rank's index.
 * USAGE for a grouping other than name or op. */
enum trex_status trex_kernels_rank_new(const struct trex_index *idx,
                                       const struct trex_kernel_opts *opts,
                                       struct trex_kernels_rank **out, struct trex_error *err);
void trex_kernels_rank_free(struct trex_kernels_rank *r);

/* The set's table from each rank's own trex_kernels_table (the same opts,
 * grouped by shape, stream, device or rank), tables[0..n) in the set's
 * order (by rank), ranks[i] the rank the set gives table i: rows joined,
 * Time % of the set's total, the rank column the set's rank, the device
 * named as in a set ("rank 3 GPU 0"), the Bytes and GB/s columns when any
 * rank has them (NaN for a rank without), ordered by total descending,
 * ties by name and shape, then by rank, then as the rank's table has
 * them. t is uninitialised on entry. */
enum trex_status trex_kernels_join_table(const struct trex_table *const *tables,
                                         const int64_t *ranks, size_t n, struct trex_table *t,
                                         struct trex_error *err);

#endif
