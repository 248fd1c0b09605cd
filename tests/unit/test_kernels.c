/* The kernel summary over small hand-built indexes; every expected number
 * is worked out by hand in the comments. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trex/analysis/categories.h"
#include "trex/analysis/kernels.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

enum { PCT, TOTAL, N, AVG, MED, MIN, MAX, SD, P95, P99, NSTAT };
/* --by shape labels: rank, device, stream, shape, name. */
enum { S_RANK = NSTAT, S_DEVICE, S_STREAM, SHAPE, S_NAME };

struct kev {
	const char *cat, *name, *shape;
	int64_t dur;
};

/* One file, one GPU stream; events back to back, 10 ns apart. */
static struct trex_index *index_of(const struct kev *ev, size_t n)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("test.json");
	int64_t ts = 1000;

	for (size_t i = 0; i < n; i++) {
		fixture_add(b, &file,
		            &(struct fixture_slice){"0", "7", ev[i].cat, ev[i].name, ts, ev[i].dur,
		                                    0, 0, ev[i].shape});
		ts += ev[i].dur + 10;
	}
	return fixture_build(&file, &b, 1);
}

static void kernels(const struct kev *ev, size_t n, enum trex_kernel_group group,
                    struct trex_table *t)
{
	struct trex_index *idx = index_of(ev, n);
	struct trex_kernel_opts opts = {group, false, false, false, NULL, NULL, NULL};
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
	cr_assert_eq(t.ncols, 11);
	cr_assert_str_eq(t.cols[0].key, "time_pct");
	cr_assert_str_eq(t.cols[P95].key, "p95_ns");
	cr_assert_str_eq(t.cols[P99].key, "p99_ns");
	cr_assert_str_eq(t.cols[10].key, "name");
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
	cr_assert_eq(t.ncols, 15);
	cr_assert_str_eq(t.cols[S_RANK].key, "rank");
	cr_assert_str_eq(t.cols[S_DEVICE].key, "device");
	cr_assert_str_eq(t.cols[S_STREAM].key, "stream");
	cr_assert_str_eq(t.cols[SHAPE].key, "shape");
	cr_assert_str_eq(t.cols[S_NAME].key, "name");
	cr_assert_str_eq(text(&t, 0, S_STREAM), "stream 7");
	cr_assert_str_eq(text(&t, 0, S_DEVICE), "GPU 0");
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
	cr_assert_eq(t.ncols, 11);
	cr_assert_str_eq(t.name, "kernels");
	trex_table_free(&t);
}

Test(kernels, percentiles_are_nearest_rank)
{
	/* A: 1..20 ns. P95: ceil(0.95 * 20) = 19th -> 19; P99: ceil(19.8) = 20th
	 * -> 20; Med (even): (10 + 11) / 2. B: one instance -> P95 = P99 = 7. */
	struct kev ev[21];
	struct trex_table t;

	for (int i = 0; i < 20; i++)
		ev[i] = (struct kev){"kernel", "A", NULL, 20 - i};
	ev[20] = (struct kev){"kernel", "B", NULL, 7};
	kernels(ev, 21, TREX_KERNELS_BY_NAME, &t);
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(name(&t, 0), "A");
	cr_assert_eq(num(&t, 0, P95), 19);
	cr_assert_eq(num(&t, 0, P99), 20);
	cr_assert_eq(num(&t, 0, MED), 10.5);
	cr_assert_str_eq(name(&t, 1), "B");
	cr_assert_eq(num(&t, 1, P95), 7);
	cr_assert_eq(num(&t, 1, P99), 7);
	trex_table_free(&t);
}

Test(kernels, percentiles_of_a_hundred_and_of_three)
{
	/* 1..100: P95 = 95th = 95, P99 = 99. {5, 10, 15}: P95 = ceil(2.85) = 3rd
	 * = 15, P99 = 15. */
	struct kev ev[103];
	struct trex_table t;

	for (int i = 0; i < 100; i++)
		ev[i] = (struct kev){"kernel", "hundred", NULL, i + 1};
	ev[100] = (struct kev){"kernel", "three", NULL, 10};
	ev[101] = (struct kev){"kernel", "three", NULL, 5};
	ev[102] = (struct kev){"kernel", "three", NULL, 15};
	kernels(ev, 103, TREX_KERNELS_BY_NAME, &t);
	cr_assert_str_eq(name(&t, 0), "hundred");
	cr_assert_eq(num(&t, 0, P95), 95);
	cr_assert_eq(num(&t, 0, P99), 99);
	cr_assert_str_eq(name(&t, 1), "three");
	cr_assert_eq(num(&t, 1, P95), 15);
	cr_assert_eq(num(&t, 1, P99), 15);
	trex_table_free(&t);
}

/* ---- several files, tracks and links ------------------------------------------------ */

struct gev {
	unsigned file;
	const char *pid, *tid, *cat, *name, *shape;
	int64_t ts, dur;
	uint32_t corr, ext;
};

/* Files 0..nfiles-1 at paths[f] claiming ranks[f]; one builder per file. */
static struct trex_index *index_of_runs(const struct gev *ev, size_t n, const char *const *paths,
                                        const int64_t *ranks, unsigned nfiles)
{
	struct trex_builder *b[4];
	struct trex_build_file files[4];

	cr_assert_leq(nfiles, 4);
	for (unsigned f = 0; f < nfiles; f++) {
		b[f] = trex_builder_new(f);
		files[f] = fixture_file(paths[f]);
		files[f].rank = ranks[f];
		files[f].has_rank = true;
	}
	for (size_t i = 0; i < n; i++)
		fixture_add(b[ev[i].file], &files[ev[i].file],
		            &(struct fixture_slice){ev[i].pid, ev[i].tid, ev[i].cat, ev[i].name,
		                                    ev[i].ts, ev[i].dur, ev[i].corr, ev[i].ext,
		                                    ev[i].shape});
	return fixture_build(files, b, nfiles);
}

/* Files 0..nfiles-1 with ranks 10, 11, ... */
static struct trex_index *index_of_files(const struct gev *ev, size_t n, unsigned nfiles)
{
	static const char *const paths[] = {"rank10.json", "rank11.json", "rank12.json",
	                                    "rank13.json"};
	static const int64_t ranks[] = {10, 11, 12, 13};

	return index_of_runs(ev, n, paths, ranks, nfiles);
}

static void table_of(const struct gev *ev, size_t n, unsigned nfiles,
                     const struct trex_kernel_opts *o, struct trex_table *t)
{
	struct trex_index *idx = index_of_files(ev, n, nfiles);
	struct trex_error err;

	cr_assert_eq(trex_kernels_table(idx, o, t, &err), TREX_OK, "%s", err.message);
	trex_index_free(idx);
}

static size_t col_of(const struct trex_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (strcmp(t->cols[c].key, key) == 0)
			return c;
	}
	cr_assert_fail("no column %s", key);
	return 0;
}

/* Rank 10: streams 7 (k 100, k 50) and 8 (k 30) of GPU 0, stream 7 of
 * GPU 1 (j 5); rank 11: stream 7 of GPU 0 (k 200, memcpy 1000). */
static const struct gev two_ranks[] = {
    {0, "0", "7", "kernel", "k", NULL, 1000, 100, 0, 0},
    {0, "0", "7", "kernel", "k", NULL, 2000, 50, 0, 0},
    {0, "0", "8", "kernel", "k", NULL, 1000, 30, 0, 0},
    {0, "1", "7", "kernel", "j", NULL, 1000, 5, 0, 0},
    {1, "0", "7", "kernel", "k", NULL, 1000, 200, 0, 0},
    {1, "0", "7", "gpu_memcpy", "Memcpy HtoD", NULL, 5000, 1000, 0, 0},
};

Test(kernels, by_stream_device_and_rank)
{
	struct trex_kernel_opts o = {TREX_KERNELS_BY_STREAM, false, false, false, NULL, NULL, NULL};
	struct trex_table t;

	/* streams: r11/0/7 200, r10/0/7 150, r10/0/8 30, r10/1/7 5 */
	table_of(two_ranks, 6, 2, &o, &t);
	cr_assert_eq(t.nrows, 4);
	cr_assert_eq(t.ncols, NSTAT + 3);
	cr_assert_eq(num(&t, 0, TOTAL), 200);
	cr_assert_eq(trex_table_cell(&t, 0, NSTAT)->count, 11);
	cr_assert_eq(num(&t, 1, TOTAL), 150);
	cr_assert_eq(trex_table_cell(&t, 1, NSTAT)->count, 10);
	cr_assert_str_eq(text(&t, 1, NSTAT + 1), "rank 10 GPU 0");
	cr_assert_str_eq(text(&t, 1, NSTAT + 2), "stream 7");
	cr_assert_eq(num(&t, 2, TOTAL), 30);
	cr_assert_str_eq(text(&t, 2, NSTAT + 2), "stream 8");
	cr_assert_eq(num(&t, 3, TOTAL), 5);
	cr_assert_str_eq(text(&t, 3, NSTAT + 1), "rank 10 GPU 1");
	trex_table_free(&t);

	/* devices: r11/0 200, r10/0 180, r10/1 5 */
	o.group = TREX_KERNELS_BY_DEVICE;
	table_of(two_ranks, 6, 2, &o, &t);
	cr_assert_eq(t.nrows, 3);
	cr_assert_eq(t.ncols, NSTAT + 2);
	cr_assert_eq(num(&t, 1, TOTAL), 180);
	cr_assert_eq(trex_table_cell(&t, 1, N)->count, 3);
	cr_assert_eq(num(&t, 1, MED), 50);
	trex_table_free(&t);

	/* ranks, with memory: 11 -> 1200, 10 -> 185 */
	o.group = TREX_KERNELS_BY_RANK;
	o.memory = true;
	table_of(two_ranks, 6, 2, &o, &t);
	cr_assert_eq(t.nrows, 2);
	cr_assert_eq(t.ncols, NSTAT + 2);
	cr_assert_eq(trex_table_cell(&t, 0, NSTAT)->count, 11);
	cr_assert_str_eq(t.cols[NSTAT + 1].key, "file");
	cr_assert_str_eq(text(&t, 0, NSTAT + 1), "rank11.json");
	cr_assert_eq(num(&t, 0, TOTAL), 1200);
	cr_assert_eq(num(&t, 1, TOTAL), 185);
	cr_assert_float_eq(num(&t, 1, PCT), 185.0 / 1385 * 100, 1e-9);
	trex_table_free(&t);
}

/* two_ranks' files as two runs of rank 10: never summed into one row or
 * column, and their labels say which run is which. */
Test(kernels, two_files_of_one_rank_stay_apart)
{
	static const char *const paths[] = {"a/base.json", "b/test.json"};
	static const int64_t ranks[] = {10, 10};
	struct trex_index *idx = index_of_runs(two_ranks, 6, paths, ranks, 2);
	struct trex_kernel_opts o = {TREX_KERNELS_BY_RANK, true, false, false, NULL, NULL, NULL};
	struct trex_error err;
	struct trex_table t;
	size_t base, test;

	/* test 1200, base 185 */
	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 2);
	cr_assert_eq(num(&t, 0, TOTAL), 1200);
	cr_assert_eq(trex_table_cell(&t, 0, NSTAT)->count, 10);
	cr_assert_str_eq(text(&t, 0, NSTAT + 1), "test.json");
	cr_assert_eq(num(&t, 1, TOTAL), 185);
	cr_assert_eq(trex_table_cell(&t, 1, NSTAT)->count, 10);
	cr_assert_str_eq(text(&t, 1, NSTAT + 1), "base.json");
	trex_table_free(&t);

	/* k: base 180, test 200 */
	o = (struct trex_kernel_opts){TREX_KERNELS_BY_NAME, false, true, false, NULL, NULL, NULL};
	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK);
	base = col_of(&t, "rank10_base_total_ns");
	test = col_of(&t, "rank10_test_total_ns");
	cr_assert_eq(test, base + 1);
	cr_assert_str_eq(t.cols[base].title, "rank 10 (base.json)");
	cr_assert_str_eq(t.cols[test].title, "rank 10 (test.json)");
	cr_assert_str_eq(name(&t, 0), "k");
	cr_assert_eq(num(&t, 0, base), 180);
	cr_assert_eq(num(&t, 0, test), 200);
	trex_table_free(&t);

	/* by op, no launching op for any: base 185, test 200 */
	o.group = TREX_KERNELS_BY_OP;
	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(num(&t, 0, col_of(&t, "rank10_base_total_ns")), 185);
	cr_assert_eq(num(&t, 0, col_of(&t, "rank10_test_total_ns")), 200);
	cr_assert_str_eq(text(&t, 0, t.ncols - 1), "(no launching op)");
	trex_table_free(&t);

	/* devices: test GPU 0 200, base GPU 0 180, base GPU 1 5 */
	o.group = TREX_KERNELS_BY_DEVICE;
	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 3);
	cr_assert_str_eq(text(&t, 0, NSTAT + 1), "rank 10 (test.json) GPU 0");
	cr_assert_str_eq(text(&t, 1, NSTAT + 1), "rank 10 (base.json) GPU 0");
	cr_assert_str_eq(text(&t, 2, NSTAT + 1), "rank 10 (base.json) GPU 1");
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(kernels, per_rank_totals_and_memory)
{
	struct trex_kernel_opts o = {TREX_KERNELS_BY_NAME, true, true, false, NULL, NULL, NULL};
	struct trex_table t;
	size_t r10, r11;

	/* Memcpy 1000 (rank 11), k 380 = 180 (rank 10) + 200 (rank 11), j 5. */
	table_of(two_ranks, 6, 2, &o, &t);
	cr_assert_eq(t.ncols, NSTAT + 3);
	r10 = col_of(&t, "rank10_total_ns");
	r11 = col_of(&t, "rank11_total_ns");
	cr_assert_str_eq(t.cols[r10].title, "rank 10");
	cr_assert_eq(r11, r10 + 1);
	cr_assert_eq(t.nrows, 3);
	cr_assert_str_eq(name(&t, 0), "Memcpy HtoD");
	cr_assert_eq(num(&t, 0, r10), 0);
	cr_assert_eq(num(&t, 0, r11), 1000);
	cr_assert_str_eq(name(&t, 1), "k");
	cr_assert_eq(num(&t, 1, TOTAL), 380);
	cr_assert_eq(num(&t, 1, r10), 180);
	cr_assert_eq(num(&t, 1, r11), 200);
	cr_assert_eq(num(&t, 2, r10), 5);
	trex_table_free(&t);

	/* Without --memory the copy is not there. */
	o.memory = false;
	table_of(two_ranks, 6, 2, &o, &t);
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(name(&t, 0), "k");
	trex_table_free(&t);
}

Test(kernels, by_launching_op)
{
	/* CPU thread 100: aten::mm [0, 1000) encloses a launch [100, 200) (corr 5)
	 * inside a deeper non-op annotation; aten::add [2000, 2100) is linked to
	 * its launch [5000, 5050) (corr 6) only by External id 9. Kernels: corr 5
	 * -> 40 + corr 5 again (the same launch) -> 60: aten::mm 100; corr 6 -> 30:
	 * aten::add; corr 7 has no launch -> 8: no op. */
	const struct gev ev[] = {
	    {0, "1", "100", "cpu_op", "aten::mm", NULL, 0, 1000, 0, 0},
	    {0, "1", "100", "user_annotation", "## mm ##", NULL, 50, 500, 0, 0},
	    {0, "1", "100", "cuda_runtime", "cudaLaunchKernel", NULL, 100, 100, 5, 0},
	    {0, "1", "100", "cpu_op", "aten::add", NULL, 2000, 100, 0, 9},
	    {0, "1", "100", "cuda_runtime", "cudaLaunchKernel", NULL, 5000, 50, 6, 9},
	    {0, "0", "7", "kernel", "gemm", NULL, 300, 40, 5, 0},
	    {0, "0", "7", "kernel", "gemm", NULL, 400, 60, 5, 0},
	    {0, "0", "7", "kernel", "add", NULL, 6000, 30, 6, 0},
	    {0, "0", "7", "kernel", "lost", NULL, 7000, 8, 7, 0},
	};
	struct trex_kernel_opts o = {TREX_KERNELS_BY_OP, false, false, false, NULL, NULL, NULL};
	struct trex_table t;

	table_of(ev, 9, 1, &o, &t);
	cr_assert_eq(t.ncols, NSTAT + 1);
	cr_assert_str_eq(t.cols[NSTAT].key, "op");
	cr_assert_eq(t.nrows, 3);
	cr_assert_str_eq(text(&t, 0, NSTAT), "aten::mm");
	cr_assert_eq(num(&t, 0, TOTAL), 100);
	cr_assert_eq(trex_table_cell(&t, 0, N)->count, 2);
	cr_assert_str_eq(text(&t, 1, NSTAT), "aten::add");
	cr_assert_eq(num(&t, 1, TOTAL), 30);
	cr_assert_str_eq(text(&t, 2, NSTAT), "(no launching op)");
	cr_assert_eq(num(&t, 2, TOTAL), 8);
	trex_table_free(&t);

	/* the same with the ops found once beforehand, memory work included */
	struct trex_index *idx = index_of_files(ev, 9, 1);
	struct trex_kernel_ops ops;
	struct trex_error err;

	cr_assert_eq(trex_kernel_ops_compute(idx, &ops, &err), TREX_OK);
	cr_assert_eq(ops.nslices, trex_index_slice_count(idx));
	o.ops = &ops;
	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 3);
	cr_assert_str_eq(text(&t, 0, NSTAT), "aten::mm");
	cr_assert_eq(trex_table_cell(&t, 0, N)->count, 2);
	cr_assert_str_eq(text(&t, 1, NSTAT), "aten::add");
	cr_assert_str_eq(text(&t, 2, NSTAT), "(no launching op)");
	cr_assert_eq(num(&t, 2, TOTAL), 8);
	trex_table_free(&t);
	trex_kernel_ops_free(&ops);
	trex_index_free(idx);
}

Test(kernels, only_one_category)
{
	/* built-in rules: sgemm -> gemm, ncclAllReduce -> collective, Memcpy -> memcpy,
	 * my_op -> uncategorized */
	const struct gev ev[] = {
	    {0, "0", "7", "kernel", "sgemm_128", NULL, 100, 40, 0, 0},
	    {0, "0", "7", "kernel", "sgemm_64", NULL, 200, 10, 0, 0},
	    {0, "0", "7", "kernel", "sgemm_128", NULL, 300, 20, 0, 0},
	    {0, "0", "8", "kernel", "ncclAllReduce", NULL, 100, 500, 0, 0},
	    {0, "0", "7", "kernel", "my_op", NULL, 400, 7, 0, 0},
	    {0, "0", "9", "gpu_memcpy", "Memcpy HtoD", NULL, 50, 3, 0, 0},
	};
	struct trex_kernel_opts o = {.group = TREX_KERNELS_BY_NAME, .category = "gemm"};
	struct trex_table t, cats;
	struct trex_error err;
	struct trex_index *idx = index_of_files(ev, 6, 1);
	int64_t gemm_total = -1;

	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(name(&t, 0), "sgemm_128");
	cr_assert_eq(num(&t, 0, TOTAL), 60);
	cr_assert_str_eq(name(&t, 1), "sgemm_64");
	cr_assert_eq(num(&t, 0, TOTAL) + num(&t, 1, TOTAL), 70);
	trex_table_free(&t);
	/* the same total as the categories table's gemm row */
	cr_assert_eq(trex_categories_table(idx, NULL, &cats, &err), TREX_OK);
	for (size_t r = 0; r < cats.nrows; r++)
		if (strcmp(trex_table_cell(&cats, r, cats.ncols - 1)->text, "gemm") == 0)
			gemm_total = (int64_t)trex_table_cell(&cats, r, 0)->number;
	cr_assert_eq(gemm_total, 70);
	trex_table_free(&cats);

	o.category = TREX_CATEGORY_NONE;
	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 1);
	cr_assert_str_eq(name(&t, 0), "my_op");
	trex_table_free(&t);

	o.category = "memcpy";
	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 0, "memory work counts only with .memory");
	trex_table_free(&t);
	o.memory = true;
	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 1);
	cr_assert_str_eq(name(&t, 0), "Memcpy HtoD");
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(kernels, rocm_kernels_take_the_shape_of_their_launch)
{
	/* The ROCm kernel has no grid/block; its hipLaunchKernel (corr 3) has.
	 * The CUDA-style kernel keeps its own shape. Same name, same stream:
	 * two groups. The args column is there (empty: no source). */
	static const char rs[] = "grid=[4,1,1] block=[64,1,1] smem=0";
	static const char ks[] = "grid=[8,1,1] block=[64,1,1] smem=0";
	const struct gev ev[] = {
	    {0, "1", "100", "cuda_runtime", "hipLaunchKernel", rs, 0, 10, 3, 0},
	    {0, "2", "0", "kernel", "k", NULL, 100, 50, 3, 0},
	    {0, "2", "0", "kernel", "k", ks, 200, 20, 0, 0},
	    {0, "2", "0", "kernel", "k", ks, 300, 20, 0, 0},
	};
	struct trex_kernel_opts o = {TREX_KERNELS_BY_SHAPE, false, false, true, NULL, NULL, NULL};
	struct trex_table t;
	size_t args;

	table_of(ev, 4, 1, &o, &t);
	cr_assert_eq(t.ncols, NSTAT + 6);
	args = col_of(&t, "args");
	cr_assert_eq(col_of(&t, "name"), t.ncols - 1);
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(text(&t, 0, SHAPE), rs);
	cr_assert_eq(num(&t, 0, TOTAL), 50);
	cr_assert_str_eq(text(&t, 1, SHAPE), ks);
	cr_assert_eq(trex_table_cell(&t, 1, N)->count, 2);
	cr_assert_str_eq(text(&t, 1, args), "");
	trex_table_free(&t);
}

Test(kernels, group_names_parse)
{
	enum trex_kernel_group g;

	cr_assert(trex_kernel_group_parse("op", &g));
	cr_assert_eq(g, TREX_KERNELS_BY_OP);
	cr_assert(trex_kernel_group_parse("rank", &g));
	cr_assert_eq(g, TREX_KERNELS_BY_RANK);
	cr_assert_not(trex_kernel_group_parse("Name", &g));
	cr_assert_str_eq(trex_kernel_group_name(TREX_KERNELS_BY_STREAM), "stream");
}

/* ---- members and instances (drilling in from the kernels view) ---------------------- */

Test(kernels, members_list_each_rows_slices)
{
	/* One stream, slice ids in event order: A 0 2 4 (total 65), B 1 3 (total 70),
	 * then a cpu_op (id 5) that is no kernel. Rows: B, A. */
	const struct kev ev[] = {
	    {"kernel", "A", NULL, 30}, {"kernel", "B", NULL, 50}, {"kernel", "A", NULL, 15},
	    {"kernel", "B", NULL, 20}, {"kernel", "A", NULL, 20}, {"cpu_op", "A", NULL, 99},
	};
	struct trex_index *idx = index_of(ev, 6);
	struct trex_kernel_opts opts = {
	    TREX_KERNELS_BY_NAME, false, false, false, NULL, NULL, NULL};
	struct trex_kernel_members m;
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_kernels_table_members(idx, &opts, &t, &m, &err), TREX_OK);
	cr_assert_eq(t.nrows, 2);
	cr_assert_eq(m.nrows, 2);
	cr_assert_str_eq(name(&t, 0), "B");
	cr_assert_eq(m.first[0], 0);
	cr_assert_eq(m.first[1], 2);
	cr_assert_eq(m.first[2], 5);
	cr_expect_eq(m.ids[0], 1);
	cr_expect_eq(m.ids[1], 3);
	cr_expect_eq(m.ids[2], 0);
	cr_expect_eq(m.ids[3], 2);
	cr_expect_eq(m.ids[4], 4);
	trex_table_free(&t);
	trex_kernel_members_free(&m);
	cr_expect_null(m.ids);
	trex_index_free(idx);
}

Test(kernels, members_follow_every_grouping)
{
	const struct kev ev[] = {
	    {"kernel", "A", "grid=[1,1,1]", 30},
	    {"kernel", "A", "grid=[2,1,1]", 50},
	    {"kernel", "B", "grid=[1,1,1]", 15},
	};
	struct trex_index *idx = index_of(ev, 3);

	for (int g = 0; g < TREX_KERNELS_BY_COUNT; g++) {
		struct trex_kernel_opts opts = {
		    (enum trex_kernel_group)g, false, false, false, NULL, NULL, NULL};
		struct trex_kernel_members m;
		struct trex_table t;
		struct trex_error err;

		cr_assert_eq(trex_kernels_table_members(idx, &opts, &t, &m, &err), TREX_OK);
		cr_assert_eq(m.nrows, t.nrows);
		for (size_t r = 0; r < t.nrows; r++)
			cr_expect_eq((int64_t)(m.first[r + 1] - m.first[r]),
			             trex_table_cell(&t, r, N)->count, "group %d row %zu", g, r);
		cr_expect_eq(m.first[t.nrows], 3);
		trex_table_free(&t);
		trex_kernel_members_free(&m);
	}
	trex_index_free(idx);
}

Test(kernels, instances_sorted_by_duration_with_labels)
{
	/* A at ts 1000 (30), B at 1040, A at 1100 (15), A at 1125 (30):
	 * by duration descending, ties by start: ids 0, 3, 2. */
	const struct kev ev[] = {
	    {"kernel", "A", "grid=[1,1,1]", 30},
	    {"kernel", "B", NULL, 50},
	    {"kernel", "A", NULL, 15},
	    {"kernel", "A", NULL, 30},
	};
	struct trex_index *idx = index_of(ev, 4);
	uint32_t ids[] = {2, 3, 0};
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_kernel_instances_table(idx, ids, 3, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 3);
	cr_assert_eq(t.ncols, 7);
	cr_assert_str_eq(t.cols[0].key, "start_ns");
	cr_assert_str_eq(t.cols[1].key, "dur_ns");
	cr_expect_eq(ids[0], 0);
	cr_expect_eq(ids[1], 3);
	cr_expect_eq(ids[2], 2);
	cr_expect_eq(num(&t, 0, 0), 0);
	cr_expect_eq(num(&t, 0, 1), 30);
	cr_expect_eq(num(&t, 1, 0), 125);
	cr_expect_eq(num(&t, 2, 0), 100);
	cr_expect_eq(num(&t, 2, 1), 15);
	cr_expect_eq(trex_table_cell(&t, 0, 2)->count, 0);
	cr_expect_str_eq(text(&t, 0, 3), "GPU 0");
	cr_expect_str_eq(text(&t, 0, 4), "stream 7");
	cr_expect_str_eq(text(&t, 0, 5), "grid=[1,1,1]");
	cr_expect_str_eq(text(&t, 1, 5), "");
	cr_expect_str_eq(name(&t, 2), "A");
	trex_table_free(&t);
	trex_index_free(idx);
}
