#include "config.h"

#include <criterion/criterion.h>

#include "trex/ui/table_fit.h"

#define MAX_COLS 32

/* The kernels table by name: Time %, Total, Instances, Avg, Med, Min, Max,
 * StdDev, P95, P99 (widths as the view measures them on the demo), then
 * the name keeping 40 columns. */
static const struct trex_fit_col kernels[] = {
    {TREX_FIT_SCROLL, 7, 6},  {TREX_FIT_SCROLL, 10, 5}, {TREX_FIT_SCROLL, 10, 9},
    {TREX_FIT_SCROLL, 10, 3}, {TREX_FIT_SCROLL, 10, 3}, {TREX_FIT_SCROLL, 10, 3},
    {TREX_FIT_SCROLL, 10, 3}, {TREX_FIT_SCROLL, 10, 6}, {TREX_FIT_SCROLL, 10, 3},
    {TREX_FIT_SCROLL, 10, 3}, {TREX_FIT_NAME, 40, 4},
};
#define N_KERNELS (sizeof(kernels) / sizeof(kernels[0]))
enum { K_TIME, K_TOTAL, K_INSTANCES, K_AVG, K_MED, K_MIN, K_MAX, K_STDDEV, K_P95, K_P99, K_NAME };

static int xs[MAX_COLS], ws[MAX_COLS];

static struct trex_fit fit_floor(const struct trex_fit_col *cols, size_t n, int width, size_t first,
                                 int floor)
{
	struct trex_fit_spec s = {cols, n, width, 1, 2, first, floor};
	struct trex_fit o = {.x = xs, .w = ws};

	trex_fit_columns(&s, &o);
	return o;
}

static struct trex_fit fit(const struct trex_fit_col *cols, size_t n, int width, size_t first)
{
	return fit_floor(cols, n, width, first, 0);
}

static size_t shown(size_t n)
{
	size_t k = 0;

	for (size_t c = 0; c < n; c++)
		k += ws[c] > 0;
	return k;
}

/* No two shown columns overlap, all are inside the width, in table order. */
static void assert_sane(const struct trex_fit_col *cols, size_t n, int width)
{
	int end = 0;

	for (size_t c = 0; c < n; c++) {
		if (ws[c] < 0)
			continue;
		cr_assert_geq(xs[c], end, "column %zu starts at %d, before %d", c, xs[c], end);
		cr_assert_leq(xs[c] + ws[c], width, "column %zu ends past %d", c, width);
		cr_assert(ws[c] == cols[c].width || cols[c].role != TREX_FIT_SCROLL);
		end = xs[c] + ws[c];
	}
}

Test(table_fit, marker_width_counts_digits)
{
	cr_assert_eq(trex_fit_marker_width(3), 8);  /* "◂ 3 more" */
	cr_assert_eq(trex_fit_marker_width(12), 9); /* "12 more ▸" */
	cr_assert_eq(trex_fit_marker_width(100), 10);
}

/* 160 columns: every column, P95 and P99 included, and the name in what is left. */
Test(table_fit, wide_shows_p95_and_p99)
{
	struct trex_fit o = fit(kernels, N_KERNELS, 160, 0);

	assert_sane(kernels, N_KERNELS, 160);
	cr_assert_eq(shown(N_KERNELS), N_KERNELS);
	cr_assert_gt(ws[K_P95], 0);
	cr_assert_gt(ws[K_P99], 0);
	cr_assert_eq(xs[K_TIME], 1, "the mark gutter comes first");
	cr_assert_eq(xs[K_NAME] + ws[K_NAME], 160);
	cr_assert_geq(ws[K_NAME], 40);
	cr_assert_eq(o.left, 0);
	cr_assert_eq(o.right, 0);
	cr_assert_eq(o.left_x, -1);
	cr_assert_eq(o.right_x, -1);
}

/* 80 columns: three numbers, the name keeps 40+, seven more on the right,
 * their marker at the right edge over the name's header. */
Test(table_fit, narrow_counts_the_hidden_columns)
{
	struct trex_fit o = fit(kernels, N_KERNELS, 80, 0);

	assert_sane(kernels, N_KERNELS, 80);
	cr_assert_eq(shown(N_KERNELS), 4);
	cr_assert_gt(ws[K_INSTANCES], 0);
	cr_assert_lt(ws[K_AVG], 0);
	cr_assert_eq(o.left, 0);
	cr_assert_eq(o.right, 7);
	cr_assert_eq(o.right_x, 80 - 8);
	cr_assert_gt(o.right_x, xs[K_NAME] + 4, "the marker leaves the title alone");
	cr_assert_geq(ws[K_NAME], 40);
}

/* Scrolling right by one: the left marker takes the place of Time %. */
Test(table_fit, scrolled_shows_the_left_marker)
{
	struct trex_fit o = fit(kernels, N_KERNELS, 80, 1);

	cr_assert_eq(o.first, 1);
	cr_assert_eq(o.left, 1);
	cr_assert_eq(o.left_x, 1);
	cr_assert_lt(ws[K_TIME], 0);
	cr_assert_eq(xs[K_TOTAL], 1 + 8 + 2);
	cr_assert_eq(o.left + o.right + shown(N_KERNELS) - 1, N_KERNELS - 1,
	             "every scrolling column is shown or counted once");
}

/* At 80 columns P99 is reached by scrolling, and scrolling stops there. */
Test(table_fit, scrolling_reaches_the_last_column_and_stops)
{
	struct trex_fit o = fit(kernels, N_KERNELS, 80, 0);
	size_t steps = 0;

	while (o.right && steps < N_KERNELS) {
		o = fit(kernels, N_KERNELS, 80, o.first + 1);
		steps++;
	}
	assert_sane(kernels, N_KERNELS, 80);
	cr_assert_gt(ws[K_P99], 0);
	cr_assert_gt(ws[K_P95], 0);
	cr_assert_eq(o.right, 0);
	cr_assert_eq(o.left, 8);
	cr_assert_eq(steps, 8);
	o = fit(kernels, N_KERNELS, 80, 20); /* past the end: back where P99 is last */
	cr_assert_eq(o.first, 8);
}

/* A screen that grows scrolls back: no blank room while columns are off on the left. */
Test(table_fit, growing_scrolls_back)
{
	struct trex_fit o = fit(kernels, N_KERNELS, 160, 6);

	cr_assert_eq(o.first, 0);
	cr_assert_eq(shown(N_KERNELS), N_KERNELS);
}

/* GPU time: rank and device pinned, twenty numbers, no name to take the
 * rest: the right marker gets room of its own. */
Test(table_fit, pinned_labels_stay_and_the_marker_has_room)
{
	struct trex_fit_col cols[22] = {{TREX_FIT_PINNED, 5, 4}, {TREX_FIT_PINNED, 14, 6}};
	struct trex_fit o;

	for (size_t c = 2; c < 22; c++)
		cols[c] = (struct trex_fit_col){TREX_FIT_SCROLL, c == 5 ? 7 : 11, 6};
	o = fit(cols, 22, 80, 0);
	assert_sane(cols, 22, 80);
	cr_assert_eq(xs[0], 1);
	cr_assert_eq(xs[1], 8);
	cr_assert_eq(o.left + o.right + shown(22), 22);
	cr_assert_gt(o.right, 0);
	for (size_t c = 0; c < 22; c++)
		cr_assert(ws[c] < 0 || xs[c] + ws[c] < o.right_x, "column %zu under the marker", c);
	o = fit(cols, 22, 80, 3);
	cr_assert_gt(ws[0], 0);
	cr_assert_gt(ws[1], 0);
	cr_assert_eq(o.left_x, 8 + 14 + 2, "the left marker follows the pinned columns");
	cr_assert_lt(ws[2], 0);
}

/* Columns the user hid are neither shown nor counted. */
Test(table_fit, hidden_columns_are_not_more)
{
	struct trex_fit_col cols[N_KERNELS];
	struct trex_fit o;

	for (size_t c = 0; c < N_KERNELS; c++)
		cols[c] = kernels[c];
	cols[K_AVG].role = cols[K_MED].role = TREX_FIT_OFF;
	o = fit(cols, N_KERNELS, 80, 0);
	cr_assert_eq(o.right, 5);
	cr_assert_lt(ws[K_AVG], 0);
	o = fit(cols, N_KERNELS, 160, 0);
	cr_assert_eq(o.right, 0);
	cr_assert_eq(shown(N_KERNELS), N_KERNELS - 2);
}

/* A name first stays on the left; the numbers scroll after it. */
Test(table_fit, pinned_name_first)
{
	struct trex_fit_col cols[] = {{TREX_FIT_PINNED, 30, 4},
	                              {TREX_FIT_SCROLL, 20, 5},
	                              {TREX_FIT_SCROLL, 20, 5},
	                              {TREX_FIT_SCROLL, 20, 5}};
	struct trex_fit o = fit(cols, 4, 80, 1);

	assert_sane(cols, 4, 80);
	cr_assert_eq(xs[0], 1);
	cr_assert_eq(o.left, 1);
	cr_assert_eq(o.left_x, 33);
	cr_assert_gt(ws[2], 0);
	cr_assert_eq(o.right, 1);
}

/* Too narrow for anything but the pinned column: nothing drawn past the edge. */
Test(table_fit, tiny_width_stays_inside)
{
	struct trex_fit o = fit(kernels, N_KERNELS, 12, 0);

	assert_sane(kernels, N_KERNELS, 12);
	cr_assert_eq(o.left + o.right + shown(N_KERNELS) - (ws[K_NAME] > 0), N_KERNELS - 1);
	o = fit(NULL, 0, 80, 3);
	cr_assert_eq(o.first, 0);
	cr_assert_eq(o.right, 0);
}

/* 40 columns scrolled right: the left marker takes the room of a column,
 * and the name gives up some of its share so that one number still shows. */
Test(table_fit, narrow_scrolled_keeps_one_column)
{
	struct trex_fit_col cols[N_KERNELS];
	struct trex_fit o;

	for (size_t c = 0; c < N_KERNELS; c++)
		cols[c] = kernels[c];
	cols[K_NAME].width = 20;
	o = fit(cols, N_KERNELS, 40, 3);
	cr_assert_eq(shown(N_KERNELS), 1, "without a floor only the name fits");
	o = fit_floor(cols, N_KERNELS, 40, 3, 12);
	assert_sane(cols, N_KERNELS, 40);
	cr_assert_gt(ws[K_AVG], 0);
	cr_assert_geq(ws[K_NAME], 12);
	cr_assert_eq(o.left, 3);
	cr_assert_eq(o.right, 6);
	cr_assert_gt(o.right_x, xs[K_NAME] + 4);
}
