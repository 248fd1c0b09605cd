/* Range statistics over small hand-built indexes; every number is worked
 * out by hand in the comments. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/analysis/range_stats.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct rev {
	const char *tid, *name;
	int64_t ts, dur;
};

static struct trex_index *build(const struct rev *ev, size_t n)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");

	file.rank = 2;
	for (size_t i = 0; i < n; i++)
		fixture_add(b, &file,
		            &(struct fixture_slice){"1", ev[i].tid, "cpu_op", ev[i].name, ev[i].ts,
		                                    ev[i].dur, 0, 0, NULL});
	return fixture_build(&file, &b, 1);
}

static void stats(const struct rev *ev, size_t n, int64_t t0, int64_t t1,
                  struct trex_range_stats *rs)
{
	struct trex_index *idx = build(ev, n);
	struct trex_error err;

	cr_assert_eq(trex_range_stats_compute(idx, t0, t1, rs, &err), TREX_OK, "%s", err.message);
	trex_index_free(idx);
}

static double num(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->number;
}

static int64_t count(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->count;
}

static const char *text(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->text;
}

/* Thread 1: outer [0, 100) holding inner [10, 30) and [50, 60).
 * Thread 2: k [0, 10), k [20, 30), z [35, 35) (zero length). */
static const struct rev nested[] = {
    {"1", "outer", 0, 100}, {"1", "inner", 10, 20}, {"1", "inner", 50, 10},
    {"2", "k", 0, 10},      {"2", "k", 20, 10},     {"2", "z", 35, 0},
};

Test(range_stats, nesting_counts_busy_time_once)
{
	struct trex_range_stats rs;

	stats(nested, ARRAY_SIZE(nested), 0, 100, &rs);
	cr_assert_eq(rs.tracks.nrows, 2);
	/* thread 1: the union is outer's 100 ns, not 100 + 20 + 10 */
	cr_assert_str_eq(text(&rs.tracks, 0, TREX_RANGE_TRACK_NAME), "thread 1");
	cr_assert_str_eq(text(&rs.tracks, 0, TREX_RANGE_TRACK_PROCESS), "1"); /* no name */
	cr_assert_eq(count(&rs.tracks, 0, TREX_RANGE_TRACK_RANK), 2);
	cr_assert_eq(count(&rs.tracks, 0, TREX_RANGE_TRACK_SLICES), 3);
	cr_assert_eq(num(&rs.tracks, 0, TREX_RANGE_TRACK_BUSY), 100);
	cr_assert_eq(num(&rs.tracks, 0, TREX_RANGE_TRACK_BUSY_PCT), 100);
	/* thread 2: 10 + 10 = 20 of 100; the zero-length slice counts, adds 0 */
	cr_assert_eq(count(&rs.tracks, 1, TREX_RANGE_TRACK_SLICES), 3);
	cr_assert_eq(num(&rs.tracks, 1, TREX_RANGE_TRACK_BUSY), 20);
	cr_assert_eq(num(&rs.tracks, 1, TREX_RANGE_TRACK_BUSY_PCT), 20);
	/* names by time: outer 100, inner 30, k 20, z 0 */
	cr_assert_eq(rs.names.nrows, 4);
	cr_assert_str_eq(text(&rs.names, 0, TREX_RANGE_NAME_NAME), "outer");
	cr_assert_str_eq(text(&rs.names, 1, TREX_RANGE_NAME_NAME), "inner");
	cr_assert_eq(count(&rs.names, 1, TREX_RANGE_NAME_COUNT), 2);
	cr_assert_eq(num(&rs.names, 1, TREX_RANGE_NAME_TOTAL), 30);
	cr_assert_eq(num(&rs.names, 1, TREX_RANGE_NAME_RANGE_PCT), 30);
	cr_assert_str_eq(text(&rs.names, 2, TREX_RANGE_NAME_NAME), "k");
	cr_assert_eq(count(&rs.names, 2, TREX_RANGE_NAME_COUNT), 2);
	cr_assert_str_eq(text(&rs.names, 3, TREX_RANGE_NAME_NAME), "z");
	cr_assert_eq(num(&rs.names, 3, TREX_RANGE_NAME_TOTAL), 0);
	trex_range_stats_free(&rs);
}

Test(range_stats, slices_are_clipped_to_the_range)
{
	struct trex_range_stats rs;

	/* [25, 55) is 30 ns: outer 30; inner [25, 30) + [50, 55) = 10; thread 2:
	 * k [25, 30) = 5 and z at 35 */
	stats(nested, ARRAY_SIZE(nested), 25, 55, &rs);
	cr_assert_eq(num(&rs.tracks, 0, TREX_RANGE_TRACK_BUSY), 30);
	cr_assert_eq(num(&rs.tracks, 0, TREX_RANGE_TRACK_BUSY_PCT), 100);
	cr_assert_eq(count(&rs.tracks, 1, TREX_RANGE_TRACK_SLICES), 2);
	cr_assert_eq(num(&rs.tracks, 1, TREX_RANGE_TRACK_BUSY), 5);
	cr_assert_float_eq(num(&rs.tracks, 1, TREX_RANGE_TRACK_BUSY_PCT), 5.0 * 100 / 30, 1e-9);
	cr_assert_str_eq(text(&rs.names, 1, TREX_RANGE_NAME_NAME), "inner");
	cr_assert_eq(num(&rs.names, 1, TREX_RANGE_NAME_TOTAL), 10);
	trex_range_stats_free(&rs);
}

Test(range_stats, slices_ending_at_the_start_do_not_touch)
{
	struct trex_range_stats rs;

	/* [10, 20): k [0, 10) ends at 10 and is out; thread 1: outer and the
	 * first inner, 10 ns */
	stats(nested, ARRAY_SIZE(nested), 10, 20, &rs);
	cr_assert_eq(rs.tracks.nrows, 1);
	cr_assert_eq(count(&rs.tracks, 0, TREX_RANGE_TRACK_SLICES), 2);
	cr_assert_eq(num(&rs.tracks, 0, TREX_RANGE_TRACK_BUSY), 10);
	cr_assert_eq(rs.names.nrows, 2);
	/* equal times sort by name */
	cr_assert_str_eq(text(&rs.names, 0, TREX_RANGE_NAME_NAME), "inner");
	cr_assert_str_eq(text(&rs.names, 1, TREX_RANGE_NAME_NAME), "outer");
	trex_range_stats_free(&rs);
}

Test(range_stats, overlapping_siblings_are_a_union)
{
	static const struct rev ev[] = {{"1", "a", 0, 50}, {"1", "b", 40, 60}};
	struct trex_range_stats rs;

	/* a [0, 50) and b [40, 100) overlap by 10: busy 100 of 200, the sum
	 * would be 110 */
	stats(ev, ARRAY_SIZE(ev), 0, 200, &rs);
	cr_assert_eq(num(&rs.tracks, 0, TREX_RANGE_TRACK_BUSY), 100);
	cr_assert_eq(num(&rs.tracks, 0, TREX_RANGE_TRACK_BUSY_PCT), 50);
	cr_assert_eq(num(&rs.names, 0, TREX_RANGE_NAME_TOTAL), 60);
	cr_assert_str_eq(text(&rs.names, 0, TREX_RANGE_NAME_NAME), "b");
	trex_range_stats_free(&rs);
}

Test(range_stats, an_empty_range_is_an_error)
{
	struct trex_index *idx = build(nested, ARRAY_SIZE(nested));
	struct trex_range_stats rs;
	struct trex_error err;

	cr_assert_eq(trex_range_stats_compute(idx, 10, 10, &rs, &err), TREX_USAGE);
	cr_assert_eq(rs.tracks.nrows, 0);
	trex_range_stats_free(&rs);
	/* a range with nothing in it is fine: no rows */
	cr_assert_eq(trex_range_stats_compute(idx, 200, 300, &rs, &err), TREX_OK);
	cr_assert_eq(rs.tracks.nrows, 0);
	cr_assert_eq(rs.names.nrows, 0);
	trex_range_stats_free(&rs);
	trex_index_free(idx);
}

Test(range_stats, only_zero_length_slices)
{
	struct trex_range_stats rs;

	/* [33, 36): outer on thread 1; on thread 2 only z, zero length at 35 */
	stats(nested, ARRAY_SIZE(nested), 33, 36, &rs);
	cr_assert_eq(rs.tracks.nrows, 2);
	cr_assert_eq(count(&rs.tracks, 1, TREX_RANGE_TRACK_SLICES), 1);
	cr_assert_eq(num(&rs.tracks, 1, TREX_RANGE_TRACK_BUSY), 0);
	cr_assert_eq(num(&rs.tracks, 1, TREX_RANGE_TRACK_BUSY_PCT), 0);
	trex_range_stats_free(&rs);
}
