/* Pure layout and time maths of the timeline: screen rectangles, time <->
 * column mapping in eighths of a cell, axis ticks, the glyph of a cell (what
 * a cell holds is an index query, trex/analysis/cells.h). No curses here;
 * everything is unit-tested (test_layout.c). */
#ifndef TREX_UI_LAYOUT_H
#define TREX_UI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/cells.h"
#include "trex/core/display.h"
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
	struct trex_rect details; /* the details pane; empty unless trex_layout_details made it */
};

/* Rectangles for a cols x rows screen. too_small (and empty rectangles)
 * below TREX_UI_MIN_COLS x TREX_UI_MIN_ROWS. */
void trex_layout_compute(int cols, int rows, struct trex_layout *out);

/* Wider than this, the details pane goes to the right of the timeline. */
#define TREX_DETAILS_SIDE_COLS 160
/* Takes the details pane from the body of lay: a right pane of a third of
 * the width (from the axis row down) when the screen is wider than
 * TREX_DETAILS_SIDE_COLS, else a bottom pane of a third of the rows. The
 * pane stays empty when the body left would be under 3 rows (or the pane
 * under 4); returns whether there is a pane. */
bool trex_layout_details(struct trex_layout *lay);

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
/* Far from the origin a small step gives long labels ("43290500us"): takes
 * the largest unit (up to s) that max_abs, the largest |label time| on
 * screen, reaches, with the decimals the step needs ("43.2905s"). */
void trex_axis_fit_unit(struct trex_axis *ax, int64_t max_abs);
/* ns (relative to the trace start) as "12.5ms" with ax's unit and decimals. */
int trex_axis_label(const struct trex_axis *ax, int64_t ns, char *buf, size_t size);

/* Durations are shown by trex_format_duration (trex/core/display.h), the
 * one format of every view and report. */
/* A time position in its largest unit with the decimals that resolution
 * (ns, e.g. the time per column) makes meaningful, rounded to the last
 * decimal: (41399050000, 44500) -> "41.39905 s"; (28100000, 906000) ->
 * "28.1 ms"; (1646897, 1000) -> "1.647 ms"; (999960000, 100000) -> "1.0000 s". */
int trex_format_time(int64_t ns, int64_t resolution, char *buf, size_t size);

/* Sparkline level 1..8 of v on [min, max] (1 = lowest eighth block). */
int trex_spark_level(double v, double min, double max);

/* Where a screen position falls: the track body (row index from the top
 * of names/timeline, and timeline column or -1 over the names), else none. */
struct trex_hit {
	bool body;
	int row, col;
};
struct trex_hit trex_layout_hit(const struct trex_layout *lay, int y, int x);

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
