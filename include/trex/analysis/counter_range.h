/* The exact largest value of a counter series over a time window, at a
 * cost per query that does not grow with the number of samples: the
 * samples are cut into blocks of TREX_COUNTER_BLOCK, each block keeps its
 * maximum, and a sparse table over the blocks answers any run of whole
 * blocks with two lookups; only the partial blocks at both ends are
 * scanned (at most 2 x TREX_COUNTER_BLOCK samples). Memory: 8 bytes per
 * block per level, i.e. 1/8 byte per sample per level. */
#ifndef TREX_ANALYSIS_COUNTER_RANGE_H
#define TREX_ANALYSIS_COUNTER_RANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

#define TREX_COUNTER_BLOCK 64

struct trex_counter_peaks {
	const struct trex_index *idx;
	uint32_t first, count; /* the series' samples [first, first + count) */
	uint32_t nblocks;
	int levels;    /* rows of table: level k holds the max of 2^k blocks */
	double *table; /* table[k * nblocks + b]: max of blocks [b, b + 2^k); NULL: no samples */
};

/* Builds the structure of counter track `track` (O(samples)); a track
 * without samples gives an empty one. Out of memory: TREX_NOMEM. */
enum trex_status trex_counter_peaks_build(const struct trex_index *idx, uint32_t track,
                                          struct trex_counter_peaks *out, struct trex_error *err);
void trex_counter_peaks_free(struct trex_counter_peaks *p);

/* The largest value of samples [a, b) (indexes relative to the series'
 * first sample, a < b <= count). NaN values are ignored unless all are. */
double trex_counter_peaks_max(const struct trex_counter_peaks *p, uint32_t a, uint32_t b);

/* The largest value the series holds in [lo, hi): the sample in force at
 * lo (the last one at or before lo) and every sample with lo < ts < hi.
 * False when no sample is at or before hi - 1. */
bool trex_counter_peaks_cell(const struct trex_counter_peaks *p, int64_t lo, int64_t hi,
                             double *value);

/* ---- the samples around a time ---------------------------------------------------------- */

/* A run of a counter series' samples around a time t (absolute sample ids,
 * for trex_index_sample). */
struct trex_counter_window {
	uint32_t first, count; /* the samples [first, first + count) */
	uint32_t at;           /* the sample in force at t: the last at or before t, or the
	                        * series' first sample when t is before it */
	bool before_first;     /* t is before the series' first sample */
};

/* The samples of counter track `track` around t: the one in force at t and
 * up to `around` samples either side (O(log samples)). False when the
 * series has no samples. */
bool trex_counter_around(const struct trex_index *idx, uint32_t track, int64_t t, uint32_t around,
                         struct trex_counter_window *w);

#endif
