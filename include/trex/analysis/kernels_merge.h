/* The all-ranks kernels table from per-rank kernel summaries
 * (core/kernel_summary.h), without an index of the set: the rows, columns
 * and numbers trex_kernels_table gives grouped by name (optionally with
 * per_rank) for the same files loaded as one index.
 *
 * Every column is exact: counts, totals, min and max are summed and
 * compared; Med, P95 and P99 are selected from the ranks' sorted durations
 * in place (a binary search over values, counting each rank's durations
 * at or below); StdDev comes from the exact 128-bit sums of squares, or,
 * where those overflow (durations of hours, by the billion), from a
 * second pass over the durations in long double, as the merged table does
 * (equal to it within long double rounding). */
#ifndef TREX_ANALYSIS_KERNELS_MERGE_H
#define TREX_ANALYSIS_KERNELS_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/kernel_summary.h"
#include "trex/core/status.h"

/* The copies and sets of one row (kernels --memory): the bytes of those
 * whose size is known and their durations, summed; sized: any is known. */
struct trex_kernels_copy {
	int64_t bytes, ns;
	bool sized;
};

/* One file of the set: file of sum, with the rank the set gives it. */
struct trex_kernels_part {
	const struct trex_ksum *sum;
	uint32_t file;
	int64_t rank;
};

/* What the merged table shows: per_rank as below; by_op: the rows are
 * launching ops (an "op" column, trex_kernels_table's BY_OP) rather than
 * names; with copies, the Bytes and GB/s columns of --memory (bytes / ns
 * of the sized copies and sets, NaN where none is sized) after the totals
 * per rank: copies[p] per row of part p's sum (as its rows are indexed),
 * NULL when none of that part's copies has a known size. */
struct trex_kernels_merge_opts {
	bool per_rank, by_op;
	const struct trex_kernels_copy *const *copies;
};

/* Fills t (uninitialised on entry) from parts[0..n), which come in the
 * set's file order (trex_load_sources: by rank) and claim distinct ranks.
 * per_rank: one total column per part, "rank<R>_total_ns" / "rank R",
 * after the statistics. A table without rows has no note: the caller
 * says why (it needs the traces). */
enum trex_status trex_kernels_merge_table(const struct trex_kernels_part *parts, size_t n,
                                          bool per_rank, struct trex_table *t,
                                          struct trex_error *err);
/* The same with the columns mo asks for. */
enum trex_status trex_kernels_merge_table_opts(const struct trex_kernels_part *parts, size_t n,
                                               const struct trex_kernels_merge_opts *mo,
                                               struct trex_table *t, struct trex_error *err);

#endif
