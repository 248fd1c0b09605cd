/* Statistics of a marked time range [t0, t1): per track, how much of the
 * range is busy (the union of its slices clipped to the range, never their
 * sum), and which names take the most time inside it. Both are tables, so
 * they can be shown and exported like every other result. */
#ifndef TREX_ANALYSIS_RANGE_STATS_H
#define TREX_ANALYSIS_RANGE_STATS_H

#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* Columns of the tracks table. */
enum trex_range_track_col {
	TREX_RANGE_TRACK_RANK,     /* COUNT: the file's rank */
	TREX_RANGE_TRACK_PROCESS,  /* TEXT: pid and process name */
	TREX_RANGE_TRACK_NAME,     /* TEXT: thread / stream name */
	TREX_RANGE_TRACK_ID,       /* COUNT: track id */
	TREX_RANGE_TRACK_SLICES,   /* COUNT: slices touching the range */
	TREX_RANGE_TRACK_BUSY,     /* DURATION: union of the slices clipped to the range */
	TREX_RANGE_TRACK_BUSY_PCT, /* PERCENT: busy / (t1 - t0) */
	TREX_RANGE_TRACK_NCOLS
};

/* Columns of the names table, sorted by total time (then name). */
enum trex_range_name_col {
	TREX_RANGE_NAME_NAME,      /* TEXT */
	TREX_RANGE_NAME_COUNT,     /* COUNT: slices touching the range */
	TREX_RANGE_NAME_TOTAL,     /* DURATION: sum of their time clipped to the range */
	TREX_RANGE_NAME_RANGE_PCT, /* PERCENT: total / (t1 - t0); over 100 when on several tracks */
	TREX_RANGE_NAME_NCOLS
};

struct trex_range_stats {
	int64_t t0, t1;
	struct trex_table tracks; /* tracks with a slice touching the range, in track order */
	struct trex_table names;  /* every name, most time first */
};

/* Computes the statistics of [t0, t1) (t1 > t0). A slice touches the range
 * when it overlaps it, or is zero-length at a time inside it. */
enum trex_status trex_range_stats_compute(const struct trex_index *idx, int64_t t0, int64_t t1,
                                          struct trex_range_stats *out, struct trex_error *err);
void trex_range_stats_free(struct trex_range_stats *rs);

#endif
