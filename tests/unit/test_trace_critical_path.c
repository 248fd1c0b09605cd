/* The critical-path walk of traces without an execution graph over small
 * hand-built indexes; every segment is worked out by hand in the
 * comments (times in ns). */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/analysis/trace_critical_path.h"
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

/* One expected segment: the slice's name (NULL: idle), what, start,
 * duration and bound. */
struct want {
	const char *name;
	enum trex_tpath_what what;
	int64_t start, dur;
	enum trex_tpath_bound bound;
};

static void expect_path(const struct trex_index *idx, const struct want *w, size_t n)
{
	struct trex_tpath p;
	struct trex_error err;

	cr_assert_eq(trex_tpath_compute(idx, &p, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(p.n, n, "%zu segments, want %zu", p.n, n);
	for (size_t i = 0; i < n; i++) {
		const struct trex_tpath_seg *s = &p.seg[i];
		const char *name = s->slice == TREX_NONE
		                       ? NULL
		                       : trex_index_str(idx, trex_index_slice(idx, s->slice)->name);

		if (w[i].name)
			cr_expect_str_eq(name ? name : "(none)", w[i].name, "segment %zu", i);
		else
			cr_expect_null(name, "segment %zu is idle", i);
		cr_expect_eq(s->what, w[i].what, "segment %zu: what %d", i, s->what);
		cr_expect_eq(s->start, w[i].start, "segment %zu: start %ld", i, (long)s->start);
		cr_expect_eq(s->dur, w[i].dur, "segment %zu: dur %ld", i, (long)s->dur);
		cr_expect_eq(s->bound, w[i].bound, "segment %zu: bound %d", i, s->bound);
	}
	trex_tpath_free(&p);
}

/* The index of ev[0..n) has the path w[0..nw). */
static void expect_walk(const struct fixture_slice *ev, size_t n, const struct want *w, size_t nw)
{
	struct trex_index *idx = build(ev, n);

	expect_path(idx, w, nw);
	trex_index_free(idx);
}

/* Thread 1: op [0, 100) launches k (corr 1) at [60, 70); k runs [90, 300)
 * and ends last. Back from k: launched at 60 (launch 60..90), the op's
 * own time before its launch call [0, 60). */
Test(trace_critical_path, launch_bound)
{
	static const struct fixture_slice ev[] = {
	    {"1", "1", "cpu_op", "op", 0, 100, 0, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 60, 10, 1, 0, NULL},
	    {"0", "7", "kernel", "k", 90, 210, 1, 0, NULL},
	};
	static const struct want w[] = {
	    {"op", TREX_TPATH_CPU, 0, 60, TREX_TPATH_START},
	    {"cudaLaunchKernel", TREX_TPATH_LAUNCH, 60, 30, TREX_TPATH_THREAD_ORDER},
	    {"k", TREX_TPATH_DEVICE, 90, 210, TREX_TPATH_LAUNCH_BOUND},
	};
	expect_walk(ev, ARRAY_SIZE(ev), w, ARRAY_SIZE(w));
}

/* k1 [10, 200) and k2 [250, 400) on stream 7, both launched early (at 0
 * and 5): k2 waited for k1 (stream order), with a 50 ns gap; k1 for its
 * launch. */
Test(trace_critical_path, stream_order_with_a_gap)
{
	static const struct fixture_slice ev[] = {
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 0, 4, 1, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 5, 4, 2, 0, NULL},
	    {"0", "7", "kernel", "k1", 10, 190, 1, 0, NULL},
	    {"0", "7", "kernel", "k2", 250, 150, 2, 0, NULL},
	};
	static const struct want w[] = {
	    {"cudaLaunchKernel", TREX_TPATH_LAUNCH, 0, 10, TREX_TPATH_START},
	    {"k1", TREX_TPATH_DEVICE, 10, 190, TREX_TPATH_LAUNCH_BOUND},
	    {NULL, TREX_TPATH_IDLE, 200, 50, TREX_TPATH_STREAM_ORDER},
	    {"k2", TREX_TPATH_DEVICE, 250, 150, TREX_TPATH_STREAM_ORDER},
	};
	expect_walk(ev, ARRAY_SIZE(ev), w, ARRAY_SIZE(w));
}

/* cudaDeviceSynchronize [20, 500) waits for k [15, 480) (launched at 0,
 * before the call): sync 480..500, then k, then its launch. The op after
 * it [500, 600) ends the trace. */
Test(trace_critical_path, sync_bound_by_name)
{
	static const struct fixture_slice ev[] = {
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 0, 10, 1, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaDeviceSynchronize", 20, 480, 0, 0, NULL},
	    {"1", "1", "cpu_op", "after", 500, 100, 0, 0, NULL},
	    {"0", "7", "kernel", "k", 15, 465, 1, 0, NULL},
	};
	static const struct want w[] = {
	    {"cudaLaunchKernel", TREX_TPATH_LAUNCH, 0, 15, TREX_TPATH_START},
	    {"k", TREX_TPATH_DEVICE, 15, 465, TREX_TPATH_LAUNCH_BOUND},
	    {"cudaDeviceSynchronize", TREX_TPATH_SYNC, 480, 20, TREX_TPATH_SYNC_BOUND},
	    {"after", TREX_TPATH_CPU, 500, 100, TREX_TPATH_THREAD_ORDER},
	};
	expect_walk(ev, ARRAY_SIZE(ev), w, ARRAY_SIZE(w));
}

/* The kernel ended (at 15) before cudaDeviceSynchronize [20, 30) began:
 * the call did not wait, the thread ran it in order after a 10 ns gap. */
Test(trace_critical_path, sync_that_did_not_wait)
{
	static const struct fixture_slice ev[] = {
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 0, 10, 1, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaDeviceSynchronize", 20, 10, 0, 0, NULL},
	    {"0", "7", "kernel", "k", 11, 4, 1, 0, NULL},
	};
	static const struct want w[] = {
	    {"cudaLaunchKernel", TREX_TPATH_CPU, 0, 10, TREX_TPATH_START},
	    {NULL, TREX_TPATH_IDLE, 10, 10, TREX_TPATH_THREAD_ORDER},
	    {"cudaDeviceSynchronize", TREX_TPATH_CPU, 20, 10, TREX_TPATH_THREAD_ORDER},
	};
	expect_walk(ev, ARRAY_SIZE(ev), w, ARRAY_SIZE(w));
}

/* A synchronous cudaMemcpy [0, 100) waits for the copy it launched
 * [30, 90): the call's tail 90..100 is sync, the copy is bound by the
 * call's start. */
Test(trace_critical_path, synchronous_copy_waits_for_its_own_work)
{
	static const struct fixture_slice ev[] = {
	    {"1", "1", "cuda_runtime", "cudaMemcpy", 0, 100, 1, 0, NULL},
	    {"0", "7", "gpu_memcpy", "Memcpy HtoD", 30, 60, 1, 0, NULL},
	};
	static const struct want w[] = {
	    {"cudaMemcpy", TREX_TPATH_LAUNCH, 0, 30, TREX_TPATH_START},
	    {"Memcpy HtoD", TREX_TPATH_DEVICE, 30, 60, TREX_TPATH_LAUNCH_BOUND},
	    {"cudaMemcpy", TREX_TPATH_SYNC, 90, 10, TREX_TPATH_SYNC_BOUND},
	};
	expect_walk(ev, ARRAY_SIZE(ev), w, ARRAY_SIZE(w));
}

/* Nested ops: outer [0, 100) holds a [10, 30) and b [50, 60); b ends the
 * thread's work last but outer ends at 100: outer's own time after b,
 * b, outer between a and b, a, outer before a. */
Test(trace_critical_path, nested_ops_take_turns)
{
	static const struct fixture_slice ev[] = {
	    {"1", "1", "cpu_op", "outer", 0, 100, 0, 0, NULL},
	    {"1", "1", "cpu_op", "a", 10, 20, 0, 0, NULL},
	    {"1", "1", "cpu_op", "b", 50, 10, 0, 0, NULL},
	};
	static const struct want w[] = {
	    {"outer", TREX_TPATH_CPU, 0, 10, TREX_TPATH_START},
	    {"a", TREX_TPATH_CPU, 10, 20, TREX_TPATH_THREAD_ORDER},
	    {"outer", TREX_TPATH_CPU, 30, 20, TREX_TPATH_THREAD_ORDER},
	    {"b", TREX_TPATH_CPU, 50, 10, TREX_TPATH_THREAD_ORDER},
	    {"outer", TREX_TPATH_CPU, 60, 40, TREX_TPATH_THREAD_ORDER},
	};
	expect_walk(ev, ARRAY_SIZE(ev), w, ARRAY_SIZE(w));
}

/* The main thread (1, "## forward ##") waits in "## backward ##" [100,
 * 500) while autograd's thread (2) runs two backward ops, [150, 250) and
 * [300, 400): as in HTA, the two threads count as one, so both ops are on
 * the path and only the annotation's time around them is its own (the
 * gap between them too, found from either thread). */
Test(trace_critical_path, backward_thread_merges_into_forward)
{
	static const struct fixture_slice ev[] = {
	    {"1", "1", "user_annotation", "## forward ##", 0, 100, 0, 0, NULL},
	    {"1", "1", "user_annotation", "## backward ##", 100, 400, 0, 0, NULL},
	    {"1", "2", "cpu_op", "autograd::engine::evaluate_function: AddBackward0", 150, 100, 0,
	     0, NULL},
	    {"1", "2", "cpu_op", "autograd::engine::evaluate_function: MmBackward0", 300, 100, 0, 0,
	     NULL},
	};
	static const struct want w[] = {
	    {"## forward ##", TREX_TPATH_CPU, 0, 100, TREX_TPATH_START},
	    {"## backward ##", TREX_TPATH_CPU, 100, 50, TREX_TPATH_THREAD_ORDER},
	    {"autograd::engine::evaluate_function: AddBackward0", TREX_TPATH_CPU, 150, 100,
	     TREX_TPATH_THREAD_ORDER},
	    {"## backward ##", TREX_TPATH_CPU, 250, 50, TREX_TPATH_THREAD_ORDER},
	    {"autograd::engine::evaluate_function: MmBackward0", TREX_TPATH_CPU, 300, 100,
	     TREX_TPATH_THREAD_ORDER},
	    {"## backward ##", TREX_TPATH_CPU, 400, 100, TREX_TPATH_THREAD_ORDER},
	};
	expect_walk(ev, ARRAY_SIZE(ev), w, ARRAY_SIZE(w));
}

/* The table: one row per segment, then the shares of the path (the
 * launch_bound trace: 60 cpu, 30 launch, 210 gpu of 300). */
Test(trace_critical_path, table_and_shares)
{
	static const struct fixture_slice ev[] = {
	    {"1", "1", "cpu_op", "op", 0, 100, 0, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 60, 10, 1, 0, NULL},
	    {"0", "7", "kernel", "k", 90, 210, 1, 0, NULL},
	};
	struct trex_index *idx = build(ev, ARRAY_SIZE(ev));
	struct trex_table t, sum;
	struct trex_error err;

	cr_assert_eq(trex_trace_critical_path_table(idx, &t, &sum, &err), TREX_OK, "%s",
	             err.message);
	cr_assert_eq(t.nrows, 3);
	cr_expect_str_eq(trex_table_cell(&t, 1, 3)->text, "launch");
	cr_expect_str_eq(trex_table_cell(&t, 2, 3)->text, "kernel");
	cr_expect_str_eq(trex_table_cell(&t, 2, 6)->text, "launch");
	cr_assert_eq(sum.nrows, 1);
	cr_expect_eq(trex_table_cell(&sum, 0, 1)->number, 300);
	cr_expect_eq(trex_table_cell(&sum, 0, 2)->number, 60);  /* cpu */
	cr_expect_eq(trex_table_cell(&sum, 0, 3)->number, 20);  /* cpu % */
	cr_expect_eq(trex_table_cell(&sum, 0, 4)->number, 210); /* gpu */
	cr_expect_eq(trex_table_cell(&sum, 0, 8)->number, 30);  /* launch */
	cr_expect_eq(trex_table_cell(&sum, 0, 10)->number, 0);  /* idle */
	trex_table_free(&t);
	trex_table_free(&sum);
	trex_index_free(idx);
}

/* Counters only: no path, and the error says why. */
Test(trace_critical_path, nothing_to_follow)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");
	struct trex_index *idx = fixture_build(&file, &b, 1);
	struct trex_table t, sum;
	struct trex_error err;

	cr_assert_eq(trex_trace_critical_path_table(idx, &t, &sum, &err), TREX_FORMAT);
	cr_expect(strstr(err.message, "no CPU or device slices") != NULL, "%s", err.message);
	trex_index_free(idx);
}

/* The timeline's highlight: the slices the path runs through (op, both
 * its calls, as the thread ran them in order, and k), not k_early, which
 * bound nothing. */
Test(trace_critical_path, slice_marks)
{
	static const struct fixture_slice ev[] = {
	    {"1", "1", "cpu_op", "op", 0, 100, 0, 0, NULL},
	    {"1", "1", "cuda_runtime", "early", 10, 10, 2, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 60, 10, 1, 0, NULL},
	    {"0", "7", "kernel", "k", 90, 210, 1, 0, NULL},
	    {"0", "8", "kernel", "k_early", 30, 10, 2, 0, NULL},
	};
	struct trex_index *idx = build(ev, ARRAY_SIZE(ev));
	uint8_t *marks;
	struct trex_error err;
	int on = 0;

	cr_assert_eq(trex_tpath_slice_marks(idx, &marks, &err), TREX_OK, "%s", err.message);
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const char *name = trex_index_str(idx, trex_index_slice(idx, i)->name);
		bool want = strcmp(name, "op") == 0 || strcmp(name, "cudaLaunchKernel") == 0 ||
		            strcmp(name, "k") == 0 || strcmp(name, "early") == 0;

		cr_expect_eq(marks[i] != 0, want, "%s", name);
		on += marks[i] != 0;
	}
	cr_expect_eq(on, 4);
	free(marks);
	trex_index_free(idx);
}
