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

/* ---- cell glyphs (what a cell holds: trex/analysis/cells.h) ---------------------- */

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
