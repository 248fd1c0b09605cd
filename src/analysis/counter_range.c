#include "config.h"

#include "trex/analysis/counter_range.h"

#include <stdlib.h>
#include <string.h>

/* The larger of a and b, a NaN losing to any number. */
static double max2(double a, double b)
{
	return b > a || a != a ? b : a;
}

static double value_at(const struct trex_counter_peaks *p, uint32_t i)
{
	return trex_index_sample(p->idx, p->first + i)->value;
}

static double scan(const struct trex_counter_peaks *p, uint32_t a, uint32_t b)
{
	double m = value_at(p, a);

	for (uint32_t i = a + 1; i < b; i++)
		m = max2(m, value_at(p, i));
	return m;
}

static int floor_log2(uint32_t n)
{
	int k = 0;

	while (n >>= 1)
		k++;
	return k;
}

static void fill_levels(struct trex_counter_peaks *p)
{
	double *t = p->table;

	for (uint32_t b = 0; b < p->nblocks; b++) {
		uint32_t a = b * TREX_COUNTER_BLOCK, e = a + TREX_COUNTER_BLOCK;

		t[b] = scan(p, a, e < p->count ? e : p->count);
	}
	for (int k = 1; k < p->levels; k++) {
		const double *prev = t + (size_t)(k - 1) * p->nblocks;
		double *row = t + (size_t)k * p->nblocks;
		uint32_t half = 1u << (k - 1);

		for (uint32_t b = 0; b + (1u << k) <= p->nblocks; b++)
			row[b] = max2(prev[b], prev[b + half]);
	}
}

enum trex_status trex_counter_peaks_build(const struct trex_index *idx, uint32_t track,
                                          struct trex_counter_peaks *out, struct trex_error *err)
{
	const struct trex_track *t = trex_index_track(idx, track);

	memset(out, 0, sizeof(*out));
	out->idx = idx;
	out->first = t->first_sample;
	out->count = t->sample_count;
	if (out->count == 0)
		return TREX_OK;
	out->nblocks = (out->count + TREX_COUNTER_BLOCK - 1) / TREX_COUNTER_BLOCK;
	out->levels = floor_log2(out->nblocks) + 1;
	out->table = malloc(sizeof(double) * out->nblocks * (size_t)out->levels);
	if (!out->table)
		return trex_error_set(err, TREX_NOMEM, NULL, -1,
		                      "out of memory for the peaks of %u counter samples",
		                      out->count);
	fill_levels(out);
	return TREX_OK;
}

void trex_counter_peaks_free(struct trex_counter_peaks *p)
{
	free(p->table);
	memset(p, 0, sizeof(*p));
}

/* The max of whole blocks [ba, bb), bb > ba: two overlapping runs of 2^k. */
static double blocks_max(const struct trex_counter_peaks *p, uint32_t ba, uint32_t bb)
{
	int k = floor_log2(bb - ba);
	const double *row = p->table + (size_t)k * p->nblocks;

	return max2(row[ba], row[bb - (1u << k)]);
}

double trex_counter_peaks_max(const struct trex_counter_peaks *p, uint32_t a, uint32_t b)
{
	uint32_t ba = (a + TREX_COUNTER_BLOCK - 1) / TREX_COUNTER_BLOCK;
	uint32_t bb = b / TREX_COUNTER_BLOCK;
	double m;

	if (ba >= bb) /* no whole block inside: under 2 blocks to scan */
		return scan(p, a, b);
	m = blocks_max(p, ba, bb);
	if (a < ba * TREX_COUNTER_BLOCK)
		m = max2(m, scan(p, a, ba * TREX_COUNTER_BLOCK));
	if (bb * TREX_COUNTER_BLOCK < b)
		m = max2(m, scan(p, bb * TREX_COUNTER_BLOCK, b));
	return m;
}

/* Relative index of the first sample with ts > t. */
static uint32_t after(const struct trex_counter_peaks *p, uint32_t lo, int64_t t)
{
	uint32_t hi = p->count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (trex_index_sample(p->idx, p->first + mid)->ts <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool trex_counter_peaks_cell(const struct trex_counter_peaks *p, int64_t lo, int64_t hi,
                             double *value)
{
	uint32_t a, b;

	if (p->count == 0 || hi <= lo)
		return false;
	a = after(p, 0, lo);
	b = after(p, a, hi - 1);
	/* the sample in force at lo, then those inside the cell */
	if (a > 0)
		a--;
	if (a >= b)
		return false;
	*value = trex_counter_peaks_max(p, a, b);
	return true;
}

/* ---- the samples around a time ------------------------------------------------------------ */

bool trex_counter_around(const struct trex_index *idx, uint32_t track, int64_t t, uint32_t around,
                         struct trex_counter_window *w)
{
	const struct trex_track *tr = trex_index_track(idx, track);
	struct trex_counter_peaks series = {
	    .idx = idx, .first = tr->first_sample, .count = tr->sample_count};
	uint32_t a, lo, hi;

	if (tr->sample_count == 0)
		return false;
	a = after(&series, 0, t); /* the first sample after t */
	w->before_first = a == 0;
	a = a > 0 ? a - 1 : 0;
	lo = a > around ? a - around : 0;
	hi = tr->sample_count - a - 1 > around ? a + around + 1 : tr->sample_count;
	w->first = tr->first_sample + lo;
	w->count = hi - lo;
	w->at = tr->first_sample + a;
	return true;
}
