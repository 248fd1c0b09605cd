/* Search over a small hand-built index: two threads of one process.
 *
 *   tid 1, depth 0: gemm_a [100, 200)  gemm_b [300, 400)
 *   tid 1, depth 1: Copy   [120, 150)
 *   tid 2, depth 0: GEMM_big [100, 150)  relu [160, 170)  gemm_a [300, 310)  zero [400, 400)
 *
 * Time order of the "gemm" matches (ties by track, then depth):
 *   gemm_a@100 (tid 1), GEMM_big@100 (tid 2), gemm_b@300 (tid 1), gemm_a@300 (tid 2). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/search.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

struct sev {
	const char *tid, *name;
	int64_t ts, dur;
};

static const struct sev events[] = {
    {"1", "gemm_a", 100, 100},  {"1", "Copy", 120, 30}, {"1", "gemm_b", 300, 100},
    {"2", "GEMM_big", 100, 50}, {"2", "relu", 160, 10}, {"2", "gemm_a", 300, 10},
    {"2", "zero", 400, 0},
};

static struct trex_index *make_index(void)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");

	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		fixture_add(b, &file,
		            &(struct fixture_slice){"0", events[i].tid, "kernel", events[i].name,
		                                    events[i].ts, events[i].dur, 0, 0, NULL});
	return fixture_build(&file, &b, 1);
}

/* The slice id of (name, ts). */
static uint32_t slice(const struct trex_index *idx, const char *name, int64_t ts)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);

		if (s->ts == ts && strcmp(trex_index_str(idx, s->name), name) == 0)
			return i;
	}
	cr_assert_fail("no slice %s@%lld", name, (long long)ts);
	return TREX_NONE;
}

static struct trex_search *search(const struct trex_index *idx, const char *pat,
                                  const struct trex_search *within)
{
	struct trex_search *s = NULL;
	struct trex_error err;

	cr_assert_eq(trex_search_new(idx, pat, within, &s, &err), TREX_OK, "%s", err.message);
	return s;
}

static uint32_t count_of(const struct trex_index *idx, const char *pat)
{
	struct trex_search *s = search(idx, pat, NULL);
	uint32_t n = trex_search_count(s);

	cr_assert_str_eq(trex_search_pattern(s), pat);
	trex_search_free(s);
	return n;
}

Test(search, smart_case_counts)
{
	struct trex_index *idx = make_index();

	cr_assert_eq(count_of(idx, "gemm"), 4); /* lower case: caseless */
	cr_assert_eq(count_of(idx, "GEMM"), 1); /* upper case: exact */
	cr_assert_eq(count_of(idx, "Gemm"), 0);
	cr_assert_eq(count_of(idx, "^gemm_a$"), 2); /* one name, two slices */
	cr_assert_eq(count_of(idx, "\\S+_b$"), 1);  /* \S is an escape, not upper case */
	cr_assert_eq(count_of(idx, "\\w+_B"), 0);   /* upper-case B: exact */
	cr_assert_eq(count_of(idx, "copy|relu"), 2);
	cr_assert_eq(count_of(idx, "nothing"), 0);
	cr_assert_eq(count_of(idx, ""), 7); /* the empty pattern matches everything */
	trex_index_free(idx);
}

Test(search, bad_pattern_names_the_offset)
{
	struct trex_index *idx = make_index();
	struct trex_search *s = (struct trex_search *)1;
	struct trex_error err;

	cr_assert_eq(trex_search_new(idx, "gemm(", NULL, &s, &err), TREX_USAGE);
	cr_assert_null(s);
	cr_assert_eq(err.offset, 5);
	cr_assert(strstr(err.message, "missing closing parenthesis"), "%s", err.message);
	cr_assert(strstr(err.message, "offset 5"), "%s", err.message);
	cr_assert_eq(trex_search_new(idx, "a[", NULL, &s, &err), TREX_USAGE);
	trex_index_free(idx);
}

Test(search, name_and_slice_matches)
{
	struct trex_index *idx = make_index();
	struct trex_search *s = search(idx, "gemm", NULL);

	cr_assert(trex_search_slice_matches(s, slice(idx, "GEMM_big", 100)));
	cr_assert_not(trex_search_slice_matches(s, slice(idx, "Copy", 120)));
	cr_assert(
	    trex_search_name_matches(s, trex_index_slice(idx, slice(idx, "gemm_b", 300))->name));
	cr_assert_not(trex_search_slice_matches(s, TREX_NONE));
	trex_search_free(s);
	trex_index_free(idx);
}

Test(search, next_and_prev_walk_time_order)
{
	struct trex_index *idx = make_index();
	struct trex_search *s = search(idx, "gemm", NULL);
	uint32_t order[] = {slice(idx, "gemm_a", 100), slice(idx, "GEMM_big", 100),
	                    slice(idx, "gemm_b", 300), slice(idx, "gemm_a", 300)};
	struct trex_search_pos start = {INT64_MIN, 0, 0, 0}, end = {INT64_MAX, UINT32_MAX, 0, 0};
	struct trex_search_pos p;
	uint32_t id;

	/* the tracks are tid 1 then tid 2 */
	cr_assert_lt(trex_index_slice(idx, order[0])->track,
	             trex_index_slice(idx, order[1])->track);
	id = trex_search_next(s, &start);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(id, order[i], "step %d: %u != %u", i, id, order[i]);
		p = trex_search_pos_of(idx, id);
		cr_assert_eq(trex_search_rank(s, &p), (uint32_t)i);
		id = trex_search_next(s, &p);
	}
	cr_assert_eq(id, TREX_NONE);
	id = trex_search_prev(s, &end);
	for (int i = 3; i >= 0; i--) {
		cr_assert_eq(id, order[i], "back %d", i);
		p = trex_search_pos_of(idx, id);
		id = trex_search_prev(s, &p);
	}
	cr_assert_eq(id, TREX_NONE);
	/* from a time: the first match at or after 150 is gemm_b@300 */
	p = (struct trex_search_pos){149, UINT32_MAX, UINT32_MAX, UINT32_MAX};
	cr_assert_eq(trex_search_next(s, &p), order[2]);
	cr_assert_eq(trex_search_rank(s, &p), 2);
	trex_search_free(s);
	trex_index_free(idx);
}

static uint32_t lane_of(const struct trex_index *idx, uint32_t id)
{
	const struct trex_slice *sl = trex_index_slice(idx, id);

	return trex_index_track(idx, sl->track)->first_lane + sl->depth;
}

Test(search, lane_arrays_and_ranges)
{
	struct trex_index *idx = make_index();
	struct trex_search *s = search(idx, "gemm|zero", NULL);
	uint32_t a = slice(idx, "gemm_a", 100), b = slice(idx, "gemm_b", 300);
	uint32_t lane = lane_of(idx, a), n, lo, hi;
	const uint32_t *ids = trex_search_lane(s, lane, &n);

	cr_assert_eq(n, 2);
	cr_assert_eq(ids[0], a);
	cr_assert_eq(ids[1], b);
	/* [150, 300): gemm_a (ends 200) touches, gemm_b starts at 300: not */
	trex_search_lane_range(s, lane, 150, 300, &lo, &hi);
	cr_assert_eq(lo, 0);
	cr_assert_eq(hi, 1);
	/* [200, 300): gemm_a ends exactly at 200: not touching */
	trex_search_lane_range(s, lane, 200, 300, &lo, &hi);
	cr_assert_eq(hi - lo, 0);
	trex_search_lane_range(s, lane, 0, 1000, &lo, &hi);
	cr_assert_eq(hi - lo, 2);
	/* the depth-1 lane (Copy) has no match */
	trex_search_lane(s, lane + 1, &n);
	cr_assert_eq(n, 0);
	/* a zero-length match at lo counts */
	lane = lane_of(idx, slice(idx, "zero", 400));
	trex_search_lane_range(s, lane, 400, 410, &lo, &hi);
	cr_assert_eq(hi - lo, 1);
	cr_assert(trex_search_track_has_match(s, trex_index_slice(idx, a)->track));
	trex_search_free(s);
	trex_index_free(idx);
}

Test(search, within_a_filter)
{
	struct trex_index *idx = make_index();
	struct trex_search *f = search(idx, "gemm", NULL);
	struct trex_search *s = search(idx, "_a|relu", f);
	struct trex_search *g = search(idx, "copy", NULL);

	/* relu is outside the filter; gemm_a twice is inside */
	cr_assert_eq(trex_search_count(s), 2);
	cr_assert_not(
	    trex_search_track_has_match(g, trex_index_slice(idx, slice(idx, "relu", 160))->track));
	trex_search_free(g);
	trex_search_free(s);
	trex_search_free(f);
	trex_index_free(idx);
}

Test(search, no_match_at_all)
{
	struct trex_index *idx = make_index();
	struct trex_search *s = search(idx, "Gemm", NULL);
	struct trex_search_pos start = {INT64_MIN, 0, 0, 0};
	uint32_t n = 1, lo = 1, hi = 1;

	cr_assert_eq(trex_search_count(s), 0);
	trex_search_lane(s, 0, &n);
	cr_assert_eq(n, 0);
	trex_search_lane_range(s, 0, 0, 1000, &lo, &hi);
	cr_assert_eq(hi - lo, 0);
	cr_assert_eq(trex_search_next(s, &start), TREX_NONE);
	cr_assert_eq(trex_search_prev(s, &start), TREX_NONE);
	cr_assert_eq(trex_search_rank(s, &start), 0);
	cr_assert_not(trex_search_track_has_match(s, 0));
	trex_search_free(s);
	trex_index_free(idx);
}

Test(search, walk_rank_and_count_over_some_lanes)
{
	struct trex_index *idx = make_index();
	struct trex_search *s = search(idx, "gemm", NULL);
	uint32_t tid2_a = slice(idx, "GEMM_big", 100), tid2_b = slice(idx, "gemm_a", 300);
	struct trex_search_pos start = {INT64_MIN, 0, 0, 0}, end = {INT64_MAX, UINT32_MAX, 0, 0};
	struct trex_search_pos p;
	uint8_t *lanes = calloc(trex_index_lane_count(idx), 1);

	/* only tid 2's top lane: its two matches, nothing of tid 1 */
	lanes[lane_of(idx, tid2_a)] = 1;
	cr_assert_eq(trex_search_count_in(s, lanes), 2);
	cr_assert_eq(trex_search_count_in(s, NULL), 4);
	cr_assert_eq(trex_search_next_in(s, &start, lanes), tid2_a);
	p = trex_search_pos_of(idx, tid2_a);
	cr_assert_eq(trex_search_rank_in(s, &p, lanes), 0);
	cr_assert_eq(trex_search_rank(s, &p), 1, "gemm_a@100 of tid 1 comes first over all lanes");
	cr_assert_eq(trex_search_next_in(s, &p, lanes), tid2_b);
	p = trex_search_pos_of(idx, tid2_b);
	cr_assert_eq(trex_search_rank_in(s, &p, lanes), 1);
	cr_assert_eq(trex_search_next_in(s, &p, lanes), TREX_NONE);
	cr_assert_eq(trex_search_prev_in(s, &end, lanes), tid2_b);
	cr_assert_eq(trex_search_prev_in(s, &p, lanes), tid2_a);
	/* no lane at all */
	memset(lanes, 0, trex_index_lane_count(idx));
	cr_assert_eq(trex_search_count_in(s, lanes), 0);
	cr_assert_eq(trex_search_next_in(s, &start, lanes), TREX_NONE);
	free(lanes);
	trex_search_free(s);
	trex_index_free(idx);
}

Test(search, patterns_over_any_text)
{
	struct trex_pattern *p = NULL;
	struct trex_error err;

	cr_assert_eq(trex_pattern_new("stream 7$", &p, &err), TREX_OK);
	cr_assert_str_eq(trex_pattern_text(p), "stream 7$");
	cr_assert(trex_pattern_match(p, "rank 0 trace.json 0 python3 Stream 7"), "smart case");
	cr_assert_not(trex_pattern_match(p, "rank 0 trace.json 0 python3 stream 77"));
	trex_pattern_free(p);
	cr_assert_eq(trex_pattern_new("GPU", &p, &err), TREX_OK);
	cr_assert_not(trex_pattern_match(p, "gpu 0"), "an upper-case letter: exact case");
	cr_assert(trex_pattern_match(p, "rank 1 GPU 0"));
	trex_pattern_free(p);
	cr_assert_eq(trex_pattern_new("rank (", &p, &err), TREX_USAGE);
	cr_assert_null(p);
	cr_assert(strstr(err.message, "offset 6"), "%s", err.message);
	trex_pattern_free(NULL);
}
