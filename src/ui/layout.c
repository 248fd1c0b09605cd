#include "config.h"

#include "trex/ui/layout.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define NAMES_MIN 10
#define NAMES_MAX 32

/* ---- rectangles ------------------------------------------------------------------- */

static struct trex_rect rect(int y, int x, int h, int w)
{
	return (struct trex_rect){y, x, h, w};
}

void trex_layout_compute(int cols, int rows, struct trex_layout *out)
{
	int names_w = cols * 22 / 100;
	int body_h = rows - 4;

	memset(out, 0, sizeof(*out));
	if (cols < TREX_UI_MIN_COLS || rows < TREX_UI_MIN_ROWS) {
		out->too_small = true;
		return;
	}
	if (names_w < NAMES_MIN)
		names_w = NAMES_MIN;
	if (names_w > NAMES_MAX)
		names_w = NAMES_MAX;
	/* names | separator | timeline */
	out->header = rect(0, 0, 1, cols);
	out->axis_label = rect(1, 0, 1, names_w + 1);
	out->axis = rect(1, names_w + 1, 1, cols - names_w - 1);
	out->names = rect(2, 0, body_h, names_w);
	out->timeline = rect(2, names_w + 1, body_h, cols - names_w - 1);
	out->status = rect(rows - 2, 0, 2, cols);
}

#define DETAILS_MIN_H 4 /* a title row and three lines */
#define BODY_MIN_H 3

bool trex_layout_details(struct trex_layout *lay)
{
	int cols = lay->header.w, rows = lay->status.y + lay->status.h, body = lay->names.h;
	int h = rows / 3, w = cols / 3;

	lay->details = rect(0, 0, 0, 0);
	if (lay->too_small)
		return false;
	if (cols > TREX_DETAILS_SIDE_COLS) {
		lay->details = rect(lay->axis.y, cols - w, body + lay->axis.h, w);
		lay->axis.w -= w;
		lay->timeline.w -= w;
		return true;
	}
	if (h < DETAILS_MIN_H || body - h < BODY_MIN_H)
		return false;
	lay->details = rect(lay->names.y + body - h, 0, h, cols);
	lay->names.h -= h;
	lay->timeline.h -= h;
	return true;
}

/* ---- time <-> columns ------------------------------------------------------------- */

/* Positions far off screen are clamped to +-POS_LIMIT, so that callers can
 * add a few eighths or cells without overflowing. */
#define POS_LIMIT (INT64_MAX / 16)

static __int128 floor_div128(__int128 a, __int128 b)
{
	__int128 q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static int64_t clamp_pos(__int128 q)
{
	return q > POS_LIMIT ? POS_LIMIT : q < -POS_LIMIT ? -POS_LIMIT : (int64_t)q;
}

static int64_t floor_div(__int128 a, __int128 b)
{
	return clamp_pos(floor_div128(a, b));
}

int64_t trex_tmap_eighth(const struct trex_tmap *m, int64_t t)
{
	return floor_div(((__int128)t - m->t0) * 8 * m->cols, m->span);
}

int64_t trex_tmap_time(const struct trex_tmap *m, int64_t e)
{
	__int128 t = (__int128)m->t0 + floor_div128((__int128)e * m->span, (__int128)8 * m->cols);

	return t > INT64_MAX ? INT64_MAX : t < INT64_MIN ? INT64_MIN : (int64_t)t;
}

int64_t trex_tmap_col(const struct trex_tmap *m, int64_t t)
{
	return floor_div(trex_tmap_eighth(m, t), 8);
}

void trex_tmap_cell(const struct trex_tmap *m, int c, int64_t *lo, int64_t *hi)
{
	*lo = trex_tmap_time(m, (int64_t)c * 8);
	*hi = trex_tmap_time(m, (int64_t)c * 8 + 8);
	if (*hi <= *lo) {
		if (*lo == INT64_MAX)
			*lo = INT64_MAX - 1;
		*hi = *lo + 1;
	}
}

/* ---- axis ----------------------------------------------------------------------- */

void trex_axis_choose(const struct trex_tmap *m, int label_cells, struct trex_axis *ax)
{
	static const int mult[] = {1, 2, 5};
	/* ns per cell, rounded up, times the cells a label needs */
	__int128 need = ((__int128)m->span * label_cells + m->cols - 1) / m->cols;
	int64_t pow10 = 1;
	int exp10 = 0;

	ax->step = 1;
	for (;;) {
		int i;

		for (i = 0; i < 3 && (__int128)mult[i] * pow10 < need; i++)
			;
		if (i < 3) {
			ax->step = mult[i] * pow10;
			break;
		}
		if (pow10 > INT64_MAX / 100) {
			ax->step = pow10 * 10;
			break;
		}
		pow10 *= 10;
		exp10++;
	}
	ax->unit = ax->step < 1000         ? 1
	           : ax->step < 1000000    ? 1000
	           : ax->step < 1000000000 ? 1000000
	                                   : 1000000000;
	/* decimals: digits of the unit below the step's power of ten */
	ax->decimals = 0;
	for (int64_t u = ax->unit; u > pow10 && u > 1; u /= 10)
		ax->decimals++;
	(void)exp10;
}

void trex_axis_fit_unit(struct trex_axis *ax, int64_t max_abs)
{
	int64_t unit = ax->unit, pow10 = 1;

	while (unit < 1000000000 && max_abs / 1000 >= unit)
		unit *= 1000;
	if (unit == ax->unit)
		return;
	while (pow10 <= ax->step / 10)
		pow10 *= 10;
	ax->unit = unit;
	ax->decimals = 0;
	for (int64_t u = unit; u > pow10 && u > 1; u /= 10)
		ax->decimals++;
}

static const char *unit_name(int64_t unit)
{
	return unit == 1 ? "ns" : unit == 1000 ? "us" : unit == 1000000 ? "ms" : "s";
}

int trex_axis_label(const struct trex_axis *ax, int64_t ns, char *buf, size_t size)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t unit = (uint64_t)ax->unit, whole = v / unit, frac = v % unit, div = unit;

	if (ax->decimals == 0)
		return snprintf(buf, size, "%s%" PRIu64 "%s", sign, whole, unit_name(ax->unit));
	for (int i = 0; i < ax->decimals; i++)
		div /= 10;
	return snprintf(buf, size, "%s%" PRIu64 ".%0*" PRIu64 "%s", sign, whole, ax->decimals,
	                frac / (div ? div : 1), unit_name(ax->unit));
}

/* Decimals of unit u that resolution makes meaningful, and the place
 * value of the last one. */
static int time_decimals(uint64_t u, int64_t resolution, uint64_t *scale)
{
	uint64_t pow10 = 1;
	int dec = 0;

	while (pow10 <= (uint64_t)resolution / 10)
		pow10 *= 10;
	for (*scale = u; *scale > pow10 && *scale > 1; *scale /= 10)
		dec++;
	return dec;
}

int trex_format_time(int64_t ns, int64_t resolution, char *buf, size_t size)
{
	static const int64_t units[] = {1000000000, 1000000, 1000, 1};
	const char *sign = ns < 0 ? "-" : "";
	uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t u, scale, q;
	size_t i = 0;
	int dec;

	if (resolution < 1)
		resolution = 1;
	while (i < 3 && v < (uint64_t)units[i])
		i++;
	for (;;) {
		u = (uint64_t)units[i];
		dec = time_decimals(u, resolution, &scale);
		/* rounded to the last decimal shown (half up) */
		q = v / scale + (v % scale >= scale - scale / 2 && scale > 1);
		if (i == 0 || q / (u / scale) < 1000)
			break;
		i--; /* 999.96 ms shown to 0.1 ms is 1.0000 s, not 1000.0 ms */
	}
	if (dec == 0)
		return snprintf(buf, size, "%s%" PRIu64 " %s", sign, q, unit_name((int64_t)u));
	return snprintf(buf, size, "%s%" PRIu64 ".%0*" PRIu64 " %s", sign, q / (u / scale), dec,
	                q % (u / scale), unit_name((int64_t)u));
}

/* ---- cells ---------------------------------------------------------------------- */

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
			sum += overlap(
			    trex_index_slice(idx, CELL_ID(1 + (uint32_t)((uint64_t)i * inner / scan))),
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

struct trex_glyph trex_glyph_single(int64_t xb, int64_t xe, int c)
{
	int64_t c0 = (int64_t)c * 8, lo = (xb > c0 ? xb : c0) - c0,
	        hi = (xe < c0 + 8 ? xe : c0 + 8) - c0;

	if (hi <= lo)
		return (struct trex_glyph){TREX_GLYPH_EMPTY, 0};
	if (lo == 0 && hi == 8)
		return (struct trex_glyph){TREX_GLYPH_FULL, 8};
	if (lo == 0)
		return (struct trex_glyph){TREX_GLYPH_LEFT, (int)hi};
	if (hi == 8)
		return (struct trex_glyph){TREX_GLYPH_RIGHT, (int)(8 - lo)};
	return trex_glyph_busy(hi - lo, 8);
}

struct trex_glyph trex_glyph_busy(int64_t busy, int64_t cell_ns)
{
	int64_t e = cell_ns > 0 ? (int64_t)((__int128)busy * 8 / cell_ns) : 0;

	if (busy <= 0)
		return (struct trex_glyph){TREX_GLYPH_EMPTY, 0};
	if (e >= 8)
		return (struct trex_glyph){TREX_GLYPH_FULL, 8};
	return (struct trex_glyph){TREX_GLYPH_SHADE, e < 3 ? 1 : e < 5 ? 2 : 3};
}

void trex_ids_cell(const struct trex_index *idx, const uint32_t *ids, uint32_t begin,
                   uint32_t end, int64_t lo, int64_t hi, struct trex_cell_info *cell)
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

int trex_spark_level(double v, double min, double max)
{
	double f;

	if (!(max > min))
		return v > 0 ? 8 : 1;
	f = (v - min) / (max - min);
	if (!(f > 0)) /* also NaN */
		return 1;
	if (f >= 1)
		return 8;
	return 1 + (int)(f * 8 >= 7 ? 7 : f * 8);
}

struct trex_hit trex_layout_hit(const struct trex_layout *lay, int y, int x)
{
	struct trex_hit h = {false, -1, -1};

	if (lay->too_small || y < lay->names.y || y >= lay->names.y + lay->names.h)
		return h;
	if (x >= lay->timeline.x && x < lay->timeline.x + lay->timeline.w)
		h.col = x - lay->timeline.x;
	else if (x < lay->names.x || x >= lay->names.x + lay->names.w)
		return h;
	h.body = true;
	h.row = y - lay->names.y;
	return h;
}
