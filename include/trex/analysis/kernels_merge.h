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

/* One file of the set: file of sum, with the rank the set gives it. */
struct trex_kernels_part {
	const struct trex_ksum *sum;
	uint32_t file;
	int64_t rank;
};

/* Fills t (uninitialised on entry) from parts[0..n), which come in the
 * set's file order (trex_load_sources: by rank) and claim distinct ranks.
 * per_rank: one total column per part, "rank<R>_total_ns" / "rank R",
 * after the statistics. A table without rows has no note: the caller
 * says why (it needs the traces). */
enum trex_status trex_kernels_merge_table(const struct trex_kernels_part *parts, size_t n,
                                          bool per_rank, struct trex_table *t,
                                          struct trex_error *err);

#endif
