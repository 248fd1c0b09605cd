/* The slices' side tables (index.h: trex_slice_launch_link, ...): what
 * only some slices have, read back by slice id whatever the share of
 * slices that have it, across the store's blocks and at its ends. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "index_fixture.h"
#include "trex/core/index.h"
#include "trex/core/kind.h"
#include "trex/load/classify.h"

/* More than two blocks of the store (builder_internal.h: 32768 records). */
#define MANY 65543u

static bool at_end(uint32_t i)
{
	return i == 0 || i == MANY - 1;
}

/* Kernel i on one stream, one after the other, so slice id i is kernel i.
 * Every one has an op link; every third a launch link; the ends and, when
 * middle, the first of the second block a shape; the ends communicate
 * (NCCL). */
static bool shaped(uint32_t i, bool middle)
{
	return at_end(i) || (middle && i == 32768);
}

static struct trex_index *many_on(unsigned threads, bool middle)
{
	struct trex_build_file file = fixture_file("many.json");
	struct trex_builder *b = trex_builder_new(0);
	char shape[64];

	cr_assert_not_null(b);
	for (uint32_t i = 0; i < MANY; i++) {
		struct fixture_slice s = {"0",
		                          "7",
		                          "kernel",
		                          at_end(i) ? "ncclDevKernel_AllReduce" : "gemm",
		                          (int64_t)i * 10,
		                          5,
		                          i % 3 == 0 ? i + 1 : 0,
		                          1000000 + i,
		                          shaped(i, middle) ? shape : NULL};

		snprintf(shape, sizeof(shape), "grid=[%u,1,1] block=[128,1,1] smem=0", i);
		fixture_add(b, &file, &s);
	}
	return fixture_build_on(&file, &b, 1, threads);
}

static struct trex_index *many(void)
{
	return many_on(1, true);
}

static void check_many(struct trex_index *idx, bool middle)
{
	char want[64];

	cr_assert_eq(trex_index_slice_count(idx), MANY);
	for (uint32_t i = 0; i < MANY; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		uint32_t shape = trex_slice_shape(idx, i);

		cr_assert_eq(s->ts, (int64_t)i * 10, "slice %u is kernel %u", i, i);
		cr_assert_eq(trex_slice_op_link(idx, i), 1000000 + i, "all have one");
		cr_assert(s->flags & TREX_SLICE_HAS_OP_LINK);
		cr_assert_eq(trex_slice_launch_link(idx, i), i % 3 == 0 ? i + 1 : 0);
		cr_assert_eq(!!(s->flags & TREX_SLICE_HAS_LAUNCH_LINK), i % 3 == 0);
		cr_assert_eq(trex_slice_comm(idx, i) != TREX_COMM_NONE, at_end(i), "slice %u", i);
		if (shaped(i, middle)) {
			snprintf(want, sizeof(want), "grid=[%u,1,1] block=[128,1,1] smem=0", i);
			cr_assert_str_eq(trex_index_str(idx, shape), want);
		} else {
			cr_assert_eq(shape, 0, "slice %u has no shape", i);
		}
	}
	trex_index_free(idx);
}

Test(index_side, many_all_and_the_ends_read_back_by_id)
{
	check_many(many(), true);
}

/* Over BLD_PAR_MIN_RECORDS: two workers share the blocks' narrowing (as
 * the scheduler lets them), and the side values are joined in block order. */
Test(index_side, many_built_on_two_threads_read_back_the_same)
{
	check_many(many_on(2, true), true);
}

/* The second block has no shape between two that have: its part of the
 * join is empty (an empty block's NULL values once reached memcpy, which
 * the sanitizer build's run of this test reported). */
Test(index_side, a_block_without_shapes_between_blocks_with_some)
{
	check_many(many_on(1, false), false);
}

Test(index_side, ids_past_the_slices_have_nothing)
{
	struct trex_index *idx = many();
	const uint32_t past[] = {MANY, MANY + 1, TREX_NONE};

	for (size_t k = 0; k < sizeof(past) / sizeof(past[0]); k++) {
		cr_assert_eq(trex_slice_launch_link(idx, past[k]), 0);
		cr_assert_eq(trex_slice_op_link(idx, past[k]), 0);
		cr_assert_eq(trex_slice_shape(idx, past[k]), 0);
		cr_assert_eq(trex_slice_comm(idx, past[k]), TREX_COMM_NONE);
	}
	trex_index_free(idx);
}

Test(index_side, none_have_any)
{
	struct trex_build_file file = fixture_file("none.json");
	struct trex_builder *b = trex_builder_new(0);
	struct trex_index *idx;

	cr_assert_not_null(b);
	for (int i = 0; i < 100; i++) {
		struct fixture_slice s = {"1", "2", "cpu_op", "aten::add", i * 10, 5, 0, 0, NULL};

		fixture_add(b, &file, &s);
	}
	idx = fixture_build(&file, &b, 1);
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		cr_assert_eq(trex_index_slice(idx, i)->flags &
		                 (TREX_SLICE_HAS_LAUNCH_LINK | TREX_SLICE_HAS_OP_LINK),
		             0);
		cr_assert_eq(trex_slice_launch_link(idx, i), 0);
		cr_assert_eq(trex_slice_op_link(idx, i), 0);
		cr_assert_eq(trex_slice_shape(idx, i), 0);
		cr_assert_eq(trex_slice_comm(idx, i), TREX_COMM_NONE);
	}
	trex_index_free(idx);
}

Test(index_side, the_index_holds_40_bytes_a_slice)
{
	struct trex_index *idx = many();
	size_t n = trex_index_memory(idx);

	/* per slice: 40 bytes, its op link in the side table (8) and the op
	 * link table (8), a third of a launch link in both (8 / 3 + 12 / 3):
	 * 62.7; with the links inside the slice record (56 bytes) it was 68.7 */
	cr_assert_lt(n, (size_t)MANY * 64, "%zu bytes, %.2f a slice", n, (double)n / MANY);
	trex_index_free(idx);
}

/* ---- communication by launching op, classified on several workers ---- */

#define OP_THREADS 8u
#define OP_UNITS 3000u /* 8 x 3000 x 3 slices: over BLD_PAR_MIN_RECORDS */

static bool unit_is_c10d(uint32_t thread, uint32_t unit)
{
	return (unit + thread) % 3 == 0;
}

/* Unit u of CPU thread t: an op (c10d::allreduce_ or aten::mm) with a
 * runtime launch inside; its kernel, of a name no rule knows, follows the
 * launch link, or every fifth unit only the op link of the op. */
static struct trex_index *launched(unsigned threads)
{
	struct trex_build_file file = fixture_file("launched.json");
	struct trex_builder *b = trex_builder_new(0);
	char tid[8];

	cr_assert_not_null(b);
	for (uint32_t t = 0; t < OP_THREADS; t++) {
		snprintf(tid, sizeof(tid), "%u", t + 1);
		for (uint32_t u = 0; u < OP_UNITS; u++) {
			uint32_t key = t * OP_UNITS + u + 1;
			bool by_op = u % 5 == 0;
			int64_t at = (int64_t)u * 1000;
			struct fixture_slice op = {
			    "1",      tid,
			    "cpu_op", unit_is_c10d(t, u) ? "c10d::allreduce_" : "aten::mm",
			    at,       500,
			    0,        key,
			    NULL};
			struct fixture_slice rt = {
			    "1", tid, "cuda_runtime", "cudaLaunchKernel", at + 100, 50, key,
			    0,   NULL};
			struct fixture_slice k = {"0",
			                          "7",
			                          "kernel",
			                          "gemm_k",
			                          (int64_t)key * 100,
			                          10,
			                          by_op ? 0 : key,
			                          by_op ? key : 0,
			                          NULL};

			fixture_add(b, &file, &op);
			fixture_add(b, &file, &rt);
			fixture_add(b, &file, &k);
		}
	}
	return fixture_build_on(&file, &b, 1, threads);
}

static void check_launched(struct trex_index *idx, unsigned threads)
{
	uint32_t kernels = 0;

	cr_assert_eq(trex_index_slice_count(idx), OP_THREADS * OP_UNITS * 3);
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		uint32_t key;

		if (s->kind != TREX_KIND_KERNEL)
			continue;
		key = (uint32_t)(s->ts / 100) - 1;
		kernels++;
		cr_assert_eq(trex_slice_comm(idx, i),
		             unit_is_c10d(key / OP_UNITS, key % OP_UNITS) ? TREX_COMM_C10D_OP
		                                                          : TREX_COMM_NONE,
		             "threads %u: kernel of thread %u unit %u", threads, key / OP_UNITS,
		             key % OP_UNITS);
	}
	cr_assert_eq(kernels, OP_THREADS * OP_UNITS);
	trex_index_free(idx);
}

Test(index_side, launching_ops_decide_communication_alike_on_one_and_four_workers)
{
	check_launched(launched(1), 1);
	check_launched(launched(4), 4);
}
