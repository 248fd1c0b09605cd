#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "trex/load/loader.h"
#include "trex/load/source.h"
#include "trex/ui/layout.h"

/* ---- rectangles ---------------------------------------------------------------------- */

static bool inside(const struct trex_rect *r, int cols, int rows)
{
	return r->y >= 0 && r->x >= 0 && r->h > 0 && r->w > 0 && r->y + r->h <= rows &&
	       r->x + r->w <= cols;
}

static bool overlaps(const struct trex_rect *a, const struct trex_rect *b)
{
	return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

Test(layout, rectangles_inside_and_disjoint_for_many_sizes)
{
	for (int cols = TREX_UI_MIN_COLS; cols <= 300; cols += 7) {
		for (int rows = TREX_UI_MIN_ROWS; rows <= 120; rows += 5) {
			struct trex_layout l;
			const struct trex_rect *r[] = {&l.header, &l.axis_label, &l.axis,
			                               &l.names,  &l.timeline,   &l.status};

			trex_layout_compute(cols, rows, &l);
			cr_assert(!l.too_small);
			for (size_t i = 0; i < 6; i++) {
				cr_assert(inside(r[i], cols, rows), "rect %zu at %dx%d", i, cols,
				          rows);
				for (size_t j = i + 1; j < 6; j++)
					cr_assert(!overlaps(r[i], r[j]), "%zu/%zu at %dx%d", i, j,
					          cols, rows);
			}
			cr_assert_eq(l.names.h, l.timeline.h);
			cr_assert_eq(l.axis.x, l.timeline.x);
			cr_assert_eq(l.axis.w, l.timeline.w);
			cr_assert_eq(l.status.y + l.status.h, rows);
		}
	}
}

Test(layout, too_small_below_the_minimum)
{
	struct trex_layout l;

	trex_layout_compute(TREX_UI_MIN_COLS - 1, 40, &l);
	cr_assert(l.too_small);
	trex_layout_compute(80, TREX_UI_MIN_ROWS - 1, &l);
	cr_assert(l.too_small);
	trex_layout_compute(0, 0, &l);
	cr_assert(l.too_small);
	trex_layout_compute(TREX_UI_MIN_COLS, TREX_UI_MIN_ROWS, &l);
	cr_assert(!l.too_small);
	cr_assert_eq(l.names.h, TREX_UI_MIN_ROWS - 4);
}

/* ---- time <-> columns ------------------------------------------------------------------ */

Test(layout, eighths_and_columns)
{
	struct trex_tmap m = {1000, 800, 10}; /* 80 ns per cell, 10 ns per eighth */

	cr_assert_eq(trex_tmap_eighth(&m, 1000), 0);
	cr_assert_eq(trex_tmap_eighth(&m, 1009), 0);
	cr_assert_eq(trex_tmap_eighth(&m, 1010), 1);
	cr_assert_eq(trex_tmap_eighth(&m, 999), -1);
	cr_assert_eq(trex_tmap_col(&m, 1079), 0);
	cr_assert_eq(trex_tmap_col(&m, 1080), 1);
	cr_assert_eq(trex_tmap_col(&m, 920), -1);
	cr_assert_eq(trex_tmap_col(&m, 1800), 10);
	cr_assert_eq(trex_tmap_time(&m, 8), 1080);

	int64_t lo, hi;
	trex_tmap_cell(&m, 3, &lo, &hi);
	cr_assert_eq(lo, 1240);
	cr_assert_eq(hi, 1320);
}

Test(layout, cells_never_empty_when_zoomed_in_past_one_ns)
{
	struct trex_tmap m = {0, 5, 80};

	for (int c = 0; c < 80; c++) {
		int64_t lo, hi;

		trex_tmap_cell(&m, c, &lo, &hi);
		cr_assert_gt(hi, lo);
	}
}

Test(layout, huge_times_do_not_overflow)
{
	struct trex_tmap m = {INT64_MAX / 2, 1LL << 60, 200};

	cr_assert_eq(trex_tmap_col(&m, INT64_MAX / 2 + (1LL << 59)), 100);
	cr_assert_eq(trex_tmap_time(&m, 800), INT64_MAX / 2 + (1LL << 59));
	cr_assert_eq(trex_tmap_col(&m, m.t0), 0);
}

/* ---- axis ------------------------------------------------------------------------------ */

Test(layout, axis_steps_are_1_2_5_and_labels_fit)
{
	struct trex_tmap m = {0, 56200000, 62}; /* 56.2 ms over 62 cells */
	struct trex_axis ax;
	char buf[32];

	trex_axis_choose(&m, 10, &ax);
	cr_assert_eq(ax.step, 10000000); /* 10 ms: 9.06 ms would be too tight */
	cr_assert_eq(ax.unit, 1000000);
	trex_axis_label(&ax, 20000000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "20ms");

	m.span = 1000;
	trex_axis_choose(&m, 10, &ax);
	cr_assert_eq(ax.step, 200);
	trex_axis_label(&ax, 400, buf, sizeof(buf));
	cr_assert_str_eq(buf, "400ns");

	m.span = 3000000000LL;
	m.cols = 100;
	trex_axis_choose(&m, 10, &ax);
	cr_assert_eq(ax.step, 500000000);
	trex_axis_label(&ax, 1500000000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1500ms");
	m.span = 30000000000LL;
	trex_axis_choose(&m, 10, &ax);
	cr_assert_eq(ax.step, 5000000000LL);
	trex_axis_label(&ax, 10000000000LL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "10s");
}

Test(layout, axis_labels_far_from_the_origin_use_a_larger_unit)
{
	struct trex_tmap m = {43290000000LL, 3280000, 110};
	struct trex_axis ax;
	char buf[32];

	trex_axis_choose(&m, 10, &ax);
	cr_assert_eq(ax.step, 500000); /* 500 us */
	trex_axis_label(&ax, 43290500000LL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "43290500us", "before: the step's unit");
	trex_axis_fit_unit(&ax, 43293280000LL);
	trex_axis_label(&ax, 43290500000LL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "43.2905s");
	trex_axis_label(&ax, 43291000000LL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "43.2910s", "the same decimals on every label");

	/* near the origin nothing changes */
	m = (struct trex_tmap){0, 56200000, 62};
	trex_axis_choose(&m, 10, &ax);
	trex_axis_fit_unit(&ax, 56200000);
	trex_axis_label(&ax, 20000000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "20ms");
	/* 5 ms in, 100 ns steps: ms with four decimals */
	ax = (struct trex_axis){100, 1, 0};
	trex_axis_fit_unit(&ax, 5001000);
	trex_axis_label(&ax, 5000100, buf, sizeof(buf));
	cr_assert_str_eq(buf, "5.0001ms");
}

Test(layout, format_time_to_the_resolution)
{
	char buf[32];

	trex_format_time(41399050000LL, 44500, buf, sizeof(buf));
	cr_assert_str_eq(buf, "41.39905 s");
	trex_format_time(28100000, 906000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "28.1 ms");
	trex_format_time(0, 906000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "0 ns");
	trex_format_time(1234, 1, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1.234 us");
	trex_format_time(999, 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "999 ns");
	trex_format_time(-1500000, 100000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "-1.5 ms");
	trex_format_time(INT64_MIN, 0, buf, sizeof(buf));
	cr_assert_str_eq(buf, "-9223372036.854775808 s");
}

Test(layout, format_time_rounds_to_its_last_decimal)
{
	char buf[32];

	/* truncation said 1.646 ms and 41.39904 s */
	trex_format_time(1646897, 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1.647 ms");
	trex_format_time(41399049999LL, 44500, buf, sizeof(buf));
	cr_assert_str_eq(buf, "41.39905 s");
	trex_format_time(-1646500, 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "-1.647 ms", "half rounds away from zero");
	trex_format_time(1646499, 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1.646 ms");
	/* rounding up into the next unit changes the unit, not "1000.0 ms" */
	trex_format_time(999960000, 100000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1.0000 s");
	trex_format_time(999600, 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1.000 ms");
	trex_format_time(INT64_MAX, 1000000000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "9223372037 s");
}

/* ---- glyphs ---------------------------------------------------------------------------- */

Test(layout, single_slice_glyphs)
{
	struct trex_glyph g;

	g = trex_glyph_single(0, 80, 3); /* covers the cell */
	cr_assert_eq(g.kind, TREX_GLYPH_FULL);
	g = trex_glyph_single(0, 27, 3); /* ends 3/8 into cell 3 */
	cr_assert_eq(g.kind, TREX_GLYPH_LEFT);
	cr_assert_eq(g.n, 3);
	g = trex_glyph_single(26, 80, 3); /* starts 2/8 in: the right 6/8 */
	cr_assert_eq(g.kind, TREX_GLYPH_RIGHT);
	cr_assert_eq(g.n, 6);
	g = trex_glyph_single(25, 26, 3); /* one eighth inside */
	cr_assert_eq(g.kind, TREX_GLYPH_SHADE);
	cr_assert_eq(g.n, 1);
	g = trex_glyph_single(40, 48, 3);
	cr_assert_eq(g.kind, TREX_GLYPH_EMPTY);
}

Test(layout, busy_glyphs)
{
	cr_assert_eq(trex_glyph_busy(0, 100).kind, TREX_GLYPH_EMPTY);
	cr_assert_eq(trex_glyph_busy(100, 100).kind, TREX_GLYPH_FULL);
	cr_assert_eq(trex_glyph_busy(10, 100).n, 1);
	cr_assert_eq(trex_glyph_busy(50, 100).n, 2);
	cr_assert_eq(trex_glyph_busy(80, 100).n, 3);
}

/* ---- cells of a lane --------------------------------------------------------------------- */

static struct trex_index *load(const char *json)
{
	struct trex_load_opts opts;
	struct trex_source *src;
	struct trex_index *idx;
	struct trex_error err;

	memset(&opts, 0, sizeof(opts));
	opts.threads = 1;
	cr_assert_eq(trex_source_open_memory("m", json, strlen(json), false, &src, &err), TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_OK);
	return idx;
}

Test(layout, lane_cells_count_and_busy_time)
{
	/* ts/dur in us: [1, 2) [2, 3) [5, 9) us */
	struct trex_index *idx =
	    load("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
	         "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},"
	         "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":4}]");
	const struct trex_lane *lane = trex_index_lane(idx, 0);
	struct trex_cell_info cell;

	cr_assert_eq(lane->count, 3);
	trex_lane_cell(idx, lane, 0, 1000, &cell); /* before a: a ends at 2000 */
	cr_assert_eq(cell.count, 0);
	trex_lane_cell(idx, lane, 1500, 2500, &cell); /* half of a, half of b */
	cr_assert_eq(cell.count, 2);
	cr_assert_eq(cell.busy, 1000);
	trex_lane_cell(idx, lane, 2000, 3000, &cell); /* a ends at 2000: only b */
	cr_assert_eq(cell.count, 1);
	cr_assert_eq(cell.first, lane->first + 1);
	trex_lane_cell(idx, lane, 3000, 5000, &cell); /* the gap */
	cr_assert_eq(cell.count, 0);
	trex_lane_cell(idx, lane, 0, 10000, &cell);
	cr_assert_eq(cell.count, 3);
	cr_assert_eq(cell.busy, 6000);
	trex_index_free(idx);
}

Test(layout, filtered_cells_over_an_id_subset)
{
	/* the same lane; only a and c "match" */
	struct trex_index *idx =
	    load("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
	         "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},"
	         "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":4}]");
	const struct trex_lane *lane = trex_index_lane(idx, 0);
	uint32_t ids[] = {lane->first, lane->first + 2};
	struct trex_cell_info cell;

	trex_ids_cell(idx, ids, 0, 2, 0, 10000, &cell);
	cr_assert_eq(cell.count, 2);
	cr_assert_eq(cell.first, lane->first);
	cr_assert_eq(cell.busy, 5000);
	trex_ids_cell(idx, ids, 1, 2, 6000, 7000, &cell);
	cr_assert_eq(cell.count, 1);
	cr_assert_eq(cell.first, lane->first + 2);
	cr_assert_eq(cell.busy, 1000);
	trex_ids_cell(idx, ids, 1, 1, 0, 10000, &cell);
	cr_assert_eq(cell.count, 0);
	trex_index_free(idx);
}

/* The track of kind with the given name. */
static uint32_t track_named(const struct trex_index *idx, const char *name)
{
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++)
		if (strstr(trex_index_str(idx, trex_index_track(idx, t)->name), name))
			return t;
	cr_assert_fail("no track %s", name);
	return TREX_NONE;
}

Test(layout, counter_cells_take_the_max_in_force)
{
	/* samples (us): 1 -> 5, 2 -> 3, 4 -> 9, 8 -> 0 */
	struct trex_index *idx =
	    load("[{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":1,\"args\":{\"v\":5}},"
	         "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":2,\"args\":{\"v\":3}},"
	         "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":4,\"args\":{\"v\":9}},"
	         "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":8,\"args\":{\"v\":0}}]");
	uint32_t t = track_named(idx, "mem");
	double v = -1, lo, hi;

	cr_assert_eq(trex_index_track(idx, t)->kind, TREX_TRACK_COUNTER);
	cr_assert_not(trex_counter_cell(idx, t, 0, 1000, &v)); /* before the first sample */
	cr_assert(trex_counter_cell(idx, t, 0, 1001, &v));
	cr_assert_float_eq(v, 5, 1e-9);
	cr_assert(trex_counter_cell(idx, t, 2500, 3500, &v)); /* 3 in force, no sample inside */
	cr_assert_float_eq(v, 3, 1e-9);
	cr_assert(trex_counter_cell(idx, t, 1500, 8500, &v)); /* 5 in force, then 3, 9, 0 */
	cr_assert_float_eq(v, 9, 1e-9);
	cr_assert(trex_counter_cell(idx, t, 9000, 10000, &v));
	cr_assert_float_eq(v, 0, 1e-9);
	cr_assert(trex_counter_range(idx, t, &lo, &hi));
	cr_assert_float_eq(lo, 0, 1e-9);
	cr_assert_float_eq(hi, 9, 1e-9);
	cr_assert_eq(trex_spark_level(0, 0, 9), 1);
	cr_assert_eq(trex_spark_level(9, 0, 9), 8);
	cr_assert_eq(trex_spark_level(4.5, 0, 9), 5);
	cr_assert_eq(trex_spark_level(1, 0, 9), 1);
	cr_assert_eq(trex_spark_level(2, 2, 2), 8); /* flat series: full if positive */
	cr_assert_eq(trex_spark_level(0, 0, 0), 1);
	trex_index_free(idx);
}

Test(layout, instants_in_a_cell)
{
	struct trex_index *idx =
	    load("[{\"ph\":\"X\",\"name\":\"w\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
	         "{\"ph\":\"i\",\"name\":\"i1\",\"pid\":1,\"tid\":1,\"ts\":2,\"s\":\"t\"},"
	         "{\"ph\":\"i\",\"name\":\"i2\",\"pid\":1,\"tid\":1,\"ts\":3,\"s\":\"t\"},"
	         "{\"ph\":\"i\",\"name\":\"i3\",\"pid\":1,\"tid\":1,\"ts\":7,\"s\":\"t\"}]");
	uint32_t t = trex_index_slice(idx, 0)->track;

	cr_assert_eq(trex_index_track(idx, t)->instant_count, 3);
	cr_assert_eq(trex_track_instants_in(idx, t, 0, 2000), 0);
	cr_assert_eq(trex_track_instants_in(idx, t, 2000, 3001), 2);
	cr_assert_eq(trex_track_instants_in(idx, t, 3001, 7000), 0);
	cr_assert_eq(trex_track_instants_in(idx, t, 0, 10000), 3);
	trex_index_free(idx);
}

Test(layout, hits_map_screen_cells_to_rows_and_columns)
{
	struct trex_layout l;
	struct trex_hit h;

	trex_layout_compute(100, 30, &l);
	h = trex_layout_hit(&l, l.timeline.y + 3, l.timeline.x + 7);
	cr_assert(h.body);
	cr_assert_eq(h.row, 3);
	cr_assert_eq(h.col, 7);
	h = trex_layout_hit(&l, l.names.y, l.names.x + 1);
	cr_assert(h.body);
	cr_assert_eq(h.row, 0);
	cr_assert_eq(h.col, -1);
	cr_assert_not(trex_layout_hit(&l, l.header.y, l.timeline.x).body);
	cr_assert_not(trex_layout_hit(&l, l.status.y, l.timeline.x).body);
	cr_assert_not(trex_layout_hit(&l, l.timeline.y, l.names.w).body); /* the separator */
}

Test(layout, details_pane_bottom_right_or_none)
{
	struct trex_layout l;

	/* 80x24: a bottom pane of 8 rows; the body keeps 20 - 8 = 12 */
	trex_layout_compute(80, 24, &l);
	cr_assert(trex_layout_details(&l));
	cr_assert_eq(l.details.h, 8);
	cr_assert_eq(l.details.w, 80);
	cr_assert_eq(l.names.h, 12);
	cr_assert_eq(l.timeline.h, 12);
	cr_assert_eq(l.details.y, l.names.y + l.names.h);
	cr_assert_eq(l.details.y + l.details.h, l.status.y);
	/* 200x50: a right pane of 66 columns from the axis row to the status */
	trex_layout_compute(200, 50, &l);
	cr_assert(trex_layout_details(&l));
	cr_assert_eq(l.details.w, 66);
	cr_assert_eq(l.details.x, 134);
	cr_assert_eq(l.details.y, l.axis.y);
	cr_assert_eq(l.details.y + l.details.h, l.status.y);
	cr_assert_eq(l.timeline.x + l.timeline.w, 134);
	cr_assert_eq(l.axis.x + l.axis.w, 134);
	cr_assert_eq(l.names.h, 46);
	/* 40x12: 4 rows fit, 4 stay */
	trex_layout_compute(40, 12, &l);
	cr_assert(trex_layout_details(&l));
	cr_assert_eq(l.details.h, 4);
	cr_assert_eq(l.names.h, 4);
	/* below the minimum screen: no pane */
	trex_layout_compute(40, 11, &l);
	cr_assert_not(trex_layout_details(&l));
	cr_assert_eq(l.details.h, 0);
}

Test(layout, busy_time_of_crowded_cells_is_sampled_across_the_cell)
{
	/* 100 slices: 1 us long every 2 us for 100 us, then 100 back to back (2 us) */
	char json[40000];
	size_t n = 0;
	struct trex_index *idx;
	struct trex_cell_info cell;

	n += (size_t)snprintf(json + n, sizeof(json) - n, "[");
	for (int i = 0; i < 200; i++)
		n += (size_t)snprintf(
		    json + n, sizeof(json) - n,
		    "%s{\"ph\":\"X\",\"name\":\"s\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}",
		    i ? "," : "", i < 100 ? 2 * i : 200 + 2 * (i - 100), i < 100 ? 1 : 2);
	snprintf(json + n, sizeof(json) - n, "]");
	idx = load(json);
	trex_lane_cell(idx, trex_index_lane(idx, 0), 0, 200000, &cell);
	cr_assert_eq(cell.count, 100);
	cr_assert_eq(cell.busy, 100000); /* half busy, from 16 of 100 */
	trex_lane_cell(idx, trex_index_lane(idx, 0), 0, 400000, &cell);
	cr_assert_eq(cell.count, 200);
	/* 300 us of 400: the sample spans both halves (the first 16 alone would say 200) */
	cr_assert(cell.busy > 280000 && cell.busy < 320000, "busy %lld", (long long)cell.busy);
	trex_index_free(idx);
}
