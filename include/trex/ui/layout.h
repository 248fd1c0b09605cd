/* Pure layout and time maths of the timeline: screen rectangles, time <->
 * column mapping in eighths of a cell, axis ticks, and how busy one cell of
 * a lane is. No curses here; everything is unit-tested (test_layout.c). */
#ifndef TREX_UI_LAYOUT_H
#define TREX_UI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"

/* Below this the UI shows only "enlarge the window". */
#define TREX_UI_MIN_COLS 40
#define TREX_UI_MIN_ROWS 12

struct trex_rect {
	int y, x, h, w;
};

/* header: one title row; axis: the time ruler (its left part, over the
 * names, is part of names' column); names/timeline: one row per track row;
 * status: two rows at the bottom. */
struct trex_layout {
	bool too_small;
	struct trex_rect header, axis_label, axis, names, timeline, status;
};

/* Rectangles for a cols x rows screen. too_small (and empty rectangles)
 * below TREX_UI_MIN_COLS x TREX_UI_MIN_ROWS. */
void trex_layout_compute(int cols, int rows, struct trex_layout *out);

/* The visible time window: [t0, t0 + span) over cols cells, span >= 1. */
struct trex_tmap {
	int64_t t0, span;
	int cols;
};

/* Eighth-of-a-cell position of t: floor((t - t0) * 8 cols / span); may be
 * negative or past 8 cols. */
int64_t trex_tmap_eighth(const struct trex_tmap *m, int64_t t);
/* The first time at eighth position e (floor). */
int64_t trex_tmap_time(const struct trex_tmap *m, int64_t e);
/* The column holding t (floor of eighth / 8; may be outside [0, cols)). */
int64_t trex_tmap_col(const struct trex_tmap *m, int64_t t);
/* Time range [lo, hi) of column c; hi > lo. */
void trex_tmap_cell(const struct trex_tmap *m, int c, int64_t *lo, int64_t *hi);

/* Axis ticks: a 1-2-5 x 10^k step in ns such that labels of label_cells
 * cells do not collide; unit (1, 1e3, 1e6, 1e9) and the decimals labels
 * need. */
struct trex_axis {
	int64_t step;
	int64_t unit;
	int decimals;
};
void trex_axis_choose(const struct trex_tmap *m, int label_cells, struct trex_axis *ax);
/* ns (relative to the trace start) as "12.5ms" with ax's unit and decimals. */
int trex_axis_label(const struct trex_axis *ax, int64_t ns, char *buf, size_t size);

/* A duration or time with 3 significant digits and a unit: "1.23 ms". */
int trex_format_ns(int64_t ns, char *buf, size_t size);

/* What one cell of a lane holds: the slices touching [lo, hi), found by
 * two binary searches; busy time is exact for up to TREX_CELL_SCAN_MAX
 * slices and extrapolated beyond, so the cost never depends on trace size. */
#define TREX_CELL_SCAN_MAX 32
struct trex_cell {
	uint32_t count; /* slices touching the cell */
	uint32_t first; /* the first of them (valid when count > 0) */
	int64_t busy;   /* ns of [lo, hi) covered (estimate past the scan limit) */
};
void trex_lane_cell(const struct trex_index *idx, const struct trex_lane *lane, int64_t lo,
                    int64_t hi, struct trex_cell *cell);

/* How to paint a cell. */
enum trex_glyph_kind {
	TREX_GLYPH_EMPTY,
	TREX_GLYPH_FULL,  /* the whole cell */
	TREX_GLYPH_LEFT,  /* the left n eighths (a bar ends here) */
	TREX_GLYPH_RIGHT, /* the right n eighths (a bar starts here) */
	TREX_GLYPH_SHADE, /* several slices or a small part: shade level n (1-3) */
};
struct trex_glyph {
	enum trex_glyph_kind kind;
	int n;
};
/* For a cell holding exactly one slice whose eighth positions are [xb, xe)
 * (xe > xb) and the cell's eighths [8c, 8c + 8). */
struct trex_glyph trex_glyph_single(int64_t xb, int64_t xe, int c);
/* For a cell of width cell_ns with busy ns covered by several slices. */
struct trex_glyph trex_glyph_busy(int64_t busy, int64_t cell_ns);

#endif
