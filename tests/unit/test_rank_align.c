/* Rank alignment: the clock corrections, the joint least-squares fit on
 * collectives and steps, lags, groups, drift, bad inputs, stragglers, and
 * an index's times corrected in place. Every trace is made here, on known
 * clocks, so each expected number is the injected one. */
#include "config.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/rank_align.h"
#include "trex/core/clock.h"
#include "trex/core/index.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

#define ALLREDUCE "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
#define MAX_RANKS 32

/* ---- traces made to order ------------------------------------------------------------------ */

struct json {
	char *s;
	size_t n, cap;
	bool first;
};

static void put(struct json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct json *j, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (j->n + (size_t)len + 1 > j->cap) {
		j->cap = (j->n + (size_t)len + 1) * 2;
		j->s = realloc(j->s, j->cap);
		cr_assert(j->s);
	}
	va_start(ap, fmt);
	vsnprintf(j->s + j->n, j->cap - j->n, fmt, ap);
	va_end(ap);
	j->n += (size_t)len;
}

static void begin(struct json *j, int rank)
{
	memset(j, 0, sizeof(*j));
	put(j, "{\"distributedInfo\": {\"rank\": %d}, \"traceEvents\": [", rank);
	j->first = true;
}

/* A kernel [ts, ts + dur) in ns (ts >= 0), on GPU 0 stream 7; pg NULL: no
 * group arg. */
static void kernel(struct json *j, const char *name, int64_t ts, int64_t dur, const char *pg)
{
	put(j,
	    "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, "
	    "\"ts\": %" PRId64 ".%03" PRId64 ", \"dur\": %" PRId64 ".%03" PRId64,
	    j->first ? "" : ", ", name, ts / 1000, ts % 1000, dur / 1000, dur % 1000);
	if (pg)
		put(j,
		    ", \"args\": {\"Process Group Name\": \"%s\", \"Collective name\": "
		    "\"allreduce\"}",
		    pg);
	put(j, "}");
	j->first = false;
}

static void step(struct json *j, const char *name, int64_t ts, int64_t dur)
{
	put(j,
	    "%s{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"%s\", \"pid\": 100, "
	    "\"tid\": 100, \"ts\": %" PRId64 ".%03" PRId64 ", \"dur\": %" PRId64 ".%03" PRId64 "}",
	    j->first ? "" : ", ", name, ts / 1000, ts % 1000, dur / 1000, dur % 1000);
	j->first = false;
}

static struct trex_index *load(struct json *j, int n)
{
	struct trex_source *src[MAX_RANKS];
	struct trex_index *idx = NULL;
	struct trex_error err;

	for (int r = 0; r < n; r++) {
		char name[32];

		put(&j[r], "]}");
		snprintf(name, sizeof(name), "rank%d.json", r);
		cr_assert_eq(trex_source_open_memory(name, j[r].s, j[r].n, true, &src[r], &err),
		             TREX_OK, "%s", err.message);
		free(j[r].s);
	}
	cr_assert_eq(trex_load_sources(src, (size_t)n, NULL, &idx, &err), TREX_OK, "%s",
	             err.message);
	return idx;
}

static void align(const struct trex_index *idx, enum trex_align_on on, struct trex_rank_align *a)
{
	struct trex_align_opts o = {on, NULL};
	struct trex_error err;

	cr_assert_eq(trex_rank_align(idx, &o, a, &err), TREX_OK, "%s", err.message);
}

/* Collective k ends at 1 ms + k * 250 us (true time) on every rank; rank r
 * arrives 10 us * (r + 1) before, its clock reads true time + skew[r]. */
static int64_t true_end(int k)
{
	return 1000000 + (int64_t)k * 250000;
}

static struct trex_index *skewed(const int64_t *skew, int n, int count)
{
	struct json j[MAX_RANKS];

	for (int r = 0; r < n; r++) {
		begin(&j[r], r);
		for (int k = 0; k < count; k++) {
			int64_t dur = 10000 * (r + 1) + 5000;

			kernel(&j[r], ALLREDUCE, true_end(k) - dur + skew[r], dur, NULL);
		}
	}
	return load(j, n);
}

/* ---- the clock correction -------------------------------------------------------------------- */

Test(clock, apply_and_undo_are_inverse)
{
	struct trex_clock_fix f = {-1500, 40e-6, 1000000000};
	int64_t ts[] = {0, 999999999, 1000000000, 5000000000, INT64_C(1700000000000000000)};

	cr_assert_eq(trex_clock_fix_apply(&f, 1000000000), 1000000000 - 1500);
	/* 1 s past ref: 40 us more */
	cr_assert_eq(trex_clock_fix_apply(&f, 2000000000), 2000000000 - 1500 + 40000);
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		cr_assert_eq(trex_clock_fix_undo(&f, trex_clock_fix_apply(&f, ts[i])), ts[i],
		             "at %" PRId64, ts[i]);
	cr_assert(!trex_clock_fix_is_identity(&f));
	cr_assert(trex_clock_fix_is_identity(&(struct trex_clock_fix){0, 0, 123}));
	cr_assert_eq(trex_clock_fix_apply(&(struct trex_clock_fix){INT64_MAX, 0, 0}, 5), INT64_MAX);
}

/* ---- offsets -----------------------------------------------------------------------------------
 */

Test(rank_align, offsets_recovered_exactly_from_collective_ends)
{
	int64_t skew[] = {0, 2500000, -731000, 123456789};
	struct trex_index *idx = skewed(skew, 4, 6);
	struct trex_rank_align a;

	align(idx, TREX_ALIGN_COLLECTIVES, &a);
	cr_assert_eq(a.nranks, 4);
	cr_assert_eq(a.anchors, 6);
	cr_assert(a.ranks[0].reference);
	for (uint32_t r = 0; r < 4; r++) {
		cr_assert(a.ranks[r].aligned);
		cr_assert_eq(a.ranks[r].fix.offset_ns, -skew[r], "rank %u: %" PRId64, r,
		             a.ranks[r].fix.offset_ns);
		cr_assert(!a.ranks[r].has_drift);
		cr_assert_eq(a.ranks[r].fix.drift, 0.0);
		cr_assert_eq(a.ranks[r].anchors, 6);
		cr_assert_lt(a.ranks[r].max_ns, 0.01);
	}
	trex_rank_align_free(&a);
	trex_index_free(idx);
}

/* Rank 1's ends miss by +-400 ns in turn: the offset is their mean, the
 * residuals 400 ns each (the anchor means sit halfway). */
Test(rank_align, residuals_of_jittered_ends)
{
	struct json j[2];
	struct trex_index *idx;
	struct trex_rank_align a;

	begin(&j[0], 0);
	begin(&j[1], 1);
	for (int k = 0; k < 4; k++) {
		kernel(&j[0], ALLREDUCE, true_end(k) - 20000, 20000, NULL);
		kernel(&j[1], ALLREDUCE, true_end(k) - 30000 + 7000 + (k % 2 ? 800 : -800), 30000,
		       NULL);
	}
	idx = load(j, 2);
	align(idx, TREX_ALIGN_COLLECTIVES, &a);
	cr_assert_eq(a.ranks[1].fix.offset_ns, -7000);
	cr_assert_float_eq(a.ranks[1].rms_ns, 400, 1e-6);
	cr_assert_float_eq(a.ranks[1].max_ns, 400, 1e-6);
	cr_assert_float_eq(a.ranks[0].max_ns, 400, 1e-6);
	cr_assert(!a.ranks[1].has_drift, "alternating jitter has no slope");
	trex_rank_align_free(&a);
	trex_index_free(idx);
}

/* Rank 1's clock runs 50 ppm fast and 3 ms ahead, over 2 s of anchors. */
Test(rank_align, drift_measured_over_a_long_span)
{
	struct json j[2];
	struct trex_index *idx;
	struct trex_rank_align a;
	const double fast = 50e-6;

	begin(&j[0], 0);
	begin(&j[1], 1);
	for (int k = 0; k < 21; k++) {
		int64_t end = 1000000 + (int64_t)k * 100000000;
		int64_t end1 = end + 3000000 + llround(fast * (double)end);

		kernel(&j[0], ALLREDUCE, end - 20000, 20000, NULL);
		kernel(&j[1], ALLREDUCE, end1 - 40000, 40000, NULL);
	}
	idx = load(j, 2);
	align(idx, TREX_ALIGN_COLLECTIVES, &a);
	cr_assert(a.ranks[1].has_drift);
	cr_assert_float_eq(a.ranks[1].fix.drift, 1 / (1 + fast) - 1, 1e-9);
	cr_assert_lt(a.ranks[1].max_ns, 2.0, "rounding to ns only: %g", a.ranks[1].max_ns);
	/* corrected ends land on rank 0's */
	for (int k = 0; k < 21; k += 5) {
		int64_t end = 1000000 + (int64_t)k * 100000000;
		int64_t end1 = end + 3000000 + llround(fast * (double)end);
		int64_t got = trex_clock_fix_apply(&a.ranks[1].fix, end1);

		cr_assert(llabs(got - end) <= 2, "anchor %d: %" PRId64 " vs %" PRId64, k, got, end);
	}
	trex_rank_align_free(&a);
	trex_index_free(idx);
}

Test(rank_align, no_drift_over_a_short_span)
{
	int64_t skew[] = {0, 5000};
	struct trex_index *idx = skewed(skew, 2, 3); /* 3 anchors over 0.5 ms */
	struct trex_rank_align a;
	struct trex_table t;
	struct trex_error err;

	align(idx, TREX_ALIGN_COLLECTIVES, &a);
	cr_assert(!a.ranks[1].has_drift);
	cr_assert_eq(trex_rank_align_table(idx, &a, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(trex_table_cell(&t, 0, 6)->text, "reference clock");
	cr_assert_str_eq(trex_table_cell(&t, 1, 6)->text, "no drift measurable");
	cr_assert_eq(trex_table_cell(&t, 1, 1)->number, -5000.0);
	cr_assert_eq(trex_table_cell(&t, 1, 3)->count, 3);
	trex_table_free(&t);
	trex_rank_align_free(&a);
	trex_index_free(idx);
}

/* Two communicators: "a" = {0, 1}, "b" = {1, 2}. Rank 2 shares nothing
 * with rank 0 but is tied to it through rank 1. Rank 0 also has group
 * "c" alone (no anchor). */
Test(rank_align, groups_chain_ranks_through_shared_members)
{
	int64_t skew[] = {0, -40000, 90000};
	struct json j[3];
	struct trex_index *idx;
	struct trex_rank_align a;

	for (int r = 0; r < 3; r++)
		begin(&j[r], r);
	for (int k = 0; k < 3; k++) {
		int64_t ea = true_end(k), eb = true_end(k) + 100000;

		kernel(&j[0], ALLREDUCE, ea - 20000 + skew[0], 20000, "a");
		kernel(&j[1], ALLREDUCE, ea - 30000 + skew[1], 30000, "a");
		kernel(&j[1], ALLREDUCE, eb - 30000 + skew[1], 30000, "b");
		kernel(&j[2], ALLREDUCE, eb - 10000 + skew[2], 10000, "b");
		kernel(&j[0], ALLREDUCE, eb + 50000, 10000, "c");
	}
	idx = load(j, 3);
	align(idx, TREX_ALIGN_COLLECTIVES, &a);
	cr_assert_eq(a.groups, 4, "'', a, b, c");
	cr_assert_eq(a.anchors, 6);
	for (int r = 0; r < 3; r++)
		cr_assert_eq(a.ranks[r].fix.offset_ns, -skew[r], "rank %d", r);
	cr_assert_eq(a.ranks[1].anchors, 6);
	cr_assert_eq(a.ranks[2].anchors, 3);
	trex_rank_align_free(&a);
	trex_index_free(idx);
}

/* Rank 1's trace begins two collectives late and rank 0's ends one early:
 * the lag pairs them right. */
Test(rank_align, traces_beginning_at_different_collectives)
{
	struct json j[2];
	struct trex_index *idx;
	struct trex_rank_align a;
	int64_t jitter[] = {0, 40000, 5000, 90000, 12000, 70000, 3000, 55000, 31000, 0};

	begin(&j[0], 0);
	begin(&j[1], 1);
	for (int k = 0; k < 10; k++) {
		/* uneven gaps, so a wrong lag gives uneven differences */
		int64_t end = true_end(k) + jitter[k] * 3;

		if (k < 9)
			kernel(&j[0], ALLREDUCE, end - 20000, 20000, NULL);
		if (k >= 2)
			kernel(&j[1], ALLREDUCE, end - 30000 + 777000, 30000, NULL);
	}
	idx = load(j, 2);
	align(idx, TREX_ALIGN_COLLECTIVES, &a);
	cr_assert_eq(a.anchors, 7);
	cr_assert_eq(a.ranks[1].fix.offset_ns, -777000);
	trex_rank_align_free(&a);
	trex_index_free(idx);
}

/* The n-th collectives differ in name on one rank of three: it is left out
 * of that anchor. */
Test(rank_align, mismatched_names_left_out)
{
	int64_t skew[] = {0, 1000, 2000};
	struct json j[3];
	struct trex_index *idx;
	struct trex_rank_align a;

	for (int r = 0; r < 3; r++) {
		begin(&j[r], r);
		for (int k = 0; k < 3; k++)
			kernel(&j[r], k == 1 && r == 2 ? "ncclKernel_Broadcast" : ALLREDUCE,
			       true_end(k) - 20000 + skew[r], 20000, NULL);
	}
	idx = load(j, 3);
	align(idx, TREX_ALIGN_COLLECTIVES, &a);
	cr_assert_eq(a.mismatched, 1);
	cr_assert_eq(a.ranks[2].anchors, 2);
	cr_assert_eq(a.ranks[2].fix.offset_ns, -2000);
	trex_rank_align_free(&a);
	trex_index_free(idx);
}

/* Steps: rank 1's ProfilerStep#3 and #4 read 2 ms late at both ends. */
Test(rank_align, steps_line_up_starts_and_ends)
{
	struct json j[2];
	struct trex_index *idx;
	struct trex_rank_align a;

	for (int r = 0; r < 2; r++) {
		begin(&j[r], r);
		step(&j[r], "ProfilerStep#3", 1000000 + r * 2000000, 5000000);
		step(&j[r], "ProfilerStep#4", 6000000 + r * 2000000, 4000000);
	}
	step(&j[0], "ProfilerStep#5", 10000000, 1000000); /* rank 0 alone: no anchor */
	idx = load(j, 2);
	align(idx, TREX_ALIGN_STEPS, &a);
	cr_assert_eq(a.anchors, 4);
	cr_assert_eq(a.ranks[1].fix.offset_ns, -2000000);
	cr_assert_eq(a.groups, 3);
	trex_rank_align_free(&a);
	trex_index_free(idx);
}

/* ---- bad inputs -------------------------------------------------------------------------------
 */

static void expect_failure(struct trex_index *idx, enum trex_align_on on, const char *words)
{
	struct trex_align_opts o = {on, NULL};
	struct trex_rank_align a;
	struct trex_error err;

	cr_assert_eq(trex_rank_align(idx, &o, &a, &err), TREX_FORMAT);
	cr_assert(strstr(err.message, words), "'%s' lacks '%s'", err.message, words);
	cr_assert_null(a.ranks);
}

Test(rank_align, one_rank_says_so)
{
	int64_t skew[] = {0};
	struct trex_index *idx = skewed(skew, 1, 3);

	expect_failure(idx, TREX_ALIGN_COLLECTIVES, "one rank: nothing to align");
	trex_index_free(idx);
}

Test(rank_align, no_collectives_or_steps_says_so)
{
	struct json j[2];
	struct trex_index *idx;

	for (int r = 0; r < 2; r++) {
		begin(&j[r], r);
		kernel(&j[r], "gemm", 1000, 2000, NULL);
	}
	idx = load(j, 2);
	expect_failure(idx, TREX_ALIGN_COLLECTIVES, "no two ranks share a collective");
	expect_failure(idx, TREX_ALIGN_STEPS, "no two ranks share a step");
	trex_index_free(idx);
}

Test(rank_align, words)
{
	enum trex_align_on on;

	cr_assert(trex_align_on_parse("steps", &on) && on == TREX_ALIGN_STEPS);
	cr_assert(trex_align_on_parse("collectives", &on) && on == TREX_ALIGN_COLLECTIVES);
	cr_assert(trex_align_on_parse("none", &on) && on == TREX_ALIGN_NONE);
	cr_assert(!trex_align_on_parse("collective", &on));
}

/* ---- the index corrected ----------------------------------------------------------------------
 */

Test(rank_align, index_times_corrected_and_kept)
{
	int64_t skew[] = {0, 2500000, -731000};
	struct trex_index *idx = skewed(skew, 3, 2);
	struct trex_rank_align a;
	struct trex_clock_fix *fix;
	struct trex_error err;
	int64_t before[16];
	uint32_t n = trex_index_slice_count(idx);

	cr_assert_leq(n, 16);
	for (uint32_t i = 0; i < n; i++)
		before[i] = trex_index_slice(idx, i)->ts;
	align(idx, TREX_ALIGN_COLLECTIVES, &a);
	cr_assert_eq(trex_rank_align_fixes(idx, &a, &fix, &err), TREX_OK);
	cr_assert_null(trex_index_clock_fix(idx, 0));
	cr_assert_eq(trex_index_fix_clocks(idx, fix, &err), TREX_OK, "%s", err.message);
	for (uint32_t i = 0; i < n; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		uint32_t p = trex_index_track(idx, s->track)->process;
		uint32_t file = trex_index_process(idx, p)->file;

		cr_assert_eq(s->ts, before[i] - skew[file], "slice %u", i);
		cr_assert_eq(trex_clock_fix_undo(trex_index_clock_fix(idx, p), s->ts), before[i]);
		/* ends line up */
		cr_assert_eq(s->ts + s->dur, true_end(i % 2), "slice %u", i);
	}
	cr_assert_eq(trex_index_start(idx), true_end(0) - 35000);
	cr_assert_eq(trex_index_end(idx), true_end(1));
	cr_assert_eq(trex_index_fix_clocks(idx, fix, &err), TREX_USAGE, "once only");
	free(fix);
	trex_rank_align_free(&a);
	trex_index_free(idx);
}

/* ---- stragglers ---------------------------------------------------------------------------------
 */

/* Collective 0: ranks arrive at 100, 150, 400 us (all end at 500 us):
 * rank 2 last, 250 us after rank 1; waits 300 + 250. Collective 1: rank 0
 * last at 900 us, rank 2 at 880: late 20 us; waits 100 + 20 (rank 1 at
 * 800). ProfilerStep#1 ends at 1 ms, 1.3 ms, 1.1 ms: rank 1 last, late
 * 200 us, waits 300 + 200. */
Test(stragglers, last_arrivals_lateness_and_waits)
{
	static const int64_t arrive[2][3] = {{100000, 150000, 400000}, {900000, 800000, 880000}};
	static const int64_t step_end[3] = {1000000, 1300000, 1100000};
	struct json j[3];
	struct trex_index *idx;
	struct trex_table ev, rk;
	struct trex_error err;
	uint32_t *slices;

	for (int r = 0; r < 3; r++) {
		begin(&j[r], r);
		for (int k = 0; k < 2; k++)
			kernel(&j[r], ALLREDUCE, arrive[k][r],
			       500000 + 450000 * k - arrive[k][r] + 1000, "0");
		step(&j[r], "ProfilerStep#1", 0, step_end[r]);
	}
	idx = load(j, 3);
	cr_assert_eq(trex_stragglers_tables(idx, NULL, &ev, &rk, &slices, &err), TREX_OK, "%s",
	             err.message);
	cr_assert_eq(ev.nrows, 3);
	/* by total wait: collective 0 (550), the step (500), collective 1 (120) */
	cr_assert_str_eq(trex_table_cell(&ev, 0, 6)->text, "collective");
	cr_assert_str_eq(trex_table_cell(&ev, 0, 8)->text, "#1 " ALLREDUCE);
	cr_assert_str_eq(trex_table_cell(&ev, 0, 7)->text, "0");
	cr_assert_eq(trex_table_cell(&ev, 0, 0)->count, 2);
	cr_assert_eq(trex_table_cell(&ev, 0, 3)->number, 250000.0);
	cr_assert_eq(trex_table_cell(&ev, 0, 1)->number, 550000.0);
	cr_assert_eq(trex_table_cell(&ev, 0, 2)->number, 300000.0);
	cr_assert_eq(trex_table_cell(&ev, 0, 4)->count, 3);
	cr_assert_eq(trex_table_cell(&ev, 0, 5)->number, 400000.0);
	cr_assert_eq(trex_index_slice(idx, slices[0])->ts, 400000);
	cr_assert_str_eq(trex_table_cell(&ev, 1, 6)->text, "step");
	cr_assert_str_eq(trex_table_cell(&ev, 1, 8)->text, "ProfilerStep#1");
	cr_assert_eq(trex_table_cell(&ev, 1, 0)->count, 1);
	cr_assert_eq(trex_table_cell(&ev, 1, 3)->number, 200000.0);
	cr_assert_eq(trex_table_cell(&ev, 1, 1)->number, 500000.0);
	cr_assert_str_eq(trex_table_cell(&ev, 2, 8)->text, "#2 " ALLREDUCE);
	cr_assert_eq(trex_table_cell(&ev, 2, 0)->count, 0);
	cr_assert_eq(trex_table_cell(&ev, 2, 3)->number, 20000.0);
	cr_assert_eq(trex_table_cell(&ev, 2, 1)->number, 120000.0);
	cr_assert_eq(trex_table_cell(&ev, 2, 2)->number, 100000.0);
	/* per rank, by wait caused: 2 (550), 1 (500), 0 (120) */
	cr_assert_eq(rk.nrows, 3);
	cr_assert_eq(trex_table_cell(&rk, 0, 0)->count, 2);
	cr_assert_eq(trex_table_cell(&rk, 0, 1)->count, 1);
	cr_assert_eq(trex_table_cell(&rk, 0, 4)->number, 550000.0);
	cr_assert_eq(trex_table_cell(&rk, 1, 0)->count, 1);
	cr_assert_eq(trex_table_cell(&rk, 1, 3)->count, 1);
	cr_assert_eq(trex_table_cell(&rk, 2, 0)->count, 0);
	cr_assert_eq(trex_table_cell(&rk, 2, 2)->count, 1);
	cr_assert_eq(trex_table_cell(&rk, 2, 5)->number, 20000.0);
	free(slices);
	trex_table_free(&ev);
	trex_table_free(&rk);
	trex_index_free(idx);
}

Test(stragglers, one_rank_says_so)
{
	int64_t skew[] = {0};
	struct trex_index *idx = skewed(skew, 1, 2);
	struct trex_table ev, rk;
	struct trex_error err;

	cr_assert_eq(trex_stragglers_tables(idx, NULL, &ev, &rk, NULL, &err), TREX_FORMAT);
	cr_assert(strstr(err.message, "one rank"), "%s", err.message);
	trex_index_free(idx);
}

/* 32 ranks in a chain of pairs ({0, 1}, {1, 2}, ... {30, 31}: pipeline
 * stages), clocks seconds apart: every offset is still exact, however far
 * a rank is from the reference. */
Test(rank_align, a_chain_of_pairs_converges)
{
	struct json j[32];
	struct trex_index *idx;
	struct trex_rank_align a;
	int64_t skew[32];

	for (int r = 0; r < 32; r++) {
		skew[r] = INT64_C(10000000000) + (r % 2 ? 1 : -1) * (int64_t)r * 123456789;
		begin(&j[r], r);
	}
	for (int r = 0; r < 32; r++) {
		for (int k = 0; k < 5; k++) {
			char pg[8];

			/* pair p's k-th collective ends at true_end(k) + p * 10 us */
			if (r > 0) { /* with the previous stage */
				snprintf(pg, sizeof(pg), "p%d", r - 1);
				kernel(&j[r], ALLREDUCE,
				       true_end(k) + 10000 * (r - 1) - 7000 + skew[r], 7000, pg);
			}
			if (r < 31) { /* with the next */
				snprintf(pg, sizeof(pg), "p%d", r);
				kernel(&j[r], ALLREDUCE, true_end(k) + 10000 * r - 9000 + skew[r],
				       9000, pg);
			}
		}
	}
	idx = load(j, 32);
	align(idx, TREX_ALIGN_COLLECTIVES, &a);
	for (int r = 0; r < 32; r++)
		cr_assert(llabs(a.ranks[r].fix.offset_ns + skew[r] - skew[0]) <= 1,
		          "rank %d: %" PRId64 " vs %" PRId64, r, a.ranks[r].fix.offset_ns,
		          -skew[r]);
	trex_rank_align_free(&a);
	trex_index_free(idx);
}
