/* Idle gaps of each GPU (`trex gaps`): the times between the first and the
 * last GPU work of a device when none of its streams runs any, with what
 * the CPU was doing when each began. */
#ifndef TREX_ANALYSIS_GAPS_H
#define TREX_ANALYSIS_GAPS_H

#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

struct trex_gap_opts {
	int64_t min_ns; /* leave out gaps shorter than this */
	size_t top;     /* only the longest top gaps; 0: all */
};

/* One gap of a device: [start, end), between GPU work `before` (the work
 * whose end starts the gap) and `after` (the first work starting at its
 * end), both slice ids. `thread` is the CPU track whose activity is shown
 * (the thread that launched `after`, else the one that launched `before`;
 * TREX_NONE when neither launch is known); `op` the innermost cpu_op or
 * user_annotation slice running on it at `start` and `call` the runtime
 * call running then (both TREX_NONE when none). */
struct trex_gap {
	int64_t start, end;
	uint32_t process;
	uint32_t before, after;
	uint32_t thread, op, call;
};

struct trex_gap_list {
	struct trex_gap *v;
	size_t n;
};

/* GPU work is what gpu-time counts (kernels, memcpy, memset:
 * trex_gpu_classify), on every stream of a device (process) together: a
 * gap is time when none of it runs on that GPU, so a stream waiting while
 * another computes is not a gap. Gaps are listed longest first (ties:
 * earlier start, then display order of the device), one row each:
 *   rank, device
 *   start_ns   gap start, from the trace start (trex_index_start)
 *   length_ns  gap length
 *   call       name of the runtime call running on `thread` at the gap
 *              start, "" when none
 *   thread     the CPU thread looked at (its track label), "" when none
 *   cpu_op     name of `op`; "(nothing running)" when the thread runs no
 *              op then, "(launch unknown)" when no launch is known
 * When list is not NULL it receives the gaps in row order (free it with
 * trex_gap_list_free; zeroed on failure). */
enum trex_status trex_gaps_table(const struct trex_index *idx, const struct trex_gap_opts *opts,
                                 struct trex_table *t, struct trex_gap_list *list,
                                 struct trex_error *err);
void trex_gap_list_free(struct trex_gap_list *list);

#endif
