/* The kernel summary over small hand-built indexes; every expected number
 * is worked out by hand in the comments. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trex/analysis/kernels.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

enum { PCT, TOTAL, N, AVG, MED, MIN, MAX, SD, SHAPE };

struct kev {
	const char *cat, *name, *shape;
	int64_t dur;
};

static uint32_t intern(struct trex_builder *b, const char *s)
{
	uint32_t id = trex_builder_intern(b, s, strlen(s));

	cr_assert_neq(id, TREX_STR_ERROR);
	return id;
}

/* One file, one GPU stream; events back to back, 10 ns apart. */
static struct trex_index *index_of(const struct kev *ev, size_t n)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t track = trex_builder_track(b, intern(b, "0"), intern(b, "7"));
	int64_t ts = 1000;
	struct trex_build_file file = {
	    .path = "test.json", .format = "chrome-json", .dialect = "kineto", .events = n};
	struct trex_build_input in = {
	    .files = &file, .file_count = 1, .parts = &b, .part_count = 1, .threads = 1};
	struct trex_index *idx = NULL;
	struct trex_error err;

	cr_assert_neq(track, TREX_NONE);
	file.phase_counts[TREX_PH_COMPLETE] = n;
	for (size_t i = 0; i < n; i++) {
		struct trex_ev e = {.ts = ts,
		                    .dur = ev[i].dur,
		                    .name = intern(b, ev[i].name),
		                    .cat = intern(b, ev[i].cat),
		                    .shape = ev[i].shape ? intern(b, ev[i].shape) : 0};

		cr_assert_eq(trex_builder_complete(b, track, &e), 0);
		ts += ev[i].dur + 10;
	}
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK, "%s", err.message);
	return idx;
}

static void kernels(const struct kev *ev, size_t n, enum trex_kernel_group group,
                    struct trex_table *t)
{
	struct trex_index *idx = index_of(ev, n);
	struct trex_kernel_opts opts = {group};
	struct trex_error err;

	cr_assert_eq(trex_kernels_table(idx, &opts, t, &err), TREX_OK);
	trex_index_free(idx);
}

static double num(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->number;
}

static const char *text(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->text;
}

static const char *name(const struct trex_table *t, size_t r)
{
	return text(t, r, t->ncols - 1);
}

Test(kernels, statistics_of_two_kernels)
{
	/* A: 10 20 35 40 -> total 105, avg 26.25, med (20+35)/2 = 27.5,
	 *    sample variance ((16.25^2 + 6.25^2 + 8.75^2 + 13.75^2) / 3)
	 *    = 568.75 / 3, stddev 13.768926368215254.
	 * B: one instance of 500 -> stddev 0. Grand total 605. */
	const struct kev ev[] = {
	    {"kernel", "A", NULL, 35}, {"kernel", "B", NULL, 500}, {"kernel", "A", NULL, 10},
	    {"kernel", "A", NULL, 40}, {"kernel", "A", NULL, 20},
	};
	struct trex_table t;

	kernels(ev, 5, TREX_KERNELS_BY_NAME, &t);
	cr_assert_eq(t.ncols, 9);
	cr_assert_str_eq(t.cols[0].key, "time_pct");
	cr_assert_str_eq(t.cols[8].key, "name");
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(name(&t, 0), "B");
	cr_assert_float_eq(num(&t, 0, PCT), 500.0 / 605 * 100, 1e-9);
	cr_assert_eq(num(&t, 0, TOTAL), 500);
	cr_assert_eq(trex_table_cell(&t, 0, N)->count, 1);
	cr_assert_eq(num(&t, 0, AVG), 500);
	cr_assert_eq(num(&t, 0, MED), 500);
	cr_assert_eq(num(&t, 0, MIN), 500);
	cr_assert_eq(num(&t, 0, MAX), 500);
	cr_assert_eq(num(&t, 0, SD), 0);

	cr_assert_str_eq(name(&t, 1), "A");
	cr_assert_float_eq(num(&t, 1, PCT), 105.0 / 605 * 100, 1e-9);
	cr_assert_eq(num(&t, 1, TOTAL), 105);
	cr_assert_eq(trex_table_cell(&t, 1, N)->count, 4);
	cr_assert_eq(num(&t, 1, AVG), 26.25);
	cr_assert_eq(num(&t, 1, MED), 27.5);
	cr_assert_eq(num(&t, 1, MIN), 10);
	cr_assert_eq(num(&t, 1, MAX), 40);
	cr_assert_float_eq(num(&t, 1, SD), 13.768926368215254, 1e-12);
	trex_table_free(&t);
}

Test(kernels, stddev_is_exact_for_large_durations)
{
	/* 1e12 + {1, 2, 4}: mean 1e12 + 7/3, deviations -4/3, -1/3, 5/3,
	 * variance (16 + 1 + 25) / 9 / 2 = 7/3, stddev sqrt(7/3). Summing squares
	 * in double (3e24) would lose every digit of that. Odd median: 1e12 + 2. */
	const struct kev ev[] = {
	    {"kernel", "big", NULL, 1000000000004},
	    {"kernel", "big", NULL, 1000000000001},
	    {"kernel", "big", NULL, 1000000000002},
	};
	struct trex_table t;

	kernels(ev, 3, TREX_KERNELS_BY_NAME, &t);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(num(&t, 0, TOTAL), 3000000000007.0);
	cr_assert_eq(num(&t, 0, MED), 1000000000002.0);
	cr_assert_float_eq(num(&t, 0, AVG), 1000000000002.0 + 1.0 / 3, 1e-3);
	cr_assert_float_eq(num(&t, 0, SD), sqrt(7.0 / 3), 1e-9);
	cr_assert_eq(num(&t, 0, PCT), 100);
	trex_table_free(&t);
}

Test(kernels, equal_totals_sort_by_name)
{
	/* All three total 50 ns; "mid" has two instances (20 + 30). */
	const struct kev ev[] = {
	    {"kernel", "zeta", NULL, 50},  {"kernel", "mid", NULL, 20},
	    {"kernel", "alpha", NULL, 50}, {"kernel", "mid", NULL, 30},
	    {"kernel", "small", NULL, 49},
	};
	struct trex_table t;

	kernels(ev, 5, TREX_KERNELS_BY_NAME, &t);
	cr_assert_eq(t.nrows, 4);
	cr_assert_str_eq(name(&t, 0), "alpha");
	cr_assert_str_eq(name(&t, 1), "mid");
	cr_assert_str_eq(name(&t, 2), "zeta");
	cr_assert_str_eq(name(&t, 3), "small");
	cr_assert_eq(num(&t, 1, MED), 25);
	cr_assert_float_eq(num(&t, 1, SD), sqrt(50), 1e-12); /* (25 + 25) / 1 */
	trex_table_free(&t);
}

Test(kernels, only_kernel_categories_count)
{
	/* Kineto "kernel" and legacy "Kernel" are kernels (same name: one group
	 * of 2); CPU ops, runtime calls, copies, sets and annotations are not. */
	const struct kev ev[] = {
	    {"kernel", "k", NULL, 100},
	    {"Kernel", "k", NULL, 300},
	    {"cpu_op", "aten::mm", NULL, 10000},
	    {"cuda_runtime", "cudaLaunchKernel", NULL, 5000},
	    {"gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", NULL, 7000},
	    {"Memset", "Memset (Device)", NULL, 7000},
	    {"gpu_user_annotation", "## forward ##", NULL, 9000},
	    {"", "no category", NULL, 9000},
	};
	struct trex_table t;

	kernels(ev, 8, TREX_KERNELS_BY_NAME, &t);
	cr_assert_eq(t.nrows, 1);
	cr_assert_str_eq(name(&t, 0), "k");
	cr_assert_eq(trex_table_cell(&t, 0, N)->count, 2);
	cr_assert_eq(num(&t, 0, TOTAL), 400);
	cr_assert_eq(num(&t, 0, MED), 200);
	trex_table_free(&t);
}

Test(kernels, unitrace_memory_commands_are_not_kernels)
{
	/* unitrace puts every device command under gpu_op; only the name tells. */
	const struct kev ev[] = {
	    {"gpu_op", "gemm[SIMD32 {256; 1; 1} {128; 1; 1}]", NULL, 70},
	    {"gpu_op", "zeCommandListAppendMemoryCopy(M2D)[4194304]", NULL, 900},
	    {"gpu_op", "zeCommandListAppendMemoryFill(D)[64]", NULL, 900},
	    {"gpu_op", "zeCommandListAppendBarrier", NULL, 900},
	    {"gpu_op", "Tile #1: zeCommandListAppendMemoryCopy(D2D)[8]", NULL, 900},
	    {"gpu_op", "gemm[SIMD32 {256; 1; 1} {128; 1; 1}]", NULL, 30},
	    {"cpu_op", "zeCommandListAppendLaunchKernel", NULL, 900},
	};
	struct trex_table t;

	kernels(ev, 7, TREX_KERNELS_BY_NAME, &t);
	cr_assert_eq(t.nrows, 1);
	cr_assert_str_eq(name(&t, 0), "gemm[SIMD32 {256; 1; 1} {128; 1; 1}]");
	cr_assert_eq(num(&t, 0, TOTAL), 100);
	cr_assert_eq(num(&t, 0, PCT), 100);
	trex_table_free(&t);
}

Test(kernels, shape_groups_split_a_name)
{
	/* k: S1 x2 (10, 20) = 30; S2 x1 = 100; no shape x1 = 5; k by name = 135.
	 * j: S1 = 30 ties with k/S1 and sorts first by name. */
	static const char s1[] = "grid=[1,1,1] block=[32,1,1] smem=0";
	static const char s2[] = "grid=[2,1,1] block=[64,1,1] smem=128";
	const struct kev ev[] = {
	    {"kernel", "k", s1, 10}, {"kernel", "k", s2, 100}, {"kernel", "k", NULL, 5},
	    {"kernel", "k", s1, 20}, {"kernel", "j", s1, 30},
	};
	struct trex_table t;

	kernels(ev, 5, TREX_KERNELS_BY_SHAPE, &t);
	cr_assert_eq(t.ncols, 10);
	cr_assert_str_eq(t.cols[SHAPE].key, "shape");
	cr_assert_str_eq(t.cols[9].key, "name");
	cr_assert_eq(t.nrows, 4);
	cr_assert_str_eq(name(&t, 0), "k");
	cr_assert_str_eq(text(&t, 0, SHAPE), s2);
	cr_assert_eq(num(&t, 0, TOTAL), 100);
	cr_assert_str_eq(name(&t, 1), "j");
	cr_assert_str_eq(text(&t, 1, SHAPE), s1);
	cr_assert_str_eq(name(&t, 2), "k");
	cr_assert_str_eq(text(&t, 2, SHAPE), s1);
	cr_assert_eq(trex_table_cell(&t, 2, N)->count, 2);
	cr_assert_eq(num(&t, 2, MED), 15);
	cr_assert_str_eq(name(&t, 3), "k");
	cr_assert_str_eq(text(&t, 3, SHAPE), "");
	cr_assert_eq(num(&t, 3, TOTAL), 5);
	cr_assert_float_eq(num(&t, 3, PCT), 5.0 / 165 * 100, 1e-9);
	trex_table_free(&t);

	kernels(ev, 5, TREX_KERNELS_BY_NAME, &t);
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(name(&t, 0), "k");
	cr_assert_eq(num(&t, 0, TOTAL), 135);
	cr_assert_eq(trex_table_cell(&t, 0, N)->count, 4);
	cr_assert_eq(num(&t, 0, MED), 15); /* 5 10 20 100 -> (10 + 20) / 2 */
	trex_table_free(&t);
}

Test(kernels, no_kernels_gives_an_empty_table)
{
	const struct kev ev[] = {{"cpu_op", "aten::add", NULL, 10}};
	struct trex_table t;

	kernels(ev, 1, TREX_KERNELS_BY_NAME, &t);
	cr_assert_eq(t.nrows, 0);
	cr_assert_eq(t.ncols, 9);
	cr_assert_str_eq(t.name, "kernels");
	trex_table_free(&t);
}
