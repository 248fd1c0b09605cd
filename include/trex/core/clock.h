/* Rank clocks: the correction that puts one rank's times on the clock of
 * the others (analysis/rank_align.h finds it), and the index's way of
 * applying it to a loaded trace, process by process, keeping what it did
 * so that original times can be shown again.
 *
 * A correction is affine: aligned = t + offset + drift * (t - ref). With
 * |drift| < 1 it keeps the order of any two times, so lanes stay sorted
 * and slices that did not overlap still do not. */
#ifndef TREX_CORE_CLOCK_H
#define TREX_CORE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

struct trex_clock_fix {
	int64_t offset_ns; /* added at ref */
	double drift;      /* added per ns away from ref (1e-6 is 1 ppm); |drift| < 0.01 */
	int64_t ref_ns;    /* where the offset holds (on the uncorrected clock) */
};

/* No correction: offset 0, drift 0. */
bool trex_clock_fix_is_identity(const struct trex_clock_fix *f);
/* t on the corrected clock, saturating at the int64 ends. */
int64_t trex_clock_fix_apply(const struct trex_clock_fix *f, int64_t t);
/* The uncorrected time whose corrected time is aligned (the inverse of
 * trex_clock_fix_apply, to within a nanosecond of rounding). */
int64_t trex_clock_fix_undo(const struct trex_clock_fix *f, int64_t aligned);

/* Corrects every time of idx process by process: fix[p] for process p
 * (trex_index_process_count entries): the slices, instants and counter
 * samples of its tracks, the ends of flows on them, and the times of
 * integrity examples; then the index's start and end. An index mapped
 * from an index file gets private copies of the pages it changes (the
 * file is untouched). Sorted orders stay valid (see above); a drift of
 * 0.01 or more is USAGE, and so is a second correction of one index.
 * Not thread-safe with readers of idx. */
enum trex_status trex_index_fix_clocks(struct trex_index *idx, const struct trex_clock_fix *fix,
                                       struct trex_error *err);
/* The correction trex_index_fix_clocks applied to process's times; NULL
 * when the index's times are as loaded. */
const struct trex_clock_fix *trex_index_clock_fix(const struct trex_index *idx, uint32_t process);

#endif
