/* Where run B goes on run A's axis (--compare): small hand-built runs,
 * every offset worked out by hand in the comments (times in ns). */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/analysis/run_align.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct trex_index *build(const struct fixture_slice *ev, size_t n)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");

	for (size_t i = 0; i < n; i++)
		fixture_add(b, &file, &ev[i]);
	return fixture_build(&file, &b, 1);
}

/* Two ranks, one file each: their own builders. */
static struct trex_index *build_ranks(const struct fixture_slice *r0, size_t n0,
                                      const struct fixture_slice *r1, size_t n1)
{
	struct trex_builder *b[2] = {trex_builder_new(0), trex_builder_new(1)};
	struct trex_build_file files[2] = {fixture_file("r0.json"), fixture_file("r1.json")};

	for (size_t i = 0; i < n0; i++)
		fixture_add(b[0], &files[0], &r0[i]);
	for (size_t i = 0; i < n1; i++)
		fixture_add(b[1], &files[1], &r1[i]);
	return fixture_build(files, b, 2);
}

/* A: trace starts at 100; steps 1 (1000), 2 (2000), 3 (3000); mm at 1100
 * and 2100 (and a second one at 2100 on another thread, a tie). */
static const struct fixture_slice run_a[] = {
    {"1", "1", "cpu_op", "aten::zeros", 100, 10, 0, 0, NULL},
    {"1", "1", "user_annotation", "ProfilerStep#1", 1000, 1000, 0, 0, NULL},
    {"1", "1", "cpu_op", "aten::mm", 1100, 100, 0, 0, NULL},
    {"1", "1", "user_annotation", "ProfilerStep#2", 2000, 1000, 0, 0, NULL},
    {"1", "1", "cpu_op", "aten::mm", 2100, 100, 0, 0, NULL},
    {"1", "2", "cpu_op", "aten::mm", 2100, 50, 0, 0, NULL},
    {"1", "1", "user_annotation", "ProfilerStep#3", 3000, 1000, 0, 0, NULL},
};

/* B: starts at 40000; no step 1 (a GPU-side copy of ProfilerStep#1 and a
 * "ProfilerStep#1x" are no steps); step 2 at 45000, 3 at 47000; mm at
 * 45500 only once. */
static const struct fixture_slice run_b[] = {
    {"1", "1", "cpu_op", "aten::zeros", 40000, 10, 0, 0, NULL},
    {"0", "7", "gpu_user_annotation", "ProfilerStep#1", 41000, 100, 0, 0, NULL},
    {"1", "1", "user_annotation", "ProfilerStep#1x", 42000, 100, 0, 0, NULL},
    {"1", "1", "user_annotation", "ProfilerStep#2", 45000, 2000, 0, 0, NULL},
    {"1", "1", "cpu_op", "aten::mm", 45500, 100, 0, 0, NULL},
    {"1", "1", "user_annotation", "ProfilerStep#3", 47000, 2000, 0, 0, NULL},
};

/* No step at all: starts at 7000. */
static const struct fixture_slice run_plain[] = {
    {"1", "1", "cpu_op", "aten::mm", 7000, 100, 0, 0, NULL},
};

Test(run_align, default_is_the_first_step_both_runs_have)
{
	struct trex_index *a = build(run_a, ARRAY_SIZE(run_a)),
	                  *b = build(run_b, ARRAY_SIZE(run_b));
	struct trex_run_align al;
	char what[64];

	trex_run_align_default(a, b, &al);
	/* step 1 is A's only: step 2, A 2000, B 45000 */
	cr_assert_eq(al.kind, TREX_RUN_ALIGN_STEP);
	cr_assert_eq(al.step, 2);
	cr_assert_eq(al.a_ts, 2000);
	cr_assert_eq(al.b_ts, 45000);
	cr_assert_eq(al.offset, 2000 - 45000);
	cr_assert_str_eq(trex_index_str(a, trex_index_slice(a, al.a_slice)->name),
	                 "ProfilerStep#2");
	cr_assert_eq(trex_index_slice(b, al.b_slice)->ts, 45000);
	trex_run_align_describe(a, &al, what, sizeof(what));
	cr_assert_str_eq(what, "ProfilerStep#2");
	trex_index_free(a);
	trex_index_free(b);
}

Test(run_align, a_chosen_step)
{
	struct trex_index *a = build(run_a, ARRAY_SIZE(run_a)),
	                  *b = build(run_b, ARRAY_SIZE(run_b));
	struct trex_run_align al;
	struct trex_error err;

	cr_assert_eq(trex_run_align_step(a, b, 3, &al, &err), TREX_OK);
	cr_assert_eq(al.offset, 3000 - 47000);
	cr_assert_eq(trex_run_align_step(a, b, 1, &al, &err), TREX_USAGE);
	cr_assert_str_eq(err.message, "no ProfilerStep#1 in B (steps 2..3)");
	cr_assert_eq(trex_run_align_step(a, b, 9, &al, &err), TREX_USAGE);
	cr_assert_str_eq(err.message, "no ProfilerStep#9 in A (steps 1..3)");
	trex_index_free(a);
	trex_index_free(b);
}

Test(run_align, no_common_step_falls_back_to_the_starts)
{
	struct trex_index *a = build(run_a, ARRAY_SIZE(run_a));
	struct trex_index *p = build(run_plain, ARRAY_SIZE(run_plain));
	struct trex_run_align al;
	struct trex_error err;
	char what[64];

	cr_assert_eq(trex_run_align_step(a, p, -1, &al, &err), TREX_USAGE);
	cr_assert_str_eq(err.message, "the runs share no ProfilerStep (A: steps 1..3; B: no "
	                              "ProfilerStep)");
	trex_run_align_default(a, p, &al);
	cr_assert_eq(al.kind, TREX_RUN_ALIGN_START);
	cr_assert_eq(al.a_ts, 100);
	cr_assert_eq(al.b_ts, 7000);
	cr_assert_eq(al.offset, 100 - 7000);
	cr_assert_eq(al.a_slice, TREX_NONE);
	trex_run_align_describe(a, &al, what, sizeof(what));
	cr_assert_str_eq(what, "trace start");
	trex_index_free(a);
	trex_index_free(p);
}

/* A step on two ranks starts at the earliest: rank 1's 900 before rank
 * 0's 1000; B's step 1 at 5000. */
Test(run_align, a_step_on_several_ranks_starts_at_the_earliest)
{
	static const struct fixture_slice r0[] = {
	    {"1", "1", "user_annotation", "ProfilerStep#1", 1000, 100, 0, 0, NULL},
	};
	static const struct fixture_slice r1[] = {
	    {"1", "1", "user_annotation", "ProfilerStep#1", 900, 100, 0, 0, NULL},
	};
	static const struct fixture_slice one[] = {
	    {"1", "1", "cpu_op", "ProfilerStep#1", 5000, 100, 0, 0, NULL},
	};
	struct trex_index *a = build_ranks(r0, 1, r1, 1), *b = build(one, 1);
	struct trex_run_align al;

	trex_run_align_default(a, b, &al);
	cr_assert_eq(al.kind, TREX_RUN_ALIGN_STEP);
	cr_assert_eq(al.a_ts, 900);
	cr_assert_eq(al.offset, 900 - 5000);
	trex_index_free(a);
	trex_index_free(b);
}

Test(run_align, nth_counts_by_start_then_id)
{
	struct trex_index *a = build(run_a, ARRAY_SIZE(run_a));
	uint32_t mm[3], n = 0;

	for (uint32_t id = 0; id < trex_index_slice_count(a); id++)
		if (strcmp(trex_index_str(a, trex_index_slice(a, id)->name), "aten::mm") == 0)
			mm[n++] = id;
	cr_assert_eq(n, 3);
	/* 1100 first; the two at 2100 second and third, by id */
	for (uint32_t i = 0; i < 3; i++) {
		const struct trex_slice *s = trex_index_slice(a, mm[i]);
		uint32_t want = s->ts == 1100 ? 1 : 2;

		for (uint32_t j = 0; j < 3; j++)
			if (j != i && trex_index_slice(a, mm[j])->ts == s->ts && mm[j] < mm[i])
				want++;
		cr_assert_eq(trex_run_align_nth(a, mm[i]), want, "slice %u at %lld", mm[i],
		             (long long)s->ts);
	}
	cr_assert_eq(trex_run_align_nth(a, trex_index_slice_count(a)), 0);
	trex_index_free(a);
}

Test(run_align, the_nth_slice_of_a_name)
{
	struct trex_index *a = build(run_a, ARRAY_SIZE(run_a)),
	                  *b = build(run_b, ARRAY_SIZE(run_b));
	struct trex_run_align al;
	struct trex_error err;
	char what[64];

	cr_assert_eq(trex_run_align_name(a, b, "aten::mm", 1, &al, &err), TREX_OK);
	cr_assert_eq(al.kind, TREX_RUN_ALIGN_SLICE);
	cr_assert_eq(al.nth, 1);
	cr_assert_eq(al.a_ts, 1100);
	cr_assert_eq(al.b_ts, 45500);
	cr_assert_eq(al.offset, 1100 - 45500);
	trex_run_align_describe(a, &al, what, sizeof(what));
	cr_assert_str_eq(what, "aten::mm #1");
	cr_assert_eq(trex_run_align_name(a, b, "aten::mm", 2, &al, &err), TREX_USAGE);
	cr_assert_str_eq(err.message, "B has 1 slice named aten::mm (needs 2)");
	cr_assert_eq(trex_run_align_name(a, b, "aten::mm", 4, &al, &err), TREX_USAGE);
	cr_assert_str_eq(err.message, "A has 3 slices named aten::mm (needs 4)");
	cr_assert_eq(trex_run_align_name(a, b, "nowhere", 1, &al, &err), TREX_USAGE);
	cr_assert_str_eq(err.message, "A has 0 slices named nowhere (needs 1)");
	cr_assert_eq(trex_run_align_name(a, b, "aten::mm", 0, &al, &err), TREX_USAGE);
	trex_index_free(a);
	trex_index_free(b);
}
