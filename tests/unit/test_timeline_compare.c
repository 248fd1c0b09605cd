/* --compare's two runs on one screen: how the body is split between
 * them (a header row each, then their rows), and which track of one run
 * is which of the other's (the track choices that follow). */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "index_fixture.h"
#include "timeline_compare.h"
#include "timeline_compare_tracks.h"
#include "trex/core/builder.h"

/* 20 lines from line 3: 18 for rows. */
Test(timeline_compare, few_rows_of_a_leave_the_rest_to_b)
{
	struct tl_compare_split s = tl_compare_split(3, 20, 4, 100);

	cr_assert_eq(s.a_y, 4); /* A's header on line 3 */
	cr_assert_eq(s.a_h, 4);
	cr_assert_eq(s.b_y, 9); /* B's header on line 8 */
	cr_assert_eq(s.b_h, 14);
}

Test(timeline_compare, few_rows_of_b_leave_the_rest_to_a)
{
	struct tl_compare_split s = tl_compare_split(3, 20, 100, 5);

	cr_assert_eq(s.a_h, 13);
	cr_assert_eq(s.b_y, 4 + 13 + 1);
	cr_assert_eq(s.b_h, 5);
}

Test(timeline_compare, many_rows_each_get_half_a_the_odd_line)
{
	struct tl_compare_split s = tl_compare_split(0, 21, 50, 50);

	cr_assert_eq(s.a_h, 10);
	cr_assert_eq(s.b_h, 9);
	cr_assert_eq(s.b_y, 1 + 10 + 1);
}

Test(timeline_compare, an_empty_run_keeps_one_line)
{
	struct tl_compare_split s = tl_compare_split(0, 12, 0, 0);

	cr_assert_eq(s.a_h, 1);
	cr_assert_eq(s.b_h, 9);
}

Test(timeline_compare, a_body_too_small_for_rows_has_none)
{
	for (int h = 0; h <= 2; h++) {
		struct tl_compare_split s = tl_compare_split(5, h, 10, 10);

		cr_assert_eq(s.a_h, 0);
		cr_assert_eq(s.b_h, 0);
		cr_assert_eq(s.a_y, 6);
	}
}

/* ---- matching the runs' tracks ------------------------------------------------------------ */

static void slice(struct trex_builder *b, struct trex_build_file *f, const char *pid,
                  const char *tid, const char *cat, const char *name)
{
	fixture_add(b, f, &(struct fixture_slice){pid, tid, cat, name, 0, 10, 0, 0, NULL});
}

static void name_thread(struct trex_builder *b, const char *pid, const char *tid, const char *name)
{
	uint32_t t = trex_builder_track(b, fixture_str(b, pid), fixture_str(b, tid));

	cr_assert_eq(trex_builder_thread_name(b, t, fixture_str(b, name)), 0);
}

/* One run: process pid "python3" with threads main (named) and an unnamed
 * one (tid unnamed), worker threads when asked, and device 0's stream 7. */
static struct trex_index *make_run(const char *path, const char *pid, const char *unnamed,
                                   bool worker)
{
	struct trex_builder *b[1] = {trex_builder_new(0)};
	struct trex_build_file f[1] = {fixture_file(path)};

	slice(b[0], &f[0], pid, "1", "cpu_op", "step");
	name_thread(b[0], pid, "1", "main");
	slice(b[0], &f[0], pid, unnamed, "cpu_op", "other");
	if (worker) {
		slice(b[0], &f[0], pid, "9", "cpu_op", "copy");
		name_thread(b[0], pid, "9", "worker");
	}
	cr_assert_eq(
	    trex_builder_process_name(b[0], fixture_str(b[0], pid), fixture_str(b[0], "python3")),
	    0);
	slice(b[0], &f[0], "0", "7", "kernel", "gemm");
	return fixture_build(f, b, 1);
}

/* The track of idx whose tid text is tid. */
static uint32_t track_of_tid(const struct trex_index *idx, const char *tid)
{
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++)
		if (strcmp(trex_index_str(idx, trex_index_track(idx, t)->tid), tid) == 0)
			return t;
	cr_assert_fail("no track %s", tid);
	return TREX_NONE;
}

Test(timeline_compare, tracks_match_by_rank_process_and_name_not_by_id)
{
	struct trex_index *a = make_run("/x/a.json", "100", "101", false);
	struct trex_index *b = make_run("/x/b.json", "555", "556", true);
	struct tl_track_match m;

	cr_assert(tl_track_match_init(&m, a, b));
	/* pids and tids differ: the names and the order of the unnamed decide */
	cr_assert_eq(m.track[0][track_of_tid(a, "1")], track_of_tid(b, "1"));
	cr_assert_eq(m.track[0][track_of_tid(a, "101")], track_of_tid(b, "556"));
	cr_assert_eq(m.track[1][track_of_tid(b, "556")], track_of_tid(a, "101"));
	cr_assert_eq(m.track[0][track_of_tid(a, "7")], track_of_tid(b, "7"));
	/* B's worker has no counterpart */
	cr_assert_eq(m.track[1][track_of_tid(b, "9")], TREX_NONE);
	cr_assert_eq(m.file[0][0], 0);
	cr_assert_eq(m.process[0][trex_index_track(a, track_of_tid(a, "1"))->process],
	             trex_index_track(b, track_of_tid(b, "1"))->process);
	tl_track_match_free(&m);
	trex_index_free(a);
	trex_index_free(b);
}

Test(timeline_compare, another_rank_matches_nothing)
{
	struct trex_builder *bb[1] = {trex_builder_new(0)};
	struct trex_build_file f[1] = {fixture_file("/x/r1.json")};
	struct trex_index *a = make_run("/x/a.json", "100", "101", false), *b;
	struct tl_track_match m;

	f[0].rank = 1;
	slice(bb[0], &f[0], "100", "1", "cpu_op", "step");
	b = fixture_build(f, bb, 1);
	cr_assert(tl_track_match_init(&m, a, b));
	cr_assert_eq(m.file[0][0], TREX_NONE);
	for (uint32_t t = 0; t < trex_index_track_count(b); t++)
		cr_assert_eq(m.track[1][t], TREX_NONE);
	tl_track_match_free(&m);
	trex_index_free(a);
	trex_index_free(b);
}
