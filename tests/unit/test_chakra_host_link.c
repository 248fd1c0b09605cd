/* Host ET linking's matcher and call order (chakra_host_link.h): which
 * host op is which op of the trace, and the converter's chains. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "trex/export/chakra_host_link.h"

#define NONE UINT64_MAX
#define N(a) (sizeof(a) / sizeof((a)[0]))

Test(host_link_match, by_record_function_id_and_name)
{
	const struct trex_host_op host[] = {
	    {1, NONE, 0, "[pytorch|profiler|execution_trace|thread]"},
	    {2, 1, 10, "aten::mm"},
	    {3, 1, 11, "aten::relu"},
	    {4, 1, 12, "aten::add"},
	    {5, 1, -1, "aten::mm"},
	};
	/* start order; relu's id is taken by an op of another name */
	const struct trex_trace_op trace[] = {
	    {12, "aten::add"}, {11, "aten::sigmoid"}, {10, "aten::mm"}, {-1, "aten::mm"}};
	size_t match[N(host)];
	struct trex_chakra_host_link_stats st = {0};

	cr_assert(trex_host_link_match(host, N(host), trace, N(trace), match, &st));
	cr_assert_eq(match[0], SIZE_MAX);
	cr_assert_eq(match[1], 2);
	cr_assert_eq(match[2], SIZE_MAX, "same id, another name: not linked");
	cr_assert_eq(match[3], 0);
	cr_assert_eq(match[4], SIZE_MAX, "no name fallback while the trace has ids");
	cr_assert_eq(st.matched_rf_id, 2);
	cr_assert_eq(st.matched_by_name, 0);
	cr_assert_eq(st.name_mismatch, 1);
	cr_assert_eq(st.unmatched_ops, 3);
}

Test(host_link_match, a_trace_op_links_one_host_op)
{
	const struct trex_host_op host[] = {{1, NONE, 7, "aten::mm"}, {2, NONE, 7, "aten::mm"}};
	const struct trex_trace_op trace[] = {{7, "aten::mm"}};
	size_t match[N(host)];
	struct trex_chakra_host_link_stats st = {0};

	cr_assert(trex_host_link_match(host, N(host), trace, N(trace), match, &st));
	cr_assert_eq(match[0], 0);
	cr_assert_eq(match[1], SIZE_MAX);
	cr_assert_eq(st.unmatched_ops, 1);
}

Test(host_link_match, same_id_twice_in_the_trace_takes_the_named_one)
{
	const struct trex_host_op host[] = {{1, NONE, 7, "aten::mm"}};
	const struct trex_trace_op trace[] = {{7, "aten::add"}, {7, "aten::mm"}};
	size_t match[1];
	struct trex_chakra_host_link_stats st = {0};

	cr_assert(trex_host_link_match(host, 1, trace, N(trace), match, &st));
	cr_assert_eq(match[0], 1);
	cr_assert_eq(st.name_mismatch, 0);
}

Test(host_link_match, without_ids_by_name_and_order)
{
	const struct trex_host_op host[] = {{1, NONE, 10, "aten::mm"},
	                                    {2, NONE, 11, "aten::add"},
	                                    {3, NONE, 12, "aten::mm"},
	                                    {4, NONE, 13, "aten::relu"}};
	const struct trex_trace_op trace[] = {
	    {-1, "aten::mm"}, {-1, "aten::mm"}, {-1, "aten::add"}, {-1, "aten::mm"}};
	size_t match[N(host)];
	struct trex_chakra_host_link_stats st = {0};

	cr_assert(trex_host_link_match(host, N(host), trace, N(trace), match, &st));
	cr_assert_eq(match[0], 0, "the first mm to the first");
	cr_assert_eq(match[1], 2);
	cr_assert_eq(match[2], 1, "the second mm to the second");
	cr_assert_eq(match[3], SIZE_MAX);
	cr_assert_eq(st.matched_by_name, 3);
	cr_assert_eq(st.matched_rf_id, 0);
	cr_assert_eq(st.unmatched_ops, 1);
}

Test(host_link_match, nothing_to_match)
{
	const struct trex_host_op host[] = {{1, NONE, 1, "a"}};
	size_t match[1];
	struct trex_chakra_host_link_stats st = {0};

	cr_assert(trex_host_link_match(host, 1, NULL, 0, match, &st));
	cr_assert_eq(match[0], SIZE_MAX);
	cr_assert_eq(st.unmatched_ops, 1);
}

Test(host_link_chain, call_order_per_thread)
{
	const struct trex_host_op host[] = {
	    {1, NONE, -1, "[pytorch|profiler|execution_trace|process]"},
	    {2, 1, -1, "[pytorch|profiler|execution_trace|thread]"},
	    {3, 2, -1, "aten::linear"},
	    {4, 3, -1, "aten::mm"},
	    {5, 2, -1, "aten::relu"},
	    {6, 1, -1, "[pytorch|profiler|execution_graph|thread]"},
	    {7, 6, -1, "autograd::engine"},
	    {8, 1, -1, "aten::empty"},
	};
	size_t prev[N(host)];

	cr_assert(trex_host_link_chain(host, N(host), prev));
	cr_assert_eq(prev[0], SIZE_MAX);
	cr_assert_eq(prev[1], SIZE_MAX, "a thread starts a chain of its own");
	cr_assert_eq(prev[2], 1);
	cr_assert_eq(prev[3], 2, "a callee after its caller");
	cr_assert_eq(prev[4], 3, "the caller's next callee after the last op of the one before");
	cr_assert_eq(prev[5], SIZE_MAX);
	cr_assert_eq(prev[6], 5);
	cr_assert_eq(prev[7], 0, "the process's own callee after it, not after a thread's ops");
}

Test(host_link_chain, callers_in_id_order_not_file_order)
{
	/* 2's callees 4 and 3: the walk takes 3 first, as the converter does */
	const struct trex_host_op host[] = {
	    {2, NONE, -1, "root"}, {3, 2, -1, "b"}, {4, 2, -1, "a"}, {5, 4, -1, "c"}};
	size_t prev[N(host)];

	cr_assert(trex_host_link_chain(host, N(host), prev));
	cr_assert_eq(prev[1], 0);
	cr_assert_eq(prev[2], 1);
	cr_assert_eq(prev[3], 2);
}

Test(host_link_chain, missing_self_and_cyclic_callers)
{
	const struct trex_host_op host[] = {{1, 99, -1, "missing caller"},
	                                    {2, 2, -1, "itself"},
	                                    {3, 4, -1, "cycle a"},
	                                    {4, 3, -1, "cycle b"},
	                                    {5, 2, -1, "after itself"}};
	size_t prev[N(host)];

	cr_assert(trex_host_link_chain(host, N(host), prev));
	cr_assert_eq(prev[0], SIZE_MAX);
	cr_assert_eq(prev[1], SIZE_MAX);
	cr_assert_eq(prev[2], SIZE_MAX, "ops on a caller cycle head chains");
	cr_assert_eq(prev[3], SIZE_MAX);
	cr_assert_eq(prev[4], 1);
}

Test(host_link_chain, find_by_id)
{
	const struct trex_host_op host[] = {
	    {2, NONE, -1, "a"}, {5, NONE, -1, "b"}, {9, 5, -1, "c"}};

	cr_assert_eq(trex_host_op_find(host, 3, 5), 1);
	cr_assert_eq(trex_host_op_find(host, 3, 9), 2);
	cr_assert_eq(trex_host_op_find(host, 3, 3), SIZE_MAX);
	cr_assert_eq(trex_host_op_find(host, 0, 2), SIZE_MAX);
}
