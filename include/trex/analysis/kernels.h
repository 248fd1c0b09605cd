/* GPU kernel summary: per kernel name (or shape) Time %, Total, Instances,
 * Avg, Med, Min, Max, StdDev, sorted by total descending. */
#ifndef TREX_ANALYSIS_KERNELS_H
#define TREX_ANALYSIS_KERNELS_H

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

enum trex_kernel_group {
	TREX_KERNELS_BY_NAME,
	TREX_KERNELS_BY_SHAPE, /* name + grid + block + shared memory */
};

struct trex_kernel_opts {
	enum trex_kernel_group group;
};

/* Fills t (uninitialised on entry) with one row per group. Statistics:
 * Time % = total / sum of all totals * 100; Med = mean of the two middle
 * values for even counts; StdDev = sample standard deviation (n - 1),
 * 0 for one instance. Exact integer sums; ties sorted by name. */
enum trex_status trex_kernels_table(const struct trex_index *idx,
				    const struct trex_kernel_opts *opts, struct trex_table *t,
				    struct trex_error *err);

#endif
