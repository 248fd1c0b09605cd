/* Per-step GPU breakdown over small hand-built indexes; every number is
 * worked out by hand in the comments. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/steps.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { RANK, START, DUR, BUSY, IDLE, BUSY_PCT, COMPUTE, COMM, OVERLAP, MEMORY, KERNELS, STEP };

static double num(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->number;
}

/* Steps [0, 1000) and [1000, 2000) on thread 100 (a GPU-side copy of the
 * first on stream 7 is no step). GPU 0: gemm [100, 400) compute, an NCCL
 * all-reduce [300, 600) comm, a copy [700, 800), gemm2 [900, 1200) across
 * the step boundary.
 * Step 1: busy [100, 600) + [700, 800) + [900, 1000) = 700, idle 300;
 *   compute [100, 400) + [900, 1000) = 400, comm 300, overlap [300, 400) =
 *   100, memory 100; kernels starting inside: gemm, nccl, gemm2 = 3.
 * Step 2: gemm2 clipped to [1000, 1200): busy = compute = 200, idle 800,
 *   no kernel starts inside. */
static const struct fixture_slice two_steps[] = {
    {"100", "100", "user_annotation", "ProfilerStep#1", 0, 1000, 0, 0, NULL},
    {"100", "100", "user_annotation", "ProfilerStep#2", 1000, 1000, 0, 0, NULL},
    {"100", "100", "cpu_op", "aten::mm", 50, 100, 0, 0, NULL},
    {"0", "7", "gpu_user_annotation", "ProfilerStep#1", 90, 1120, 0, 0, NULL},
    {"0", "7", "kernel", "gemm", 100, 300, 0, 0, NULL},
    {"0", "8", "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 300, 300, 0, 0, NULL},
    {"0", "7", "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 700, 100, 0, 0, NULL},
    {"0", "7", "kernel", "gemm2", 900, 300, 0, 0, NULL},
};

static struct trex_index *build(const struct fixture_slice *ev, size_t n)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");

	for (size_t i = 0; i < n; i++)
		fixture_add(b, &file, &ev[i]);
	return fixture_build(&file, &b, 1);
}

Test(steps, busy_classes_and_overlap_clipped_to_each_step)
{
	struct trex_index *idx = build(two_steps, ARRAY_SIZE(two_steps));
	struct trex_table t;
	struct trex_error err;
	uint32_t *ids;

	cr_assert_eq(trex_steps_table(idx, NULL, &t, &ids, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(trex_table_cell(&t, 0, STEP)->text, "ProfilerStep#1");
	cr_assert_eq(num(&t, 0, START), 0);
	cr_assert_eq(num(&t, 0, DUR), 1000);
	cr_assert_eq(num(&t, 0, BUSY), 700);
	cr_assert_eq(num(&t, 0, IDLE), 300);
	cr_assert_eq(num(&t, 0, BUSY_PCT), 70);
	cr_assert_eq(num(&t, 0, COMPUTE), 400);
	cr_assert_eq(num(&t, 0, COMM), 300);
	cr_assert_eq(num(&t, 0, OVERLAP), 100);
	cr_assert_eq(num(&t, 0, MEMORY), 100);
	cr_assert_eq(trex_table_cell(&t, 0, KERNELS)->count, 3);
	cr_assert_str_eq(trex_table_cell(&t, 1, STEP)->text, "ProfilerStep#2");
	cr_assert_eq(num(&t, 1, START), 1000);
	cr_assert_eq(num(&t, 1, BUSY), 200);
	cr_assert_eq(num(&t, 1, IDLE), 800);
	cr_assert_eq(num(&t, 1, COMPUTE), 200);
	cr_assert_eq(num(&t, 1, COMM), 0);
	cr_assert_eq(num(&t, 1, MEMORY), 0);
	cr_assert_eq(trex_table_cell(&t, 1, KERNELS)->count, 0);
	/* each row's step slice, for "zoom to the step" */
	cr_assert_eq(trex_index_slice(idx, ids[0])->ts, 0);
	cr_assert_eq(trex_index_slice(idx, ids[1])->ts, 1000);
	cr_assert_eq(trex_index_slice(idx, ids[1])->track, trex_index_slice(idx, ids[0])->track);
	free(ids);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(steps, a_pattern_chooses_the_steps)
{
	struct trex_index *idx = build(two_steps, ARRAY_SIZE(two_steps));
	struct trex_step_opts o = {"^aten::mm$"};
	struct trex_table t;
	struct trex_error err;

	/* aten::mm [50, 150): gemm [100, 150) = 50 busy, a kernel starts inside */
	cr_assert_eq(trex_steps_table(idx, &o, &t, NULL, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(num(&t, 0, BUSY), 50);
	cr_assert_eq(num(&t, 0, IDLE), 50);
	cr_assert_eq(trex_table_cell(&t, 0, KERNELS)->count, 1);
	trex_table_free(&t);

	o.pattern = "nothing matches this";
	cr_assert_eq(trex_steps_table(idx, &o, &t, NULL, &err), TREX_OK);
	cr_assert_eq(t.nrows, 0);
	trex_table_free(&t);

	o.pattern = "ProfilerStep#(";
	cr_assert_eq(trex_steps_table(idx, &o, &t, NULL, &err), TREX_USAGE);
	cr_assert(strstr(err.message, "ProfilerStep#(") && strstr(err.message, "parenthesis"), "%s",
	          err.message);
	trex_index_free(idx);
}

Test(steps, each_rank_counts_its_own_gpus)
{
	/* rank 0: step [0, 100), its GPU busy [0, 50); rank 1: its GPU busy
	 * [0, 100) must not count on rank 0, nor rank 0's on rank 1 */
	const struct fixture_slice r0[] = {
	    {"1", "1", "user_annotation", "ProfilerStep#7", 0, 100, 0, 0, NULL},
	    {"0", "7", "kernel", "k", 0, 50, 0, 0, NULL},
	};
	const struct fixture_slice r1[] = {
	    {"1", "1", "user_annotation", "ProfilerStep#7", 0, 100, 0, 0, NULL},
	    {"0", "7", "kernel", "k", 0, 100, 0, 0, NULL},
	};
	struct trex_builder *b[2] = {trex_builder_new(0), trex_builder_new(1)};
	struct trex_build_file files[2] = {fixture_file("r0.json"), fixture_file("r1.json")};
	struct trex_index *idx;
	struct trex_table t;
	struct trex_error err;

	files[1].rank = 1;
	files[1].has_rank = true;
	for (size_t i = 0; i < 2; i++) {
		fixture_add(b[0], &files[0], &r0[i]);
		fixture_add(b[1], &files[1], &r1[i]);
	}
	idx = fixture_build(files, b, 2);
	cr_assert_eq(trex_steps_table(idx, NULL, &t, NULL, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 2);
	cr_assert_eq(trex_table_cell(&t, 0, RANK)->count, 0);
	cr_assert_eq(num(&t, 0, BUSY), 50);
	cr_assert_eq(trex_table_cell(&t, 1, RANK)->count, 1);
	cr_assert_eq(num(&t, 1, BUSY), 100);
	cr_assert_eq(num(&t, 1, BUSY_PCT), 100);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(steps, times_at_the_ends_of_int64)
{
	/* a step [MIN + 100, MIN + 1100) with k [MIN + 200, MIN + 300) inside,
	 * and a very long kernel from 0 elsewhere on the file: looking back
	 * by the longest kernel from the step start must not wrap around */
	const struct fixture_slice ev[] = {
	    {"1", "1", "user_annotation", "ProfilerStep#1", INT64_MIN + 100, 1000, 0, 0, NULL},
	    {"0", "7", "kernel", "k", INT64_MIN + 200, 100, 0, 0, NULL},
	    {"0", "7", "kernel", "long", 0, INT64_MAX / 2, 0, 0, NULL},
	};
	struct trex_index *idx = build(ev, ARRAY_SIZE(ev));
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_steps_table(idx, NULL, &t, NULL, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(num(&t, 0, BUSY), 100);
	cr_assert_eq(trex_table_cell(&t, 0, KERNELS)->count, 1);
	trex_table_free(&t);
	trex_index_free(idx);
}

/* trex_steps_total counts the rows trex_steps_table lists and sums their
 * dur_ns column, for the default pattern, another and a bad one. */
static void check_total_matches_table(const struct trex_index *idx, const char *pattern,
                                      uint64_t want_count, int64_t want_total)
{
	struct trex_step_opts o = {pattern};
	struct trex_table t;
	struct trex_error err;
	uint64_t count;
	__int128 total, table_total = 0;

	cr_assert_eq(trex_steps_table(idx, &o, &t, NULL, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(trex_steps_total(idx, &o, &count, &total, &err), TREX_OK, "%s", err.message);
	for (size_t r = 0; r < t.nrows; r++)
		table_total += (int64_t)num(&t, r, DUR);
	cr_assert_eq(count, t.nrows, "%s", pattern ? pattern : "default");
	cr_assert(total == table_total, "%s", pattern ? pattern : "default");
	cr_assert_eq(count, want_count);
	cr_assert(total == want_total);
	trex_table_free(&t);
}

Test(steps, total_counts_and_sums_the_tables_rows)
{
	struct trex_index *idx = build(two_steps, ARRAY_SIZE(two_steps));
	struct trex_step_opts bad = {"ProfilerStep#("};
	struct trex_error err;
	uint64_t count = 7;
	__int128 total = 7;

	/* the GPU-side copy of ProfilerStep#1 on stream 7 is no step */
	check_total_matches_table(idx, NULL, 2, 2000);
	check_total_matches_table(idx, "^aten::mm$", 1, 100);
	check_total_matches_table(idx, "Step|mm", 3, 2100);
	check_total_matches_table(idx, "nothing matches this", 0, 0);
	cr_assert_eq(trex_steps_total(idx, &bad, &count, &total, &err), TREX_USAGE);
	cr_assert(strstr(err.message, "ProfilerStep#(") && strstr(err.message, "parenthesis"), "%s",
	          err.message);
	trex_index_free(idx);
}
