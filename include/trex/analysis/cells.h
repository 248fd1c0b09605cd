/* Index queries for one cell of a time axis: which slices of a lane (or
 * of a filtered subset) touch [lo, hi) and how much of it they cover, the
 * instants and the counter value there. Their cost is bounded per cell, so
 * a timeline row or a CLI summary over many cells never depends on the
 * trace size. Pure functions of the index (no curses). */
#ifndef TREX_ANALYSIS_CELLS_H
#define TREX_ANALYSIS_CELLS_H

#include <stdbool.h>
#include <stdint.h>

#include "trex/core/index.h"

/* What one cell of a lane holds: the slices touching [lo, hi), found by
 * two binary searches; busy time is exact for up to TREX_CELL_SCAN_MAX
 * slices and estimated beyond from that many spread over the cell, so the
 * cost never depends on trace size. */
#define TREX_CELL_SCAN_MAX 16
struct trex_cell_info {
	uint32_t count; /* slices touching the cell */
	uint32_t first; /* the first of them (valid when count > 0) */
	int64_t busy;   /* ns of [lo, hi) covered (estimate past the scan limit) */
};
void trex_lane_cell(const struct trex_index *idx, const struct trex_lane *lane, int64_t lo,
                    int64_t hi, struct trex_cell_info *cell);

/* The same over a subset of a lane's slices (a filter's matches): ids[begin,
 * end) are the slices touching [lo, hi), in time order. */
void trex_ids_cell(const struct trex_index *idx, const uint32_t *ids, uint32_t begin, uint32_t end,
                   int64_t lo, int64_t hi, struct trex_cell_info *cell);

/* Instants of track with lo <= ts < hi (two binary searches). */
uint32_t trex_track_instants_in(const struct trex_index *idx, uint32_t track, int64_t lo,
                                int64_t hi);

/* A counter series (track) in one cell: the largest value the series holds
 * in [lo, hi), counting the sample in force at lo. False before the first
 * sample. Cost is bounded per cell: with more than TREX_CELL_SCAN_MAX
 * samples in the cell, evenly spaced ones of them are looked at. */
bool trex_counter_cell(const struct trex_index *idx, uint32_t track, int64_t lo, int64_t hi,
                       double *value);
/* Smallest and largest value of a series (false when it has no samples). */
bool trex_counter_range(const struct trex_index *idx, uint32_t track, double *min, double *max);

#endif
