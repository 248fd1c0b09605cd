/* GPU time accounting over small hand-built indexes; every number is worked
 * out by hand in the comments. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/analysis/gpu_time.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum {
	RANK,
	DEVICE,
	SPAN,
	BUSY,
	IDLE,
	BUSY_PCT,
	HOST_WAIT,
	KERNEL_GAP,
	SYNC,
	OTHER,
	COMPUTE,
	COMM,
	MEMORY,
	OVERLAP,
	KERNELS,
	LAUNCHES,
	DMIN,
	DMED,
	DAVG,
	DP95,
	DMAX,
	SHORT
};

struct gev {
	const char *pid, *tid, *cat, *name;
	int64_t ts, dur;
	uint32_t corr;
};

static double num(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->number;
}

static int64_t count(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->count;
}

/* Every row of every test: the idle classes add up to Idle exactly. */
static void check_idle_sums(const struct trex_table *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		double sum = num(t, r, HOST_WAIT) + num(t, r, KERNEL_GAP) + num(t, r, SYNC) +
		             num(t, r, OTHER);

		cr_assert_eq(sum, num(t, r, IDLE), "row %zu: idle classes %.0f, idle %.0f", r, sum,
		             num(t, r, IDLE));
		cr_assert_eq(num(t, r, IDLE), num(t, r, SPAN) - num(t, r, BUSY));
	}
}

static void gpu_time(const struct gev *ev, size_t n, struct trex_table *t)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");
	struct trex_index *idx;
	struct trex_error err;

	file.rank = 3;
	file.has_rank = true;
	for (size_t i = 0; i < n; i++)
		fixture_add(b, &file,
		            &(struct fixture_slice){ev[i].pid, ev[i].tid, ev[i].cat, ev[i].name,
		                                    ev[i].ts, ev[i].dur, ev[i].corr, 0, NULL});
	idx = fixture_build(&file, &b, 1);
	cr_assert_eq(trex_gpu_time_table(idx, t, &err), TREX_OK, "%s", err.message);
	trex_index_free(idx);
	check_idle_sums(t);
}

Test(gpu_time, busy_is_the_union_not_the_sum)
{
	/* Streams 7 and 8 of GPU 0: [1000, 1100) and [1050, 1150) overlap,
	 * [1200, 1250) after a gap. Sum 250, union 150 + 50 = 200, span 250,
	 * idle 50, busy 80 %. All compute. */
	const struct gev ev[] = {
	    {"0", "7", "kernel", "a", 1000, 100, 0},
	    {"0", "8", "kernel", "b", 1050, 100, 0},
	    {"0", "7", "kernel", "c", 1200, 50, 0},
	};
	struct trex_table t;

	gpu_time(ev, 3, &t);
	cr_assert_eq(t.nrows, 1);
	cr_assert_str_eq(t.cols[SPAN].key, "span_ns");
	cr_assert_str_eq(t.cols[SHORT].key, "short_kernels");
	cr_assert_eq(count(&t, 0, RANK), 3);
	cr_assert_str_eq(trex_table_cell(&t, 0, DEVICE)->text, "GPU 0");
	cr_assert_eq(num(&t, 0, SPAN), 250);
	cr_assert_eq(num(&t, 0, BUSY), 200);
	cr_assert_eq(num(&t, 0, IDLE), 50);
	cr_assert_float_eq(num(&t, 0, BUSY_PCT), 80, 1e-9);
	cr_assert_eq(num(&t, 0, COMPUTE), 200);
	cr_assert_eq(num(&t, 0, COMM), 0);
	cr_assert_eq(num(&t, 0, MEMORY), 0);
	cr_assert_eq(num(&t, 0, OVERLAP), 0);
	cr_assert_eq(count(&t, 0, KERNELS), 3);
	cr_assert_eq(count(&t, 0, LAUNCHES), 0);
	cr_assert_eq(num(&t, 0, OTHER), 50, "no correlation: other");
	trex_table_free(&t);
}

Test(gpu_time, communication_overlap_and_memory)
{
	/* GPU 0. Compute [0, 150) and [200, 250); NCCL [100, 300) on stream 9;
	 * a memcpy [400, 410). comm union 200, compute union 200, their
	 * intersection [100, 150) + [200, 250) = 100 -> overlap 50 %.
	 * Busy: [0, 300) + [400, 410) = 310; span 410, idle 100. */
	const struct gev ev[] = {
	    {"0", "7", "kernel", "sgemm", 0, 150, 0},
	    {"0", "7", "kernel", "sgemm", 200, 50, 0},
	    {"0", "9", "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 100, 200, 0},
	    {"0", "7", "gpu_memcpy", "Memcpy DtoD (Device -> Device)", 400, 10, 0},
	};
	struct trex_table t;

	gpu_time(ev, 4, &t);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(num(&t, 0, SPAN), 410);
	cr_assert_eq(num(&t, 0, BUSY), 310);
	cr_assert_eq(num(&t, 0, IDLE), 100);
	cr_assert_eq(num(&t, 0, COMPUTE), 200);
	cr_assert_eq(num(&t, 0, COMM), 200);
	cr_assert_eq(num(&t, 0, MEMORY), 10);
	cr_assert_float_eq(num(&t, 0, OVERLAP), 50, 1e-9);
	cr_assert_eq(count(&t, 0, KERNELS), 4);
	trex_table_free(&t);
}

Test(gpu_time, launch_delays_and_short_kernels)
{
	/* Launches on CPU thread 100 (pid 1), kernels on GPU 0:
	 *   corr 1: launch [0, 10), kernel at 30 for 5   -> delay 30, short
	 *   corr 2: launch [20, 30), kernel at 60 for 50 -> delay 40
	 *   corr 3: launch [40, 60), kernel at 140 for 8 -> delay 100, short
	 *   corr 4: launch [70, 75), kernel at 200 for 5 -> delay 130 (5 < 5 is not short)
	 *   a kernel without a launch.
	 * Delays 30 40 100 130: min 30, med (40 + 100) / 2 = 70, avg 75,
	 * p95 ceil(3.8) = 4th = 130, max 130; 2 short. */
	const struct gev ev[] = {
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 0, 10, 1},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 20, 10, 2},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 40, 20, 3},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 70, 5, 4},
	    {"0", "7", "kernel", "k", 30, 5, 1},
	    {"0", "7", "kernel", "k", 60, 50, 2},
	    {"0", "7", "kernel", "k", 140, 8, 3},
	    {"0", "7", "kernel", "k", 200, 5, 4},
	    {"0", "7", "kernel", "k", 300, 1, 0},
	};
	struct trex_table t;

	gpu_time(ev, 9, &t);
	cr_assert_eq(t.nrows, 1, "only GPU 0 has GPU work");
	cr_assert_eq(count(&t, 0, KERNELS), 5);
	cr_assert_eq(count(&t, 0, LAUNCHES), 4);
	cr_assert_eq(num(&t, 0, DMIN), 30);
	cr_assert_eq(num(&t, 0, DMED), 70);
	cr_assert_eq(num(&t, 0, DAVG), 75);
	cr_assert_eq(num(&t, 0, DP95), 130);
	cr_assert_eq(num(&t, 0, DMAX), 130);
	cr_assert_eq(count(&t, 0, SHORT), 2);
	/* busy: [30,35) [60,110) [140,148) [200,205) [300,301) = 69; span 271 */
	cr_assert_eq(num(&t, 0, BUSY), 69);
	cr_assert_eq(num(&t, 0, SPAN), 271);
	trex_table_free(&t);
}

Test(gpu_time, one_row_per_device)
{
	/* GPU 0 and GPU 1, one kernel each; a trace without GPU work has no rows. */
	const struct gev ev[] = {
	    {"0", "7", "kernel", "a", 0, 10, 0},
	    {"1", "7", "kernel", "b", 5, 20, 0},
	};
	const struct gev cpu[] = {{"1", "100", "cpu_op", "aten::mm", 0, 10, 0}};
	struct trex_table t;

	gpu_time(ev, 2, &t);
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(trex_table_cell(&t, 0, DEVICE)->text, "GPU 0");
	cr_assert_eq(num(&t, 0, BUSY), 10);
	cr_assert_str_eq(trex_table_cell(&t, 1, DEVICE)->text, "GPU 1");
	cr_assert_eq(num(&t, 1, BUSY), 20);
	cr_assert_eq(num(&t, 1, DMED), 0);
	trex_table_free(&t);

	gpu_time(cpu, 1, &t);
	cr_assert_eq(t.nrows, 0);
	trex_table_free(&t);
}

Test(gpu_time, idle_gap_of_each_class)
{
	/* Launches and sync calls on CPU thread 100 (pid 1), work on GPU 0
	 * stream 7, a Stream Wait Event on its stream 24. Gaps of the union:
	 *   [200, 210)        10: next K2 launched at 50 <= 200, < 30 us -> kernel gap
	 *   [300, 450)       150: next K3 launched at 400 > 300           -> host wait
	 *   [500, 100500) 100000: K4 launched at 420 <= 500, >= 30 us; the
	 *                         Stream Wait Event [1000, 1002) is inside -> sync
	 *   [100600, 200600) 100000: next K5 has no correlation           -> other
	 *   [200700, 300700) 100000: K6 launched at 430, >= 30 us;
	 *                         cudaStreamSynchronize [200000, 300800) covers it -> sync
	 *   [300800, 400800) 100000: K7 launched at 440, >= 30 us;
	 *                         cudaDeviceSynchronize [350000, 500000) only
	 *                         overlaps it                               -> other
	 * Span 400900 - 100 = 400800, busy 100+90+50+100+100+100+100 = 640,
	 * idle 400160 = 150 + 10 + 200000 + 200000. */
	const struct gev ev[] = {
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 0, 10, 1},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 50, 10, 2},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 400, 10, 3},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 420, 10, 4},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 430, 10, 6},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 440, 5, 7},
	    {"1", "100", "cuda_runtime", "cudaStreamSynchronize", 200000, 100800, 0},
	    {"1", "100", "cuda_runtime", "cudaDeviceSynchronize", 350000, 150000, 0},
	    {"0", "7", "kernel", "k1", 100, 100, 1},
	    {"0", "7", "kernel", "k2", 210, 90, 2},
	    {"0", "7", "kernel", "k3", 450, 50, 3},
	    {"0", "7", "kernel", "k4", 100500, 100, 4},
	    {"0", "7", "kernel", "k5", 200600, 100, 0},
	    {"0", "7", "kernel", "k6", 300700, 100, 6},
	    {"0", "7", "kernel", "k7", 400800, 100, 7},
	    {"0", "24", "cuda_sync", "Stream Wait Event", 1000, 2, 0},
	};
	struct trex_table t;

	gpu_time(ev, ARRAY_SIZE(ev), &t);
	cr_assert_eq(t.nrows, 1);
	cr_assert_str_eq(t.cols[HOST_WAIT].key, "idle_host_wait_ns");
	cr_assert_str_eq(t.cols[KERNEL_GAP].key, "idle_kernel_gap_ns");
	cr_assert_str_eq(t.cols[SYNC].key, "idle_sync_ns");
	cr_assert_str_eq(t.cols[OTHER].key, "idle_other_ns");
	cr_assert_eq(num(&t, 0, SPAN), 400800);
	cr_assert_eq(num(&t, 0, BUSY), 640);
	cr_assert_eq(num(&t, 0, IDLE), 400160);
	cr_assert_eq(num(&t, 0, HOST_WAIT), 150);
	cr_assert_eq(num(&t, 0, KERNEL_GAP), 10);
	cr_assert_eq(num(&t, 0, SYNC), 200000);
	cr_assert_eq(num(&t, 0, OTHER), 200000);
	trex_table_free(&t);
}

Test(gpu_time, idle_kernel_gap_threshold)
{
	/* The kernel gap is shorter than 30 us; a launch starting exactly as
	 * the GPU goes idle is not host wait (HTA: ts_runtime > prev_end).
	 *   [200, 30200)    30000: launched at 20, not < 30000     -> other
	 *   [30300, 60299)  29999: launched at 40                  -> kernel gap
	 *   [60400, 60500)    100: launched at 60400 = gap start   -> kernel gap
	 * Span 60500, busy 100+100+101+100 = 401, idle 60099. */
	const struct gev ev[] = {
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 0, 10, 1},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 20, 10, 2},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 40, 10, 3},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 60400, 10, 4},
	    {"0", "7", "kernel", "k", 100, 100, 1},
	    {"0", "7", "kernel", "k", 30200, 100, 2},
	    {"0", "7", "kernel", "k", 60299, 101, 3},
	    {"0", "7", "kernel", "k", 60500, 100, 4},
	};
	struct trex_table t;

	gpu_time(ev, ARRAY_SIZE(ev), &t);
	cr_assert_eq(num(&t, 0, IDLE), 60099);
	cr_assert_eq(num(&t, 0, HOST_WAIT), 0);
	cr_assert_eq(num(&t, 0, KERNEL_GAP), 30099);
	cr_assert_eq(num(&t, 0, SYNC), 0);
	cr_assert_eq(num(&t, 0, OTHER), 30000);
	trex_table_free(&t);
}

Test(gpu_time, idle_gaps_of_the_device_union)
{
	/* Streams 7 and 8 of GPU 0; gaps are those of the union, the previous
	 * work's end is the device's, and the next work is everything
	 * starting at the gap's end (its earliest launch counts):
	 *   union [100, 400) [600, 800) [1000, 1100) [1150, 1200)
	 *   [400, 600)   200: K3 launched at 350 <= 400 (stream 7 alone ended
	 *                     at 300, which per stream would be host wait) -> kernel gap
	 *   [800, 1000)  200: K5 launched at 900 > 800, K6 no launch     -> host wait
	 *   [1100, 1150)  50: K7 launched at 920, K8 at 1120: earliest 920 -> kernel gap
	 * Span 1100, busy 300+200+100+50 = 650, idle 450. */
	const struct gev ev[] = {
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 0, 10, 1},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 20, 10, 2},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 350, 10, 3},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 900, 10, 5},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 920, 10, 7},
	    {"1", "100", "cuda_runtime", "cudaLaunchKernel", 1120, 10, 8},
	    {"0", "7", "kernel", "k1", 100, 200, 1},
	    {"0", "8", "kernel", "k2", 150, 250, 2},
	    {"0", "7", "kernel", "k3", 600, 100, 3},
	    {"0", "8", "kernel", "k4", 650, 150, 0},
	    {"0", "8", "kernel", "k5", 1000, 100, 5},
	    {"0", "7", "kernel", "k6", 1000, 50, 0},
	    {"0", "7", "kernel", "k7", 1150, 50, 7},
	    {"0", "8", "kernel", "k8", 1150, 10, 8},
	};
	struct trex_table t;

	gpu_time(ev, ARRAY_SIZE(ev), &t);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(num(&t, 0, SPAN), 1100);
	cr_assert_eq(num(&t, 0, BUSY), 650);
	cr_assert_eq(num(&t, 0, IDLE), 450);
	cr_assert_eq(num(&t, 0, HOST_WAIT), 200);
	cr_assert_eq(num(&t, 0, KERNEL_GAP), 250);
	cr_assert_eq(num(&t, 0, SYNC), 0);
	cr_assert_eq(num(&t, 0, OTHER), 0);
	trex_table_free(&t);
}

Test(gpu_time, idle_sync_of_its_own_device_and_file)
{
	/* GPU 0 and GPU 1, no launches. A Context Sync on GPU 1 spans GPU 0's
	 * gap [10, 100) but belongs to the other device: GPU 0's gap is other,
	 * GPU 1's gap [30, 200) holds it: sync. */
	const struct gev ev[] = {
	    {"0", "7", "kernel", "a", 0, 10, 0},
	    {"0", "7", "kernel", "b", 100, 10, 0},
	    {"1", "7", "kernel", "c", 20, 10, 0},
	    {"1", "7", "kernel", "d", 200, 10, 0},
	    {"1", "9", "cuda_sync", "Context Sync", 50, 60, 0},
	};
	struct trex_table t;

	gpu_time(ev, ARRAY_SIZE(ev), &t);
	cr_assert_eq(t.nrows, 2);
	cr_assert_eq(num(&t, 0, OTHER), 90);
	cr_assert_eq(num(&t, 0, SYNC), 0);
	cr_assert_eq(num(&t, 1, SYNC), 170);
	cr_assert_eq(num(&t, 1, OTHER), 0);
	trex_table_free(&t);
}
