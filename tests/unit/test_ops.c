/* CPU op and runtime API summaries over a small hand-built index; every
 * number is worked out by hand in the comments. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/ops.h"
#include "trex/analysis/slice_info.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { O_CALLS, O_TOTAL, O_SELF, O_SELF_PCT, O_AVG, O_P95, O_MAX, O_GPU, O_NAME };
enum { A_PCT, A_TOTAL, A_CALLS, A_AVG, A_MED, A_MIN, A_MAX, A_SD, A_P95, A_NAME };
enum { I_START, I_DUR, I_SELF, I_GPU, I_RANK, I_THREAD, I_NAME };

/* Thread 100: aten::linear [0, 1000) holds aten::mm [100, 400) (which
 * launches k1 from [150, 200)), aten::add [500, 600) and a launch of k2 at
 * [700, 750); later aten::mm [2000, 2100) launches k3 from [2010, 2020).
 * GPU: k1 300 ns, k2 50 ns, k3 20 ns.
 *  aten::linear: 1 call, total 1000, self 1000 - 300 - 100 - 50 = 550,
 *                GPU 300 + 50 = 350 (k1 through the nested mm, k2 directly)
 *  aten::mm:     2 calls, total 400, self 250 + 90 = 340, GPU 320,
 *                avg 200, P95 the 2nd of 2 = 300, max 300
 *  aten::add:    1 call, 100, self 100, GPU 0
 * Self 990 in all: linear 55.55 %. cudaLaunchKernel: 3 calls of 50, 50,
 * 10: total 110, avg 36.67, med 50, min 10, max 50, P95 the 3rd = 50,
 * stddev sqrt((26.67^2 + 2 * 13.33^2) / 2) = 23.094. */
static const struct fixture_slice ev[] = {
    {"1", "100", "cpu_op", "aten::linear", 0, 1000, 0, 0, NULL},
    {"1", "100", "cpu_op", "aten::mm", 100, 300, 0, 0, NULL},
    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 150, 50, 1, 0, NULL},
    {"1", "100", "cpu_op", "aten::add", 500, 100, 0, 0, NULL},
    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 700, 50, 2, 0, NULL},
    {"1", "100", "cpu_op", "aten::mm", 2000, 100, 0, 0, NULL},
    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 2010, 10, 3, 0, NULL},
    {"0", "7", "kernel", "k1", 300, 300, 1, 0, NULL},
    {"0", "7", "kernel", "k2", 800, 50, 2, 0, NULL},
    {"0", "7", "kernel", "k3", 2050, 20, 3, 0, NULL},
};

static struct trex_index *build(void)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");

	for (size_t i = 0; i < ARRAY_SIZE(ev); i++)
		fixture_add(b, &file, &ev[i]);
	return fixture_build(&file, &b, 1);
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

Test(ops, calls_total_self_and_gpu_time_per_op)
{
	struct trex_index *idx = build();
	struct trex_kernel_members m;
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_ops_table(idx, NULL, &t, &m, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 3);
	cr_assert_str_eq(text(&t, 0, O_NAME), "aten::linear", "sorted by self time");
	cr_assert_eq(count(&t, 0, O_CALLS), 1);
	cr_assert_eq(num(&t, 0, O_TOTAL), 1000);
	cr_assert_eq(num(&t, 0, O_SELF), 550);
	cr_assert_float_eq(num(&t, 0, O_SELF_PCT), 55000.0 / 990, 1e-9);
	cr_assert_eq(num(&t, 0, O_GPU), 350);
	cr_assert_str_eq(text(&t, 1, O_NAME), "aten::mm");
	cr_assert_eq(count(&t, 1, O_CALLS), 2);
	cr_assert_eq(num(&t, 1, O_TOTAL), 400);
	cr_assert_eq(num(&t, 1, O_SELF), 340);
	cr_assert_eq(num(&t, 1, O_AVG), 200);
	cr_assert_eq(num(&t, 1, O_P95), 300);
	cr_assert_eq(num(&t, 1, O_MAX), 300);
	cr_assert_eq(num(&t, 1, O_GPU), 320);
	cr_assert_str_eq(text(&t, 2, O_NAME), "aten::add");
	cr_assert_eq(num(&t, 2, O_SELF), 100);
	cr_assert_eq(num(&t, 2, O_GPU), 0);
	/* the instances of each row */
	cr_assert_eq(m.nrows, 3);
	cr_assert_eq(m.first[1], 1);
	cr_assert_eq(m.first[2] - m.first[1], 2);
	cr_assert_eq(trex_index_slice(idx, m.ids[m.first[1]])->ts +
	                 trex_index_slice(idx, m.ids[m.first[1] + 1])->ts,
	             2100, "the two aten::mm");
	trex_kernel_members_free(&m);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(ops, self_time_is_the_details_panes)
{
	struct trex_index *idx = build();
	struct trex_kernel_members m;
	struct trex_table t;
	struct trex_error err;
	struct trex_slice_info info;

	cr_assert_eq(trex_ops_table(idx, NULL, &t, &m, &err), TREX_OK, "%s", err.message);
	trex_slice_info_compute(idx, m.ids[0], &info);
	cr_assert_eq(num(&t, 0, O_SELF), (double)info.self_ns);
	trex_kernel_members_free(&m);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(ops, runtime_api_statistics)
{
	struct trex_index *idx = build();
	struct trex_ops_opts o = {.api = true};
	struct trex_kernel_members m;
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_ops_table(idx, &o, &t, &m, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 1);
	cr_assert_str_eq(text(&t, 0, A_NAME), "cudaLaunchKernel");
	cr_assert_eq(num(&t, 0, A_PCT), 100);
	cr_assert_eq(num(&t, 0, A_TOTAL), 110);
	cr_assert_eq(count(&t, 0, A_CALLS), 3);
	cr_assert_float_eq(num(&t, 0, A_AVG), 110.0 / 3, 1e-9);
	cr_assert_eq(num(&t, 0, A_MED), 50);
	cr_assert_eq(num(&t, 0, A_MIN), 10);
	cr_assert_eq(num(&t, 0, A_MAX), 50);
	cr_assert_eq(num(&t, 0, A_P95), 50);
	cr_assert_float_eq(num(&t, 0, A_SD), 23.0940107676, 1e-6);
	cr_assert_eq(m.first[1], 3);
	trex_kernel_members_free(&m);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(ops, top_keeps_the_first_rows)
{
	struct trex_index *idx = build();
	struct trex_ops_opts o = {.top = 2};
	struct trex_kernel_members m;
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_ops_table(idx, &o, &t, &m, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 2);
	cr_assert_eq(m.nrows, 2);
	cr_assert_str_eq(text(&t, 1, O_NAME), "aten::mm");
	/* self % stays a share of every op's self time, not of the rows kept */
	cr_assert_float_eq(num(&t, 1, O_SELF_PCT), 34000.0 / 990, 1e-9);
	trex_kernel_members_free(&m);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(ops, instances_with_self_and_gpu_time)
{
	struct trex_index *idx = build();
	struct trex_kernel_members m;
	struct trex_ops_opts api = {.api = true};
	struct trex_table t, it;
	struct trex_error err;
	uint32_t ids[3];

	cr_assert_eq(trex_ops_table(idx, NULL, &t, &m, &err), TREX_OK, "%s", err.message);
	memcpy(ids, m.ids + m.first[1], 2 * sizeof(*ids));
	cr_assert_eq(trex_ops_instances_table(idx, ids, 2, &it, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(it.nrows, 2);
	/* longest first: [100, 400), self 250, k1 300 */
	cr_assert_eq(num(&it, 0, I_START), 100);
	cr_assert_eq(num(&it, 0, I_DUR), 300);
	cr_assert_eq(num(&it, 0, I_SELF), 250);
	cr_assert_eq(num(&it, 0, I_GPU), 300);
	cr_assert_eq(num(&it, 1, I_SELF), 90);
	cr_assert_eq(num(&it, 1, I_GPU), 20);
	cr_assert_str_eq(text(&it, 0, I_THREAD), "thread 100");
	cr_assert_str_eq(text(&it, 0, I_NAME), "aten::mm");
	cr_assert_eq(trex_index_slice(idx, ids[0])->ts, 100, "ids follow the rows");
	trex_table_free(&it);
	trex_kernel_members_free(&m);
	trex_table_free(&t);

	/* runtime calls: the GPU time of the work each launched */
	cr_assert_eq(trex_ops_table(idx, &api, &t, &m, &err), TREX_OK, "%s", err.message);
	memcpy(ids, m.ids, 3 * sizeof(*ids));
	cr_assert_eq(trex_ops_instances_table(idx, ids, 3, &it, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(num(&it, 0, I_GPU), 300);
	cr_assert_eq(num(&it, 1, I_GPU), 50);
	cr_assert_eq(num(&it, 2, I_GPU), 20);
	trex_table_free(&it);
	trex_kernel_members_free(&m);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(ops, gpu_time_saturates_instead_of_wrapping)
{
	/* one op launches two kernels of 2^62 ns each: 2^63 does not fit,
	 * the op's GPU time stays the largest duration there is */
	const struct fixture_slice big[] = {
	    {"1", "100", "cpu_op", "aten::huge", 0, 100, 0, 0, NULL},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 10, 5, 1, 0, NULL},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 20, 5, 2, 0, NULL},
	    {"0", "7", "kernel", "k1", 100, INT64_C(1) << 62, 1, 0, NULL},
	    {"0", "8", "kernel", "k2", 200, INT64_C(1) << 62, 2, 0, NULL},
	};
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");
	struct trex_index *idx;
	struct trex_table t;
	struct trex_error err;

	for (size_t i = 0; i < ARRAY_SIZE(big); i++)
		fixture_add(b, &file, &big[i]);
	idx = fixture_build(&file, &b, 1);
	cr_assert_eq(trex_ops_table(idx, NULL, &t, NULL, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(num(&t, 0, O_GPU), (double)INT64_MAX);
	trex_table_free(&t);
	trex_index_free(idx);
}

/* A set of two ranks joined from their parts: rank A is the trace above;
 * rank B has aten::mm [0, 500) and a call of 30. Joined by name:
 *  aten::mm: 3 calls, total 900, self 340 + 500 = 840, avg 300, P95 the
 *            3rd of 3 (ceil 2.85) = 500, max 500, GPU 320;
 *  cudaLaunchKernel: 4 calls 10, 30, 50, 50: total 140, med 40, P95 50.
 * Self 990 + 500 = 1490 in all. */
Test(ops, parts_of_two_ranks_join_by_name)
{
	static const struct fixture_slice b_ev[] = {
	    {"1", "100", "cpu_op", "aten::mm", 0, 500, 0, 0, NULL},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 600, 30, 0, 0, NULL},
	};
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("b.json");
	struct trex_index *ia = build(), *ib;
	struct trex_ops_part *parts[2] = {NULL, NULL};
	struct trex_ops_opts ops = {false, 0}, api = {true, 0};
	struct trex_table t;
	struct trex_error err;

	for (size_t i = 0; i < ARRAY_SIZE(b_ev); i++)
		fixture_add(b, &file, &b_ev[i]);
	ib = fixture_build(&file, &b, 1);
	cr_assert_eq(trex_ops_part_new(ia, false, &parts[0], &err), TREX_OK);
	cr_assert_eq(trex_ops_part_new(ib, false, &parts[1], &err), TREX_OK);
	cr_assert_eq(trex_ops_join_table(parts, 2, &ops, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 3);
	cr_assert_str_eq(text(&t, 0, O_NAME), "aten::mm"); /* self 840 first */
	cr_assert_eq(count(&t, 0, O_CALLS), 3);
	cr_assert_eq(num(&t, 0, O_TOTAL), 900);
	cr_assert_eq(num(&t, 0, O_SELF), 840);
	cr_assert_float_eq(num(&t, 0, O_SELF_PCT), 840.0 * 100 / 1490, 1e-9);
	cr_assert_eq(num(&t, 0, O_P95), 500);
	cr_assert_eq(num(&t, 0, O_MAX), 500);
	cr_assert_eq(num(&t, 0, O_GPU), 320);
	cr_assert_str_eq(text(&t, 1, O_NAME), "aten::linear");
	trex_table_free(&t);
	trex_ops_part_free(parts[0]);
	trex_ops_part_free(parts[1]);
	cr_assert_eq(trex_ops_part_new(ib, true, &parts[0], &err), TREX_OK);
	cr_assert_eq(trex_ops_part_new(ia, true, &parts[1], &err), TREX_OK);
	trex_index_free(ia);
	trex_index_free(ib); /* the parts keep no reference to their index */
	cr_assert_eq(trex_ops_join_table(parts, 2, &api, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(count(&t, 0, A_CALLS), 4);
	cr_assert_eq(num(&t, 0, A_TOTAL), 140);
	cr_assert_eq(num(&t, 0, A_MED), 40);
	cr_assert_eq(num(&t, 0, A_MIN), 10);
	cr_assert_eq(num(&t, 0, A_P95), 50);
	trex_table_free(&t);
	trex_ops_part_free(parts[0]);
	trex_ops_part_free(parts[1]);
}
