#include "config.h"

#include "trex/analysis/cells.h"

#include <string.h>

/* ---- slices ---------------------------------------------------------------------------- */

static int64_t slice_end(const struct trex_slice *s)
{
	return s->ts + s->dur;
}

static int64_t overlap(const struct trex_slice *s, int64_t lo, int64_t hi)
{
	int64_t b = s->ts > lo ? s->ts : lo, e = slice_end(s) < hi ? slice_end(s) : hi;

	return e > b ? e - b : 0;
}

/* Busy ns in [lo, hi) of n slices: ids[first + k], or first + k when ids
 * is NULL. Exact up to TREX_CELL_SCAN_MAX slices; beyond, the two ends
 * exactly and evenly spaced ones of the slices between (wholly inside the
 * cell), scaled: a sample across the whole cell, at a bounded number of
 * cache misses. */
static int64_t busy_of(const struct trex_index *idx, const uint32_t *ids, uint32_t first,
                       uint32_t n, int64_t lo, int64_t hi)
{
	uint32_t inner = n > 2 ? n - 2 : 0, scan = TREX_CELL_SCAN_MAX - 2;
	__int128 busy = 0, sum = 0;

#define CELL_ID(k) (ids ? ids[first + (k)] : first + (k))
	if (n <= TREX_CELL_SCAN_MAX) {
		for (uint32_t k = 0; k < n; k++)
			busy += overlap(trex_index_slice(idx, CELL_ID(k)), lo, hi);
	} else {
		busy = overlap(trex_index_slice(idx, CELL_ID(0)), lo, hi) +
		       overlap(trex_index_slice(idx, CELL_ID(n - 1)), lo, hi);
		for (uint32_t i = 0; i < scan; i++)
			sum += overlap(trex_index_slice(idx, CELL_ID(1 + (uint32_t)((uint64_t)i *
			                                                            inner / scan))),
			               lo, hi);
		busy += sum * inner / scan;
	}
#undef CELL_ID
	return busy > hi - lo ? hi - lo : (int64_t)busy;
}

void trex_lane_cell(const struct trex_index *idx, const struct trex_lane *lane, int64_t lo,
                    int64_t hi, struct trex_cell_info *cell)
{
	uint32_t first = trex_lane_find_end_at_or_after(idx, lane, lo);
	uint32_t last = trex_lane_find_start_after(idx, lane, hi - 1);

	/* a slice ending exactly at lo does not touch [lo, hi) unless it is empty */
	while (first < last) {
		const struct trex_slice *s = trex_index_slice(idx, first);

		if (slice_end(s) > lo || s->ts >= lo)
			break;
		first++;
	}
	memset(cell, 0, sizeof(*cell));
	if (first >= last)
		return;
	cell->first = first;
	cell->count = last - first;
	cell->busy = busy_of(idx, NULL, first, cell->count, lo, hi);
}

void trex_ids_cell(const struct trex_index *idx, const uint32_t *ids, uint32_t begin, uint32_t end,
                   int64_t lo, int64_t hi, struct trex_cell_info *cell)
{
	memset(cell, 0, sizeof(*cell));
	if (begin >= end)
		return;
	cell->first = ids[begin];
	cell->count = end - begin;
	cell->busy = busy_of(idx, ids, begin, cell->count, lo, hi);
}

/* ---- instants and counters ------------------------------------------------------------ */

/* First instant id in [first, end) with ts >= t. */
static uint32_t instant_lower(const struct trex_index *idx, uint32_t first, uint32_t end, int64_t t)
{
	while (first < end) {
		uint32_t mid = first + (end - first) / 2;

		if (trex_index_instant(idx, mid)->ts < t)
			first = mid + 1;
		else
			end = mid;
	}
	return first;
}

uint32_t trex_track_instants_in(const struct trex_index *idx, uint32_t track, int64_t lo,
                                int64_t hi)
{
	const struct trex_track *t = trex_index_track(idx, track);
	uint32_t end = t->first_instant + t->instant_count;
	uint32_t a = instant_lower(idx, t->first_instant, end, lo);

	return instant_lower(idx, a, end, hi) - a;
}

/* First sample id in [first, end) with ts > t. */
static uint32_t sample_after(const struct trex_index *idx, uint32_t first, uint32_t end, int64_t t)
{
	while (first < end) {
		uint32_t mid = first + (end - first) / 2;

		if (trex_index_sample(idx, mid)->ts <= t)
			first = mid + 1;
		else
			end = mid;
	}
	return first;
}

bool trex_counter_cell(const struct trex_index *idx, uint32_t track, int64_t lo, int64_t hi,
                       double *value)
{
	const struct trex_track *t = trex_index_track(idx, track);
	uint32_t end = t->first_sample + t->sample_count;
	uint32_t a = sample_after(idx, t->first_sample, end, lo);
	uint32_t b = sample_after(idx, a, end, hi - 1), n, stride;
	bool have = false;

	/* the sample in force at lo, then those starting inside the cell */
	if (a > t->first_sample) {
		*value = trex_index_sample(idx, a - 1)->value;
		have = true;
	}
	n = b - a;
	stride = n > TREX_CELL_SCAN_MAX ? n / TREX_CELL_SCAN_MAX : 1;
	for (uint32_t i = a; i < b; i += stride) {
		double v = trex_index_sample(idx, i)->value;

		if (!have || v > *value)
			*value = v;
		have = true;
	}
	return have;
}

bool trex_counter_range(const struct trex_index *idx, uint32_t track, double *min, double *max)
{
	const struct trex_track *t = trex_index_track(idx, track);

	for (uint32_t i = 0; i < t->sample_count; i++) {
		double v = trex_index_sample(idx, t->first_sample + i)->value;

		if (i == 0 || v < *min)
			*min = v;
		if (i == 0 || v > *max)
			*max = v;
	}
	return t->sample_count > 0;
}
