/* The dependency-graph store: ids resolved per file, duplicates, dangling
 * deps, which deps order, cycle cutting, the topological order, per-rank
 * lists, collective and transfer matching, appending, the slice binding. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/core/graph.h"

static uint32_t S(struct trex_graph *g, const char *s)
{
	return trex_graph_intern(g, s, strlen(s));
}

/* A node of file, rank, id and type named name. */
static uint32_t node(struct trex_graph *g, uint32_t file, uint32_t rank, uint64_t id,
                     enum trex_node_type type, const char *name)
{
	struct trex_graph_node n = {
	    .id = id,
	    .dur = 10,
	    .comm_bytes = -1,
	    .offset = -1,
	    .file = file,
	    .rank = rank,
	    .name = S(g, name),
	    .peer = -1,
	    .type = (uint8_t)type,
	};
	uint32_t v = trex_graph_add_node(g, &n);
	cr_assert_neq(v, TREX_GRAPH_NONE);
	return v;
}

static uint32_t coll(struct trex_graph *g, uint32_t rank, uint64_t id, const char *group)
{
	struct trex_graph_node n = {
	    .id = id,
	    .dur = TREX_GRAPH_DUR_UNKNOWN,
	    .comm_bytes = 1024,
	    .file = rank,
	    .rank = rank,
	    .name = S(g, "allreduce"),
	    .group = S(g, group),
	    .peer = -1,
	    .type = TREX_NODE_COMM_COLL,
	    .collective = TREX_COLLECTIVE_ALL_REDUCE,
	};
	return trex_graph_add_node(g, &n);
}

static uint32_t p2p(struct trex_graph *g, enum trex_node_type type, uint32_t rank, uint64_t id,
                    int32_t peer, int32_t tag)
{
	struct trex_graph_node n = {
	    .id = id,
	    .dur = 5,
	    .comm_bytes = 64,
	    .file = rank,
	    .rank = rank,
	    .peer = peer,
	    .tag = tag,
	    .type = (uint8_t)type,
	};
	return trex_graph_add_node(g, &n);
}

static void finish(struct trex_graph *g)
{
	struct trex_error err;
	cr_assert_eq(trex_graph_finish(g, &err), TREX_OK);
}

/* The edge from -> to, or NULL. */
static const struct trex_graph_edge *edge(const struct trex_graph *g, uint32_t from, uint32_t to)
{
	uint32_t n;
	const uint32_t *e = trex_graph_edges_of(g, to, true, &n);
	for (uint32_t i = 0; i < n; i++)
		if (trex_graph_edge(g, e[i])->from == from)
			return trex_graph_edge(g, e[i]);
	return NULL;
}

/* The edge from -> to, which must exist. */
static const struct trex_graph_edge *the_edge(const struct trex_graph *g, uint32_t from,
                                              uint32_t to)
{
	const struct trex_graph_edge *e = edge(g, from, to);

	cr_assert_not_null(e, "no edge %u -> %u", from, to);
	return e;
}

Test(graph, labels)
{
	cr_assert_str_eq(trex_node_type_label(TREX_NODE_COMM_COLL), "collective");
	cr_assert_str_eq(trex_node_type_label(TREX_NODE_MEM_LOAD), "mem load");
	cr_assert_str_eq(trex_collective_label(TREX_COLLECTIVE_REDUCE_SCATTER), "reduce-scatter");
	cr_assert_str_eq(trex_node_type_label((enum trex_node_type)99), "?");
}

Test(graph, deps_resolve_within_their_file)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t a0 = node(g, 0, 0, 1, TREX_NODE_COMP, "a0");
	uint32_t b0 = node(g, 0, 0, 2, TREX_NODE_COMP, "b0");
	uint32_t a1 = node(g, 1, 1, 1, TREX_NODE_COMP, "a1");
	uint32_t b1 = node(g, 1, 1, 2, TREX_NODE_COMP, "b1");
	cr_assert_eq(trex_graph_add_dep(g, b0, 1, TREX_DEP_DATA), 0);
	cr_assert_eq(trex_graph_add_dep(g, b1, 1, TREX_DEP_DATA), 0);
	finish(g);
	cr_assert_eq(trex_graph_edge_count(g), 2);
	cr_assert_not_null(edge(g, a0, b0));
	cr_assert_not_null(edge(g, a1, b1));
	cr_assert_null(edge(g, a0, b1));
	cr_assert(the_edge(g, a0, b0)->flags & TREX_DEP_ORDERS);
	uint32_t n;
	const uint32_t *out = trex_graph_edges_of(g, a1, false, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(trex_graph_edge(g, out[0])->to, b1);
	cr_assert_str_eq(trex_graph_str(g, trex_graph_node(g, b1)->name), "b1");
	trex_graph_free(g);
}

Test(graph, duplicate_ids_are_flagged_and_deps_name_the_first)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t first = node(g, 0, 0, 7, TREX_NODE_COMP, "first");
	uint32_t second = node(g, 0, 0, 7, TREX_NODE_COMP, "second");
	uint32_t child = node(g, 0, 0, 8, TREX_NODE_COMP, "child");
	trex_graph_add_dep(g, child, 7, TREX_DEP_DATA);
	finish(g);
	cr_assert_not_null(edge(g, first, child));
	cr_assert_null(edge(g, second, child));
	cr_assert(trex_graph_node(g, second)->flags & TREX_NODE_DUPLICATE_ID);
	cr_assert_not(trex_graph_node(g, first)->flags & TREX_NODE_DUPLICATE_ID);
	cr_assert_eq(trex_graph_problem_count(g, 0, TREX_GRAPH_DUPLICATE_ID), 1);
	uint32_t n;
	const struct trex_graph_problem *p =
	    trex_graph_problem_examples(g, 0, TREX_GRAPH_DUPLICATE_ID, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(p[0].node, second);
	cr_assert_eq(p[0].other_id, 7);
	trex_graph_free(g);
}

Test(graph, dangling_deps_are_counted_with_examples)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t a = node(g, 3, 0, 1, TREX_NODE_COMP, "a");
	for (uint64_t i = 0; i < 20; i++)
		trex_graph_add_dep(g, a, 100 + i, TREX_DEP_DATA);
	finish(g);
	cr_assert_eq(trex_graph_edge_count(g), 0);
	cr_assert_eq(trex_graph_problem_count(g, 3, TREX_GRAPH_DANGLING_DEP), 20);
	cr_assert_eq(trex_graph_problem_count(g, 0, TREX_GRAPH_DANGLING_DEP), 0);
	uint32_t n;
	const struct trex_graph_problem *p =
	    trex_graph_problem_examples(g, 3, TREX_GRAPH_DANGLING_DEP, &n);
	cr_assert_eq(n, TREX_GRAPH_EXAMPLES);
	cr_assert_eq(p[0].node, a);
	cr_assert_eq(p[0].other_id, 100);
	cr_assert_eq(p[7].other_id, 107);
	cr_assert_eq(trex_graph_problem_count(g, 99, TREX_GRAPH_DANGLING_DEP), 0);
	trex_graph_free(g);
}

Test(graph, ctrl_deps_order_only_in_a_file_without_data_deps)
{
	struct trex_graph *g = trex_graph_new();
	/* file 0 has data deps: its ctrl dep is the call tree, not an order */
	uint32_t a = node(g, 0, 0, 1, TREX_NODE_COMP, "a");
	uint32_t b = node(g, 0, 0, 2, TREX_NODE_COMP, "b");
	uint32_t c = node(g, 0, 0, 3, TREX_NODE_COMP, "c");
	trex_graph_add_dep(g, b, 1, TREX_DEP_DATA);
	trex_graph_add_dep(g, c, 1, TREX_DEP_CTRL);
	/* file 1 (legacy) has only ctrl deps: they order */
	uint32_t x = node(g, 1, 1, 1, TREX_NODE_COMP, "x");
	uint32_t y = node(g, 1, 1, 2, TREX_NODE_COMP, "y");
	trex_graph_add_dep(g, y, 1, TREX_DEP_CTRL);
	finish(g);
	cr_assert_eq(the_edge(g, a, b)->flags, TREX_DEP_ORDERS);
	cr_assert_eq(the_edge(g, a, b)->kind, TREX_DEP_DATA);
	cr_assert_eq(the_edge(g, a, c)->flags, 0);
	cr_assert_eq(the_edge(g, a, c)->kind, TREX_DEP_CTRL);
	cr_assert_eq(the_edge(g, x, y)->flags, TREX_DEP_ORDERS);
	trex_graph_free(g);
}

Test(graph, a_cycle_is_cut_at_its_smallest_node)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t pre = node(g, 0, 0, 50, TREX_NODE_COMP, "pre");
	uint32_t a = node(g, 0, 0, 10, TREX_NODE_COMP, "a");
	uint32_t b = node(g, 0, 0, 11, TREX_NODE_COMP, "b");
	uint32_t c = node(g, 0, 0, 12, TREX_NODE_COMP, "c");
	uint32_t after = node(g, 0, 0, 13, TREX_NODE_COMP, "after");
	trex_graph_add_dep(g, a, 50, TREX_DEP_DATA); /* from outside the cycle: kept */
	trex_graph_add_dep(g, a, 12, TREX_DEP_DATA); /* c -> a closes it */
	trex_graph_add_dep(g, b, 10, TREX_DEP_DATA);
	trex_graph_add_dep(g, c, 11, TREX_DEP_DATA);
	trex_graph_add_dep(g, after, 12, TREX_DEP_DATA);
	finish(g);
	cr_assert(the_edge(g, c, a)->flags & TREX_DEP_BROKEN);
	cr_assert_not(the_edge(g, pre, a)->flags & TREX_DEP_BROKEN);
	cr_assert_not(the_edge(g, a, b)->flags & TREX_DEP_BROKEN);
	cr_assert(trex_graph_node(g, a)->flags & TREX_NODE_IN_CYCLE);
	cr_assert_not(trex_graph_node(g, b)->flags & TREX_NODE_IN_CYCLE);
	cr_assert_eq(trex_graph_problem_count(g, 0, TREX_GRAPH_CYCLE), 1);
	uint32_t n;
	const struct trex_graph_problem *p =
	    trex_graph_problem_examples(g, 0, TREX_GRAPH_CYCLE, &n);
	cr_assert_eq(p[0].node, a);
	cr_assert_eq(p[0].other_id, 12);
	const uint32_t *topo = trex_graph_topo_order(g);
	uint32_t want[] = {pre, a, b, c, after};
	for (int i = 0; i < 5; i++)
		cr_assert_eq(topo[i], want[i], "topo[%d] = %u", i, topo[i]);
	trex_graph_free(g);
}

Test(graph, a_self_dependency_and_two_cycles_are_cut)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t s = node(g, 0, 0, 1, TREX_NODE_COMP, "self");
	trex_graph_add_dep(g, s, 1, TREX_DEP_DATA);
	/* two cycles through one node: x <-> y and y <-> z; cutting y's in-edges ends both */
	uint32_t y = node(g, 0, 0, 2, TREX_NODE_COMP, "y");
	uint32_t x = node(g, 0, 0, 3, TREX_NODE_COMP, "x");
	uint32_t z = node(g, 0, 0, 4, TREX_NODE_COMP, "z");
	trex_graph_add_dep(g, x, 2, TREX_DEP_DATA);
	trex_graph_add_dep(g, y, 3, TREX_DEP_DATA);
	trex_graph_add_dep(g, z, 2, TREX_DEP_DATA);
	trex_graph_add_dep(g, y, 4, TREX_DEP_DATA);
	finish(g);
	cr_assert(the_edge(g, s, s)->flags & TREX_DEP_BROKEN);
	cr_assert(the_edge(g, x, y)->flags & TREX_DEP_BROKEN);
	cr_assert(the_edge(g, z, y)->flags & TREX_DEP_BROKEN);
	cr_assert_not(the_edge(g, y, x)->flags & TREX_DEP_BROKEN);
	cr_assert_eq(trex_graph_problem_count(g, 0, TREX_GRAPH_CYCLE), 3);
	const uint32_t *topo = trex_graph_topo_order(g);
	cr_assert_eq(topo[0], s);
	cr_assert_eq(topo[1], y);
	trex_graph_free(g);
}

Test(graph, nested_cycles_are_cut_until_none_is_left)
{
	struct trex_graph *g = trex_graph_new();
	/* 0 -> 1 -> 2 -> 3 -> 1 and 3 -> 0: cutting 0's in-edge leaves 1 -> 2 -> 3 -> 1 */
	uint32_t v[4];
	for (int i = 0; i < 4; i++)
		v[i] = node(g, 0, 0, (uint64_t)i, TREX_NODE_COMP, "n");
	trex_graph_add_dep(g, v[1], 0, TREX_DEP_DATA);
	trex_graph_add_dep(g, v[2], 1, TREX_DEP_DATA);
	trex_graph_add_dep(g, v[3], 2, TREX_DEP_DATA);
	trex_graph_add_dep(g, v[1], 3, TREX_DEP_DATA);
	trex_graph_add_dep(g, v[0], 3, TREX_DEP_DATA);
	finish(g);
	cr_assert(the_edge(g, v[3], v[0])->flags & TREX_DEP_BROKEN);
	cr_assert(the_edge(g, v[3], v[1])->flags & TREX_DEP_BROKEN);
	cr_assert_not(the_edge(g, v[0], v[1])->flags & TREX_DEP_BROKEN);
	const uint32_t *topo = trex_graph_topo_order(g);
	for (uint32_t i = 0; i < 4; i++)
		cr_assert_eq(topo[i], v[i]);
	trex_graph_free(g);
}

Test(graph, topological_order_breaks_ties_by_rank_then_file_order)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t r1a = node(g, 0, 1, 1, TREX_NODE_COMP, "r1a");
	uint32_t r0a = node(g, 0, 0, 2, TREX_NODE_COMP, "r0a");
	uint32_t r1b = node(g, 0, 1, 3, TREX_NODE_COMP, "r1b");
	uint32_t r0b = node(g, 0, 0, 4, TREX_NODE_COMP, "r0b");
	trex_graph_add_dep(g, r0a, 3, TREX_DEP_DATA); /* r1b -> r0a */
	finish(g);
	const uint32_t *topo = trex_graph_topo_order(g);
	uint32_t want[] = {r0b, r1a, r1b, r0a};
	for (int i = 0; i < 4; i++)
		cr_assert_eq(topo[i], want[i], "topo[%d] = %u", i, topo[i]);
	trex_graph_free(g);
}

Test(graph, rank_lists_keep_file_order_and_gaps)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t a = node(g, 0, 2, 1, TREX_NODE_COMP, "a");
	uint32_t b = node(g, 0, 0, 2, TREX_NODE_COMP, "b");
	uint32_t c = node(g, 1, 2, 1, TREX_NODE_COMP, "c");
	finish(g);
	cr_assert_eq(trex_graph_rank_count(g), 3);
	uint32_t n;
	const uint32_t *r2 = trex_graph_rank_nodes(g, 2, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(r2[0], a);
	cr_assert_eq(r2[1], c);
	const uint32_t *r0 = trex_graph_rank_nodes(g, 0, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(r0[0], b);
	cr_assert_null(trex_graph_rank_nodes(g, 1, &n));
	cr_assert_eq(n, 0);
	trex_graph_rank_nodes(g, 77, &n);
	cr_assert_eq(n, 0);
	trex_graph_free(g);
}

Test(graph, the_kth_collective_of_a_group_matches_across_ranks)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t r0[3], r1[2], other;
	r0[0] = coll(g, 0, 1, "dp");
	other = coll(g, 0, 2, "tp");
	r0[1] = coll(g, 0, 3, "dp");
	r0[2] = coll(g, 0, 4, "dp");
	r1[0] = coll(g, 1, 1, "dp");
	r1[1] = coll(g, 1, 2, "dp");
	finish(g);
	const struct trex_graph_match *m0 = trex_graph_match(g, trex_graph_node(g, r0[0])->match);
	cr_assert_eq(trex_graph_node(g, r1[0])->match, trex_graph_node(g, r0[0])->match);
	cr_assert_eq(trex_graph_node(g, r1[1])->match, trex_graph_node(g, r0[1])->match);
	cr_assert_eq(m0->count, 2);
	cr_assert(m0->complete);
	cr_assert_eq(m0->ordinal, 0);
	cr_assert_eq(m0->collective, TREX_COLLECTIVE_ALL_REDUCE);
	cr_assert_str_eq(trex_graph_str(g, m0->group), "dp");
	const uint32_t *members = trex_graph_match_members(g);
	cr_assert_eq(members[m0->first], r0[0]);
	cr_assert_eq(members[m0->first + 1], r1[0]);
	/* the third of rank 0 has no peer on rank 1 */
	const struct trex_graph_match *m2 = trex_graph_match(g, trex_graph_node(g, r0[2])->match);
	cr_assert_eq(m2->count, 1);
	cr_assert_eq(m2->ordinal, 2);
	cr_assert_not(m2->complete);
	cr_assert_eq(trex_graph_problem_count(g, 0, TREX_GRAPH_UNMATCHED_COMM), 1);
	cr_assert_eq(trex_graph_problem_count(g, 1, TREX_GRAPH_UNMATCHED_COMM), 0);
	/* "tp" is on rank 0 alone: a complete group of one */
	cr_assert(trex_graph_match(g, trex_graph_node(g, other)->match)->complete);
	uint32_t n;
	const uint32_t *ranks = trex_graph_group_ranks(g, trex_graph_node(g, r0[0])->group, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(ranks[0], 0);
	cr_assert_eq(ranks[1], 1);
	cr_assert_eq(trex_graph_match_count(g), 4);
	trex_graph_free(g);
}

Test(graph, set_group_ranks_decide_completeness)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t dp = S(g, "dp");
	uint32_t ranks[] = {0, 1, 2};
	cr_assert_eq(trex_graph_set_group_ranks(g, dp, ranks, 3), 0);
	uint32_t a = coll(g, 0, 1, "dp");
	coll(g, 1, 1, "dp");
	finish(g);
	const struct trex_graph_match *m = trex_graph_match(g, trex_graph_node(g, a)->match);
	cr_assert_eq(m->count, 2);
	cr_assert_not(m->complete);
	uint32_t n;
	trex_graph_group_ranks(g, dp, &n);
	cr_assert_eq(n, 3);
	cr_assert_eq(trex_graph_problem_count(g, 0, TREX_GRAPH_UNMATCHED_COMM), 1);
	trex_graph_free(g);
}

Test(graph, sends_match_receives_by_source_destination_and_tag)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t s1 = p2p(g, TREX_NODE_COMM_SEND, 0, 1, 1, 5);
	uint32_t s2 = p2p(g, TREX_NODE_COMM_SEND, 0, 2, 1, 5);
	uint32_t s3 = p2p(g, TREX_NODE_COMM_SEND, 0, 3, 1, 6);
	uint32_t lone = p2p(g, TREX_NODE_COMM_SEND, 0, 4, 2, 5);
	uint32_t r3 = p2p(g, TREX_NODE_COMM_RECV, 1, 1, 0, 6);
	uint32_t r1 = p2p(g, TREX_NODE_COMM_RECV, 1, 2, 0, 5);
	uint32_t r2 = p2p(g, TREX_NODE_COMM_RECV, 1, 3, 0, 5);
	uint32_t back = p2p(g, TREX_NODE_COMM_RECV, 0, 5, 1, 5); /* 1 -> 0 never sent */
	finish(g);
	uint32_t pairs[][2] = {{s1, r1}, {s2, r2}, {s3, r3}};
	const uint32_t *members = trex_graph_match_members(g);
	for (int i = 0; i < 3; i++) {
		uint32_t m = trex_graph_node(g, pairs[i][0])->match;
		cr_assert_eq(trex_graph_node(g, pairs[i][1])->match, m, "pair %d", i);
		const struct trex_graph_match *mm = trex_graph_match(g, m);
		cr_assert(mm->complete);
		cr_assert_eq(mm->count, 2);
		cr_assert_eq(members[mm->first], pairs[i][0]);
		cr_assert_eq(mm->collective, TREX_COLLECTIVE_NONE);
	}
	cr_assert_eq(trex_graph_match(g, trex_graph_node(g, s2)->match)->ordinal, 1);
	cr_assert_not(trex_graph_match(g, trex_graph_node(g, lone)->match)->complete);
	cr_assert_not(trex_graph_match(g, trex_graph_node(g, back)->match)->complete);
	cr_assert_eq(trex_graph_problem_count(g, 0, TREX_GRAPH_UNMATCHED_COMM), 2);
	cr_assert_eq(trex_graph_problem_count(g, 1, TREX_GRAPH_UNMATCHED_COMM), 0);
	trex_graph_free(g);
}

Test(graph, append_joins_files_and_their_strings)
{
	struct trex_graph *g = trex_graph_new();
	struct trex_graph *f0 = trex_graph_new();
	struct trex_graph *f1 = trex_graph_new();
	node(f0, 0, 0, 1, TREX_NODE_COMP, "gemm");
	uint32_t c0 = node(f0, 0, 0, 2, TREX_NODE_COMP, "relu");
	trex_graph_add_dep(f0, c0, 1, TREX_DEP_DATA);
	node(f1, 1, 1, 1, TREX_NODE_COMP, "only-in-one");
	uint32_t c1 = node(f1, 1, 1, 2, TREX_NODE_COMP, "relu");
	trex_graph_add_dep(f1, c1, 1, TREX_DEP_DATA);
	uint32_t pg = S(f1, "pg");
	uint32_t ranks[] = {1, 4};
	trex_graph_set_group_ranks(f1, pg, ranks, 2);
	cr_assert_eq(trex_graph_append(g, f0), 0);
	cr_assert_eq(trex_graph_append(g, f1), 0);
	uint32_t gpg = S(g, "pg");
	finish(g);
	cr_assert_eq(S(g, "late"), TREX_GRAPH_NONE);
	cr_assert_eq(trex_graph_node_count(g), 4);
	cr_assert_str_eq(trex_graph_str(g, trex_graph_node(g, 2)->name), "only-in-one");
	cr_assert_str_eq(trex_graph_str(g, trex_graph_node(g, 3)->name), "relu");
	cr_assert_eq(trex_graph_node(g, 3)->name, trex_graph_node(g, 1)->name);
	cr_assert_not_null(edge(g, 0, 1));
	cr_assert_not_null(edge(g, 2, 3));
	uint32_t n;
	const uint32_t *r = trex_graph_group_ranks(g, gpg, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(r[1], 4);
	cr_assert_gt(trex_graph_memory(g), 0);
	/* a finished store takes nothing more */
	cr_assert_eq(trex_graph_add_node(g, trex_graph_node(g, 0)), TREX_GRAPH_NONE);
	trex_graph_free(g);
}

Test(graph, bad_fields_from_a_loader_are_clamped)
{
	struct trex_graph *g = trex_graph_new();
	struct trex_graph_node n = {
	    .name = 12345, .group = 999, .type = 200, .collective = 3, .flags = 0xff};
	uint32_t v = trex_graph_add_node(g, &n);
	cr_assert_eq(trex_graph_add_dep(g, 77, 1, TREX_DEP_DATA), -1);
	finish(g);
	const struct trex_graph_node *d = trex_graph_node(g, v);
	cr_assert_eq(d->name, 0);
	cr_assert_eq(d->type, TREX_NODE_OTHER);
	cr_assert_eq(d->collective, TREX_COLLECTIVE_NONE);
	cr_assert_eq(d->flags, TREX_NODE_CPU);
	cr_assert_str_eq(trex_graph_str(g, 4000), "");
	cr_assert_null(trex_graph_node(g, 1));
	trex_graph_free(g);
}

Test(graph, slices_bind_both_ways)
{
	struct trex_graph *g = trex_graph_new();
	uint32_t a = node(g, 0, 0, 1, TREX_NODE_COMP, "a");
	uint32_t b = node(g, 0, 0, 2, TREX_NODE_COMP, "b");
	uint32_t c = node(g, 0, 0, 3, TREX_NODE_COMP, "c");
	finish(g);
	trex_graph_bind_slice(g, a, 4);
	trex_graph_bind_slice(g, c, 0);
	trex_graph_bind_slice(g, b, 99); /* beyond the slices: dropped */
	struct trex_error err;
	cr_assert_eq(trex_graph_bind_done(g, 5, &err), TREX_OK);
	cr_assert_eq(trex_graph_node_of_slice(g, 4), a);
	cr_assert_eq(trex_graph_node_of_slice(g, 0), c);
	cr_assert_eq(trex_graph_node_of_slice(g, 1), TREX_GRAPH_NONE);
	cr_assert_eq(trex_graph_node_of_slice(g, 5), TREX_GRAPH_NONE);
	cr_assert_eq(trex_graph_node(g, b)->slice, TREX_GRAPH_NONE);
	cr_assert_eq(trex_graph_node(g, a)->slice, 4);
	trex_graph_free(g);
}

Test(graph, an_empty_graph_finishes)
{
	struct trex_graph *g = trex_graph_new();
	finish(g);
	cr_assert_eq(trex_graph_node_count(g), 0);
	cr_assert_eq(trex_graph_rank_count(g), 0);
	cr_assert_eq(trex_graph_match_count(g), 0);
	trex_graph_free(g);
}

/* 64 ranks, each a chain of 4000 nodes with an all-reduce every 100. */
Test(graph, many_ranks_chain_and_match)
{
	struct trex_graph *g = trex_graph_new();
	for (uint32_t r = 0; r < 64; r++)
		for (uint64_t i = 0; i < 4000; i++) {
			uint32_t v = i % 100 == 99 ? coll(g, r, i, "world")
			                           : node(g, r, r, i, TREX_NODE_COMP, "k");
			if (i)
				trex_graph_add_dep(g, v, i - 1, TREX_DEP_DATA);
		}
	finish(g);
	cr_assert_eq(trex_graph_edge_count(g), 64 * 3999);
	cr_assert_eq(trex_graph_match_count(g), 40);
	for (uint32_t m = 0; m < 40; m++)
		cr_assert(trex_graph_match(g, m)->complete && trex_graph_match(g, m)->count == 64);
	const uint32_t *topo = trex_graph_topo_order(g);
	uint32_t *pos = calloc(64 * 4000, sizeof(*pos));
	for (uint32_t i = 0; i < 64 * 4000; i++)
		pos[topo[i]] = i;
	for (uint32_t e = 0; e < trex_graph_edge_count(g); e++)
		cr_assert_lt(pos[trex_graph_edge(g, e)->from], pos[trex_graph_edge(g, e)->to]);
	free(pos);
	trex_graph_free(g);
}
