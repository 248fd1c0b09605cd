/* GPU idle gaps over small hand-built indexes; every number is worked out
 * by hand in the comments. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/analysis/gaps.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { RANK, DEVICE, START, LENGTH, CALL, THREAD, OP };

static struct trex_index *build(const struct fixture_slice *ev, size_t n)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");

	file.rank = 2;
	file.has_rank = true;
	for (size_t i = 0; i < n; i++)
		fixture_add(b, &file, &ev[i]);
	return fixture_build(&file, &b, 1);
}

static void gaps(const struct trex_index *idx, int64_t min_ns, size_t top, struct trex_table *t,
                 struct trex_gap_list *list)
{
	struct trex_gap_opts o = {min_ns, top};
	struct trex_error err;

	cr_assert_eq(trex_gaps_table(idx, &o, t, list, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t->ncols, 7);
	if (list)
		cr_assert_eq(list->n, t->nrows);
}

static double num(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->number;
}

static const char *text(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->text;
}

/* GPU 0 (pid 0): k1 [1000, 1100) on stream 7 and k2 [1050, 1200) on stream
 * 8 overlap; k3 [1500, 1600) (corr 3); a copy [2000, 2100) (corr 4) and k4
 * [2100, 2200) touching it. Busy [1000, 1200) [1500, 1600) [2000, 2200):
 * gaps [1200, 1500) (300) and [1600, 2000) (400). Thread 100: aten::mm
 * [1100, 1600) launches k3 at [1400, 1450); aten::copy_ [1600, 2050) runs
 * cudaMemcpyAsync [1600, 1990), which launches the copy. */
static const struct fixture_slice two_gaps[] = {
    {"0", "7", "kernel", "k1", 1000, 100, 0, 0, NULL},
    {"0", "8", "kernel", "k2", 1050, 150, 0, 0, NULL},
    {"0", "7", "kernel", "k3", 1500, 100, 3, 0, NULL},
    {"0", "8", "gpu_memcpy", "Memcpy HtoD", 2000, 100, 4, 0, NULL},
    {"0", "7", "kernel", "k4", 2100, 100, 0, 0, NULL},
    {"100", "100", "cpu_op", "aten::mm", 1100, 500, 0, 0, NULL},
    {"100", "100", "cuda_runtime", "cudaLaunchKernel", 1400, 50, 3, 0, NULL},
    {"100", "100", "cpu_op", "aten::copy_", 1600, 450, 0, 0, NULL},
    {"100", "100", "cuda_runtime", "cudaMemcpyAsync", 1600, 390, 4, 0, NULL},
};

Test(gaps, a_gap_is_time_no_stream_of_the_device_runs)
{
	struct trex_index *idx = build(two_gaps, ARRAY_SIZE(two_gaps));
	struct trex_gap_list list;
	struct trex_table t;

	gaps(idx, 0, 0, &t, &list);
	cr_assert_eq(t.nrows, 2);
	/* longest first: [1600, 2000), from the trace start (1000): 600 */
	cr_assert_eq(trex_table_cell(&t, 0, RANK)->count, 2);
	cr_assert_eq(num(&t, 0, START), 600);
	cr_assert_eq(num(&t, 0, LENGTH), 400);
	cr_assert_eq(num(&t, 1, START), 200);
	cr_assert_eq(num(&t, 1, LENGTH), 300);
	cr_assert_eq(list.v[0].start, 1600);
	cr_assert_eq(list.v[0].end, 2000);
	cr_assert_str_eq(trex_index_str(idx, trex_index_slice(idx, list.v[0].after)->name),
	                 "Memcpy HtoD");
	cr_assert_str_eq(trex_index_str(idx, trex_index_slice(idx, list.v[0].before)->name), "k3");
	cr_assert_str_eq(trex_index_str(idx, trex_index_slice(idx, list.v[1].after)->name), "k3");
	cr_assert_str_eq(trex_index_str(idx, trex_index_slice(idx, list.v[1].before)->name), "k2");
	trex_gap_list_free(&list);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(gaps, the_cpu_op_and_call_running_on_the_launching_thread)
{
	struct trex_index *idx = build(two_gaps, ARRAY_SIZE(two_gaps));
	struct trex_table t;

	gaps(idx, 0, 0, &t, NULL);
	/* at 1600 thread 100 runs aten::copy_ > cudaMemcpyAsync, which launched
	 * the copy after the gap (aten::mm ended at 1600) */
	cr_assert_str_eq(text(&t, 0, THREAD), "thread 100");
	cr_assert_str_eq(text(&t, 0, CALL), "cudaMemcpyAsync");
	cr_assert_str_eq(text(&t, 0, OP), "aten::copy_");
	/* at 1200 it runs aten::mm, no runtime call yet (the launch is at 1400) */
	cr_assert_str_eq(text(&t, 1, CALL), "");
	cr_assert_str_eq(text(&t, 1, OP), "aten::mm");
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(gaps, min_and_top_leave_gaps_out)
{
	struct trex_index *idx = build(two_gaps, ARRAY_SIZE(two_gaps));
	struct trex_table t;

	gaps(idx, 301, 0, &t, NULL);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(num(&t, 0, LENGTH), 400);
	trex_table_free(&t);
	gaps(idx, 300, 0, &t, NULL);
	cr_assert_eq(t.nrows, 2, "a gap of exactly --min stays");
	trex_table_free(&t);
	gaps(idx, 0, 1, &t, NULL);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(num(&t, 0, LENGTH), 400, "--top keeps the longest");
	trex_table_free(&t);
	trex_index_free(idx);
}

/* GPU 5: a [0, 10), b [50, 60) without launches: gap [10, 50), nobody to ask.
 * GPU 6: c [100, 200) launched from thread 300 inside op "step" [0, 400),
 * d [250, 260) without a launch: the gap [200, 250) looks at the thread
 * that launched c. GPU 7: e [500, 510) launched from thread 301 at [490,
 * 495), then f [600, 610) launched at [505, 508): at 510 thread 301 runs
 * nothing. */
static const struct fixture_slice fallbacks[] = {
    {"5", "7", "kernel", "a", 0, 10, 0, 0, NULL},
    {"5", "7", "kernel", "b", 50, 10, 0, 0, NULL},
    {"6", "7", "kernel", "c", 100, 100, 11, 0, NULL},
    {"6", "7", "kernel", "d", 250, 10, 0, 0, NULL},
    {"300", "300", "user_annotation", "step", 0, 400, 0, 0, NULL},
    {"300", "300", "cuda_runtime", "cudaLaunchKernel", 90, 5, 11, 0, NULL},
    {"7", "7", "kernel", "e", 500, 10, 12, 0, NULL},
    {"7", "7", "kernel", "f", 600, 10, 13, 0, NULL},
    {"300", "301", "cuda_runtime", "cudaLaunchKernel", 490, 5, 12, 0, NULL},
    {"300", "301", "cuda_runtime", "cudaLaunchKernel", 505, 3, 13, 0, NULL},
};

Test(gaps, without_a_launch_after_the_gap_the_one_before_tells)
{
	struct trex_index *idx = build(fallbacks, ARRAY_SIZE(fallbacks));
	struct trex_table t;

	gaps(idx, 0, 0, &t, NULL);
	cr_assert_eq(t.nrows, 3);
	/* [510, 600) 90: f's launch on thread 301, idle at 510 */
	cr_assert_eq(num(&t, 0, LENGTH), 90);
	cr_assert_str_eq(text(&t, 0, THREAD), "thread 301");
	cr_assert_str_eq(text(&t, 0, OP), "(nothing running)");
	/* [200, 250) 50: d has no launch, c's thread runs the annotation */
	cr_assert_eq(num(&t, 1, LENGTH), 50);
	cr_assert_str_eq(text(&t, 1, THREAD), "thread 300");
	cr_assert_str_eq(text(&t, 1, OP), "step");
	/* [10, 50) 40: no launch known at all */
	cr_assert_eq(num(&t, 2, LENGTH), 40);
	cr_assert_str_eq(text(&t, 2, THREAD), "");
	cr_assert_str_eq(text(&t, 2, OP), "(launch unknown)");
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(gaps, devices_apart_and_ties_by_start)
{
	/* GPU 0 and GPU 1 each idle 100 ns: two rows, earlier first; no gap
	 * across devices (GPU 1's work fills GPU 0's gap, still a gap) */
	const struct fixture_slice ev[] = {
	    {"0", "7", "kernel", "a", 0, 100, 0, 0, NULL},
	    {"0", "7", "kernel", "b", 200, 100, 0, 0, NULL},
	    {"1", "7", "kernel", "c", 50, 100, 0, 0, NULL},
	    {"1", "7", "kernel", "d", 250, 10, 0, 0, NULL},
	    {"1", "7", "gpu_user_annotation", "ProfilerStep#1", 0, 400, 0, 0, NULL},
	};
	struct trex_index *idx = build(ev, ARRAY_SIZE(ev));
	struct trex_table t;

	gaps(idx, 0, 0, &t, NULL);
	cr_assert_eq(t.nrows, 2, "annotations on the GPU are not work");
	cr_assert_eq(num(&t, 0, START), 100);
	cr_assert_eq(num(&t, 1, START), 150);
	cr_assert_eq(num(&t, 0, LENGTH), 100);
	cr_assert_eq(num(&t, 1, LENGTH), 100);
	cr_assert_neq(strcmp(text(&t, 0, DEVICE), text(&t, 1, DEVICE)), 0);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(gaps, no_work_no_rows)
{
	const struct fixture_slice ev[] = {
	    {"100", "100", "cpu_op", "aten::mm", 0, 10, 0, 0, NULL},
	    {"0", "7", "kernel", "only", 0, 10, 0, 0, NULL},
	};
	struct trex_index *idx = build(ev, ARRAY_SIZE(ev));
	struct trex_table t;

	gaps(idx, 0, 0, &t, NULL);
	cr_assert_eq(t.nrows, 0);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(gaps, a_start_far_from_the_trace_start)
{
	/* the trace starts at INT64_MIN, the gap near INT64_MAX: its start
	 * from the trace start is about 1.8e19 ns, not a wrapped negative */
	const struct fixture_slice ev[] = {
	    {"100", "100", "cpu_op", "early", INT64_MIN, 10, 0, 0, NULL},
	    {"0", "7", "kernel", "a", INT64_MAX - 1050, 50, 0, 0, NULL},
	    {"0", "7", "kernel", "b", INT64_MAX - 500, 100, 0, 0, NULL},
	};
	struct trex_index *idx = build(ev, ARRAY_SIZE(ev));
	struct trex_table t;

	gaps(idx, 0, 0, &t, NULL);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(num(&t, 0, LENGTH), 500);
	cr_assert_float_eq(num(&t, 0, START), (double)((__int128)INT64_MAX - 1000 - INT64_MIN),
	                   1e4);
	cr_assert_gt(num(&t, 0, START), 1.8e19);
	trex_table_free(&t);
	trex_index_free(idx);
}
